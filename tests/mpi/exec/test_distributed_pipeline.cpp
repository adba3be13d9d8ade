// Whole decks planned and executed on all ranks, compared with (a) a naive
// dense evaluator and (b) the same deck run on one rank. Also checks that the
// floats the executor moved equal the plan's prediction.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>

#include "support/reference_evaluator.hpp"
#include "support/tolerance.hpp"
#include "tra/comm/exchange.hpp"
#include "tra/exec/executor.hpp"
#include "tra/io/deck/deck_reader.hpp"
#include "tra/logical/lower.hpp"
#include "tra/physical/compile.hpp"
#include "tra/physical/optimizer.hpp"

namespace tra {
namespace {

using testing::Dense;

struct Outcome {
  std::map<std::string, Dense> tensors;  // every statement output, whole, on every rank
  Index predicted = 0, measured = 0;
};

// Runs the Table-1 plan, or the optimizer's choice with every tensor kept
// (with every join that feeds an aggregation forced to `strategy`, or auto).
Outcome run_on(const comm::Communicator& c, const model::Workflow& wf, bool optimized, const std::string& strategy = "auto") {
  const auto low = logical::lower(wf, c.size());
  physical::IaPlan ia = physical::compile(low.plan, c.size());
  if (optimized) {
    ia.roots.clear();
    for (const auto& [name, node] : low.tensor_node) ia.roots.push_back(ia.tra_to_ia[static_cast<size_t>(node)]);
    physical::OptimizerOptions options;
    options.strategy = strategy;
    ia = physical::optimize(ia, options).chosen;
  }
  std::set<int> keep;
  for (const auto& [name, node] : low.tensor_node) keep.insert(ia.tra_to_ia[static_cast<size_t>(node)]);
  exec::Executor ex(ia, c, keep);
  ex.run();
  Outcome out;
  for (size_t i = 0; i < ia.nodes.size(); ++i) {
    out.predicted += ia.nodes[i].predicted_floats;
    out.measured += ex.stats()[i].floats_moved;
  }
  for (const auto& [name, tra_node] : low.tensor_node) {
    const int n = ia.tra_to_ia[static_cast<size_t>(tra_node)];
    const auto& node = ia.nodes[static_cast<size_t>(n)];
    if (!node.type.standard()) continue;
    std::vector<Tuple> mine;
    if (!node.dist.everywhere || c.rank() == 0) mine = ex.result(n);
    comm::Moved ignored;
    auto all = comm::broadcast(c, mine, node.type.key_arity(), node.type.chunk_shape, node.type.dtype, ignored);
    out.tensors[name] = testing::assemble(all, node.type.frontier, node.type.chunk_shape);
  }
  return out;
}

// Different chunkings sum in a different order: results differ by at most
// testing::dot_tolerance (support/tolerance.hpp).
using tra::testing::dot_tolerance;

void expect_close(const Dense& a, const Dense& b, double tol, const std::string& what) { EXPECT_LE(testing::max_abs_diff(a, b), tol) << what; }

class Pipeline : public ::testing::TestWithParam<std::pair<const char*, double>> {};

void check_deck(const char* text, double tol, bool optimized, const std::string& strategy = "auto") {
  SCOPED_TRACE("strategy " + strategy);
  const model::Workflow wf = io::parse_deck(text, "case.yaml", "");
  comm::Communicator world;
  const Outcome dist = run_on(world, wf, optimized, strategy);
  EXPECT_EQ(dist.predicted, dist.measured) << "placement is deterministic: prediction must equal measurement";

  // The same deck on one rank: split the world into single-rank communicators.
  MPI_Comm self;
  MPI_Comm_split(MPI_COMM_WORLD, world.rank(), 0, &self);
  Outcome one;
  {
    comm::Communicator solo(self);
    one = run_on(solo, wf, optimized, strategy);
  }
  MPI_Comm_free(&self);
  EXPECT_EQ(one.measured, 0);

  const auto ref = testing::evaluate_workflow(wf);
  for (const auto& [name, dense] : ref) {
    if (!dist.tensors.count(name)) continue;
    expect_close(dist.tensors.at(name), dense, tol, name + " vs reference");
    expect_close(dist.tensors.at(name), one.tensors.at(name), tol, name + " vs one rank");
  }
}

TEST_P(Pipeline, TableOnePlanMatchesReferenceAndOneRank) { check_deck(GetParam().first, GetParam().second, false); }
TEST_P(Pipeline, OptimizedPlanMatchesReferenceAndOneRank) { check_deck(GetParam().first, GetParam().second, true); }
// Every strategy family a user may force gives the same results (a family that
// does not apply to a join falls back to the cheapest plan).
TEST_P(Pipeline, ForcedStrategiesMatchReferenceAndOneRank) {
  for (const char* family : {"bmm", "cmm", "rmm", "2d", "mixed"}) check_deck(GetParam().first, GetParam().second, true, family);
}

// Inputs are uniform in [-1, 1]: |x|, |y| <= 1.
INSTANTIATE_TEST_SUITE_P(Decks, Pipeline,
                         ::testing::Values(std::make_pair(R"yaml(
tensors:
  - {name: A, shape: [16, 12], source: "uniform(-1, 1, 1)"}
  - {name: B, shape: [12, 8], source: "uniform(-1, 1, 2)"}
graph:
  - "C[i,k] = sum_j A[i,j] * B[j,k]"
)yaml",
                                                          dot_tolerance(12, 1, 1)),
                                           std::make_pair(R"yaml(
tensors:
  - {name: A, shape: [16, 12], source: "uniform(-1, 1, 1)"}
  - {name: B, shape: [12, 8], source: "uniform(-1, 1, 2)"}
graph:
  - "C[i,k] = sum_j A[i,j] * B[j,k]"
run:
  partitioning:
    C: {i: 2, j: 2, k: 2}
)yaml",
                                                          dot_tolerance(12, 1, 1)),
                                           std::make_pair(R"yaml(
tensors:
  - {name: X, shape: [8, 6], source: "uniform(-1, 1, 3)"}
  - {name: W1, shape: [6, 10], source: "uniform(-1, 1, 4)"}
  - {name: W2, shape: [10, 4], source: "uniform(-1, 1, 5)"}
graph:
  - "H[i,k] = sum_j X[i,j] * W1[j,k]"
  - "R[i,k] = relu(H[i,k])"
  - "Y[i,m] = sum_k R[i,k] * W2[k,m]"
run:
  partitioning:
    Y: {i: 1, k: 2, m: 2}
)yaml",
                                                          dot_tolerance(10, 6, 1)),
                                           std::make_pair(R"yaml(
tensors:
  - {name: X, shape: [8, 6], source: "uniform(-1, 1, 6)"}
  - {name: Y, shape: [6, 4], source: "uniform(-1, 1, 7)"}
graph:
  - "D[i,k] = max_j (X[i,j] - Y[j,k])^2"
  - "E[i,k] = min_j abs(X[i,j] - Y[j,k])"
run:
  partitioning:
    D: {i: 2, j: 3, k: 2}
)yaml",
                                                          0.0),
                                           std::make_pair(R"yaml(
tensors:
  - {name: X, shape: [8, 6], source: "normal(0, 1, 8)"}
graph:
  - "M[i] = max_j X[i,j]"
  - "E[i,j] = exp(X[i,j] - M[i])"
  - "S[i] = sum_j E[i,j]"
  - "P[i,j] = E[i,j] / S[i]"
run:
  partitioning:
    M: {i: 2, j: 2}
    E: {i: 4, j: 1}
)yaml",
                                                          1e-14),
                                           std::make_pair(R"yaml(
tensors:
  - {name: A, shape: [4, 6, 8], source: "uniform(-1, 1, 9)"}
  - {name: B, shape: [8, 6, 2], source: "uniform(-1, 1, 10)"}
graph:
  - "C[k,i] = sum_{b,j} A[i,b,j] * B[j,b,k]"
  - "T = einsum('ki->ik', C)"
run:
  partitioning:
    C: {i: 2, b: 2, j: 2, k: 1}
)yaml",
                                                          dot_tolerance(48, 1, 1)),
                                           // Sums and a max over labels their operand holds split finer than
                                           // their d: aggregated in parts (logical/lower.cpp), also from a deck
                                           // input whose chunks the deck fixes.
                                           std::make_pair(R"yaml(
tensors:
  - {name: X, shape: [8, 16], source: "uniform(-1, 1, 11)", chunk: [4, 2]}
graph:
  - "h[n,e] = X[n,e] * 2"
  - "dist[n] = sum_e h[n,e]"
  - "top[n] = max_e h[n,e] - 1"
  - "all = sum_{n,e} h[n,e]"
  - "rows[n] = sum_e X[n,e]"
run:
  partitioning:
    h: {n: 2, e: 4}
    dist: {n: 2}
    top: {n: 1}
    all: {n: 1}
    rows: {n: 2, e: 2}
)yaml",
                                                          dot_tolerance(128, 2, 1)),
                                           // Joins with no shared label (outer products), as a sum of a general
                                           // ⊗ and as a product: planning crashed on them (IndexVector::at).
                                           std::make_pair(R"yaml(
tensors:
  - {name: Y, shape: [6, 11, 5], chunk: [6, 1, 5], source: "uniform(-1, 1, 12)"}
  - {name: T, shape: [6, 4], chunk: [2, 4], source: "normal(0, 1, 13)"}
  - {name: Z, shape: [6, 11], source: "uniform(-1, 1, 14)"}
  - {name: U, shape: [4], source: "uniform(-1, 1, 15)"}
graph:
  - "A = sum Y[s,y,v] / (1 + abs(T[j,z]))"
  - "O[s,y,j] = Z[s,y] * U[j]"
run:
  partitioning:
    O: {s: 2, j: 2}
)yaml",
                                                          dot_tolerance(6 * 11 * 5 * 6 * 4, 1, 1)),
                                           // Every statement split on n only (TRA §6.2's Opt4Horizontal layout):
                                           // the rows never need to move, but R2-4 applied before the join
                                           // strategies used to close off every distributed plan.
                                           std::make_pair(R"yaml(
tensors:
  - {name: X, shape: [16, 20], source: "uniform(-1, 1, 74)"}
  - {name: q, shape: [20], source: "uniform(-1, 1, 75)"}
  - {name: A, shape: [20, 20], source: "uniform(-1, 1, 76)"}
graph:
  - "diff[n,d] = X[n,d] - q[d]"
  - "proj[n,e] = sum_d diff[n,d] * A[d,e]"
  - "h[n,e] = proj[n,e] * diff[n,e]"
  - "dist[n] = sum_e h[n,e]"
  - "best = min_n dist[n]"
run:
  partitioning: {diff: {n: 4}, proj: {n: 4}, h: {n: 4}, dist: {n: 4}, best: {n: 4}}
)yaml",
                                                          // proj errs by at most dot_tolerance(20, 2, 1), h by twice that,
                                                          // and dist adds 20 of them with its own rounding.
                                                          40 * dot_tolerance(20, 2, 1) + dot_tolerance(20, 80, 1))));

}  // namespace
}  // namespace tra
