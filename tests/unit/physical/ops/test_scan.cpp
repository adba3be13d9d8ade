// A Scan's time (physical/ops/scan.cpp): the busiest site's floats at the
// rate of what it reads, an HDF5 file or a generator of its kind. normal()
// is 5-8x dearer than uniform(); with one rate for both, uniform() reads were
// charged at normal()'s rate.
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

}  // namespace
}  // namespace tra::physical
