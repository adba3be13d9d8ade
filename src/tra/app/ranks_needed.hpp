#pragma once
// How many ranks a plan that does not fit needs. When the chosen plan's
// estimated peak on its fullest rank is over the memory bound, the same
// deck is planned again for twice the ranks, four times, ... up to
// kMaxFactor times (the plan is what tra-run would choose there, under the
// same bound per rank), and the first count whose plan fits is what the
// error tells the user: "it fits on 8 ranks". Counts between the doublings
// are not tried (a plan depends on which counts divide the tensors, so 6
// might fit where 4 does not), and the estimate shrinks with the ranks only
// as far as the deck's tensors are split (one held whole on every rank
// bounds it from below); planning for many ranks costs more than for few
// (the ogbn-arxiv-sized GCN: 0.4 s at 1 rank, 1.5 s at 4), so the search
// stops at kMaxFactor times the ranks and then names the counts it tried.
#include <cstdint>
#include <optional>

#include "tra/app/plan_deck.hpp"

namespace tra::app {

constexpr int kMaxFactor = 16;

struct RanksNeeded {
  int ranks = 0;
  std::int64_t peak_bytes = 0;  // the estimate on the fullest rank there
};

// Collective over `team` (it shares each planning, as plan_deck does).
std::optional<RanksNeeded> ranks_needed(const model::Workflow& wf, int nranks, const physical::OptimizerOptions& options,
                                        const comm::Communicator* team);

}  // namespace tra::app
