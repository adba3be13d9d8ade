// Carrying a parameter to the next iteration when the update's chunks differ
// from the read's: each of X.next's chunks reaches exactly the ranks whose
// Scan chunks overlap it, the values arrive intact, and the floats sent are
// those predicted (counted here by hand from the chunk grids).
#include <gtest/gtest.h>

#include <functional>

#include "tra/exec/host_tensor.hpp"
#include "tra/exec/loop_carry.hpp"
#include "tra/physical/infer.hpp"

namespace tra {
namespace {

using physical::IaNode;

constexpr Index kRows = 8, kCols = 3;

Scalar value(Index r, Index c) { return 10.0 * static_cast<double>(r) + static_cast<double>(c); }

// X (8 x 3) held in row blocks of `rows`, block i on site site_of(i).
IaNode row_blocks(Index rows, const std::function<int(Index)>& site_of) {
  IaNode n;
  n.type = RelType{Shape{kRows / rows, 1}, Shape{rows, kCols}};
  for (Index i = 0; i < kRows / rows; ++i) n.dist.at.emplace_back(Key{i, 0}, site_of(i));
  return n;
}

// This rank's tuples of `n`, holding X's values.
std::vector<Tuple> held(const IaNode& n, int rank) {
  std::vector<Tuple> out;
  const Shape& chunk = n.type.chunk_shape;
  for (const auto& [k, site] : n.dist.at) {
    if (site != rank) continue;
    std::vector<Scalar> v;
    for (Index r = 0; r < chunk[0]; ++r)
      for (Index c = 0; c < kCols; ++c) v.push_back(value(k[0] * chunk[0] + r, c));
    out.push_back({k, Chunk::from_host(chunk, v)});
  }
  return out;
}

// The floats a Carry of `next` to `scan`, regridded, is predicted to move
// (physical/ops/carry.cpp).
Index predicted(const IaNode& next, const IaNode& scan, int nsites) {
  physical::IaPlan p;
  p.nsites = nsites;
  p.nodes = {next, scan};
  for (IaNode& n : p.nodes) n.stale = false;  // as given
  IaNode carry;
  carry.params = physical::CarryParams{"X", {1}, true};
  carry.inputs = {0};
  p.nodes.push_back(std::move(carry));
  physical::infer_stale(p);
  EXPECT_EQ(p.nodes[2].invalid, "");
  return p.nodes[2].predicted_floats;
}

// Regrids next's chunks to `scan`, checks every chunk this rank's Scan reads
// and the floats sent against `expected_floats`, the Carry's prediction.
void check(const IaNode& next, const IaNode& scan, Index expected_floats) {
  comm::Communicator c;
  const auto sites = physical::regrid_sites(next, {&scan}, c.size());
  EXPECT_EQ(predicted(next, scan, c.size()), expected_floats);
  Index moved = 0;
  const std::vector<Tuple> parts = exec::regrid(c, held(next, c.rank()), next, sites, moved);
  EXPECT_EQ(c.sum(moved), expected_floats) << "the floats sent are the predicted ones";
  const exec::HostTensor x = exec::assemble(parts, Shape{kRows, kCols}, next.type.chunk_shape);
  const Index rows = scan.type.chunk_shape[0];
  for (const auto& [k, site] : scan.dist.at) {
    if (!scan.dist.everywhere && site != c.rank()) continue;
    for (Index r = k[0] * rows; r < (k[0] + 1) * rows; ++r)
      for (Index col = 0; col < kCols; ++col) EXPECT_EQ(x.values[static_cast<size_t>(r * kCols + col)], value(r, col)) << "row " << r;
  }
}

TEST(LoopCarry, RowBlocksToOneWholeChunkOnTheLastRank) {
  comm::Communicator c;
  const int p = c.size();
  const IaNode next = row_blocks(2, [p](Index i) { return static_cast<int>(i % p); });
  const IaNode scan = row_blocks(kRows, [p](Index) { return p - 1; });
  Index floats = 0;
  for (Index i = 0; i < 4; ++i) floats += i % p != p - 1 ? 2 * kCols : 0;  // every block not there already
  check(next, scan, floats);
}

TEST(LoopCarry, RowBlocksToEveryRank) {
  comm::Communicator c;
  const int p = c.size();
  const IaNode next = row_blocks(2, [p](Index i) { return static_cast<int>(i % p); });
  IaNode scan = row_blocks(kRows, [](Index) { return 0; });
  scan.dist.everywhere = true;
  check(next, scan, 4 * 2 * kCols * (p - 1));  // each block to the p - 1 other ranks
}

TEST(LoopCarry, SmallBlocksToLargerBlocks) {
  comm::Communicator c;
  const int p = c.size();
  const IaNode next = row_blocks(2, [p](Index i) { return static_cast<int>(i % p); });
  const IaNode scan = row_blocks(4, [p](Index i) { return static_cast<int>((i + 1) % p); });
  Index floats = 0;
  for (Index i = 0; i < 4; ++i) floats += i % p != (i / 2 + 1) % p ? 2 * kCols : 0;  // block i lies in large block i / 2
  check(next, scan, floats);
}

TEST(LoopCarry, SameChunksMoveNothingByRegrid) {
  comm::Communicator c;
  const IaNode next = row_blocks(2, [](Index) { return 0; });
  EXPECT_TRUE(physical::regrid_sites(next, {&next}, c.size()).empty()) << "a Scan on the same chunk grid is carried chunk for chunk";
}

}  // namespace
}  // namespace tra
