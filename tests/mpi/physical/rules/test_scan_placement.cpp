// scan-part, scan-all and scan-face: where an input is read (physical/rules/scan_placement.cpp), each checked as support/rule_cases.hpp says: random
// small plans in which its left-hand side occurs, both sides run and compared.
#include <gtest/gtest.h>

#include "support/rule_cases.hpp"

namespace tra {
namespace {

using namespace rule_cases;

// ---------------------------------------------------------------- scan placement

TEST(IaRules, ScanPart_ReadOnShuffleSites) {
  check_rule("scan-part", 171, [](Rng& rng) {
    IaPlan p;
    const int arity = static_cast<int>(draw(rng, 1, 3));
    const int s = random_scan(rng, p, arity, true);
    if (coin(rng)) {
      const int sh = shuffle(p, s, random_dims(rng, arity));
      return Case{with_roots(std::move(p), {sh}), sh, 0, "Shuf(Scan(R))"};
    }
    // Σ(g)(Shuf(d)(Scan(R))) with d within g, so that the groups sit on one site each.
    const std::vector<int> g = random_dims(rng, arity, 1);
    std::vector<int> d = g;
    d.resize(static_cast<size_t>(draw(rng, 0, static_cast<Index>(g.size()))));
    const int sh = shuffle(p, s, d);
    const int root = aggregate(p, sh, p.node(s).out_type, g, einsum::AggOp::Sum);
    return Case{with_roots(std::move(p), {root}), sh, 0, "Σ(Shuf(Scan(R)))"};
  });
  Rng rng(172);
  IaPlan p;
  const int s = random_scan(rng, p, 2, false);
  const int sh = shuffle(p, filter(p, s, predicate_on(rng, 0)), {1});
  expect_not_applicable("scan-part", {with_roots(std::move(p), {sh}), sh, 0, "a shuffle over a filter"});
}

TEST(IaRules, ScanAll_ReadOnEverySite) {
  check_rule("scan-all", 181, [](Rng& rng) {
    IaPlan p;
    if (coin(rng)) {
      const int s = random_scan(rng, p, static_cast<int>(draw(rng, 1, 3)), false);
      const int b = bcast(p, s);
      return Case{with_roots(std::move(p), {b}), b, 0, "Bcast(Scan(R))"};
    }
    const JoinInputs in = random_join_inputs(rng, p, false);
    const int b = bcast(p, in.a);
    const int j = join(p, b, in.b, in.ta, in.tb, in.kl, in.kr, mix_op(in.ta.chunk_shape, in.tb.chunk_shape));
    return Case{with_roots(std::move(p), {j}), b, 0, "⋈(Bcast(Scan(A)), B)"};
  });
  Rng rng(182);
  IaPlan p;
  const int s = random_scan(rng, p, 2, false);
  const int b = bcast(p, shuffle(p, s, {0}));
  expect_not_applicable("scan-all", {with_roots(std::move(p), {b}), b, 0, "a broadcast over a shuffle"});
}

// Shuf(P)(λreplica(Scan(A))) as a join strategy leaves it: the strategy with
// the widest P of a random matmul (a replication on both sides once there
// are 4 sites), at the shuffle of the left side. Read on the face of the
// grid, the left input moves less, and the product stays the same.
TEST(IaRules, ScanFace_ReadOnTheFaceOfTheGrid) {
  if (nsites() < 2) GTEST_SKIP() << "one site: nothing is replicated";
  Rng rng(183);
  int applied = 0;
  for (int t = 0; t < 3 * kTrials; ++t) {
    SCOPED_TRACE("trial " + std::to_string(t));
    Case c = matmul_join(rng, {true, false});
    const physical::JoinStrategy s = physical::join_strategies(c.plan, c.at).back();
    physical::apply_join_strategy(c.plan, c.at, s);
    physical::normalize(c.plan);
    physical::infer(c.plan);
    const IaNode& j = c.plan.node(the_join(c.plan));
    int sh = j.inputs[0];
    while (sh >= 0 && c.plan.node(sh).kind() != Kind::Shuffle) sh = c.plan.node(sh).inputs.empty() ? -1 : c.plan.node(sh).inputs[0];
    if (sh < 0 || !c.plan.node(c.plan.node(sh).inputs[0]).is_replica()) continue;
    c.at = sh;
    c.what = s.name() + ", the left side's shuffle";
    IaPlan probe = c.plan;
    if (!rule("scan-face").apply(probe, sh, 0)) continue;  // already read on the face
    ++applied;
    const Index before = c.plan.predicted_floats();
    check_rewrite(c, at_node("scan-face", sh));
    physical::normalize(probe);
    physical::infer(probe);
    EXPECT_LE(probe.predicted_floats(), before) << "read on the face, the replication moved more";
  }
  if (nsites() >= 4) EXPECT_GE(applied, 3) << "too few replicated left sides to test on";
  Rng r2(184);
  IaPlan p;
  const int s = random_scan(r2, p, 2, false);
  const int sh = shuffle(p, s, {0});
  expect_not_applicable("scan-face", {with_roots(std::move(p), {sh}), sh, 0, "a shuffle of a scan (scan-part's case)"});
}

}  // namespace
}  // namespace tra
