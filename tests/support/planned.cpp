#include "support/planned.hpp"

#include "tra/io/deck/deck_reader.hpp"
#include "tra/logical/lower.hpp"
#include "tra/physical/compile.hpp"

namespace tra::test {

physical::IaPlan planned(const std::string& deck, int ranks, const physical::OptimizerOptions& options) {
  const model::Workflow wf = io::parse_deck(deck, "deck.yaml", "");
  return physical::optimize(physical::compile(logical::lower(wf, ranks).plan, ranks), options).chosen;
}

PlannedFor planned_for(const std::string& deck, int ranks, const std::vector<std::string>& wanted, const physical::OptimizerOptions& options) {
  const auto low = logical::lower(io::parse_deck(deck, "deck.yaml", ""), ranks);
  physical::IaPlan ia = physical::compile(low.plan, ranks);
  ia.roots.clear();
  for (const std::string& t : wanted) ia.roots.push_back(ia.tra_to_ia[static_cast<size_t>(low.tensor_node.at(t))]);
  PlannedFor out{physical::optimize(ia, options).chosen, {}};
  for (size_t k = 0; k < wanted.size(); ++k) out.node[wanted[k]] = out.plan.roots[k];
  return out;
}

}  // namespace tra::test
