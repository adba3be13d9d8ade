#pragma once
// Small graph edits the optimizer's rules are made of. A rule appends the
// nodes it creates, points the consumers of the node it replaces at the new
// one, and normalize() then drops what no root needs and restores the order
// "inputs before consumers" that the executor relies on.
#include "tra/physical/ia_plan.hpp"

namespace tra::physical {

// Appends n; returns its index.
int add_node(IaPlan& p, IaNode n);
// Every use of node `from` (as an input, a root or a TRA node's result) now uses `to`.
void redirect(IaPlan& p, int from, int to);
// The consumers of every node.
std::vector<std::vector<int>> consumers(const IaPlan& p);
// Whether some root needs node `i`. (A search's plan keeps the nodes its
// rewrites replaced until it is normalized: dead, and never inferred again.)
bool needed(const IaPlan& p, int i);
// The nodes some root needs, inputs before their consumers; among the nodes
// ready, the one of smallest rank comes first (rank[i]; without ranks, i).
std::vector<int> topological_order(const IaPlan& p, const std::vector<int>& rank = {});
// The same order after an edit of a plan whose nodes were `before` (in
// order) when it had `size_before` nodes: ranked by their places in
// `before`, then the nodes appended, then any others the roots need now, by
// index. An edit rarely breaks that order, and then it is the answer
// without a sort or a queue (the search orders its plan once per trial).
std::vector<int> topological_order_after_edit(const IaPlan& p, const std::vector<int>& before, size_t size_before);
// Keeps the nodes in `order` only, in that order (a topological order of the
// nodes the roots need); returns where each node went (-1: removed).
std::vector<int> reorder(IaPlan& p, const std::vector<int>& order);
// Dead-node removal and a topological order (topological_order() without
// ranks); indices change. Returns where each node went (-1: removed).
std::vector<int> normalize(IaPlan& p);

IaNode make_bcast(int in);
IaNode make_shuffle(int in, std::vector<int> dims, Shape site_grid = {});

}  // namespace tra::physical
