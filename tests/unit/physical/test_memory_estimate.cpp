// The per-rank memory estimate (physical/memory_estimate.hpp) against
// lifetimes worked out by hand, and the labeling choice under a limit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tra/app/plan_deck.hpp"
#include "tra/io/deck/deck_reader.hpp"
#include "tra/logical/lower.hpp"
#include "tra/physical/compile.hpp"
#include "tra/physical/cost_model.hpp"
#include "tra/physical/infer.hpp"
#include "tra/physical/memory_estimate.hpp"
#include "tra/physical/plan_edit.hpp"

namespace tra::physical {
namespace {

app::PlannedDeck plan(const std::string& deck, int ranks, const OptimizerOptions& options = {}) {
  return app::plan_deck(io::parse_deck(deck, "deck.yaml", ""), ranks, options);
}

TEST(MemoryEstimate, ResultsAreHeldUntilTheirLastConsumer) {
  // A (80 kB) is read, B = A + 1 made while A is held (160 kB), A freed,
  // C = B * 2 made while B is held (160 kB), B freed: the peak is two
  // 100 x 100 tensors of doubles on the one rank.
  const app::PlannedDeck p = plan(
      "tensors:\n"
      "  - {name: A, shape: [100, 100], source: ones}\n"
      "graph:\n"
      "  - \"B[i,j] = A[i,j] + 1\"\n"
      "  - \"C[i,j] = B[i,j] * 2\"\n"
      "outputs:\n"
      "  - {tensor: C, file: c.h5}\n",
      1);
  EXPECT_EQ(p.memory.peak_bytes, 2 * 100 * 100 * 8);
  EXPECT_EQ(estimate_memory(p.optimized.chosen).peak_bytes, p.memory.peak_bytes);
}

// Inputs read where they lie, so that the plan moves them.
OptimizerOptions no_replicated_reads() {
  OptimizerOptions o;
  o.disabled.insert("scan-all");
  return o;
}

// A plan of float32 relations holds 4 bytes an element: half the memory,
// and its Bcasts and Shuffles carry half the bytes (the estimate of each
// movement, its latency aside, halves).
TEST(MemoryEstimate, Float32RelationsNeedHalfTheBytes) {
  const app::PlannedDeck p = plan(
      "tensors:\n"
      "  - {name: A, shape: [64, 64], source: ones}\n"
      "  - {name: B, shape: [64, 64], source: ones}\n"
      "graph:\n"
      "  - \"C[i,k] = sum_j A[i,j] * B[j,k]\"\n"
      "outputs:\n"
      "  - {tensor: C, file: c.h5}\n",
      4, no_replicated_reads());
  IaPlan wide = p.optimized.chosen, narrow = wide;
  for (IaNode& n : narrow.nodes) n.type.dtype = n.out_type.dtype = DType::Float32;
  const Rates rates;
  int movements = 0;
  for (size_t i = 0; i < wide.nodes.size(); ++i) {
    const IaNode& w = wide.nodes[i];
    if (w.kind() != IaNode::Kind::Bcast && w.kind() != IaNode::Kind::Shuffle) continue;
    ++movements;
    const double wide_s = cost_of(wide, rates).node_seconds[i] - rates.latency, narrow_s = cost_of(narrow, rates).node_seconds[i] - rates.latency;
    EXPECT_NEAR(narrow_s, wide_s / 2, 1e-12 * wide_s) << w.name();
  }
  EXPECT_GT(movements, 0);
  EXPECT_EQ(2 * estimate_memory(narrow).peak_bytes, estimate_memory(wide).peak_bytes);
}

TEST(MemoryEstimate, SplitResultsAreCountedOnTheirOwnRank) {
  // On 2 ranks with the rows split, each rank holds half of each tensor.
  const app::PlannedDeck p = plan(
      "tensors:\n"
      "  - {name: A, shape: [100, 100], source: ones}\n"
      "graph:\n"
      "  - \"B[i,j] = A[i,j] + 1\"\n"
      "outputs:\n"
      "  - {tensor: B, file: b.h5}\n"
      "run: {partitioner: manual, partitioning: {B: {i: 2}}}\n",
      2);
  EXPECT_EQ(p.memory.peak_bytes, 2 * 50 * 100 * 8);
}

TEST(MemoryEstimate, EachSiteHasItsOwnPeak) {
  // Three row blocks of 30 x 100 on 2 ranks: one rank holds two blocks of A
  // and of B (96 kB), the other one of each (48 kB). The largest is the peak.
  const app::PlannedDeck p = plan(
      "tensors:\n"
      "  - {name: A, shape: [90, 100], source: ones}\n"
      "graph:\n"
      "  - \"B[i,j] = A[i,j] + 1\"\n"
      "outputs:\n"
      "  - {tensor: B, file: b.h5}\n"
      "run: {partitioner: manual, partitioning: {B: {i: 3}}}\n",
      2);
  std::vector<std::int64_t> sites = estimate_memory(p.optimized.chosen).site_peak_bytes;
  std::sort(sites.begin(), sites.end());
  EXPECT_EQ(sites, (std::vector<std::int64_t>{2 * 30 * 100 * 8, 4 * 30 * 100 * 8}));
  EXPECT_EQ(sites.back(), p.memory.peak_bytes);
}

TEST(MemoryEstimate, ALabelingOverTheLimitIsNotChosen) {
  // A square chain on 4 ranks: the labelings compared need different
  // memory; with the limit just under the chosen one's need, another that
  // fits is chosen, and with no room at all the one that needs least.
  const std::string deck =
      "tensors:\n"
      "  - {name: A, shape: [256, 256], source: ones}\n"
      "  - {name: B, shape: [256, 256], source: ones}\n"
      "  - {name: C, shape: [256, 256], source: ones}\n"
      "graph:\n"
      "  - \"D[i,k] = sum_j A[i,j] * B[j,k]\"\n"
      "  - \"E[i,l] = sum_k D[i,k] * C[k,l]\"\n"
      "outputs:\n"
      "  - {tensor: E, file: e.h5}\n";
  const app::PlannedDeck free = plan(deck, 4);
  ASSERT_FALSE(free.candidates.empty());
  std::int64_t least = free.memory.peak_bytes, fitting_other = 0;
  for (const auto& c : free.candidates)
    if (c.same_as.empty()) {
      least = std::min(least, c.peak_bytes);
      if (c.peak_bytes < free.memory.peak_bytes) fitting_other = std::max(fitting_other, c.peak_bytes);
    }
  OptimizerOptions tight;
  tight.memory_per_rank = 1;
  EXPECT_EQ(plan(deck, 4, tight).memory.peak_bytes, least);
  if (fitting_other > 0) {
    OptimizerOptions limited;
    limited.memory_per_rank = free.memory.peak_bytes - 1;
    EXPECT_LE(plan(deck, 4, limited).memory.peak_bytes, limited.memory_per_rank);
  }
}

// A plan of A's read, cut in 2 x 2 chunks of 4 x 4 doubles (128 B) on 2
// ranks, and one more exchange of it.
IaPlan read_then(IaParams exchange) {
  const auto low = logical::lower(io::parse_deck("tensors:\n"
                                                 "  - {name: A, shape: [8, 8], chunk: [4, 4], source: ones}\n"
                                                 "graph:\n"
                                                 "  - \"B[i,j] = A[i,j] * 2\"\n",
                                                 "deck.yaml", ""),
                                  2);
  const IaPlan compiled = compile(low.plan, 2);
  IaPlan p;
  p.nsites = 2;
  for (const IaNode& n : compiled.nodes)
    if (n.kind() == IaNode::Kind::Scan && p.nodes.empty()) add_node(p, n);
  IaNode move;
  move.params = std::move(exchange);
  move.inputs = {0};
  p.roots = {add_node(p, std::move(move))};
  infer(p);
  return p;
}

TEST(MemoryEstimate, AShuffleHoldsWhatItSendsTwiceWhileItRuns) {
  // Read on its row blocks, each rank holds 2 chunks; shuffled onto its
  // column blocks, each keeps one, sends one and receives one. While the
  // shuffle runs a rank holds its input (2 chunks), the one received and
  // the packed copy of the one sent: 4 chunks; then the input is freed.
  const IaPlan p = read_then(ShuffleParams{Placement::part({1}, {2, 2}), {}});
  ASSERT_EQ(p.nodes[0].dist.at.size(), 4u);
  ASSERT_EQ(p.nodes[1].predicted_floats, 2 * 16);  // one chunk each way
  EXPECT_EQ(estimate_memory(p).peak_bytes, 4 * 128);
}

TEST(MemoryEstimate, ABroadcastHoldsTheRelationOnceBesideItsInput) {
  // Every rank ends with all 4 chunks in the buffer the collective filled,
  // its own 2 included, while its input's 2 are held until freed: 6 chunks.
  const IaPlan p = read_then(BcastParams{});
  EXPECT_EQ(estimate_memory(p).peak_bytes, 6 * 128);
}

TEST(MemoryEstimate, BytesReadAsPeopleWriteThem) {
  EXPECT_EQ(bytes_text(512), "512 B");
  EXPECT_EQ(bytes_text(3 * 1024 * 1024), "3 MiB");
  EXPECT_EQ(bytes_text(std::int64_t{3} << 29), "1.5 GiB");
}

}  // namespace
}  // namespace tra::physical
