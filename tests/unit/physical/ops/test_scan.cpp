// A Scan's time (physical/ops/scan.cpp): the busiest site's floats at the
// rate of what it reads, an HDF5 file or a generator of its kind. normal()
// is 5-8x dearer than uniform(); with one rate for both, uniform() reads were
// charged at normal()'s rate. Beside them the fixed costs: the operator's, a
// call per chunk, and for a file its opening.
#include <gtest/gtest.h>

#include <string>

#include "tra/app/plan_deck.hpp"
#include "tra/io/deck/deck_reader.hpp"
#include "tra/physical/ops/scan.hpp"

namespace tra::physical {
namespace {

TEST(ScanCost, EachGeneratorIsChargedAtItsKindsRate) {
  const std::string deck =
      "tensors:\n"
      "  - {name: U, shape: [64, 32], source: \"uniform(-1, 1, 3)\"}\n"
      "  - {name: N, shape: [64, 32], source: \"normal(0, 1, 4)\"}\n"
      "  - {name: A, shape: [64, 32], source: \"arange(0, 1)\"}\n"
      "graph:\n"
      "  - \"T[i,j] = U[i,j] + N[i,j]\"\n"
      "  - \"S[i,j] = T[i,j] + A[i,j]\"\n"
      "outputs:\n  - {tensor: S, file: out.h5}\n";
  const app::PlannedDeck p = app::plan_deck(io::parse_deck(deck, "deck.yaml", ""), 1, {});
  Rates r;
  r.generate_floats = 1e8;
  r.generate_normal_floats = 2e7;
  r.call_seconds = r.operator_seconds = r.open_seconds = 0;  // the next test's (a CUDA build's built-ins have some)
  int scans = 0;
  for (const IaNode& n : p.optimized.chosen.nodes) {
    if (n.kind() != IaKind::Scan) continue;
    ++scans;
    const std::string name = n.scan().source->name;
    const double floats = 64.0 * 32.0;  // one rank reads all of it
    const double expected = floats / (name == "N" ? 2e7 : 1e8);
    EXPECT_DOUBLE_EQ(ops::seconds(n.scan(), n, r, false), expected) << name;
  }
  EXPECT_EQ(scans, 3);
}

TEST(ScanCost, FixedCostsArePerOperatorPerChunkAndPerFile) {
  const std::string deck =
      "tensors:\n"
      "  - {name: U, shape: [64, 32], chunk: [16, 32], source: \"uniform(-1, 1, 3)\"}\n"
      "  - {name: H, shape: [64, 32], chunk: [16, 32], source: {file: in.h5, dataset: /h}}\n"
      "graph:\n"
      "  - \"S[i,j] = U[i,j] + H[i,j]\"\n"
      "outputs:\n  - {tensor: S, file: out.h5}\n";
  const app::PlannedDeck p = app::plan_deck(io::parse_deck(deck, "deck.yaml", ""), 1, {});
  Rates r;
  r.generate_floats = 1e8;
  r.hdf5_read_bytes = 1e9;
  r.call_seconds = 1e-6;
  r.operator_seconds = 2e-6;
  r.open_seconds = 3e-4;
  int scans = 0;
  for (const IaNode& n : p.optimized.chosen.nodes) {
    if (n.kind() != IaKind::Scan) continue;
    ++scans;
    EXPECT_EQ(n.site_calls, 4);  // one rank reads all four chunks
    const bool file = n.scan().source->name == "H";
    const double work = file ? 64.0 * 32.0 * 8 / 1e9 : 64.0 * 32.0 / 1e8;
    EXPECT_DOUBLE_EQ(ops::seconds(n.scan(), n, r, false), (file ? 3e-4 : 0) + 2e-6 + 4 * 1e-6 + work) << n.scan().source->name;
  }
  EXPECT_EQ(scans, 2);
}

}  // namespace
}  // namespace tra::physical
