#pragma once
// Workflow → TRA plan. Checks the EinSum graph (undefined tensors, label and
// bound mismatches, use before definition), picks each statement's
// partitioning vector d (EinDecomp §4.4), and rewrites every statement into
// TRA: a join on the shared labels and an aggregation over the summed ones,
// with a re-chunking of an input wherever its chunk grid differs from d.
//
// The d's come from the deck's partitioner (EinDecomp by default; see
// tra/decomp/partitioners.hpp and docs/eindecomp.md), planned over the whole
// EinSum graph before lowering; a statement named under `run: partitioning:`
// keeps the deck's d. Statements that read a TRA statement's output are planned
// when lowering reaches them, once the shapes of those outputs are known.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tra/decomp/costs.hpp"
#include "tra/logical/tra_plan.hpp"
#include "tra/model/workflow.hpp"

namespace tra::logical {

// How the d's were chosen, and their §7 cost terms as lowered: the
// re-partitioning of an input is costed from the grid it is held on when the
// statement reads it (the grid a Retile node starts from), 0 when it is read
// for the first time on the statement's grid.
struct DecompositionReport {
  std::string partitioner;  // eindecomp, sqrt, data-parallel, model-parallel, manual
  Index kernel_calls = 1;  // p (§6): ranks rounded up to a power of two, times the over-decomposition
  int nranks = 1;
  Index overdecomposition = 1;
  std::vector<std::string> methods;  // per planning round, where it starts and how it searched (a statement reading a TRA output starts a new round)
  std::set<std::string> from_deck;  // statements whose d the deck sets
  // Per statement, the summed labels whose d follows its operand's finer
  // chunks (partial results aggregated instead of the operand re-chunked).
  std::map<std::string, std::vector<std::string>> aggregated_in_parts;
  std::map<std::string, decomp::StatementCost> cost;  // statement output -> its terms
  double total = 0;
};

struct Lowering {
  TraPlan plan;
  std::map<std::string, int> tensor_node;  // tensor -> node holding it last
  std::map<std::string, std::map<std::string, Index>> d;  // statement output -> label -> parts
  DecompositionReport decomposition;
};

// The plan is self-contained: its inputs hold copies of their declarations.
Lowering lower(const model::Workflow& wf, int nranks);
// The same with another partitioner than the deck's (app/plan_deck.hpp tries
// the baselines' labelings).
Lowering lower(const model::Workflow& wf, int nranks, model::RunOptions::Partitioner partitioner);

}  // namespace tra::logical
