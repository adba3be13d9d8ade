#pragma once
// The order in which a reduction folds its values (kernels/elementwise.hpp):
// a tree of width kFoldWidth. The values, in the order of the inner
// positions, are cut into groups of kFoldWidth consecutive ones, each folded
// from the identity in order; the groups' results are cut and folded the
// same way, level by level, until at most kFoldWidth remain, which are
// folded from the identity in order. kFoldWidth values or fewer are folded
// plainly in order.
//
// Why this order: every backend can follow it, so a host and a device give
// the same bits; a device folds each level's groups in parallel (a scalar
// loss over 524,288 terms is 16,384 threads, then 512, 16 and 1, where one
// thread per output walked all of them); and the rounding error of a
// K-term sum grows with the tree's depth, about log_32 K, not with K.
#include "tra/common/kokkos_types.hpp"
#include "tra/einsum/scalar_program.hpp"

namespace tra::kernels {

constexpr Index kFoldWidth = 32;

// The number of levels above the values: 0 for kFoldWidth values or fewer.
KOKKOS_INLINE_FUNCTION int fold_levels(Index n) {
  int levels = 0;
  for (; n > kFoldWidth; n = (n + kFoldWidth - 1) / kFoldWidth) ++levels;
  return levels;
}

// The tree, streamed on a host: values are pushed in order, a level passes
// each complete group's result up, and the top level (known from the count)
// folds what reaches it. `lanes` reductions of one length step together
// (a block of outputs reduced by columns), each in its own lane, on
// elements of type T.
template <int Lanes, class T>
class TreeFold {
 public:
  TreeFold(einsum::AggOp agg, Index n, int lanes) : agg_(agg), top_(fold_levels(n)), lanes_(lanes) {
    for (int l = 0; l <= top_; ++l) {
      count_[l] = 0;
      for (int i = 0; i < lanes_; ++i) acc_[l][i] = einsum::agg_identity<T>(agg_);
    }
  }
  // The next value of every lane.
  void push(const T* v) {
    for (int i = 0; i < lanes_; ++i) acc_[0][i] = einsum::agg_combine(agg_, acc_[0][i], v[i]);
    if (++count_[0] == kFoldWidth && top_ > 0) carry(0);
  }
  void push(T v) {
    static_assert(Lanes == 1, "one value for one lane");
    push(&v);
  }
  // After the last value: each lane's result.
  void finish(T* out) {
    for (int l = 0; l < top_; ++l)
      if (count_[l] > 0) carry(l);
    for (int i = 0; i < lanes_; ++i) out[i] = acc_[top_][i];
  }

 private:
  static constexpr int kMaxLevels = 14;  // 32^13 > 2^63 values
  void carry(int l) {
    for (int i = 0; i < lanes_; ++i) {
      acc_[l + 1][i] = einsum::agg_combine(agg_, acc_[l + 1][i], acc_[l][i]);
      acc_[l][i] = einsum::agg_identity<T>(agg_);
    }
    count_[l] = 0;
    if (++count_[l + 1] == kFoldWidth && l + 1 < top_) carry(l + 1);
  }

  einsum::AggOp agg_;
  int top_, lanes_;
  Index count_[kMaxLevels];
  T acc_[kMaxLevels][Lanes];
};

}  // namespace tra::kernels
