// EinSumKernel with a sparse input: Out[v,h] = Σ_u A[v,u]·H[u,h] with A's
// chunk a sparse block, the transposed product of a gradient (A's first
// label summed), and operands and results in other label orders, each
// against the naive reference evaluator on A made dense (zeros where
// nothing is stored), within 2·K·eps·Σ|terms|, in float64 and float32; adding
// into an output (a sum aggregation's accumulator); the flops of the stored
// entries; the rows a result is zero outside of; and the statements a
// sparse input cannot run in, refused.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <map>
#include <random>
#include <string>

#include "support/reference_evaluator.hpp"
#include "tra/core/sparse_block.hpp"
#include "tra/einsum/parser.hpp"
#include "tra/kernels/einsum_kernel.hpp"
#include "tra/kernels/sparse_product.hpp"

namespace tra {
namespace {

using testing::Dense;

// A rows x cols block with about a fifth of its places stored, and the same
// as a dense tensor; values are floats, so both types start alike.
struct Sparse {
  std::vector<SparseEntry> entries;
  Dense dense;
};

Sparse random_sparse(Index rows, Index cols, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0), coin(0.0, 1.0);
  Sparse s{{}, Dense{{rows, cols}, std::vector<double>(static_cast<size_t>(rows * cols), 0.0)}};
  for (Index r = 0; r < rows; ++r)
    for (Index c = 0; c < cols; ++c)
      if (coin(gen) < 0.2) {
        const double v = static_cast<float>(u(gen));
        s.entries.push_back({r, c, v});
        s.dense.v[static_cast<size_t>(r * cols + c)] = v;
      }
  return s;
}

Dense absolute(Dense d) {
  for (double& v : d.v) v = std::fabs(v);
  return d;
}

// Runs `text` with input `sparse_input` (named A) sparse, in type t, and
// checks it against the reference; returns the kernel.
void expect_sparse_product(const std::string& text, int sparse_input, const std::map<std::string, Index>& extent, DType t) {
  const einsum::EinSum st = einsum::parse_einsum(text, {"test", 1, 1});
  const auto shape_of = [&](const einsum::TensorRef& r) {
    Shape s;
    for (const auto& l : r.labels) s.push_back(extent.at(l));
    return s;
  };
  const einsum::TensorRef& a_ref = st.inputs[static_cast<size_t>(sparse_input)];
  const einsum::TensorRef& d_ref = st.inputs[static_cast<size_t>(1 - sparse_input)];
  const Sparse a = random_sparse(shape_of(a_ref)[0], shape_of(a_ref)[1], 3);
  const Dense d = testing::random_floats(shape_of(d_ref), 4);
  const std::map<std::string, Dense> in = {{a_ref.name, a.dense}, {d_ref.name, d}};
  const Dense want = testing::evaluate(st, in);
  const Dense bound = testing::evaluate(st, {{a_ref.name, absolute(a.dense)}, {d_ref.name, absolute(d)}});
  const kernels::EinSumKernel k(st, extent, sparse_input, static_cast<double>(a.entries.size()));
  EXPECT_TRUE(k.sparse());
  EXPECT_EQ(k.name(), "sparse-product");
  EXPECT_EQ(k.flops(), 2.0 * static_cast<double>(a.entries.size()) *
                           static_cast<double>(extent.at(d_ref.labels[0] == st.agg_labels[0] ? d_ref.labels[1] : d_ref.labels[0])));
  const Chunk block =
      Chunk::of_block(std::make_shared<const SparseBlock>(SparseBlock::from_entries(a.dense.shape[0], a.dense.shape[1], a.entries, t)));
  const Chunk dense = Chunk::from_host(d.shape, d.v, t);
  const Chunk out = sparse_input == 0 ? k.apply(block, &dense) : k.apply(dense, &block);
  ASSERT_EQ(out.shape, want.shape);
  EXPECT_EQ(out.dtype, t);
  const double eps = t == DType::Float32 ? FLT_EPSILON : DBL_EPSILON;
  const double longest = static_cast<double>(extent.at(st.agg_labels[0]));
  const std::vector<double> got = out.to_host();
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want.v[i], 2 * longest * eps * bound.v[i]) << text << " at " << i;
  if (k.adds_into()) {
    Chunk sum = Chunk::from_host(want.shape, std::vector<double>(want.v.size(), 1.0), t);
    if (sparse_input == 0) k.apply_add(block, dense, sum);
    else k.apply_add(dense, block, sum);
    const std::vector<double> added = sum.to_host();
    for (size_t i = 0; i < added.size(); ++i)
      EXPECT_NEAR(added[i], 1.0 + want.v[i], 2 * longest * eps * bound.v[i] + 2 * eps * (1.0 + std::fabs(want.v[i]))) << text << " added, at " << i;
  }
}

const std::map<std::string, Index> kExtent = {{"v", 23}, {"u", 31}, {"h", 5}};

TEST(EinSumKernelSparse, AProductAndItsGradientMatchTheReference) {
  if (!kernels::sparse_product_built()) GTEST_SKIP() << "this build's Kokkos Kernels has no sparse component";
  for (DType t : {DType::Float64, DType::Float32}) {
    expect_sparse_product("M[v,h] = sum_u A[v,u] * H[u,h]", 0, kExtent, t);  // A·H
    expect_sparse_product("G[u,h] = sum_v D[v,h] * A[v,u]", 1, kExtent, t);  // Aᵀ·D (the gradient of H)
    expect_sparse_product("M[h,v] = sum_u H[h,u] * A[v,u]", 1, kExtent, t);  // the dense operand and the result permuted
    expect_sparse_product("G[u,h] = sum_v A[v,u] * D[h,v]", 0, kExtent, t);
  }
  EXPECT_TRUE(kernels::EinSumKernel(einsum::parse_einsum("M[v,h] = sum_u A[v,u] * H[u,h]", {"t", 1, 1}), kExtent, 0, 10).adds_into());
  EXPECT_FALSE(kernels::EinSumKernel(einsum::parse_einsum("M[h,v] = sum_u H[h,u] * A[v,u]", {"t", 1, 1}), kExtent, 1, 10).adds_into());
}

std::vector<int> support_of(const Chunk& c) {
  if (!c.has_row_support) return {-1};
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c.row_support);
  return std::vector<int>(host.data(), host.data() + host.extent(0));
}

TEST(EinSumKernelSparse, AProductKnowsTheRowsOutsideOfWhichItIsZero) {
  if (!kernels::sparse_product_built()) GTEST_SKIP() << "this build's Kokkos Kernels has no sparse component";
  // A 6 x 8 block with entries in rows 1 and 4 and columns 2, 5 and 7: its
  // product is zero outside rows 1 and 4, the transposed one outside rows
  // 2, 5 and 7 (what a shuffle of filled rows sends, comm/exchange.hpp).
  const std::map<std::string, Index> extent = {{"v", 6}, {"u", 8}, {"h", 3}};
  const Chunk block =
      Chunk::of_block(std::make_shared<const SparseBlock>(SparseBlock::from_entries(6, 8, {{1, 2, 0.5}, {4, 7, -1.5}, {1, 5, 2.0}, {4, 2, 1.0}})));
  const Chunk h = Chunk::from_host({8, 3}, testing::random_floats({8, 3}, 5).v);
  const Chunk d = Chunk::from_host({6, 3}, testing::random_floats({6, 3}, 6).v);
  const auto kernel = [&](const char* text, int sparse_input) {
    return kernels::EinSumKernel(einsum::parse_einsum(text, {"t", 1, 1}), extent, sparse_input, 4);
  };
  const kernels::EinSumKernel product = kernel("M[v,h] = sum_u A[v,u] * H[u,h]", 0);
  const Chunk m = product.apply(block, &h);
  EXPECT_EQ(support_of(m), (std::vector<int>{1, 4}));
  const std::vector<double> mv = m.to_host();
  for (Index v = 0; v < 6; ++v)
    if (v != 1 && v != 4)
      for (Index c = 0; c < 3; ++c) EXPECT_EQ(mv[static_cast<size_t>(v * 3 + c)], 0.0);
  const Chunk g = kernel("G[u,h] = sum_v D[v,h] * A[v,u]", 1).apply(d, &block);
  EXPECT_EQ(support_of(g), (std::vector<int>{2, 5, 7}));
  // A result in another order, or one added into, has no rows of its own.
  EXPECT_EQ(support_of(kernel("M[h,v] = sum_u H[h,u] * A[v,u]", 1).apply(Chunk::from_host({3, 8}, h.to_host()), &block)), (std::vector<int>{-1}));
  Chunk sum = m;
  product.apply_add(block, h, sum);
  EXPECT_EQ(support_of(sum), (std::vector<int>{-1}));
}

TEST(EinSumKernelSparse, StatementsASparseInputCannotRunInAreRefused) {
  const auto why = [](const std::string& text, int sparse_input) {
    std::string reason;
    const bool fits = kernels::EinSumKernel::sparse_product_fits(einsum::parse_einsum(text, {"t", 1, 1}), sparse_input, &reason);
    return fits ? std::string("fits") : reason;
  };
  EXPECT_EQ(why("M[v,h] = sum_u A[v,u] * H[u,h]", 0), "fits");
  EXPECT_EQ(why("M[v,h] = sum_u A[v,u] * H[u,h] * 2", 0), "a sparse tensor's statement is a plain sum of products (sum_u A[v,u] * H[u,h])");
  EXPECT_EQ(why("M[v,u] = A[v,u] + H[v,u]", 0), "a sparse tensor's statement is a plain sum of products (sum_u A[v,u] * H[u,h])");
  EXPECT_EQ(why("M[v] = sum_{u,h} A[v,u] * H[u,h]", 0), "a sparse product has two 2-D inputs, one summed label and a 2-D result");
  EXPECT_EQ(why("M[v,h] = sum_u A[v,h] * H[u,h]", 0), "the summed label is one of the sparse tensor's two and one of the dense tensor's two");
  EXPECT_EQ(why("M[v] = relu(A[v])", 0), "a sparse tensor can only be multiplied by one dense tensor");
}

}  // namespace
}  // namespace tra
