// shuffle-spread: where a shuffle's groups go (physical/rules/shuffle_placement.cpp), each checked as support/rule_cases.hpp says: random small
// plans in which its left-hand side occurs, both sides run and compared.
#include <gtest/gtest.h>

#include "support/rule_cases.hpp"

namespace tra {
namespace {

using namespace rule_cases;

// Σ(<0>)(Shuf(<0>)(R)) with the shuffle on a face, as a join strategy sends
// the groups of the aggregation after it: dimension 0 on 2 sites, `stride`
// apart. Spread over every site, the groups land elsewhere, the sum stays.
TEST(IaRules, ShuffleSpread_GroupsOverEverySite) {
  if (nsites() < 4) GTEST_SKIP() << "a face of fewer sites than the default grid needs 4 sites";
  Rng rng(185);
  for (int t = 0; t < kTrials; ++t) {
    SCOPED_TRACE("trial " + std::to_string(t));
    IaPlan p;
    const Shape f = {draw(rng, 3, 6), draw(rng, 1, 3)};
    const int r = scan(p, f, random_shape(rng, 2), Placement::part({0, 1}, f), static_cast<std::uint64_t>(draw(rng, 1, 1000000)));
    const int sh = shuffle(p, r, {0});
    p.node(sh).placement().grid = {2};
    p.node(sh).placement().strides = {nsites() / 2};
    const int a = aggregate(p, sh, p.node(r).out_type, {0}, einsum::AggOp::Sum);
    Case c{with_roots(std::move(p), {a}), sh, 0, "a shuffle to a face of 2 sites"};
    check_rewrite(c, at_node("shuffle-spread", sh));
    IaPlan after = c.plan;
    ASSERT_TRUE(rule("shuffle-spread").apply(after, sh, 0));
    physical::normalize(after);
    physical::infer(after);
    std::set<int> sites;
    for (const IaNode& n : after.nodes)
      if (n.kind() == Kind::Shuffle)
        for (const auto& [key, site] : n.dist.at) sites.insert(site);
    EXPECT_EQ(static_cast<size_t>(std::min<Index>(f[0], nsites())), sites.size())
        << "spread, the groups sit on as many sites as there are groups or sites";
  }
  Rng r2(186);
  IaPlan p;
  const int s = random_scan(r2, p, 2, false);
  const int sh = shuffle(p, s, {0});
  expect_not_applicable("shuffle-spread", {with_roots(std::move(p), {sh}), sh, 0, "a shuffle on the default grid already"});
}

}  // namespace
}  // namespace tra
