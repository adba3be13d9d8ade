// exec::join_aggregate, the executor's streamed Σ(g, ⊕)(⋈(...)), against the
// two TRA operators run one after the other (exec::local::join, then
// exec::local::aggregate): random relations, with and without a GEMM that adds
// into the accumulator, several ⊕, a key map on the join's output and a map
// composed after the fold (R1-4).
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <random>

#include "support/tolerance.hpp"
#include "tra/einsum/parser.hpp"
#include "tra/exec/bound_kernels.hpp"
#include "tra/exec/join_aggregate.hpp"
#include "tra/kernels/einsum_kernel.hpp"

using tra::Chunk;
using tra::Index;
using tra::Key;
using tra::Shape;
using tra::Tuple;
using tra::physical::IaNode;
namespace einsum = tra::einsum;
namespace kernels = tra::kernels;
namespace logical = tra::logical;

namespace {

constexpr Index kBlock = 6;  // chunk extent of every label
constexpr Index kParts = 3;  // key extent of every key dimension

// A relation over keys <a, b> in [0, kParts)^2 with random kBlock x kBlock
// chunks, some keys left out so that groups differ in size.
std::vector<Tuple> random_relation(std::mt19937_64& gen) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Tuple> r;
  for (Index a = 0; a < kParts; ++a)
    for (Index b = 0; b < kParts; ++b) {
      if (gen() % 5 == 0) continue;
      std::vector<double> v(static_cast<size_t>(kBlock * kBlock));
      for (double& x : v) x = u(gen);
      r.push_back({Key{a, b}, Chunk::from_host({kBlock, kBlock}, v)});
    }
  return r;
}

// The join ⋈(<1>, <0>, C[i,k] = ⊕_j X[i,j] ⊗ Y[j,k]) over keys <i, j, k>, with
// the GEMM's in-place add when the statement is a plain matmul.
IaNode join_node(const std::string& statement) {
  auto kernel = std::make_shared<kernels::EinSumKernel>(einsum::parse_einsum(statement, {"test", 1, 1}),
                                                        std::map<einsum::Label, Index>{{"i", kBlock}, {"j", kBlock}, {"k", kBlock}});
  IaNode j;
  j.params = tra::physical::JoinParams{};
  j.join().keys_left = {1};
  j.join().keys_right = {0};
  j.join().kernel = tra::physical::JoinKernel{{kernel, statement}, false, {}};
  return j;
}

IaNode agg_node(einsum::AggOp op, std::vector<int> group_by) {
  IaNode a;
  a.params = tra::physical::AggParams{};
  a.agg().group_by = std::move(group_by);
  a.agg().kernel = tra::physical::AggKernel{tra::physical::AggKernel::Fold{op}, {}};
  return a;
}

std::vector<Tuple> unstreamed(const std::vector<Tuple>& x, const std::vector<Tuple>& y, const IaNode& j, const IaNode& a) {
  std::vector<Tuple> joined = tra::exec::local::join(x, y, j.join().keys_left, j.join().keys_right, tra::exec::join_fn(j.join().kernel));
  for (Tuple& t : joined) t.key = j.join().out_key(t.key);
  return tra::exec::local::aggregate(joined, a.agg().group_by, tra::exec::agg_fn(a.agg().kernel));
}

// Both ways on random relations; `tol(k)` bounds the difference of one
// element (k: the group's key, to size the bound by its sum's length).
void expect_streaming_agrees(const IaNode& j, const IaNode& a, double tol, unsigned seed) {
  std::mt19937_64 gen(seed);
  for (int trial = 0; trial < 10; ++trial) {
    const std::vector<Tuple> x = random_relation(gen), y = random_relation(gen);
    const std::vector<Tuple> want = unstreamed(x, y, j, a);
    const std::vector<Tuple> got = tra::exec::join_aggregate(x, y, j, a);
    ASSERT_EQ(got.size(), want.size()) << "trial " << trial;
    for (size_t t = 0; t < want.size(); ++t) {
      ASSERT_EQ(got[t].key, want[t].key) << "trial " << trial;
      ASSERT_EQ(got[t].chunk.shape, want[t].chunk.shape);
      const auto g = got[t].chunk.to_host(), w = want[t].chunk.to_host();
      for (size_t e = 0; e < w.size(); ++e)
        if (tol == 0) ASSERT_EQ(g[e], w[e]) << "trial " << trial << " key " << tra::to_string(want[t].key) << " element " << e;
        else ASSERT_NEAR(g[e], w[e], tol) << "trial " << trial << " key " << tra::to_string(want[t].key) << " element " << e;
    }
  }
}

// A matmul of blocks: each output element sums K = kParts · kBlock products of
// values in [-1, 1], in another order when the GEMM adds in place. One order
// errs by at most K·eps·Σ|a·b| ≤ K²·eps (Higham §3.1); both sides err, hence 2.
const double kMatmulTol = tra::testing::dot_tolerance(kParts * kBlock, 1.0, 1.0);

}  // namespace

TEST(TraJoinAggregate, GemmAddsIntoTheGroupsAccumulator) {
  const IaNode j = join_node("C[i,k] = sum_j X[i,j] * Y[j,k]");
  ASSERT_TRUE(j.join().kernel.adds_into()) << "a plain matmul kernel adds in place";
  expect_streaming_agrees(j, agg_node(einsum::AggOp::Sum, {0, 2}), kMatmulTol, 1);
}

TEST(TraJoinAggregate, WithoutAGemmTheFoldIsTheSameToTheLastBit) {
  // "+ 0": the same contraction on the loop path, no in-place add; members are
  // folded in Σ's order, so the result is identical.
  const IaNode j = join_node("C[i,k] = sum_j X[i,j] * Y[j,k] + 0");
  ASSERT_FALSE(j.join().kernel.adds_into());
  expect_streaming_agrees(j, agg_node(einsum::AggOp::Sum, {0, 2}), 0, 2);
  // A GEMM join under a max: the in-place add does not apply; folded apart.
  expect_streaming_agrees(join_node("C[i,k] = sum_j X[i,j] * Y[j,k]"), agg_node(einsum::AggOp::Max, {0, 2}), 0, 3);
  expect_streaming_agrees(j, agg_node(einsum::AggOp::Min, {2}), 0, 4);
}

TEST(TraJoinAggregate, KeyMapAndFinishingMap) {
  IaNode j = join_node("C[i,k] = sum_j X[i,j] * Y[j,k]");
  // The join's output key <i, j, k> reversed: groups on <k, i> read positions 0 and 2.
  j.join().out_key = tra::physical::KeyFn::projecting({2, 1, 0}, 3);
  IaNode a = agg_node(einsum::AggOp::Sum, {0, 2});
  a.agg().kernel.finish = tra::physical::ArrayFn::of(tra::physical::ArrayFn::Elements{einsum::parse_scalar_function("x * x", {"test", 1, 1})});
  // (s + e)² − s² ≈ 2|s|e: the bound scales with the largest |sum|, at most kParts · kBlock.
  expect_streaming_agrees(j, a, 2.0 * kParts * kBlock * kMatmulTol, 5);
}

TEST(TraJoinAggregate, EmptyInputsGiveNothing) {
  const IaNode j = join_node("C[i,k] = sum_j X[i,j] * Y[j,k]");
  std::mt19937_64 gen(6);
  EXPECT_TRUE(tra::exec::join_aggregate({}, random_relation(gen), j, agg_node(einsum::AggOp::Sum, {0, 2})).empty());
}
