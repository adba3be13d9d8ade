// How many ranks a plan over the memory bound needs (app/ranks_needed.hpp):
// the count it names is one whose plan fits, planned independently here,
// and the counts below it that it tried do not; a bound no split reaches
// gives none.
#include <gtest/gtest.h>

#include "tra/app/ranks_needed.hpp"
#include "tra/io/deck/deck_reader.hpp"

namespace tra::app {
namespace {

const char* const kDeck =
    "tensors:\n"
    "  - {name: M, shape: [64, 64], source: ones}\n"
    "graph:\n"
    "  - \"N[i,j] = sum_k M[i,k] * M[k,j]\"\n"
    "outputs:\n"
    "  - {tensor: N, file: out.h5}\n";

physical::OptimizerOptions bounded(std::int64_t bytes) {
  physical::OptimizerOptions o;
  o.memory_per_rank = bytes;
  return o;
}

TEST(RanksNeeded, NamesTheFirstDoublingWhosePlanFits) {
  const model::Workflow wf = io::parse_deck(kDeck, "deck.yaml", "");
  const auto options = bounded(40 * 1024);
  ASSERT_GT(plan_deck(wf, 2, options).memory.peak_bytes, options.memory_per_rank) << "the case starts over the bound";
  const auto need = ranks_needed(wf, 2, options, nullptr);
  ASSERT_TRUE(need);
  EXPECT_LE(need->peak_bytes, options.memory_per_rank);
  EXPECT_EQ(plan_deck(wf, need->ranks, options).memory.peak_bytes, need->peak_bytes);
  for (int n = 4; n < need->ranks; n *= 2) EXPECT_GT(plan_deck(wf, n, options).memory.peak_bytes, options.memory_per_rank) << n << " ranks";
}

TEST(RanksNeeded, NoneWhenNoCountTriedFits) {
  const model::Workflow wf = io::parse_deck(kDeck, "deck.yaml", "");
  EXPECT_FALSE(ranks_needed(wf, 2, bounded(1024), nullptr));
}

}  // namespace
}  // namespace tra::app
