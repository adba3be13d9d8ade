// Whole tensors in host memory (exec/host_tensor.hpp): a sub-tensor's
// offsets against positions worked out by hand, and slices assembled back
// into the tensor they were cut from.
#include <gtest/gtest.h>

#include <numeric>

#include "tra/exec/host_tensor.hpp"

namespace tra::exec {
namespace {

TEST(HostTensor, ACutListsTheKeptEntriesInTheSubTensorsRowMajorOrder) {
  // A 3 × 4 × 2 tensor: rows 0 and 2, every column, the second of the last dimension.
  const std::vector<Index> rows = {0, 2}, last = {1};
  const std::vector<Index> offsets = cut_offsets(Shape{3, 4, 2}, {&rows, nullptr, &last});
  std::vector<Index> expected;
  for (Index r : rows)
    for (Index c = 0; c < 4; ++c) expected.push_back((r * 4 + c) * 2 + 1);
  EXPECT_EQ(offsets, expected);
  EXPECT_EQ(cut_offsets(Shape{5}, {nullptr}), (std::vector<Index>{0, 1, 2, 3, 4}));
  EXPECT_EQ(cut_offsets(Shape{}, {}), (std::vector<Index>{0}));  // a scalar is its one entry
}

TEST(HostTensor, SlicesAssembleBackIntoTheTensor) {
  HostTensor t{Shape{4, 6}, std::vector<Scalar>(24)};
  std::iota(t.values.begin(), t.values.end(), 0.5);
  std::vector<Tuple> tuples;
  for_each_key(Shape{2, 3}, [&](const Key& k) { tuples.push_back({k, slice(t, Shape{2, 2}, k)}); });
  const HostTensor back = assemble(tuples, Shape{4, 6}, Shape{2, 2});
  EXPECT_EQ(back.values, t.values);
}

}  // namespace
}  // namespace tra::exec
