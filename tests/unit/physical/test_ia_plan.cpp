// Which joins stream into their aggregation (physical::streamed_into,
// folds_in_gemm), and what the cost model charges such an aggregation: plans
// built by hand, each condition broken once.
#include <gtest/gtest.h>

#include <vector>

#include "tra/einsum/parser.hpp"
#include "tra/physical/cost_model.hpp"
#include "tra/physical/ia_plan.hpp"

using tra::physical::IaNode;
using tra::physical::IaPlan;
using Kind = IaNode::Kind;
namespace einsum = tra::einsum;
namespace physical = tra::physical;

namespace {

// A matmul of 2x2 blocks, whose GEMM adds in place or (written "+ 0", a loop) does not.
physical::JoinKernel matmul(bool adds) {
  const std::string st = adds ? "C[i,k] = sum_j X[i,j] * Y[j,k]" : "C[i,k] = sum_j X[i,j] * Y[j,k] + 0";
  auto kernel = std::make_shared<tra::kernels::EinSumKernel>(einsum::parse_einsum(st, {"test", 1, 1}),
                                                             std::map<einsum::Label, tra::Index>{{"i", 2}, {"j", 2}, {"k", 2}});
  return {{kernel, st}, false, {}};
}

// Scan, Scan, ⋈L(p0, p1), ΣL(p2) with the given ⊕ (None: an aggregation that
// assembles whole groups); the aggregation is the root.
IaPlan join_then_aggregate(einsum::AggOp fold, bool join_adds) {
  IaPlan p;
  p.nodes.resize(4);
  p.nodes[0].params = p.nodes[1].params = physical::ScanParams{};
  IaNode& j = p.nodes[2];
  j.params = physical::JoinParams{};
  j.inputs = {0, 1};
  j.join().kernel = matmul(join_adds);
  IaNode& a = p.nodes[3];
  a.params = physical::AggParams{};
  a.inputs = {2};
  if (fold == einsum::AggOp::None) a.agg().kernel.reduce = physical::AggKernel::Assemble{{2, 2}, {4, 4}};
  else a.agg().kernel.reduce = physical::AggKernel::Fold{fold};
  p.roots = {3};
  return p;
}

}  // namespace

TEST(TraIaPlan, AJoinStreamsIntoItsOnlyConsumerWhenItFolds) {
  const IaPlan p = join_then_aggregate(einsum::AggOp::Sum, true);
  EXPECT_EQ(physical::streamed_into(p), (std::vector<int>{-1, -1, 3, -1}));
  EXPECT_TRUE(physical::folds_in_gemm(p, 2, 3));
  // Max folds element-wise too, but not inside a GEMM.
  const IaPlan m = join_then_aggregate(einsum::AggOp::Max, true);
  EXPECT_EQ(physical::streamed_into(m)[2], 3);
  EXPECT_FALSE(physical::folds_in_gemm(m, 2, 3));
  // A sum after a join that cannot add in place streams, folding apart.
  EXPECT_FALSE(physical::folds_in_gemm(join_then_aggregate(einsum::AggOp::Sum, false), 2, 3));
}

TEST(TraIaPlan, AJoinWantedWholeDoesNotStream) {
  // An aggregation that needs whole groups (assembling chunks) cannot take members one at a time.
  EXPECT_EQ(physical::streamed_into(join_then_aggregate(einsum::AggOp::None, true))[2], -1);
  // The join's own result is wanted.
  IaPlan root = join_then_aggregate(einsum::AggOp::Sum, true);
  root.roots = {2, 3};
  EXPECT_EQ(physical::streamed_into(root)[2], -1);
  // A second consumer reads the join's tuples.
  IaPlan shared = join_then_aggregate(einsum::AggOp::Sum, true);
  IaNode f;
  f.params = physical::FilterParams{};
  f.inputs = {2};
  shared.nodes.push_back(f);
  shared.roots = {3, 4};
  EXPECT_EQ(physical::streamed_into(shared)[2], -1);
  // ... unless that consumer is dead: only the live nodes count.
  EXPECT_EQ(physical::streamed_into(shared, {0, 1, 2, 3})[2], 3);
}

TEST(TraIaPlan, ASumFoldedInTheGemmCostsOnlyItsComposedMap) {
  physical::Rates r;
  r.loop_flops = 1e9;
  r.gemm_flops = 1e10;
  for (bool adds : {true, false}) {
    IaPlan p = join_then_aggregate(einsum::AggOp::Sum, adds);
    p.nodes[2].join().gemm = true;
    p.nodes[2].site_flops = 4e9;
    p.nodes[3].site_flops = 3e9;  // 2e9 of folding, 1e9 of a map composed by R1-4
    p.nodes[3].site_fold_flops = 2e9;
    const physical::PlanCost c = physical::cost_of(p, r);
    EXPECT_DOUBLE_EQ(c.node_seconds[2], 0.4);
    EXPECT_DOUBLE_EQ(c.node_seconds[3], adds ? 1.0 : 3.0) << (adds ? "folded in the GEMM" : "folded apart");
  }
}

TEST(TraIaPlan, AFloat32GemmIsChargedAtTheFloat32Rate) {
  physical::Rates r;
  r.gemm_flops = 1e10;
  r.gemm_flops_float32 = 2e10;
  r.memory_bytes = 1e300;  // flops only
  IaPlan p = join_then_aggregate(einsum::AggOp::Sum, true);
  p.nodes[2].join().gemm = true;
  p.nodes[2].site_flops = 4e9;
  EXPECT_DOUBLE_EQ(physical::cost_of(p, r).node_seconds[2], 0.4);
  p.nodes[2].type.dtype = tra::DType::Float32;
  EXPECT_DOUBLE_EQ(physical::cost_of(p, r).node_seconds[2], 0.2);
}

TEST(TraIaPlan, ASparseProductIsChargedForTheDenseRowsItReads) {
  // M = A·H with A sparse: 2 flops per stored entry and column, each reading
  // an element of H at the sparse rate, not the loop or GEMM rates.
  physical::Rates r;
  r.loop_flops = 1e6;
  r.gemm_flops = 1e6;
  r.sparse_bytes = 4e9;
  IaPlan p = join_then_aggregate(einsum::AggOp::Sum, true);
  const std::string st = "M[v,h] = sum_u A[v,u] * H[u,h]";
  auto kernel = std::make_shared<tra::kernels::EinSumKernel>(einsum::parse_einsum(st, {"test", 1, 1}),
                                                             std::map<einsum::Label, tra::Index>{{"v", 4}, {"u", 4}, {"h", 8}}, 0, 6);
  ASSERT_TRUE(kernel->sparse());
  p.nodes[2].join().kernel = {{kernel, st}, false, {}};
  p.nodes[2].site_flops = 2e9;  // 1e9 entries x columns
  EXPECT_DOUBLE_EQ(physical::cost_of(p, r).node_seconds[2], 1e9 * 8 / 4e9);
  p.nodes[2].type.dtype = tra::DType::Float32;
  EXPECT_DOUBLE_EQ(physical::cost_of(p, r).node_seconds[2], 1e9 * 4 / 4e9) << "float32 reads half the bytes";
}
