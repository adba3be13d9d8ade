#pragma once
// Deck → chosen IA plan: lowering (with the partitioner's d's), Table-1
// compilation and plan search, for the outputs the deck writes. A training
// deck (train:) is first given its backward graph (autodiff/), so that the
// labeling and the plan search see forward and backward as one graph.
//
// Under the eindecomp partitioner the labeling is checked against the IA plan.
// EinDecomp's §7 cost is an upper bound: it charges every kernel call for its
// inputs, while the optimizer places inputs where they are read (a weight read
// whole on every rank moves nothing) and keeps large operands in place (CMM).
// So the same graph is also lowered with the baselines' labelings
// (model-parallel, data-parallel, sqrt) and each is optimized; the labeling
// whose IA plan has the lowest estimated time wins (an input read whole on
// several ranks costs its reading time there); estimates within 1% are ties,
// decided by the floats moved or read again, then EinDecomp's is kept. On the
// square chain at 4 ranks EinDecomp's labeling moves as many floats as SQRT's
// (25.2 M) but SQRT's is estimated faster: EinDecomp's 4 kernel calls leave
// its inputs in 2 chunks each, read and sent by 2 of the 4 ranks
// (docs/eindecomp.md).
// The check costs one optimization per distinct labeling (two where a
// sparse tensor is cut into blocks: read everywhere and spread), so it is skipped
// for graphs of more than kMaxCheckedStatements EinSum statements, and can be
// switched off with `--disable baseline-labelings`. Given the ranks'
// communicator, the ranks share it: each optimizes every size-th labeling,
// they exchange the candidates' costs, and the rank that optimized the
// winner sends the edits its search kept, from which the others make the
// same plan without searching (physical::replay): at 4 ranks one
// optimization a rank instead of 4.
#include <map>
#include <string>
#include <vector>

#include "tra/comm/communicator.hpp"
#include "tra/logical/lower.hpp"
#include "tra/model/workflow.hpp"
#include "tra/physical/memory_estimate.hpp"
#include "tra/physical/optimizer.hpp"

namespace tra::app {

inline constexpr const char* kBaselineLabelings = "baseline-labelings";  // --disable name of the check
inline constexpr std::size_t kMaxCheckedStatements = 64;

// One labeling that was lowered and optimized.
struct LabelingCandidate {
  std::string partitioner;  // whose d's: eindecomp, model-parallel, data-parallel, sqrt; "+spread": sparse blocks spread (physical/compile.hpp)
  std::string same_as;  // not optimized: its d's are those of this earlier candidate
  physical::PlanCost cost;  // of its optimized IA plan (a training step's with its Carry operators)
  Index replicated_reads = 0;  // floats of inputs read on more than one site, beyond the first copy
  std::int64_t peak_bytes = 0;  // estimated peak memory per rank (physical/memory_estimate.hpp)
  Index carried_floats = 0;  // a training step's loop-carried tensors between iterations (of cost.floats_moved)
  bool chosen = false;
  Index floats() const { return cost.floats_moved + replicated_reads; }  // what decides between estimates alike
  double seconds() const { return cost.seconds; }  // an iteration's, for a training step
};

// What plan_deck minimises over labelings: a lower time estimate (for a
// training step, with its loop-carried tensors' movement); between
// estimates within 1%, fewer floats(); then the lower estimate. A candidate
// over `memory_per_rank` (0: none) is never preferred to one within it.
bool preferred(const LabelingCandidate& a, const LabelingCandidate& b, std::int64_t memory_per_rank = 0);

struct PlannedDeck {
  model::Workflow workflow;  // the deck's, with a training deck's gradient statements after its own
  std::size_t deck_statements = 0;  // how many of workflow.graph the deck wrote
  logical::Lowering lowering;  // of the chosen labeling
  physical::Optimized optimized;  // its IA plan
  std::vector<int> output_nodes;  // wf.outputs[i] -> node of optimized.chosen (a trained parameter: its update)
  // A training run's: the loss and every X.next (X read by the next
  // iteration) -> node of optimized.chosen.
  std::map<std::string, int> iteration_nodes;
  // A training run's loop-carried tensors X (parameters, optimizer state):
  // the node of X.next, the Scans of X the next iteration feeds from it, and
  // the Carry operators that do (physical/ops/carry.hpp).
  struct Carried {
    int next = -1;
    std::vector<int> scans;
    std::vector<int> carries;
  };
  std::map<std::string, Carried> carried;
  // Floats the Carry operators move between two iterations, all ranks
  // together (of optimized.cost's floats moved).
  Index carried_floats = 0;
  physical::MemoryEstimate memory;  // of the chosen plan: above options' memory_per_rank only when no labeling compared fits (it needs least)
  std::vector<LabelingCandidate> candidates;  // empty when no check was made
  std::string check_note;  // why there was no check, when there was a reason to say
  // How this rank has its plan: searched, or made from the search another
  // rank made of the same labeling (replayed from its steps); searched after
  // a replay that failed or came out otherwise (never, in the tests).
  enum class Made { Searched, Replayed, SearchedAfterReplay } made = Made::Searched;
};

// `team`: the ranks that share the labelings' check (collective over it); none:
// this process checks every labeling itself. The plan is the same either way.
PlannedDeck plan_deck(const model::Workflow& wf, int nranks, const physical::OptimizerOptions& options, const comm::Communicator* team = nullptr);

// A graph derived from a deck (a training site's, a held-out evaluation's)
// planned for one rank: the deck's partitioning for its ranks dropped, the
// partitioner EinDecomp's.
void drop_partitioning(model::Workflow& wf);

// The chosen plan as a candidate (its cost with its Carry operators,
// replicated reads and carried floats), to compare planned decks by
// preferred().
LabelingCandidate chosen_candidate(const PlannedDeck& p);

// The candidates as --explain shows them under the partitioning.
std::string candidates_text(const PlannedDeck& p);
// The statements the gradient pass generated, one per line ("" for a deck
// without train:).
std::string gradients_text(const PlannedDeck& p);

}  // namespace tra::app
