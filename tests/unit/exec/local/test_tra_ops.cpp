// The TRA operators (TRA paper §3.1) on the paper's own worked examples: the
// 4x4 matrix A as the relation R_A of 2x2 chunks (§2.2), its aggregations, the
// join behind A x A, Tile / ReKey / Concat of the 2x8 matrix B, and diag(X+Y).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "support/reference_evaluator.hpp"
#include "tra/einsum/parser.hpp"
#include "tra/exec/local/tra_ops.hpp"
#include "tra/kernels/blocks.hpp"
#include "tra/kernels/combine.hpp"
#include "tra/kernels/einsum_kernel.hpp"

using tra::Chunk;
using tra::Key;
using tra::Shape;
using tra::Tuple;
using tra::exec::local::Tuples;
namespace logical = tra::logical;
namespace exec = tra::exec;
namespace kernels = tra::kernels;

namespace {

const tra::SourceLoc kHere{"test", 1, 1};

Chunk mat(const Shape& s, const std::vector<double>& v) { return Chunk::from_host(s, v); }

// matAdd and matMul of the paper, from the engine's kernels.
Chunk mat_add(const Chunk& x, const Chunk& y) {
  Chunk acc = kernels::clone(x);
  kernels::combine_into(tra::einsum::AggOp::Sum, acc, y);
  return acc;
}

Chunk mat_mul(const Chunk& x, const Chunk& y) {
  static const auto st = tra::einsum::parse_einsum("Z[i,k] = sum_j X[i,j] * Y[j,k]", kHere);
  const kernels::EinSumKernel k(st, {{"i", x.shape[0]}, {"j", x.shape[1]}, {"k", y.shape[1]}});
  return k.apply(x, &y);
}

// The dense matrix A of §2.2 and its relation R_A with 2x2 chunks.
const std::vector<double> kA{1, 2, 5, 6, 3, 4, 7, 8, 9, 10, 13, 14, 11, 12, 15, 16};

Tuples relation_a() {
  return {{{0, 0}, mat({2, 2}, {1, 2, 3, 4})},
          {{0, 1}, mat({2, 2}, {5, 6, 7, 8})},
          {{1, 0}, mat({2, 2}, {9, 10, 11, 12})},
          {{1, 1}, mat({2, 2}, {13, 14, 15, 16})}};
}

// R_B of §3.1 (6): B = [[1,2,5,6,9,10,13,14],[3,4,7,8,11,12,15,16]] by column halves.
Tuples relation_b() { return {{{0}, mat({2, 4}, {1, 2, 5, 6, 3, 4, 7, 8})}, {{1}, mat({2, 4}, {9, 10, 13, 14, 11, 12, 15, 16})}}; }

// Keys and host values of a relation, sorted by key, for whole-relation comparison.
std::map<Key, std::vector<double>> contents(const Tuples& r) {
  std::map<Key, std::vector<double>> out;
  for (const Tuple& t : r) EXPECT_TRUE(out.emplace(t.key, t.chunk.to_host()).second) << "duplicate key " << tra::to_string(t.key);
  return out;
}

std::map<Key, Shape> shapes(const Tuples& r) {
  std::map<Key, Shape> out;
  for (const Tuple& t : r) out[t.key] = t.chunk.shape;
  return out;
}

}  // namespace

TEST(TraOps, PaperAggregateOverKeyDimensionZero) {
  // Σ(<1>, matAdd)(R_A): sums the chunks of each block column (§3.1 (1)).
  const Tuples r = exec::local::aggregate(relation_a(), {1}, exec::local::elementwise(tra::einsum::AggOp::Sum));
  const std::map<Key, std::vector<double>> want{{{0}, {10, 12, 14, 16}}, {{1}, {18, 20, 22, 24}}};
  EXPECT_EQ(contents(r), want);
}

TEST(TraOps, PaperAggregateToEmptyKey) {
  // Σ(<>, matAdd)(R_A): all chunks summed into the one tuple with key <>.
  const Tuples r = exec::local::aggregate(relation_a(), {}, exec::local::elementwise(tra::einsum::AggOp::Sum));
  const std::map<Key, std::vector<double>> want{{Key{}, {28, 32, 36, 40}}};
  EXPECT_EQ(contents(r), want);
}

TEST(TraOps, AggregateWithMaxAndGroupOrder) {
  // ⊕ = max folds element-wise; group keys come in the group_by order given.
  const Tuples r = exec::local::aggregate(relation_a(), {1, 0}, exec::local::elementwise(tra::einsum::AggOp::Max));
  ASSERT_EQ(r.size(), 4u);  // every group is one tuple: a transpose of the keys
  EXPECT_EQ(contents(r).at({0, 1}), (std::vector<double>{9, 10, 11, 12}));
  const Tuples m = exec::local::aggregate(relation_a(), {0}, exec::local::elementwise(tra::einsum::AggOp::Max));
  EXPECT_EQ(contents(m).at({1}), (std::vector<double>{13, 14, 15, 16}));
}

TEST(TraOps, PaperJoinExample) {
  // ⋈(<1>, <0>, matMul)(R_A, R_A): key <i, j, k> pairs A_ij with A_jk (§3.1 (2)).
  const Tuples j = exec::local::join(relation_a(), relation_a(), {1}, {0}, mat_mul);
  ASSERT_EQ(j.size(), 8u);
  const auto c = contents(j);
  // [[5,6],[7,8]] x [[9,10],[11,12]] = [[111,122],[151,166]], as the paper prints.
  EXPECT_EQ(c.at({0, 1, 0}), (std::vector<double>{111, 122, 151, 166}));
  // Every output key is left key ++ right key without its join position.
  for (const auto& [k, v] : c) EXPECT_EQ(k.size(), 3u);
  // <0,0,1> = A_00 x A_01 = [[1,2],[3,4]] x [[5,6],[7,8]].
  EXPECT_EQ(c.at({0, 0, 1}), (std::vector<double>{19, 22, 43, 50}));
}

TEST(TraOps, PaperMatrixProductViaJoinAndAggregate) {
  // A x A = Σ(<0,2>, matAdd)(⋈(<1>,<0>, matMul)(R_A, R_A)).
  const Tuples j = exec::local::join(relation_a(), relation_a(), {1}, {0}, mat_mul);
  const Tuples p = exec::local::aggregate(j, {0, 2}, exec::local::elementwise(tra::einsum::AggOp::Sum));
  ASSERT_EQ(p.size(), 4u);
  const tra::testing::Dense got = tra::testing::assemble(p, {2, 2}, {2, 2});

  // The dense product by plain loops; small integers, so exact in double.
  std::vector<double> want(16, 0);
  for (int i = 0; i < 4; ++i)
    for (int k = 0; k < 4; ++k)
      for (int m = 0; m < 4; ++m) want[i * 4 + k] += kA[i * 4 + m] * kA[m * 4 + k];
  EXPECT_EQ(got.shape, (Shape{4, 4}));
  EXPECT_EQ(got.v, want);
}

TEST(TraOps, JoinOnNothingIsACrossProductAndMismatchesDrop) {
  // No join keys: every pair, the output key the two keys side by side.
  const Tuples x{{{0}, mat({1}, {1})}, {{1}, mat({1}, {2})}};
  const Tuples y{{{0}, mat({1}, {10})}, {{1}, mat({1}, {20})}, {{2}, mat({1}, {30})}};
  const Tuples c = exec::local::join(x, y, {}, {}, mat_add);
  ASSERT_EQ(c.size(), 6u);
  EXPECT_EQ(contents(c).at({1, 2}), std::vector<double>{32});
  // Keys that find no partner produce nothing.
  const Tuples z{{{5}, mat({1}, {0})}};
  EXPECT_TRUE(exec::local::join(x, z, {0}, {0}, mat_add).empty());
  EXPECT_TRUE(exec::local::join({}, y, {0}, {0}, mat_add).empty());
}

TEST(TraOps, PaperTile) {
  // Tile(1,2)(R_B): each 2x4 chunk cut into 2x2 pieces; the piece number is a
  // new last key dimension (§3.1 (6)).
  const Tuples t = exec::local::tile(relation_b(), 1, 2);
  const std::map<Key, std::vector<double>> want{
      {{0, 0}, {1, 2, 3, 4}}, {{0, 1}, {5, 6, 7, 8}}, {{1, 0}, {9, 10, 11, 12}}, {{1, 1}, {13, 14, 15, 16}}};
  EXPECT_EQ(contents(t), want);
  for (const auto& [k, s] : shapes(t)) EXPECT_EQ(s, (Shape{2, 2}));
  // A size that does not divide the dimension is an internal error.
  EXPECT_THROW(exec::local::tile(relation_b(), 1, 3), tra::InternalError);
}

TEST(TraOps, PaperReKeyOfTile) {
  // ReKey(<k0,k1> -> <2k0+k1>)(Tile(1,2)(R_B)): a 2x8 matrix in four 2x2 chunks.
  const auto merge = logical::KeyExpr::parse_map("[2*k0 + k1]", 2, kHere);
  const Tuples r = exec::local::rekey(exec::local::tile(relation_b(), 1, 2), merge);
  const std::map<Key, std::vector<double>> want{{{0}, {1, 2, 3, 4}}, {{1}, {5, 6, 7, 8}}, {{2}, {9, 10, 11, 12}}, {{3}, {13, 14, 15, 16}}};
  EXPECT_EQ(contents(r), want);
  // As a relation with frontier <4> and chunks 2x2 it is B in column blocks:
  // ReKey only renames keys, so rebuild B column-block by column-block.
  const std::vector<double> b{1, 2, 5, 6, 9, 10, 13, 14, 3, 4, 7, 8, 11, 12, 15, 16};
  for (const Tuple& t : r) {
    const auto v = t.chunk.to_host();
    for (int row = 0; row < 2; ++row)
      for (int col = 0; col < 2; ++col) EXPECT_EQ(v[row * 2 + col], b[row * 8 + t.key[0] * 2 + col]);
  }
}

TEST(TraOps, PaperConcatUndoesTile) {
  // Concat(1,1)(Tile(1,2)(R_B)) = R_B (§3.1 (7)).
  const Tuples c = exec::local::concat(exec::local::tile(relation_b(), 1, 2), 1, 1);
  EXPECT_EQ(contents(c), contents(relation_b()));
  for (const auto& [k, s] : shapes(c)) EXPECT_EQ(s, (Shape{2, 4}));
  // Concat along key dimension 0 stacks the pieces of a column pair instead:
  // group <k1>, pieces ordered by k0, concatenated along array dimension 0.
  const Tuples rows = exec::local::concat(exec::local::tile(relation_b(), 1, 2), 0, 0);
  EXPECT_EQ(contents(rows).at({1}), (std::vector<double>{5, 6, 7, 8, 13, 14, 15, 16}));
  EXPECT_EQ(shapes(rows).at({1}), (Shape{4, 2}));
}

TEST(TraOps, PaperDiagonalOfSum) {
  // diag(X + Y) = λ(diag)(ReKey(getKey0)(σ(isEq)(⋈(<0,1>,<0,1>, matAdd)(R_X, R_Y)))).
  // X and Y are 4x4 with 2x2 chunks; integer values keep every sum exact.
  std::vector<double> x(16), y(16);
  for (int i = 0; i < 16; ++i) {
    x[i] = i * 3 - 7;
    y[i] = 100 - i * i;
  }
  auto relation = [](const std::vector<double>& dense) {
    Tuples r;
    tra::for_each_key({2, 2}, [&](const Key& k) {
      std::vector<double> c;
      for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b) c.push_back(dense[(k[0] * 2 + a) * 4 + k[1] * 2 + b]);
      r.push_back({k, mat({2, 2}, c)});
    });
    return r;
  };
  const Tuples joined = exec::local::join(relation(x), relation(y), {0, 1}, {0, 1}, mat_add);
  ASSERT_EQ(joined.size(), 4u);  // the right key has nothing left after its join positions
  const Tuples on_diag = exec::local::filter(joined, logical::KeyExpr::parse_predicate("k0 == k1", 2, kHere));
  ASSERT_EQ(on_diag.size(), 2u);
  const Tuples rekeyed = exec::local::rekey(on_diag, logical::KeyExpr::parse_map("[k0]", 2, kHere));
  const Tuples d = exec::local::transform(rekeyed, [](const Chunk& c) { return kernels::diagonal(c); });

  std::map<Key, std::vector<double>> want;
  for (int t = 0; t < 4; ++t) want[{t / 2}].push_back(x[t * 4 + t] + y[t * 4 + t]);
  EXPECT_EQ(contents(d), want);
  for (const auto& [k, s] : shapes(d)) EXPECT_EQ(s, (Shape{2}));
}
