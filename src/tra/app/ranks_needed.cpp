#include "tra/app/ranks_needed.hpp"

#include "tra/common/error.hpp"

namespace tra::app {

std::optional<RanksNeeded> ranks_needed(const model::Workflow& wf, int nranks, const physical::OptimizerOptions& options,
                                        const comm::Communicator* team) {
  for (int n = nranks * 2; n <= nranks * kMaxFactor; n *= 2) {
    try {
      const PlannedDeck p = plan_deck(wf, n, options, team);
      if (p.memory.peak_bytes <= options.memory_per_rank) return RanksNeeded{n, p.memory.peak_bytes};
    } catch (const UserError&) {
      // A count the deck cannot be planned for (its fixed partitioning
      // wants more parts than it has sites, say): not one that fits. Every
      // rank plans alike, so every rank goes on alike.
    }
  }
  return std::nullopt;
}

}  // namespace tra::app
