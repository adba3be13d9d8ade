// EinSumKernel, the per-chunk kernel K of EinDecomp §4.3, on both of its
// paths (KokkosBlas GEMM for contractions, a parallel loop for everything
// else), against the naive reference evaluator of tests/support; and the
// block kernels behind Tile, Concat and re-chunking.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <map>
#include <random>
#include <string>

#include "support/reference_evaluator.hpp"
#include "support/tolerance.hpp"
#include "tra/einsum/parser.hpp"
#include "tra/kernels/blocks.hpp"
#include "tra/kernels/combine.hpp"
#include "tra/kernels/einsum_kernel.hpp"

using tra::Chunk;
using tra::Shape;
using tra::testing::Dense;
namespace kernels = tra::kernels;
namespace einsum = tra::einsum;

namespace {

Dense random_dense(const Shape& shape, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Dense d{shape, std::vector<double>(static_cast<size_t>(tra::volume(shape)))};
  for (double& v : d.v) v = u(gen);
  return d;
}

Dense absolute(Dense d) {
  for (double& v : d.v) v = std::fabs(v);
  return d;
}

struct Case {
  einsum::EinSum st;
  std::map<std::string, Dense> in;  // by tensor name
  std::map<std::string, tra::Index> extent;
  Dense got, want;
};

// Parse `text`, fill its inputs with random data of the given label extents,
// run the kernel and the reference.
Case run(const std::string& text, const std::map<std::string, tra::Index>& extent, unsigned seed = 1) {
  Case c;
  c.st = einsum::parse_einsum(text, {"test", 1, 1});
  c.extent = extent;
  for (const auto& ref : c.st.inputs) {
    if (c.in.count(ref.name)) continue;
    Shape s;
    for (const auto& l : ref.labels) s.push_back(extent.at(l));
    c.in[ref.name] = random_dense(s, seed++);
  }
  const kernels::EinSumKernel k(c.st, extent);
  const Dense& x = c.in.at(c.st.inputs[0].name);
  const Chunk cx = Chunk::from_host(x.shape, x.v);
  Chunk out;
  if (c.st.inputs.size() == 2) {
    const Dense& y = c.in.at(c.st.inputs[1].name);
    const Chunk cy = Chunk::from_host(y.shape, y.v);
    out = k.apply(cx, &cy);
  } else {
    out = k.apply(cx, nullptr);
  }
  EXPECT_EQ(out.shape, k.z_shape());
  c.got = Dense{out.shape, out.to_host()};
  c.want = tra::testing::evaluate(c.st, c.in);
  return c;
}

bool uses_gemm(const std::string& text, const std::map<std::string, tra::Index>& extent) {
  return kernels::EinSumKernel(einsum::parse_einsum(text, {"test", 1, 1}), extent).uses_gemm();
}

// Tolerance of a sum of products.
//
// Each output element is a dot product s = Σ_{q<K} a_q b_q over the K
// contracted index combinations. Whatever the summation order (the reference
// adds left to right; GEMM blocks, reorders and may fuse multiply-adds), the
// computed value obeys |fl(s) - s| <= γ_K Σ|a_q||b_q| with γ_K = K u / (1 - K u)
// and u = DBL_EPSILON / 2 (Higham, Accuracy and Stability, §3.1). The engine and
// the reference each err by at most that, so they differ by at most
// 2 γ_K Σ|a_q||b_q| ≈ K · DBL_EPSILON · Σ|a_q||b_q|. We allow twice that, and
// take Σ|a_q||b_q| per element from the reference evaluator run on |A| and |B|
// (for a product join, evaluating on absolute values gives exactly that sum).
void expect_sum_of_products_close(const Case& c) {
  std::map<std::string, Dense> abs_in;
  for (const auto& [name, d] : c.in) abs_in[name] = absolute(d);
  const Dense bound = tra::testing::evaluate(c.st, abs_in);
  double k = 1;
  for (const auto& l : c.st.agg_labels) k *= static_cast<double>(c.extent.at(l));
  ASSERT_EQ(c.got.shape, c.want.shape);
  for (size_t i = 0; i < c.want.v.size(); ++i) {
    const double tol = tra::testing::sum_tolerance(k, std::fabs(bound.v[i]));  // fabs: a negative constant factor
    ASSERT_NEAR(c.got.v[i], c.want.v[i], tol) << "element " << i << " of " << c.st.text;
  }
}

// Max, min and element-wise results are the same operations in the same
// order on both sides; allow a few ulps for a device libm.
void expect_ulps_close(const Case& c) {
  ASSERT_EQ(c.got.shape, c.want.shape);
  for (size_t i = 0; i < c.want.v.size(); ++i)
    ASSERT_NEAR(c.got.v[i], c.want.v[i], 4 * DBL_EPSILON * std::fabs(c.want.v[i])) << "element " << i << " of " << c.st.text;
}

}  // namespace

TEST(TraEinSumKernel, MatmulGemmPath) {
  const std::map<std::string, tra::Index> e{{"i", 7}, {"j", 13}, {"k", 5}};
  ASSERT_TRUE(uses_gemm("C[i,k] = sum_j A[i,j] * B[j,k]", e));
  const Case c = run("C[i,k] = sum_j A[i,j] * B[j,k]", e);
  EXPECT_EQ(c.got.shape, (Shape{7, 5}));
  expect_sum_of_products_close(c);
  EXPECT_DOUBLE_EQ(kernels::EinSumKernel(c.st, e).flops(), 2.0 * 7 * 5 * 13);
}

// A permutation does no arithmetic but reads and writes every element: a
// loop operation's worth each, so the cost model does not take it as free.
TEST(TraEinSumKernel, APermutationCountsAnOperationPerElement) {
  const std::map<std::string, tra::Index> e{{"i", 7}, {"k", 5}};
  EXPECT_DOUBLE_EQ(kernels::EinSumKernel(einsum::parse_einsum("T[k,i] = R[i,k]", {"test", 1, 1}), e).flops(), 7.0 * 5);
  EXPECT_DOUBLE_EQ(kernels::EinSumKernel(einsum::parse_einsum("T[k,i] = -R[i,k]", {"test", 1, 1}), e).flops(), 7.0 * 5);  // one anyway
}

TEST(TraEinSumKernel, MatmulLoopPath) {
  // "+ 0" makes ⊗ not a scaled product: the same contraction runs as a loop.
  const std::map<std::string, tra::Index> e{{"i", 7}, {"j", 13}, {"k", 5}};
  ASSERT_FALSE(uses_gemm("C[i,k] = sum_j A[i,j] * B[j,k] + 0", e));
  expect_sum_of_products_close(run("C[i,k] = sum_j A[i,j] * B[j,k] + 0", e));
}

TEST(TraEinSumKernel, ScaledProductsRunAsGemmWithAlpha) {
  // Attention's scores Q K^T / sqrt(d) and other constant multiples of a
  // product are GEMMs; the constant becomes alpha.
  const std::map<std::string, tra::Index> e{{"i", 7}, {"j", 13}, {"k", 5}};
  for (const char* text : {"C[i,k] = sum_j A[i,j] * B[j,k] / sqrt(8)", "C[i,k] = sum_j -0.5 * A[i,j] * B[j,k]",
                           "C[i,k] = sum_j (A[i,j] / 4) * (3 * B[k,j])", "C[i,k] = sum_j A[i,j] * B[j,k] * 1"}) {
    ASSERT_TRUE(uses_gemm(text, e)) << text;
    expect_sum_of_products_close(run(text, e));
  }
}

TEST(TraEinSumKernel, TransposedOperands) {
  const std::map<std::string, tra::Index> e{{"i", 6}, {"j", 9}, {"k", 4}};
  for (const char* text :
       {"C[i,k] = sum_j A[j,i] * B[j,k]", "C[i,k] = sum_j A[i,j] * B[k,j]", "C[i,k] = sum_j A[j,i] * B[k,j]", "C[i,k] = sum_j B[j,k] * A[i,j]"}) {
    ASSERT_TRUE(uses_gemm(text, e)) << text;
    expect_sum_of_products_close(run(text, e));
  }
}

TEST(TraEinSumKernel, BatchedContraction) {
  const std::map<std::string, tra::Index> e{{"b", 3}, {"i", 5}, {"j", 8}, {"k", 4}};
  const std::string text = "C[b,i,k] = sum_j A[b,i,j] * B[b,j,k]";
  ASSERT_TRUE(uses_gemm(text, e));
  const Case c = run(text, e);
  EXPECT_EQ(c.got.shape, (Shape{3, 5, 4}));
  expect_sum_of_products_close(c);
  // The batch label elsewhere in the operands forces permutes around GEMM.
  expect_sum_of_products_close(run("C[b,i,k] = sum_j A[i,b,j] * B[j,k,b]", e));
}

TEST(TraEinSumKernel, TwoContractedLabels) {
  const std::map<std::string, tra::Index> e{{"i", 5}, {"j", 4}, {"l", 6}, {"k", 3}};
  const std::string text = "C[i,k] = sum_{j,l} A[i,j,l] * B[l,j,k]";
  ASSERT_TRUE(uses_gemm(text, e));
  expect_sum_of_products_close(run(text, e));  // K = 24
}

TEST(TraEinSumKernel, OutputPermutation) {
  // C[k,i] runs as Bᵀ·Aᵀ (the operands swapped, no transposition after the
  // GEMM); a batch label that is not first still needs the permutation.
  const std::map<std::string, tra::Index> e{{"i", 6}, {"j", 7}, {"k", 3}, {"b", 2}};
  const Case c = run("C[k,i] = sum_j A[i,j] * B[j,k]", e);
  EXPECT_EQ(c.got.shape, (Shape{3, 6}));
  expect_sum_of_products_close(c);
  const Case w = run("W[f,h] = sum_j Z[j,h] * X[j,f]", {{"f", 5}, {"h", 4}, {"j", 7}});  // a weight gradient
  EXPECT_EQ(w.got.shape, (Shape{5, 4}));
  expect_sum_of_products_close(w);
  const Case batched = run("C[i,b,k] = sum_j A[b,i,j] * B[j,k,b]", e);
  EXPECT_EQ(batched.got.shape, (Shape{6, 2, 3}));
  expect_sum_of_products_close(batched);
}

TEST(TraEinSumKernel, ColumnReductionsFoldInTheReferencesOrder) {
  // A bias gradient (summed over the leading label, outputs along the
  // contiguous one) is reduced a tile of columns at a time; every output
  // still adds its terms in b's order from 0, as the reference evaluator
  // does: equal bit for bit. 300 columns: a full tile of 256 and a part;
  // max, a broadcast input and two column dimensions too. 32 rows: one
  // group of the reduction tree, folded plainly in order like the
  // reference (longer ones: test_elementwise.cpp, against the tree).
  const std::map<std::string, tra::Index> e{{"b", 32}, {"h", 300}, {"c", 3}, {"k", 20}};
  for (const char* text : {"G[h] = sum_b X[b,h] * step(Y[b,h])", "G[h] = max_b X[b,h] + Y[b]", "G[c,k] = sum_b X[b,c,k]", "G[h] = sum_b X[b,h]"}) {
    const Case c = run(text, e);
    ASSERT_EQ(c.got.shape, c.want.shape) << text;
    for (size_t i = 0; i < c.want.v.size(); ++i) ASSERT_EQ(c.got.v[i], c.want.v[i]) << text << " element " << i;
  }
}

TEST(TraEinSumKernel, PrivateSummedLabelsRunAsLoop) {
  // j only in A and l only in B, both summed: not a GEMM.
  const std::map<std::string, tra::Index> e{{"i", 4}, {"j", 5}, {"l", 3}};
  const std::string text = "C[i] = sum_{j,l} A[i,j] * B[l]";
  ASSERT_FALSE(uses_gemm(text, e));
  expect_sum_of_products_close(run(text, e));
}

TEST(TraEinSumKernel, MaxAndMinAggregations) {
  const std::map<std::string, tra::Index> e{{"i", 6}, {"j", 11}, {"k", 5}};
  ASSERT_FALSE(uses_gemm("D[i,k] = max_j abs(X[i,j] - Y[j,k])", e));
  const Case mx = run("D[i,k] = max_j abs(X[i,j] - Y[j,k])", e);
  expect_ulps_close(mx);
  for (double v : mx.got.v) EXPECT_GE(v, 0);
  expect_ulps_close(run("D[i,k] = min_j X[i,j] + Y[j,k]", e));
  // A max over products is not a GEMM even though ⊗ is a product.
  ASSERT_FALSE(uses_gemm("D[i,k] = max_j X[i,j] * Y[j,k]", e));
  expect_ulps_close(run("D[i,k] = max_j X[i,j] * Y[j,k]", e));
}

TEST(TraEinSumKernel, ElementwiseWithBroadcast) {
  const std::map<std::string, tra::Index> e{{"i", 5}, {"j", 7}};
  const Case c = run("E[i,j] = exp(X[i,j] - M[i])", e);
  EXPECT_EQ(c.got.shape, (Shape{5, 7}));
  expect_ulps_close(c);
  // Spot check one element against the formula itself.
  const double x12 = c.in.at("X").v[1 * 7 + 2], m1 = c.in.at("M").v[1];
  EXPECT_NEAR(c.got.v[1 * 7 + 2], std::exp(x12 - m1), 4 * DBL_EPSILON * std::exp(x12 - m1));
}

TEST(TraEinSumKernel, AlignedElementwiseRunsInBlocks) {
  // Both inputs over the output's labels, in its order: the flat block loop
  // (kernels/elementwise.hpp), over more elements than one block holds.
  const std::map<std::string, tra::Index> e{{"i", 37}, {"j", 29}};
  expect_ulps_close(run("Z[i,j] = X[i,j] * Y[i,j] - exp(X[i,j])", e));
  expect_ulps_close(run("Z[i,j] = max(X[i,j], 0.25)", e));
}

TEST(TraEinSumKernel, UnaryRelu) {
  const Case c = run("Y[i,j] = relu(X[i,j])", {{"i", 4}, {"j", 9}});
  const std::vector<double>& x = c.in.at("X").v;
  ASSERT_EQ(c.got.v.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(c.got.v[i], x[i] > 0 ? x[i] : 0.0);
  // A one-input transpose with a sum over a private label.
  expect_sum_of_products_close(run("Z[j] = sum_i X[i,j]", {{"i", 4}, {"j", 9}}));
}

// ---- block kernels

namespace {
Chunk iota_chunk(const Shape& s) {
  std::vector<double> v(static_cast<size_t>(tra::volume(s)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  return Chunk::from_host(s, v);
}
}  // namespace

TEST(TraBlocks, Permute) {
  // out.shape[d] = in.shape[perm[d]]; out[a][b][c] = in[b][c][a] for perm {2, 0, 1}.
  const Shape s{2, 3, 4};
  const Chunk in = iota_chunk(s);
  const Chunk out = kernels::permute(in, {2, 0, 1});
  EXPECT_EQ(out.shape, (Shape{4, 2, 3}));
  const auto v = out.to_host();
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 2; ++b)
      for (int c = 0; c < 3; ++c) EXPECT_EQ(v[(a * 2 + b) * 3 + c], (b * 3 + c) * 4 + a);
  // A 2-D transpose, and the identity permutation.
  const auto t = kernels::permute(iota_chunk({2, 3}), {1, 0}).to_host();
  EXPECT_EQ(t, (std::vector<double>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(kernels::permute(in, {0, 1, 2}).to_host(), in.to_host());
}

// Chunks of more elements than a host run (1024: kernels/strided.hpp's
// for_each_position), so that runs start mid-row and the odometer's start
// and roll-over are both exercised, against the index arithmetic written out.
TEST(TraBlocks, PermuteAndCopyAcrossRuns) {
  const Shape s{3, 7, 5, 13};  // 1365 elements
  const Chunk in = iota_chunk(s);
  const std::vector<int> perm{2, 0, 3, 1};
  const Chunk out = kernels::permute(in, perm);
  ASSERT_EQ(out.shape, (Shape{5, 3, 13, 7}));
  const auto v = out.to_host();
  size_t flat = 0;
  for (tra::Index c = 0; c < 5; ++c)
    for (tra::Index a = 0; a < 3; ++a)
      for (tra::Index d = 0; d < 13; ++d)
        for (tra::Index b = 0; b < 7; ++b, ++flat) ASSERT_EQ(v[flat], static_cast<double>(((a * 7 + b) * 5 + c) * 13 + d)) << flat;
  // A 40 x 60 block out of a 50 x 70 chunk at (7, 3): 2400 elements.
  const auto block = kernels::extract_block(iota_chunk({50, 70}), {7, 3}, {40, 60}).to_host();
  for (tra::Index i = 0; i < 40; ++i)
    for (tra::Index j = 0; j < 60; ++j) ASSERT_EQ(block[static_cast<size_t>(i * 60 + j)], static_cast<double>((i + 7) * 70 + j + 3));
}

TEST(TraBlocks, ExtractBlock) {
  // 4x6 holding 0..23; the 2x3 block at (1, 2) is rows 1-2, columns 2-4.
  const Chunk src = iota_chunk({4, 6});
  const Chunk b = kernels::extract_block(src, {1, 2}, {2, 3});
  EXPECT_EQ(b.shape, (Shape{2, 3}));
  EXPECT_EQ(b.to_host(), (std::vector<double>{8, 9, 10, 14, 15, 16}));
  EXPECT_THROW(kernels::extract_block(src, {3, 0}, {2, 3}), tra::InternalError);  // past the last row
}

TEST(TraBlocks, InsertBlockAndRoundTrip) {
  Chunk dst(Shape{4, 6});  // zero-filled
  kernels::insert_block(dst, Chunk::from_host({2, 3}, {1, 2, 3, 4, 5, 6}), {2, 3});
  const auto v = dst.to_host();
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 6; ++c) {
      const bool inside = r >= 2 && c >= 3;
      EXPECT_EQ(v[r * 6 + c], inside ? (r - 2) * 3 + (c - 3) + 1 : 0) << r << "," << c;
    }
  // Cutting a 3-D chunk into all its blocks and putting them back rebuilds it.
  const Shape s{4, 6, 2}, piece{2, 3, 1};
  const Chunk whole = iota_chunk(s);
  Chunk rebuilt(s);
  tra::for_each_key({2, 2, 2}, [&](const tra::Key& k) {
    const Shape off{k[0] * 2, k[1] * 3, k[2]};
    kernels::insert_block(rebuilt, kernels::extract_block(whole, off, piece), off);
  });
  EXPECT_EQ(rebuilt.to_host(), whole.to_host());
}

TEST(TraBlocks, Diagonal) {
  const Chunk d = kernels::diagonal(iota_chunk({3, 3}));
  EXPECT_EQ(d.shape, (Shape{3}));
  EXPECT_EQ(d.to_host(), (std::vector<double>{0, 4, 8}));
  EXPECT_THROW(kernels::diagonal(iota_chunk({2, 3})), tra::InternalError);
}

TEST(TraCombine, CombineCloneAndMap) {
  Chunk acc = Chunk::from_host({3}, {1, 5, -2});
  const Chunk x = Chunk::from_host({3}, {4, 2, -3});
  Chunk copy = kernels::clone(acc);
  kernels::combine_into(einsum::AggOp::Max, acc, x);
  EXPECT_EQ(acc.to_host(), (std::vector<double>{4, 5, -2}));
  EXPECT_EQ(copy.to_host(), (std::vector<double>{1, 5, -2}));  // clone is deep
  kernels::combine_into(einsum::AggOp::Min, copy, x);
  EXPECT_EQ(copy.to_host(), (std::vector<double>{1, 2, -3}));
  kernels::combine_into(einsum::AggOp::Sum, copy, x);
  EXPECT_EQ(copy.to_host(), (std::vector<double>{5, 4, -6}));
  const auto f = einsum::parse_scalar_function("2*x + 1", {"test", 1, 1});
  EXPECT_EQ(kernels::map_elements(f, x).to_host(), (std::vector<double>{9, 5, -5}));
}

// An elementwise ⊗ runs on chunks of any shape through zip_elements (R1-7's
// distributive form): the diagonal of X ⊗ Y equals diag(X) ⊗ diag(Y).
TEST(TraCombine, ZipElementsIsTheKernelsElementwiseOp) {
  const std::map<std::string, tra::Index> e{{"i", 3}, {"j", 3}};
  const kernels::EinSumKernel k(einsum::parse_einsum("Z[i,j] = X[i,j] * Y[i,j] - X[i,j]", {"test", 1, 1}), e);
  ASSERT_TRUE(k.elementwise());
  const Chunk x = Chunk::from_host({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const Chunk y = Chunk::from_host({3, 3}, {-1, 0, 2, 0.5, 3, 1, 2, 2, -2});
  const Chunk whole = kernels::diagonal(k.apply(x, &y));
  const Chunk zipped = kernels::zip_elements(k.join_program(), kernels::diagonal(x), kernels::diagonal(y));
  EXPECT_EQ(zipped.shape, (Shape{3}));
  EXPECT_EQ(zipped.to_host(), whole.to_host());
  EXPECT_EQ(zipped.to_host(), (std::vector<double>{1 * -1 - 1, 5 * 3 - 5, 9 * -2 - 9}));
  EXPECT_THROW(kernels::zip_elements(k.join_program(), x, kernels::diagonal(y)), tra::InternalError);
  // Not elementwise: a label order that differs, a broadcast, an aggregation.
  EXPECT_FALSE(kernels::EinSumKernel(einsum::parse_einsum("Z[i,j] = X[i,j] + Y[j,i]", {"test", 1, 1}), e).elementwise());
  EXPECT_FALSE(kernels::EinSumKernel(einsum::parse_einsum("Z[i,j] = X[i,j] + Y[j]", {"test", 1, 1}), e).elementwise());
  EXPECT_FALSE(kernels::EinSumKernel(einsum::parse_einsum("Z[i] = sum_j X[i,j] * Y[i,j]", {"test", 1, 1}), e).elementwise());
}

TEST(TraEinSumKernel, GemmAddsIntoAnExistingChunk) {
  // z += x·y with beta = 1, against z0 + (the kernel's own product), for a
  // plain, a scaled, a batched and a swapped contraction; an output the
  // GEMM must permute cannot.
  const std::map<std::string, tra::Index> e{{"b", 2}, {"i", 5}, {"j", 7}, {"k", 4}};
  for (const char* text : {"C[i,k] = sum_j A[i,j] * B[j,k]", "C[i,k] = sum_j A[i,j] * B[j,k] / 4", "C[b,i,k] = sum_j A[b,i,j] * B[j,k,b]",
                           "C[k,i] = sum_j A[i,j] * B[j,k]"}) {
    const einsum::EinSum st = einsum::parse_einsum(text, {"test", 1, 1});
    const kernels::EinSumKernel k(st, e);
    ASSERT_TRUE(k.adds_into()) << text;
    const Dense x = random_dense(k.x_shape(), 1), y = random_dense(k.y_shape(), 2), z0 = random_dense(k.z_shape(), 3);
    const Chunk cx = Chunk::from_host(x.shape, x.v), cy = Chunk::from_host(y.shape, y.v);
    Chunk z = Chunk::from_host(z0.shape, z0.v);
    k.apply_add(cx, cy, z);
    Chunk want = Chunk::from_host(z0.shape, z0.v);
    kernels::combine_into(einsum::AggOp::Sum, want, k.apply(cx, &cy));
    const auto got = z.to_host(), ref = want.to_host();
    // Each element: 7 products and z0 added, in another order (≈ K·eps).
    for (size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(got[i], ref[i], 2.0 * 8 * DBL_EPSILON * 8) << text << " element " << i;
  }
  EXPECT_FALSE(kernels::EinSumKernel(einsum::parse_einsum("C[i,b,k] = sum_j A[b,i,j] * B[j,k,b]", {"test", 1, 1}), e).adds_into());
  EXPECT_FALSE(kernels::EinSumKernel(einsum::parse_einsum("C[i,k] = sum_j A[i,j] * B[j,k] + 0", {"test", 1, 1}), e).adds_into());
}
