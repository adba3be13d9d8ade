// model::unused: what a deck declares or computes and never uses, with its
// place, for tra-run's warnings.
#include <gtest/gtest.h>

#include "tra/io/deck/deck_reader.hpp"
#include "tra/model/workflow.hpp"

namespace tra::model {
namespace {

std::vector<std::string> unused_text(const std::string& deck) {
  std::vector<std::string> out;
  for (const auto& [where, what] : unused(io::parse_deck(deck, "d.yaml", ""))) out.push_back(where.str() + ": " + what);
  return out;
}

const char* const kDeck = R"deck(tensors:
  - {name: A, shape: [4, 4], source: "ones"}
  - {name: B, shape: [4, 4], source: "ones"}
graph:
  - "C[i,j] = relu(A[i,j])"
  - "D[i,j] = C[i,j] * 2"
)deck";

TEST(Workflow, UnusedTensorsAndResultsAreNamedWhereTheyStand) {
  const std::string written = std::string(kDeck) + "outputs:\n  - {tensor: C, file: out.h5}\n";
  EXPECT_EQ(unused_text(written), (std::vector<std::string>{"d.yaml:3:5: tensor 'B' is declared but no statement, output or train: uses it",
                                                            "d.yaml:6:6: 'D' is computed but nothing reads or writes it, so it is not computed"}));
}

TEST(Workflow, WithoutOutputsTheGraphsResultsAreNotUnused) {
  EXPECT_EQ(unused_text(kDeck), (std::vector<std::string>{"d.yaml:3:5: tensor 'B' is declared but no statement, output or train: uses it"}));
}

TEST(Workflow, EverythingUsedGivesNoWarning) {
  const std::string all = std::string(kDeck) + "  - \"E[i,j] = D[i,j] + B[i,j]\"\noutputs:\n  - {tensor: E, file: out.h5}\n";
  EXPECT_TRUE(unused_text(all).empty());
}

}  // namespace
}  // namespace tra::model
