#pragma once
// The plan a search holds and the edits it tries on it in place (a rule's
// rewrite, a join strategy), each of which can be taken back: no candidate
// needs a copy of the plan. Internal to the optimizer (optimizer.hpp).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tra/physical/carry_plan.hpp"
#include "tra/physical/cost_model.hpp"
#include "tra/physical/ia_plan.hpp"
#include "tra/physical/infer.hpp"
#include "tra/physical/optimizer.hpp"
#include "tra/physical/plan_edit.hpp"
#include "tra/physical/rules/rule.hpp"

namespace tra::physical {

// A plan's links as they stand between the search's edits: every node's
// inputs and whether it is stale, the roots and the TRA nodes' results. The
// held plan keeps them (Held::links), so that a trial, which most often
// finds nothing to rewrite or is taken back, copies none of them; an edit
// that is kept takes the old ones along, to put back if it is undone.
struct Links {
  std::vector<int> first;  // node i's inputs: inputs[first[i]] up to inputs[first[i + 1] - 1]
  std::vector<int> inputs;
  std::vector<char> stale;
  std::vector<int> roots, tra_to_ia;

  Links() = default;
  explicit Links(const IaPlan& p) : first{0}, roots(p.roots), tra_to_ia(p.tra_to_ia) {
    first.reserve(p.nodes.size() + 1);
    inputs.reserve(2 * p.nodes.size());
    stale.reserve(p.nodes.size());
    for (const auto& n : p.nodes) {
      inputs.insert(inputs.end(), n.inputs.begin(), n.inputs.end());
      first.push_back(static_cast<int>(inputs.size()));
      stale.push_back(n.stale);
    }
  }
  // Whether node i, n, has the inputs it had.
  bool same_inputs(size_t i, const IaNode& n) const {
    const auto from = inputs.begin() + first[i], to = inputs.begin() + first[i + 1];
    return static_cast<long>(n.inputs.size()) == to - from && std::equal(from, to, n.inputs.begin());
  }
  // Node i, n, linked as it was.
  void restore(size_t i, IaNode& n) const {
    n.inputs.assign(inputs.begin() + first[i], inputs.begin() + first[i + 1]);
    n.stale = stale[i];
  }
};

// What an edit of a plan in place may change besides the nodes it appends: a
// rule changes the parameters of the node it rewrites and the inputs, roots
// and results of others, never a distribution (which the snapshot leaves out,
// as it is large). A join strategy changes the join's parameters and inputs
// and the inputs of the aggregation after it, the same kinds of fields. The
// links before the edit are the held plan's (Links).
struct Snapshot {
  size_t size;
  int at;
  IaNode node;  // parameters of node `at`, without its distribution

  Snapshot(IaPlan& p, int at_) : size(p.nodes.size()), at(at_) {
    Distribution keep = std::move(p.node(at).dist);
    node = p.node(at);
    p.node(at).dist = std::move(keep);
  }
  // After the edit: the nodes whose inputs changed since `before`, which need
  // inferring again with the edited node (marked stale; appended ones are
  // stale already).
  std::vector<int> mark_rewritten(IaPlan& rewritten, const Links& before) const {
    rewritten.node(at).stale = true;
    std::vector<int> changed;
    for (size_t i = 0; i < size; ++i)
      if (!before.same_inputs(i, rewritten.nodes[i])) {
        rewritten.nodes[i].stale = true;
        changed.push_back(static_cast<int>(i));
      }
    return changed;
  }
  // The plan as it was, but for what inference overwrote since: the edited
  // node, and the nodes `changed` linked as `before` has them.
  void restore(IaPlan& p, const Links& before, const std::vector<int>& changed) const {
    p.nodes.resize(size);
    Distribution keep = std::move(p.node(at).dist);
    p.node(at) = node;
    p.node(at).dist = std::move(keep);
    before.restore(static_cast<size_t>(at), p.node(at));
    for (int i : changed) before.restore(static_cast<size_t>(i), p.node(i));
    p.roots = before.roots;
    p.tra_to_ia = before.tra_to_ia;
  }
};

// Every variant of every rule has a bit in Held::no_match (all_rules() order):
// the first of `rule`'s, and the bits of the rules never tried at an operator
// of kind `k`.
int first_slot(const Rule* rule);
uint64_t rules_not_at(IaNode::Kind k);

class Trial;

// A rewrite that applied at a node and was taken back as no cheaper: by how
// much it raised the estimate, and the state of every node its verdict read
// (Held::verdicts).
struct Verdict {
  std::vector<std::pair<int, uint64_t>> read;  // a node and its version then
  double seconds = 0;  // the rewritten plan's estimate less the plan's
};

// Whether every Trial's undo is checked against a copy of the plan's
// parameters (off by default: it copies every node per trial).
bool checking_undo();
void set_checking_undo(bool on);
// Whether a rewrite whose remembered verdict says "no cheaper" is tried
// anyway and checked to raise the estimate by what was remembered (off by
// default: it saves no trial).
bool checking_verdicts();
void set_checking_verdicts(bool on);

// A plan the search holds, and its cost. While rules are tried on it the plan
// is kept loose: a rewrite appends its nodes and leaves the nodes it replaced
// where they are, and `order` lists the nodes the roots need, inputs first,
// as normalize() would order them; the search and the cost follow `order`, so
// they see exactly the normalized plan. (Normalizing moves every node after
// the first one a rewrite touches, which in a long plan costs far more than
// the rewrite; tidy() does it once a search or a join's strategies are done.)
//
// It also holds what the search learnt: at which nodes which rules found
// nothing to rewrite. Whether a rule applies at a node depends, for all but
// the few rules that look further (Search::reads_deep, never remembered),
// only on that node, its inputs and their inputs (their parameters and
// inferred fields), so a rule that did not apply at a node will not apply
// there until one of those changes. A search that settles a plan differing
// from a settled one near one join then tries the rules near that join only,
// not at every node of a long plan again. The rules never tried at a node's
// kind count as not applying from the start.
//
// A rewrite that applied but was not kept raised the estimate by what it
// changed: the nodes it edited, linked anew, inferred again, dropped or
// brought back, and what their estimates read (their inputs; their users,
// whose changes renew the versions of their inputs). While every one of those is in the same
// state, the same rewrite changes the same nodes the same way, so it raises
// the estimate by the same amount again, and where that amount is far above
// the estimates' tie (PlanCost::better_than: a part in a million) it is no
// cheaper again: it is not tried (`verdicts`, Search::settle). A node's
// version names its state: a kept edit gives a new one to every node it
// touched and to their inputs (whose users changed), and its undo puts the
// old ones back. The verdicts assume the rates and carried tensors of one
// optimization (a Held is made per optimization).
struct Held {
  IaPlan plan;
  PlanCost cost;
  std::vector<int> order;  // the nodes the roots need, in normalized order
  std::vector<uint64_t> no_match;  // per node: bit slot(rule, variant) set = the rule does not apply here
  Links links;  // the plan's, between edits
  std::vector<PlanStep>* record = nullptr;  // where kept edits are written down, while the search keeps them for good
  std::vector<uint64_t> version;  // per node: its state's name, new after a kept edit touched it
  uint64_t last_version = 0;  // the names given so far (never given twice)
  std::unordered_map<uint64_t, Verdict> verdicts;  // by verdict_key(node, rule variant slot)

  Held(IaPlan normalized, PlanCost c)
      : plan(std::move(normalized)), cost(std::move(c)), order(plan.nodes.size()), no_match(plan.nodes.size(), 0), links(plan),
        version(plan.nodes.size()), last_version(plan.nodes.size()) {
    std::iota(order.begin(), order.end(), 0);
    std::iota(version.begin(), version.end(), 1);
    for (size_t i = 0; i < plan.nodes.size(); ++i) no_match[i] = rules_not_at(plan.nodes[i].kind());
  }

  static uint64_t verdict_key(int node, int slot) { return static_cast<uint64_t>(node) * 64 + static_cast<uint64_t>(slot); }
  // Whether the verdict on a rewrite is still "no cheaper" by a clear margin.
  bool still_no_cheaper(const Verdict& v) const;
  // Trial t (applied, inferred, no cheaper by `seconds`, not yet taken back)
  // remembered as the verdict on its rewrite `slot` at its node. A training
  // step's carry of X (`carried`) is costed from X.next and every Scan of X
  // together: a trial that touched one of them read them all.
  void remember_no_cheaper(const Trial& t, int slot, double seconds, const CarriedRoots& carried);

  // After trial `t` was kept: the plan's links taken anew (t keeps the old
  // ones for its undo), and what was learnt forgotten for the nodes
  // inferred again and the nodes one or two levels above them.
  void edited(Trial& t);

  // The plan normalized (dead nodes dropped, nodes in `order`), with what was
  // learnt about its nodes.
  void tidy();
};

// An edit of the held plan made in place (a rule's rewrite, a join strategy)
// that can be taken back, so that no candidate needs a copy of the plan.
class Trial {
 public:
  // Before the edit at node `at`. Under check_undo (a test's, as it copies
  // every node per trial), a trial also keeps every node's parameters, and
  // its undo checks that the Snapshot's contract held: an edit that changed
  // another node's parameters would leave the plan changed after its undo.
  Trial(Held& h, int at) : h_(&h), before_(h.plan, at) {
    if (checking_undo()) keep_parameters();
  }

  // After the edit: the nodes the roots need now, in order, and what changed
  // inferred again.
  void infer() {
    IaPlan& p = h_->plan;
    changed_ = before_.mark_rewritten(p, h_->links);
    marked_ = true;
    order_before_ = std::move(h_->order);
    // Ranked as normalize() would see them: the nodes in their places in the
    // order, then the appended ones.
    h_->order = topological_order_after_edit(p, order_before_, before_.size);
    redone_ = infer_stale(p, h_->order, &overwritten_);
  }
  const IaNode& edited_node() const { return before_.node; }  // as it was
  int at() const { return before_.at; }
  size_t size_before() const { return before_.size; }
  const std::vector<int>& redone() const { return redone_; }  // the nodes inferred again
  const std::vector<int>& order_before() const { return order_before_; }
  // The nodes whose state or estimate the edit may have changed: the edited
  // one, those relinked, inferred again, appended, dropped from the nodes the
  // roots need or brought back; and the inputs of all of them, before and
  // after (their users changed). `old_links`: the plan's before the edit.
  std::vector<int> touched(const Links& old_links) const;

  // The plan exactly as it was before the edit; edits made after this one
  // must have been taken back first.
  void undo() {
    for (auto it = overwritten_.rbegin(); it != overwritten_.rend(); ++it) it->second.restore(h_->plan.nodes[static_cast<size_t>(it->first)]);
    if (links_before_) {  // this edit was kept: its links and versions were the plan's
      h_->links = std::move(*links_before_);
      for (auto it = versions_before_.rbegin(); it != versions_before_.rend(); ++it) h_->version[static_cast<size_t>(it->first)] = it->second;
      h_->version.resize(version_count_before_);
    }
    if (!marked_) changed_ = before_.mark_rewritten(h_->plan, h_->links);
    before_.restore(h_->plan, h_->links, changed_);
    h_->order = std::move(order_before_);
    if (kept_) check_undone();
  }
  // Kept: the held plan's links before it, to put back on undo.
  void keep_links(Links before) { links_before_ = std::make_unique<Links>(std::move(before)); }
  // Kept: the versions of the nodes it touched before it, to put back on undo.
  void keep_versions(std::vector<std::pair<int, uint64_t>> before, size_t count) {
    versions_before_ = std::move(before);
    version_count_before_ = count;
  }

 private:
  void keep_parameters();
  void check_undone() const;  // an InternalError naming the node the undo did not restore
  std::unique_ptr<std::vector<IaNode>> kept_;  // every node without its distribution, when checked

  Held* h_;
  Snapshot before_;
  std::vector<int> changed_;  // the nodes before the edit whose inputs it changed
  bool marked_ = false;  // changed_ found
  std::unique_ptr<Links> links_before_;  // when kept
  std::vector<std::pair<int, uint64_t>> versions_before_;  // when kept
  size_t version_count_before_ = 0;
  std::vector<int> order_before_;
  std::vector<int> redone_;
  std::vector<std::pair<int, Inferred>> overwritten_;  // what inference overwrote in the nodes it inferred again
};

}  // namespace tra::physical
