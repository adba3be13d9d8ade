// The sparse-times-dense kernel against a naive product in double on the
// same values: A·x and Aᵀ·y for a random block (empty rows and columns
// included), overwriting and adding into the output, in float64 and
// float32. A K-long row sum is within 2·K·eps·Σ|terms| of the naive one
// (any order; here KokkosSparse sums in the block's column order, so it is
// nearly always exact).
#include <gtest/gtest.h>

#include <cfloat>
#include <random>

#include "tra/kernels/sparse_product.hpp"

namespace tra {
namespace {

struct Case {
  Index rows = 37, cols = 53, n = 7;
  std::vector<SparseEntry> entries;
  std::vector<double> x, y;  // cols x n, rows x n: floats, so both types start alike
};

Case make_case(unsigned seed) {
  Case c;
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0), coin(0.0, 1.0);
  for (Index r = 0; r < c.rows; ++r)
    for (Index k = 0; k < c.cols; ++k)
      if (r != 5 && k != 11 && coin(gen) < 0.15) c.entries.push_back({r, k, static_cast<float>(u(gen))});  // row 5, column 11 empty
  for (Index i = 0; i < c.cols * c.n; ++i) c.x.push_back(static_cast<float>(u(gen)));
  for (Index i = 0; i < c.rows * c.n; ++i) c.y.push_back(static_cast<float>(u(gen)));
  return c;
}

// op(A)·v in double, and Σ|terms| and the longest row, for the bound.
struct Naive {
  std::vector<double> value, magnitude;
  Index longest = 0;
};

Naive naive(const Case& c, bool transposed, const std::vector<double>& v) {
  const Index m = transposed ? c.cols : c.rows;
  Naive out{std::vector<double>(static_cast<size_t>(m * c.n)), std::vector<double>(static_cast<size_t>(m * c.n)), 0};
  std::vector<Index> per_row(static_cast<size_t>(m));
  for (const SparseEntry& e : c.entries) {
    const Index row = transposed ? e.col : e.row, col = transposed ? e.row : e.col;
    ++per_row[static_cast<size_t>(row)];
    for (Index j = 0; j < c.n; ++j) {
      out.value[static_cast<size_t>(row * c.n + j)] += e.value * v[static_cast<size_t>(col * c.n + j)];
      out.magnitude[static_cast<size_t>(row * c.n + j)] += std::abs(e.value * v[static_cast<size_t>(col * c.n + j)]);
    }
  }
  for (Index k : per_row) out.longest = std::max(out.longest, k);
  return out;
}

void expect_product(DType t) {
  if (!kernels::sparse_product_built()) GTEST_SKIP() << "this build's Kokkos Kernels has no sparse component";
  const Case c = make_case(7);
  const SparseBlock a = SparseBlock::from_entries(c.rows, c.cols, c.entries, t);
  const double eps = t == DType::Float32 ? FLT_EPSILON : DBL_EPSILON;
  for (bool transposed : {false, true}) {
    const std::vector<double>& v = transposed ? c.y : c.x;
    const Index k = transposed ? c.rows : c.cols, m = transposed ? c.cols : c.rows;
    const Chunk x = Chunk::from_host(Shape{k, c.n}, v, t);
    const Naive want = naive(c, transposed, v);
    ASSERT_GT(want.longest, 3);
    const std::vector<double> got = kernels::sparse_product(a, transposed, x).to_host();
    // beta 1: added into an output of ones.
    Chunk sum = Chunk::from_host(Shape{m, c.n}, std::vector<double>(static_cast<size_t>(m * c.n), 1.0), t);
    kernels::sparse_product_into(a, transposed, x, 1.0, sum);
    const std::vector<double> added = sum.to_host();
    ASSERT_EQ(got.size(), want.value.size());
    for (size_t i = 0; i < got.size(); ++i) {
      const double bound = 2.0 * static_cast<double>(want.longest) * eps * want.magnitude[i];
      EXPECT_NEAR(got[i], want.value[i], bound) << (transposed ? "Aᵀ·y" : "A·x") << " at " << i;
      EXPECT_NEAR(added[i], 1.0 + want.value[i], bound + 2 * eps * (1.0 + std::abs(want.value[i]))) << "added, at " << i;
    }
    // The empty row (A·x: row 5) and column (Aᵀ·y: row 11) give zeros.
    for (Index j = 0; j < c.n; ++j) EXPECT_EQ(got[static_cast<size_t>((transposed ? 11 : 5) * c.n + j)], 0.0);
  }
  EXPECT_EQ(kernels::sparse_product_flops(a, c.n), 2.0 * static_cast<double>(c.entries.size()) * 7);
}

TEST(SparseProduct, Float64MatchesTheNaiveProductBothWays) { expect_product(DType::Float64); }
TEST(SparseProduct, Float32MatchesTheNaiveProductBothWays) { expect_product(DType::Float32); }

}  // namespace
}  // namespace tra
