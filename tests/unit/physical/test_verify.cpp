// The plan invariants (physical/verify.hpp): a compiled and an optimized plan
// keep them, and each kind of break is named.
#include <gtest/gtest.h>

#include "tra/common/error.hpp"
#include "tra/io/deck/deck_reader.hpp"
#include "tra/logical/lower.hpp"
#include "tra/physical/compile.hpp"
#include "tra/physical/infer.hpp"
#include "tra/physical/optimizer.hpp"
#include "tra/physical/verify.hpp"

namespace tra::physical {
namespace {

const char* const kDeck =
    "tensors:\n"
    "  - {name: A, shape: [8, 8], chunk: [4, 4], source: \"uniform(-1, 1, 1)\"}\n"
    "  - {name: B, shape: [8, 8], chunk: [4, 4], source: \"uniform(-1, 1, 2)\"}\n"
    "graph:\n"
    "  - \"C[i,k] = sum_j A[i,j] * B[j,k]\"\n";

IaPlan compiled() {
  const auto low = logical::lower(io::parse_deck(kDeck, "deck.yaml", ""), 2);
  IaPlan p = compile(low.plan, 2);
  infer(p);
  return p;
}

int first(const IaPlan& p, IaKind kind) {
  for (size_t i = 0; i < p.nodes.size(); ++i)
    if (p.nodes[i].kind() == kind) return static_cast<int>(i);
  return -1;
}

TEST(Verify, CompiledAndOptimizedPlansKeepEveryInvariant) {
  const IaPlan p = compiled();
  EXPECT_EQ(plan_problem(p), "");
  EXPECT_EQ(plan_problem(optimize(p, {}).chosen), "");
}

TEST(Verify, EachBrokenInvariantIsNamed) {
  const IaPlan good = compiled();
  const int join = first(good, IaKind::LocalJoin), bcast = first(good, IaKind::Bcast);
  ASSERT_GE(join, 0);
  ASSERT_GE(bcast, 0);
  auto problem = [&](const std::function<void(IaPlan&)>& edit) {
    IaPlan p = good;
    edit(p);
    return plan_problem(p);
  };
  EXPECT_NE(problem([&](IaPlan& p) { p.node(join).inputs = {join, 0}; }).find("does not come before it"), std::string::npos);
  EXPECT_NE(problem([&](IaPlan& p) { p.node(join).inputs.pop_back(); }).find("reads 2 input(s), it has 1"), std::string::npos);
  EXPECT_NE(problem([&](IaPlan& p) { p.roots.push_back(99); }).find("root p99"), std::string::npos);
  EXPECT_NE(problem([&](IaPlan& p) { p.node(join).stale = true; }).find("not inferred"), std::string::npos);
  // A parameter rewritten without inferring again: the derived fields are stale.
  EXPECT_NE(problem([&](IaPlan& p) { p.node(join).join().call_flops *= 2; }).find("derived fields"), std::string::npos);
  EXPECT_NE(problem([&](IaPlan& p) { p.node(join).join().keys_left = {5}; }).find("join key"), std::string::npos);
  EXPECT_NE(problem([&](IaPlan& p) { p.node(bcast).dist.everywhere = false; }).find("a Bcast whose result is not on every site"), std::string::npos);
  EXPECT_NE(problem([&](IaPlan& p) {
              p.node(bcast).dist.everywhere = false;
              p.node(bcast).params = ShuffleParams{Placement::part({0}, p.node(bcast).type.frontier), {}};
            }).find("derived fields"),
            std::string::npos);
}

TEST(Verify, VerifyThrowsNamingTheStep) {
  IaPlan p = compiled();
  p.node(first(p, IaKind::LocalJoin)).stale = true;
  try {
    verify(p, "phase rules");
    FAIL() << "no error";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("after phase rules breaks an invariant: p"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tra::physical
