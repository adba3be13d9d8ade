// Reads a deck with the installed engine and lowers it to a TRA plan: the
// headers, the library and every dependency it links are found through
// find_package(tra). Prints the version, the statements and the plan's size.
#include <iostream>

#include "tra/common/build_info.hpp"
#include "tra/io/deck/deck_reader.hpp"
#include "tra/logical/lower.hpp"

int main() {
  const tra::model::Workflow wf = tra::io::parse_deck(R"deck(tensors:
  - {name: X, shape: [64, 32], source: "uniform(-1, 1, 1)"}
  - {name: W, shape: [32, 16], source: "normal(0, 0.1, 2)"}
graph:
  - "H[b,o] = sum_f X[b,f] * W[f,o]"
  - "Y[b,o] = relu(H[b,o])"
)deck",
                                                      "consumer.yaml", "");
  const tra::logical::Lowering low = tra::logical::lower(wf, 2);
  std::cout << tra::version_line("consumer") << ": " << wf.graph.size() << " statements, " << low.plan.nodes.size() << " TRA nodes\n";
  return wf.graph.size() == 2 && !low.plan.nodes.empty() ? 0 : 1;
}
