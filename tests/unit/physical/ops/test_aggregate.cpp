// An aggregation's loop work (physical/ops/aggregate.cpp): a fold combines
// its members, an operation per element beyond the first member; an
// assembly of re-chunked pieces copies each element of its result once (it
// was charged as a fold: nothing for a lone piece, 3 chunks' worth for 4
// pieces), and keeps a lone piece that is already the whole chunk.
#include <gtest/gtest.h>

#include <string>

#include "tra/io/deck/deck_reader.hpp"
#include "tra/logical/lower.hpp"
#include "tra/physical/compile.hpp"
#include "tra/physical/infer.hpp"

namespace tra::physical {
namespace {

// A, read as two row blocks, is re-chunked into C's two column blocks of
// the summed label j: each 600 x 200 block assembled from two 300 x 200
// pieces. B needs no re-chunking.
const std::string kDeck =
    "tensors:\n"
    "  - {name: A, shape: [600, 400], chunk: [300, 400], source: \"uniform(-1, 1, 1)\"}\n"
    "  - {name: B, shape: [400, 500], chunk: [200, 500], source: \"uniform(-1, 1, 2)\"}\n"
    "graph:\n"
    "  - \"C[i,k] = sum_j A[i,j] * B[j,k]\"\n"
    "run:\n"
    "  partitioning:\n"
    "    C: {i: 1, j: 2, k: 1}\n"
    "outputs:\n  - {tensor: C, file: out.h5}\n";

TEST(AggregateWork, AnAssemblyCopiesEachElementOfItsResultOnce) {
  const auto low = logical::lower(io::parse_deck(kDeck, "deck.yaml", ""), 1);
  const IaPlan p = compile(low.plan, 1);
  ASSERT_TRUE(invalid_reason(p).empty()) << invalid_reason(p);
  int assemblies = 0, folds = 0;
  for (const IaNode& n : p.nodes) {
    if (n.kind() == IaKind::LocalMap && n.map().expand) {
      EXPECT_EQ(n.site_flops, 2.0 * 300 * 400) << n.words();  // A's two blocks cut, each element copied once
      EXPECT_EQ(n.site_calls, 4) << n.words();  // two pieces of each
    }
    if (n.kind() != IaKind::LocalAgg) continue;
    if (std::holds_alternative<AggKernel::Assemble>(n.agg().kernel.reduce)) {
      ++assemblies;
      EXPECT_EQ(n.site_fold_flops, 2.0 * 600 * 200) << n.words();  // two blocks of 600 x 200 written once
    } else {
      ++folds;
      EXPECT_EQ(n.site_fold_flops, 600.0 * 500) << n.words();  // C's two partial products added: one addition per element
    }
  }
  EXPECT_EQ(assemblies, 1);
  EXPECT_EQ(folds, 1);
}

}  // namespace
}  // namespace tra::physical
