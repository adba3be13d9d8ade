// the join placement strategies (physical/rules/join_strategies.cpp), each checked as support/rule_cases.hpp says: random small
// plans in which its left-hand side occurs, both sides run and compared.
#include <gtest/gtest.h>

#include "support/rule_cases.hpp"

namespace tra {
namespace {

using namespace rule_cases;

// Every strategy join_strategies() offers for the join at c.at, applied and compared.
void check_every_strategy(const Case& c, std::set<std::string>& families) {
  const auto strategies = physical::join_strategies(c.plan, c.at);
  ASSERT_GE(strategies.size(), 2u);
  for (const physical::JoinStrategy& s : strategies) {
    SCOPED_TRACE("strategy " + s.name());
    families.insert(s.family);
    check_rewrite(c, [&s, at = c.at](IaPlan& p) {
      physical::apply_join_strategy(p, at, s);
      return true;
    });
  }
}

void check_strategies(std::uint32_t seed, const MatmulOptions& o) {
  Rng rng(seed);
  std::set<std::string> families;
  for (int t = 0; t < kTrials; ++t) {
    SCOPED_TRACE("trial " + std::to_string(t));
    check_every_strategy(matmul_join(rng, o), families);
  }
  if (o.filter_left_j) return;
  // Voxels of several dimensions go on a processor grid with two sites or
  // more along each: 2D, mixed and replicate need 4 sites, RMM 8.
  int np = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  std::vector<const char*> expected = o.aggregated ? std::vector<const char*>{"BMM", "CMM"} : std::vector<const char*>{"broadcast", "co-partition"};
  if (np >= 4) expected.push_back(o.aggregated ? "2D" : "replicate");
  if (np >= 4 && o.aggregated) expected.push_back("mixed");
  if (np >= 8 && o.aggregated) expected.push_back("RMM");
  for (const char* f : expected) EXPECT_TRUE(families.count(f)) << "no " << f << " strategy was tried";
}

TEST(IaJoinStrategies, JoinWithAggregation) { check_strategies(191, {true, false}); }
TEST(IaJoinStrategies, JoinWithoutAggregation) { check_strategies(192, {false, false}); }

// A strategy applied over another one: the earlier movements are undone first.
TEST(IaJoinStrategies, StrategyOverStrategy) {
  Rng rng(193);
  std::set<std::string> families;
  for (int t = 0; t < 2; ++t) {
    SCOPED_TRACE("trial " + std::to_string(t));
    const Case c = matmul_join(rng, {coin(rng), false});
    const auto strategies = physical::join_strategies(c.plan, c.at);
    const physical::JoinStrategy& first = strategies.back();  // the widest P: replication on both sides
    SCOPED_TRACE("first " + first.name());
    IaPlan mid = c.plan;
    physical::apply_join_strategy(mid, c.at, first);
    physical::normalize(mid);
    physical::infer(mid);
    check_every_strategy({mid, the_join(mid), 0, c.what}, families);
  }
}

// A one-to-one map composed into the join first (R1-7): the join's output key
// is no longer the natural one, and every strategy must keep it.
TEST(IaJoinStrategies, AfterMapIntoJoin) {
  Rng rng(194);
  std::set<std::string> families;
  for (int t = 0; t < 3; ++t) {
    SCOPED_TRACE("trial " + std::to_string(t));
    Case c = matmul_join(rng, {false, false});
    const RelType jt = c.plan.node(c.at).out_type;
    const int m = map1(c.plan, c.at, jt, random_key_map(rng, jt.key_arity(), false), random_array_op(rng, jt.chunk_shape));
    c.plan.roots = {m};
    physical::infer(c.plan);
    ASSERT_TRUE(rule("R1-7").apply(c.plan, m, 1));
    physical::normalize(c.plan);
    physical::infer(c.plan);
    c.at = the_join(c.plan);
    check_every_strategy(c, families);
  }
}

// A's contracted dimension filtered (σ(j < 2), as a deck's filter statement
// would) while B keeps j's full frontier 3: the joined dimension has frontier
// 2 on one side and 3 on the other.
TEST(IaJoinStrategies, FilteredContractedDimension) { check_strategies(195, {true, true}); }

}  // namespace
}  // namespace tra
