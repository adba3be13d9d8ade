// R1-1 … R1-7, the kernel-composition rules (physical/rules/kernel_composition.cpp), each checked as support/rule_cases.hpp says: random small
// plans in which its left-hand side occurs, both sides run and compared.
#include <gtest/gtest.h>

#include "support/rule_cases.hpp"

namespace tra {
namespace {

using namespace rule_cases;

// ⊗ element by element on two chunks of one shape: L · (R + 1).
JoinOp zip_op(const Shape& shape) {
  const std::vector<std::string> l = labels("a", shape.size());
  return join_op(indexed("Z", l) + " = " + indexed("L", l) + " * (" + indexed("R", l) + " + 1)", extents(l, shape));
}

// ---------------------------------------------------------------- R1: kernel composition

// σ(b1)(σ(b2)(R)), R possibly shuffled first.
Case two_filters(Rng& rng) {
  IaPlan p;
  const int arity = static_cast<int>(draw(rng, 1, 3));
  int x = random_scan(rng, p, arity, true);
  if (coin(rng)) x = shuffle(p, x, random_dims(rng, arity, 1));
  std::vector<int> dims(static_cast<size_t>(arity));
  for (int d = 0; d < arity; ++d) dims[static_cast<size_t>(d)] = d;
  const int f1 = filter(p, x, random_predicate(rng, dims));
  const int f2 = filter(p, f1, random_predicate(rng, dims));
  return {with_roots(std::move(p), {f2}), f2, 0, "σ(σ(R))"};
}

TEST(IaRules, R1_1_MergeFilters) {
  check_rule("R1-1", 11, two_filters);
  Rng rng(12);
  IaPlan p;
  const int s = random_scan(rng, p, 2, false);
  const int f = filter(p, s, predicate_on(rng, 0));
  expect_not_applicable("R1-1", {with_roots(std::move(p), {f}), f, 0, "a filter over a scan"});
}

// λ(k1, a1)(λ(k2, a2)(R)).
Case two_maps(Rng& rng) {
  IaPlan p;
  const int arity = static_cast<int>(draw(rng, 1, 3));
  const int s = random_scan(rng, p, arity, true);
  RelType t = p.node(s).out_type;
  const KeyFn k2 = random_key_map(rng, arity);
  const ArrayOp a2 = random_array_op(rng, t.chunk_shape);
  const int m2 = map1(p, s, t, k2, a2);
  t = p.node(m2).out_type;
  const ArrayOp a1 = random_array_op(rng, t.chunk_shape);
  const int m1 = map1(p, m2, t, random_key_map(rng, arity), a1);
  return {with_roots(std::move(p), {m1}), m1, 0, "λ(λ(R))"};
}

TEST(IaRules, R1_2_MergeMaps) {
  check_rule("R1-2", 21, two_maps);
  Rng rng(22);
  IaPlan p;
  const int s = random_scan(rng, p, 2, false);
  const int d = duplicate(p, s, p.node(s).out_type);
  const int m = map1(p, d, p.node(d).out_type, {}, random_array_op(rng, p.node(s).out_type.chunk_shape, false));
  expect_not_applicable("R1-2", {with_roots(std::move(p), {m}), m, 0, "a map over a one-to-many map"});
}

// σ(b)(λ(idOp, a)(R)).
Case filter_over_map(Rng& rng, bool identity_keys) {
  IaPlan p;
  const int arity = static_cast<int>(draw(rng, identity_keys ? 1 : 2, 3));
  int x = random_scan(rng, p, arity, true);
  const RelType in = p.node(x).out_type;
  if (coin(rng)) x = shuffle(p, x, random_dims(rng, arity, 1));
  const int m = map1(p, x, in, identity_keys ? KeyFn{} : random_key_map(rng, arity, false), random_array_op(rng, in.chunk_shape));
  std::vector<int> dims;
  for (int d = 0; d < arity; ++d) dims.push_back(d);
  const int f = filter(p, m, random_predicate(rng, dims));
  return {with_roots(std::move(p), {f}), f, 0, "σ(λ(idOp, a)(R))"};
}

TEST(IaRules, R1_3_FilterBeforeMap) {
  check_rule("R1-3", 31, [](Rng& rng) { return filter_over_map(rng, true); });
  Rng rng(32);
  Case c = filter_over_map(rng, false);
  c.what = "a filter over a map that changes keys";
  expect_not_applicable("R1-3", c);
}

// λ(k, a)(Σ(g)(Shuf(g)(R))).
Case map_over_aggregation(Rng& rng, bool identity_keys) {
  IaPlan p;
  const int arity = static_cast<int>(draw(rng, 2, 3));
  const int s = random_scan(rng, p, arity, true);
  const RelType t = p.node(s).out_type;
  const std::vector<int> g = random_dims(rng, arity, identity_keys ? 1 : 2);
  const int sh = shuffle(p, s, g);
  const int a = aggregate(p, sh, t, g, random_agg_op(rng));
  const RelType at = p.node(a).out_type;
  const int m =
      map1(p, a, at, identity_keys ? KeyFn{} : random_key_map(rng, static_cast<int>(g.size()), false), random_array_op(rng, at.chunk_shape));
  return {with_roots(std::move(p), {m}), m, 0, "λ(idOp, a)(Σ(g)(Shuf(R)))"};
}

TEST(IaRules, R1_4_MapIntoAggregation) {
  check_rule("R1-4", 41, [](Rng& rng) { return map_over_aggregation(rng, true); });
  Rng rng(42);
  Case c = map_over_aggregation(rng, false);
  c.what = "a map that changes keys over an aggregation";
  expect_not_applicable("R1-4", c);
}

// σ(b)(Σ(g)(Shuf(g)(R))), the filter on the grouping keys (random order of g).
Case filter_over_aggregation(Rng& rng) {
  IaPlan p;
  const int arity = static_cast<int>(draw(rng, 1, 3));
  const int s = random_scan(rng, p, arity, true);
  const RelType t = p.node(s).out_type;
  const std::vector<int> g = random_dims(rng, arity, 1);
  const int sh = shuffle(p, s, g);
  const int a = aggregate(p, sh, t, g, random_agg_op(rng));
  std::vector<int> out_dims;
  for (size_t i = 0; i < g.size(); ++i) out_dims.push_back(static_cast<int>(i));
  const int f = filter(p, a, random_predicate(rng, out_dims));
  return {with_roots(std::move(p), {f}), f, 0, "σ(Σ(g)(Shuf(R)))"};
}

TEST(IaRules, R1_5_FilterBeforeAggregation) {
  check_rule("R1-5", 51, filter_over_aggregation);
  Rng rng(52);
  IaPlan p;
  const int s = random_scan(rng, p, 2, false);
  const int sh = shuffle(p, s, {0});
  const int f = filter(p, sh, predicate_on(rng, 1));
  expect_not_applicable("R1-5", {with_roots(std::move(p), {f}), f, 0, "a filter over a shuffle"});
}

// ⋈(Bcast(A), B) or ⋈(A, Bcast(B)); neither input read on every site.
int broadcast_join(Rng& rng, IaPlan& p, const JoinInputs& in, const JoinOp* op = nullptr) {
  const bool left = coin(rng);
  const int l = left ? bcast(p, in.a) : in.a, r = left ? in.b : bcast(p, in.b);
  return join(p, l, r, in.ta, in.tb, in.kl, in.kr, op ? *op : mix_op(in.ta.chunk_shape, in.tb.chunk_shape));
}

// σ(b)(⋈(...)), b on joined dimensions (`on_join_dims`) or on another one.
Case filter_over_join(Rng& rng, bool on_join_dims) {
  for (;;) {
    IaPlan p;
    const JoinInputs in = random_join_inputs(rng, p, false);
    const int j = broadcast_join(rng, p, in);
    const int arity = p.node(j).out_type.key_arity();
    std::vector<int> dims;
    for (int d = 0; d < arity; ++d)
      if ((std::find(in.kl.begin(), in.kl.end(), d) != in.kl.end()) == on_join_dims) dims.push_back(d);
    if (dims.empty()) continue;  // the same draws on every rank
    const int f = filter(p, j, random_predicate(rng, dims));
    return {with_roots(std::move(p), {f}), f, 0, "σ(⋈)"};
  }
}

TEST(IaRules, R1_6_FilterIntoJoin) {
  check_rule("R1-6", 61, [](Rng& rng) { return filter_over_join(rng, true); });
  Rng rng(62);
  for (int t = 0; t < 2; ++t) {
    Case c = filter_over_join(rng, false);
    c.what = "a filter on a dimension the join does not join on";
    expect_not_applicable("R1-6", c);
  }
}

// λ(k, a)(⋈(...)), optionally aggregated afterwards.
// Node m, or, half the time, a max over some of its key dimensions after
// shuffling on them (so that a rule's rewrite must also serve a consumer).
int maybe_aggregated(Rng& rng, IaPlan& p, int m) {
  if (!coin(rng)) return m;
  const RelType mt = p.node(m).out_type;
  const std::vector<int> g = random_dims(rng, mt.key_arity(), 1);
  return aggregate(p, shuffle(p, m, g), mt, g, einsum::AggOp::Max);
}

Case map_over_join(Rng& rng, bool one_to_one) {
  IaPlan p;
  const JoinInputs in = random_join_inputs(rng, p, false);
  const int j = broadcast_join(rng, p, in);
  const RelType jt = p.node(j).out_type;
  const int m = one_to_one ? map1(p, j, jt, random_key_map(rng, jt.key_arity()), random_array_op(rng, jt.chunk_shape)) : duplicate(p, j, jt);
  const int root = maybe_aggregated(rng, p, m);
  return {with_roots(std::move(p), {root}), m, 0, "λ(⋈)"};
}

TEST(IaRules, R1_7_MapIntoJoin) {
  check_rule(
      "R1-7", 71, [](Rng& rng) { return map_over_join(rng, true); }, 1);
  Rng rng(72);
  Case c = map_over_join(rng, false);
  c.what = "a one-to-many map over a join";
  expect_not_applicable("R1-7", c, 0);
  expect_not_applicable("R1-7", c, 1);
}

// λ(k, diag)(⋈(A, B)) for an elementwise ⊗ on square chunks over the same
// keys: diag distributes over ⊗ (R1-7's second form). The engine's zip
// kernel is checked on its own in tests/unit/kernels/test_einsum_kernel.cpp.
Case diag_over_elementwise_join(Rng& rng, bool selecting) {
  IaPlan p;
  const int arity = 2;  // a matrix in standard form, its chunks square
  const Index b = draw(rng, 2, 3);
  const Shape f = random_shape(rng, arity);
  JoinInputs in;
  in.a = random_scan(rng, p, arity, false, f, {b, b});
  in.b = random_scan(rng, p, arity, false, f, {b, b});
  in.ta = p.node(in.a).out_type;
  in.tb = p.node(in.b).out_type;
  for (int d = 0; d < arity; ++d) {
    in.kl.push_back(d);
    in.kr.push_back(d);
  }
  const JoinOp zip = zip_op({b, b});
  const int j = broadcast_join(rng, p, in, &zip);
  const RelType jt = p.node(j).out_type;
  const ArrayOp diag{physical::ArrayFn::of(physical::ArrayFn::Diagonal{}), 0, {b}};
  const int m = map1(p, j, jt, random_key_map(rng, jt.key_arity()), selecting ? diag : random_array_op(rng, jt.chunk_shape, false));
  const int root = maybe_aggregated(rng, p, m);
  return {with_roots(std::move(p), {root}), m, 0, "λ(diag)(⋈ elementwise)"};
}

TEST(IaRules, R1_7_DiagDistributesOverAnElementwiseJoin) {
  check_rule(
      "R1-7", 73, [](Rng& rng) { return diag_over_elementwise_join(rng, true); }, 0);
  Rng rng(74);
  Case c = diag_over_elementwise_join(rng, false);
  c.what = "a map that computes, not selects, over an elementwise join";
  expect_not_applicable("R1-7", c, 0);
  c = map_over_join(rng, true);
  c.what = "a join whose ⊗ is not elementwise";
  expect_not_applicable("R1-7", c, 0);
}

}  // namespace
}  // namespace tra
