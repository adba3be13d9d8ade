// share-exchange and broadcast-below: one movement for several consumers (physical/rules/shared_exchange.cpp), each checked as support/rule_cases.hpp
// says: random small plans in which its left-hand side occurs, both sides run and compared.
#include <gtest/gtest.h>

#include "support/rule_cases.hpp"

namespace tra {
namespace {

using namespace rule_cases;

// Two consumers of R each with its own Bcast(R) (or Shuf(<0>)(R)): the
// second exchange is the first's, the relations the same, the floats moved
// once.
TEST(IaRules, ShareExchange_OneBroadcastForTwoConsumers) {
  Rng rng(187);
  for (int t = 0; t < kTrials; ++t) {
    SCOPED_TRACE("trial " + std::to_string(t));
    for (const bool broadcast : {true, false}) {
      IaPlan p;
      const int r = random_scan(rng, p, 2, false);
      const int first = broadcast ? bcast(p, r) : shuffle(p, r, {0});
      const int second = broadcast ? bcast(p, r) : shuffle(p, r, {0});
      Case c{with_roots(std::move(p), {first, second}), second, 0, broadcast ? "Bcast(R) twice" : "Shuf(<0>)(R) twice"};
      check_rewrite(c, at_node("share-exchange", second));
      IaPlan after = c.plan;
      ASSERT_TRUE(rule("share-exchange").apply(after, second, 0));
      physical::normalize(after);
      physical::infer(after);
      EXPECT_LE(after.predicted_floats(), c.plan.predicted_floats());
      if (broadcast && nsites() > 1 && c.plan.node(r).dist.tuples() > 0)
        EXPECT_LT(after.predicted_floats(), c.plan.predicted_floats()) << "the relation is broadcast once";
    }
  }
  Rng r2(188);
  IaPlan p;
  const int r = random_scan(r2, p, 2, false);
  const int b = bcast(p, r);
  const int s = shuffle(p, r, {0});
  expect_not_applicable("share-exchange", {with_roots(p, {b, s}), s, 0, "a shuffle beside a broadcast of the same relation"});
  expect_not_applicable("share-exchange", {with_roots(std::move(p), {b, s}), b, 0, "the only broadcast"});
  // A search's plan keeps the nodes its rewrites replaced until it is
  // normalized; their derived fields go stale, so none is shared.
  IaPlan q;
  const int r3 = random_scan(r2, q, 2, false);
  const int replaced = bcast(q, r3);
  const int kept = bcast(q, r3);
  ASSERT_LT(replaced, kept);
  expect_not_applicable("share-exchange", {with_roots(std::move(q), {kept}), kept, 0, "an earlier broadcast no root needs"});
}

// Bcast(R) for one consumer and Bcast(λ…(R)) for another (weights read
// whole by the forward pass, cut into blocks by the update): the maps run on
// the first broadcast's copy, the relations the same, R moved once.
TEST(IaRules, BroadcastBelow_MapsRunOnTheBroadcastCopy) {
  Rng rng(189);
  for (int t = 0; t < kTrials; ++t) {
    SCOPED_TRACE("trial " + std::to_string(t));
    IaPlan p;
    const int r = random_scan(rng, p, 2, false);
    const int first = bcast(p, r);
    int top = r;
    for (Index k = draw(rng, 1, 2); k > 0; --k) {
      const RelType in = p.node(top).out_type;
      top = map1(p, top, in, KeyFn{}, random_array_op(rng, in.chunk_shape));
    }
    const int second = bcast(p, top);
    Case c{with_roots(std::move(p), {first, second}), second, 0, "Bcast(R) and Bcast(λ(R))"};
    check_rewrite(c, at_node("broadcast-below", second));
    IaPlan after = c.plan;
    ASSERT_TRUE(rule("broadcast-below").apply(after, second, 0));
    physical::normalize(after);
    physical::infer(after);
    if (nsites() > 1 && c.plan.node(r).dist.tuples() > 0) EXPECT_LT(after.predicted_floats(), c.plan.predicted_floats()) << "R is broadcast once";
  }
  Rng r2(190);
  IaPlan p;
  const int r = random_scan(r2, p, 2, false);
  const RelType t = p.node(r).out_type;
  const int b = bcast(p, map1(p, r, t, KeyFn{}, random_array_op(r2, t.chunk_shape)));
  expect_not_applicable("broadcast-below", {with_roots(std::move(p), {b}), b, 0, "no other broadcast of R"});
  // Nor a broadcast of R no root needs (a node a search's rewrite replaced).
  IaPlan q;
  const int r3 = random_scan(r2, q, 2, false);
  bcast(q, r3);
  const RelType t3 = q.node(r3).out_type;
  const int b3 = bcast(q, map1(q, r3, t3, KeyFn{}, random_array_op(r2, t3.chunk_shape)));
  expect_not_applicable("broadcast-below", {with_roots(std::move(q), {b3}), b3, 0, "a broadcast of R no root needs"});
}

}  // namespace
}  // namespace tra
