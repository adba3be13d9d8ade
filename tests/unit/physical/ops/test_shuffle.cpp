// A Shuffle's floats (physical/ops/shuffle.cpp): a sparse product's result
// moves its filled rows alone, so the plan charges each moved tuple the rows
// of its block that hold an entry (the columns, for a product by the block
// transposed) times the row's floats, and holds the rows it sends and
// receives in buffers while it runs (the memory estimate); checked against
// the rows counted by sets from the example graph's coordinate lists.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tra/io/deck/deck_reader.hpp"
#include "tra/io/hdf5/coordinate_lists.hpp"
#include "tra/logical/lower.hpp"
#include "tra/physical/compile.hpp"
#include "tra/physical/infer.hpp"
#include "tra/physical/ops/ops.hpp"

namespace tra::physical {
namespace {

const std::string kGraph = std::string(TRA_INPUTS_DIR) + "/data/graph_small.h5";

// The distinct rows (by_column: columns) of the 1000 x 1000 graph's
// entries in block `key` of a 2 x 2 grid.
Index filled_lines(const Key& key, bool by_column) {
  const io::hdf5::OpenCoordinateLists lists({kGraph, "/adj/rows", "/adj/cols", "/adj/values"});
  std::vector<long long> rows, cols;
  lists.read_places(0, lists.length(), rows, cols);
  std::set<long long> lines;
  for (size_t e = 0; e < rows.size(); ++e)
    if (rows[e] / 500 == key[0] && cols[e] / 500 == key[1]) lines.insert(by_column ? cols[e] : rows[e]);
  return static_cast<Index>(lines.size());
}

TEST(ShuffleCost, ASparseProductsResultMovesItsFilledRowsAlone) {
  const std::string deck =
      "tensors:\n"
      "  - {name: A, shape: [1000, 1000], source: {file: " +
      kGraph +
      ", rows: /adj/rows, cols: /adj/cols, values: /adj/values}}\n"
      "  - {name: H, shape: [1000, 4], source: \"uniform(-1, 1, 1)\"}\n"
      "  - {name: D, shape: [1000, 4], source: \"uniform(-1, 1, 2)\"}\n"
      "graph:\n"
      "  - \"M[v,h] = sum_u A[v,u] * H[u,h]\"\n"
      "  - \"G[u,h] = sum_v D[v,h] * A[v,u]\"\n"
      "run:\n"
      "  partitioning:\n"
      "    M: {v: 2, u: 2, h: 1}\n"
      "    G: {v: 2, u: 2, h: 1}\n";
  const auto low = logical::lower(io::parse_deck(deck, "deck.yaml", ""), 2);
  const IaPlan p = compile(low.plan, 2);
  ASSERT_TRUE(invalid_reason(p).empty()) << invalid_reason(p);
  int shuffles = 0;
  for (const IaNode& s : p.nodes) {
    if (s.kind() != IaKind::Shuffle) continue;
    const IaNode& join = p.node(s.inputs[0]);
    ASSERT_EQ(join.kind(), IaKind::LocalJoin);
    ASSERT_TRUE(join.dist.filled_rows) << join.words();
    // M's result keys are (v, u, h), A's block (v, u); G's (v, h, u), A's (v, u) read transposed.
    const bool transposed = join.join().kernel.call.kernel->sparse_transposed();
    Index expected = 0, whole = 0;
    std::vector<std::int64_t> buffers(2, 0);  // each site's rows sent and received, 8 bytes a float
    for (size_t i = 0; i < join.dist.at.size(); ++i) {
      const auto& [key, site] = join.dist.at[i];
      const Key block = transposed ? Key{key[0], key[2]} : Key{key[0], key[1]};
      const Index lines = filled_lines(block, transposed);
      EXPECT_EQ((*join.dist.filled_rows)[i], lines) << to_string(key);
      const int to = s.dist.at[i].second;
      if (to == site) continue;
      expected += lines * 4, whole += 500 * 4;
      buffers[static_cast<size_t>(site)] += lines * 4 * 8, buffers[static_cast<size_t>(to)] += lines * 4 * 8;
    }
    EXPECT_EQ(s.predicted_floats, expected);
    EXPECT_LT(expected, whole);  // fewer than the whole chunks: some rows of the graph's blocks hold nothing
    // What the memory estimate holds beside its input and result while it runs.
    EXPECT_EQ(ops::filled_rows_buffer_bytes(s, {p, 2}), buffers);
    ++shuffles;
  }
  EXPECT_EQ(shuffles, 2);
}

}  // namespace
}  // namespace tra::physical
