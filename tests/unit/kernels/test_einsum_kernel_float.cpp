// EinSumKernel and the block kernels on float32 chunks: every path (sgemm,
// plain, transposed, batched and scaled; the loop kernels with and without
// an aggregation; the block moves, ⊕ and the finiteness check) gives float32
// chunks within float rounding of the naive reference evaluator in double on
// the same values: 2·K·FLT_EPSILON·Σ|terms| for a K-long sum, a few float
// ulps for an element-wise result, nothing for a move. And a float GEMM is
// computed in float (not in double and rounded once).
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <string>

#include "support/reference_evaluator.hpp"
#include "support/tolerance.hpp"
#include "tra/einsum/parser.hpp"
#include "tra/kernels/blocks.hpp"
#include "tra/kernels/combine.hpp"
#include "tra/kernels/einsum_kernel.hpp"
#include "tra/kernels/finite.hpp"

namespace tra {
namespace {

using testing::Dense;

using testing::random_floats;

struct FloatCase {
  einsum::EinSum st;
  std::map<std::string, Dense> in;
  Dense got, want, bound;  // the kernel's on float32 chunks, the reference's, the reference's on |inputs|
  double k = 1;  // terms per output
  bool gemm = false;
};

FloatCase run_float(const std::string& text, const std::map<std::string, Index>& extent) {
  FloatCase c;
  c.st = einsum::parse_einsum(text, {"test", 1, 1});
  unsigned seed = 7;
  for (const auto& ref : c.st.inputs) {
    if (c.in.count(ref.name)) continue;
    Shape s;
    for (const auto& l : ref.labels) s.push_back(extent.at(l));
    c.in[ref.name] = random_floats(s, seed++);
  }
  const kernels::EinSumKernel k(c.st, extent);
  c.gemm = k.uses_gemm();
  const Dense& x = c.in.at(c.st.inputs[0].name);
  const Chunk cx = Chunk::from_host(x.shape, x.v, DType::Float32);
  Chunk out;
  if (c.st.inputs.size() == 2) {
    const Dense& y = c.in.at(c.st.inputs[1].name);
    const Chunk cy = Chunk::from_host(y.shape, y.v, DType::Float32);
    out = k.apply(cx, &cy);
  } else {
    out = k.apply(cx, nullptr);
  }
  EXPECT_EQ(out.dtype, DType::Float32) << text;
  EXPECT_EQ(out.shape, k.z_shape()) << text;
  c.got = Dense{out.shape, out.to_host()};
  c.want = testing::evaluate(c.st, c.in);
  std::map<std::string, Dense> abs_in = c.in;
  for (auto& [name, d] : abs_in)
    for (double& v : d.v) v = std::fabs(v);
  c.bound = testing::evaluate(c.st, abs_in);
  for (const auto& l : c.st.agg_labels) c.k *= static_cast<double>(extent.at(l));
  return c;
}

void expect_within_float_rounding(const FloatCase& c) {
  ASSERT_EQ(c.got.shape, c.want.shape);
  for (size_t i = 0; i < c.want.v.size(); ++i)
    ASSERT_NEAR(c.got.v[i], c.want.v[i], testing::sum_tolerance(c.k + 1, std::fabs(c.bound.v[i]), FLT_EPSILON))
        << "element " << i << " of " << c.st.text;
}

TEST(FloatEinSumKernel, ContractionsRunAsSgemmWithinFloatRounding) {
  for (const auto& [text, extent] : std::vector<std::pair<std::string, std::map<std::string, Index>>>{
           {"C[i,j] = sum_k A[i,k] * B[k,j]", {{"i", 24}, {"j", 20}, {"k", 64}}},
           {"C[i,j] = sum_k A[k,i] * B[j,k]", {{"i", 24}, {"j", 20}, {"k", 64}}},  // both operands transposed
           {"S[b,q,k] = sum_e Q[b,q,e] * K[b,k,e] / sqrt(8)", {{"b", 3}, {"q", 5}, {"k", 6}, {"e", 8}}},
           {"G[f,h] = sum_b X[b,f] * D[b,h]", {{"b", 40}, {"f", 12}, {"h", 9}}},  // the weight gradient's swapped operands
       }) {
    const FloatCase c = run_float(text, extent);
    EXPECT_TRUE(c.gemm) << text;
    expect_within_float_rounding(c);
  }
  // Computed in float: sgemm's sums of 64 products differ from the double
  // sums rounded once in some elements.
  const FloatCase c = run_float("C[i,j] = sum_k A[i,k] * B[k,j]", {{"i", 24}, {"j", 20}, {"k", 64}});
  int apart = 0;
  for (size_t i = 0; i < c.want.v.size(); ++i) apart += c.got.v[i] != static_cast<double>(static_cast<float>(c.want.v[i]));
  EXPECT_GT(apart, 0);
}

TEST(FloatEinSumKernel, LoopKernelsWithinFloatRounding) {
  for (const auto& [text, extent] : std::vector<std::pair<std::string, std::map<std::string, Index>>>{
           {"M[i] = max_j A[i,j]", {{"i", 7}, {"j", 100}}},
           {"R[j] = sum_i exp(A[i,j]) * B[i,j]", {{"i", 70}, {"j", 9}}},
           {"E[i,j] = exp(X[i,j] - M[i])", {{"i", 6}, {"j", 11}}},  // broadcast walk
           {"Z[i,j] = relu(X[i,j]) * Y[i,j] + 0.1", {{"i", 30}, {"j", 40}}},  // aligned blocks
           {"T[j,i] = X[i,j] * 2", {{"i", 5}, {"j", 4}}},  // permuted output
       }) {
    const FloatCase c = run_float(text, extent);
    EXPECT_FALSE(c.gemm) << text;
    expect_within_float_rounding(c);
  }
}

TEST(FloatBlocks, MovesKeepEveryFloatAndTheType) {
  const Dense a = random_floats({4, 6}, 3);
  const Chunk c = Chunk::from_host(a.shape, a.v, DType::Float32);
  const Chunk t = kernels::permute(c, {1, 0});
  EXPECT_EQ(t.dtype, DType::Float32);
  const std::vector<double> tv = t.to_host();
  for (Index i = 0; i < 4; ++i)
    for (Index j = 0; j < 6; ++j) EXPECT_EQ(tv[static_cast<size_t>(j * 4 + i)], a.v[static_cast<size_t>(i * 6 + j)]);
  const Chunk block = kernels::extract_block(c, {1, 2}, {2, 3});
  EXPECT_EQ(block.dtype, DType::Float32);
  EXPECT_EQ(block.to_host()[0], a.v[1 * 6 + 2]);
  Chunk dst({4, 6}, DType::Float32);
  kernels::insert_block(dst, block, {1, 2});
  EXPECT_EQ(dst.to_host()[1 * 6 + 2], a.v[1 * 6 + 2]);
  const Chunk sq = Chunk::from_host({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}, DType::Float32);
  EXPECT_EQ(kernels::diagonal(sq).to_host(), (std::vector<double>{1, 5, 9}));
  const Chunk copy = kernels::clone(c);
  EXPECT_EQ(copy.dtype, DType::Float32);
  EXPECT_EQ(copy.to_host(), a.v);
  // A float block into a double chunk is a bug, said as one.
  Chunk wide({4, 6});
  EXPECT_THROW(kernels::insert_block(wide, block, {0, 0}), InternalError);
}

TEST(FloatCombine, AggregatesAndChecksInFloat) {
  Chunk acc = Chunk::from_host({3}, {1.0, -2.0, 0.5}, DType::Float32);
  kernels::combine_into(einsum::AggOp::Sum, acc, Chunk::from_host({3}, {1e-8, 4.0, 0.25}, DType::Float32));
  // 1 + 1e-8 is 1 in float (the double sum is not).
  EXPECT_EQ(acc.to_host(), (std::vector<double>{1.0, 2.0, 0.75}));
  kernels::combine_into(einsum::AggOp::Max, acc, Chunk::from_host({3}, {0.0, 3.0, 0.0}, DType::Float32));
  EXPECT_EQ(acc.to_host(), (std::vector<double>{1.0, 3.0, 0.75}));
  EXPECT_EQ(kernels::nonfinite_count(acc), 0);
  // 1e39 is beyond float: infinity once stored.
  EXPECT_EQ(kernels::nonfinite_count(Chunk::from_host({2}, {1e39, 1.0}, DType::Float32)), 1);
  EXPECT_EQ(kernels::nonfinite_count(Chunk::from_host({2}, {1e39, 1.0})), 0);
  const auto relu = einsum::parse_scalar_function("relu(x) + 0.1", {"test", 1, 1});
  const Chunk m = kernels::map_elements(relu, Chunk::from_host({2}, {-1.0, 2.0}, DType::Float32));
  EXPECT_EQ(m.dtype, DType::Float32);
  EXPECT_EQ(m.to_host(), (std::vector<double>{static_cast<float>(0.1), static_cast<double>(2.0f + static_cast<float>(0.1))}));
}

}  // namespace
}  // namespace tra
