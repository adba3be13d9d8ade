// Lowering an EinSum statement whose one operand is held split finer, along a
// label the statement aggregates, than its d says: d follows the operand
// there and the partial results are aggregated, instead of the operand being
// re-chunked (logical/lower.cpp, Lowerer::aggregated_in_parts). A deck input whose
// chunks the deck fixes is held like a computed tensor. The results themselves
// are checked by the deck regression tests (nn_large takes this path).
#include <gtest/gtest.h>

#include <string>

#include "tra/io/deck/deck_reader.hpp"
#include "tra/logical/lower.hpp"

using namespace tra;
using D = std::map<std::string, Index>;

namespace {

// h is computed on {n: 2, e: 4}; `stmt` reads it with the deck's d `d_stmt`.
std::string deck(const std::string& stmt, const std::string& d_stmt) {
  return "tensors:\n"
         "  - {name: X, shape: [8, 16], source: ones}\n"
         "graph:\n"
         "  - \"h[n,e] = X[n,e] * 2\"\n"
         "  - \"" +
         stmt +
         "\"\n"
         "run:\n"
         "  partitioning:\n"
         "    h: {n: 2, e: 4}\n"
         "    out: " +
         d_stmt + "\n";
}

logical::Lowering lower(const std::string& text) { return logical::lower(io::parse_deck(text, "deck.yaml", ""), 2); }

bool retiles(const logical::Lowering& low) {
  for (const auto& n : low.plan.nodes)
    if (n.kind == logical::TraNode::Kind::Retile) return true;
  return false;
}

}  // namespace

TEST(Lowering, AnAggregatedLabelKeepsItsOperandsParts) {
  struct Case {
    const char* stmt;
    const char* d;
    D want;
    std::vector<std::string> followed;
  };
  for (const Case& c : {Case{"out[n] = sum_e h[n,e]", "{n: 2}", {{"e", 4}, {"n", 2}}, {"e"}},
                        Case{"out[n] = max_e h[n,e] - 1", "{n: 2}", {{"e", 4}, {"n", 2}}, {"e"}},
                        Case{"out[n] = sum_e h[n,e]", "{n: 2, e: 2}", {{"e", 4}, {"n", 2}}, {"e"}},
                        Case{"out = sum_{n,e} h[n,e]", "{n: 1}", {{"e", 4}, {"n", 2}}, {"n", "e"}}}) {
    const logical::Lowering low = lower(deck(c.stmt, c.d));
    EXPECT_EQ(low.d.at("out"), c.want) << c.stmt;
    EXPECT_EQ(low.decomposition.aggregated_in_parts.at("out"), c.followed) << c.stmt;
    EXPECT_FALSE(retiles(low)) << c.stmt;
  }
}

TEST(Lowering, OtherLabelsAndOtherStatementsKeepTheirD) {
  // n is not aggregated: re-chunked to the deck's 1 part.
  logical::Lowering low = lower(deck("out[n,e] = h[n,e] + 1", "{n: 1, e: 4}"));
  EXPECT_EQ(low.d.at("out"), (D{{"e", 4}, {"n", 1}}));
  EXPECT_TRUE(low.decomposition.aggregated_in_parts.empty());
  EXPECT_TRUE(retiles(low));
  // A d as fine as the operand, or finer: nothing to follow.
  low = lower(deck("out[n] = sum_e h[n,e]", "{n: 2, e: 8}"));
  EXPECT_EQ(low.d.at("out").at("e"), 8);
  EXPECT_TRUE(low.decomposition.aggregated_in_parts.empty());
  // Two operands: the d stays the deck's (a contraction's GEMM shape is the partitioner's choice).
  low = lower(
      "tensors:\n  - {name: X, shape: [8, 16], source: ones}\n  - {name: Y, shape: [16], source: ones}\n"
      "graph:\n  - \"h[n,e] = X[n,e] * 2\"\n  - \"out[n] = sum_e h[n,e] * Y[e]\"\n"
      "run:\n  partitioning:\n    h: {n: 2, e: 4}\n    out: {n: 2}\n");
  EXPECT_EQ(low.d.at("out").at("e"), 1);
  // A deck input is read on the grid d wants, unless the deck fixes its chunks.
  const std::string input =
      "tensors:\n  - {name: X, shape: [8, 16], source: ones CHUNK}\n"
      "graph:\n  - \"out[n] = sum_e X[n,e]\"\n"
      "run:\n  partitioning:\n    out: {n: 2}\n";
  auto with_chunk = [&](const std::string& chunk) { return std::string(input).replace(input.find(" CHUNK"), 6, chunk); };
  EXPECT_EQ(lower(with_chunk("")).d.at("out").at("e"), 1);
  EXPECT_EQ(lower(with_chunk(", chunk: [4, 4]")).d.at("out").at("e"), 4);
}
