#include "support/planned.hpp"

#include "tra/io/deck/deck_reader.hpp"
#include "tra/logical/lower.hpp"
#include "tra/physical/compile.hpp"

namespace tra::test {

physical::IaPlan planned(const std::string& deck, int ranks, const physical::OptimizerOptions& options) {
  const model::Workflow wf = io::parse_deck(deck, "deck.yaml", "");
  return physical::optimize(physical::compile(logical::lower(wf, ranks).plan, ranks), options).chosen;
}

}  // namespace tra::test
