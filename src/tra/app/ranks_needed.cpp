#include "tra/app/ranks_needed.hpp"

namespace tra::app {

std::optional<RanksNeeded> ranks_needed(const model::Workflow& wf, int nranks, const physical::OptimizerOptions& options,
                                        const comm::Communicator* team) {
  for (int n = nranks * 2; n <= nranks * kMaxFactor; n *= 2) {
    const PlannedDeck p = plan_deck(wf, n, options, team);
    if (p.memory.peak_bytes <= options.memory_per_rank) return RanksNeeded{n, p.memory.peak_bytes};
  }
  return std::nullopt;
}

}  // namespace tra::app
