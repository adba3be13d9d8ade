// R2-1 … R2-7, the re-partitioning rules (physical/rules/repartition.cpp), each checked as support/rule_cases.hpp says: random small
// plans in which its left-hand side occurs, both sides run and compared.
#include <gtest/gtest.h>

#include <numeric>

#include "support/rule_cases.hpp"

namespace tra {
namespace {

using namespace rule_cases;

// ---------------------------------------------------------------- R2: re-partitioning

TEST(IaRules, R2_1_LastMovementOnly) {
  // Shuf(d2)(Shuf(d1)(R)).
  check_rule("R2-1", 101, [](Rng& rng) {
    IaPlan p;
    const int arity = static_cast<int>(draw(rng, 1, 3));
    const int s = random_scan(rng, p, arity, true);
    const int s1 = shuffle(p, s, random_dims(rng, arity));
    const int s2 = shuffle(p, s1, random_dims(rng, arity));
    return Case{with_roots(std::move(p), {s2}), s2, 0, "Shuf(Shuf(R))"};
  });
  // Bcast(Bcast(R)) broadcasts a relation already on every site: infer() calls
  // it invalid (the executor would duplicate every tuple), so its right-hand
  // side is compared with Bcast(R) instead.
  Rng rng(102);
  for (int t = 0; t < kTrials; ++t) {
    IaPlan p;
    const int s = random_scan(rng, p, static_cast<int>(draw(rng, 1, 3)), false);
    const int b1 = bcast(p, s);
    const int b2 = bcast(p, b1);
    IaPlan twice = with_roots(p, {b2});
    EXPECT_NE(physical::invalid_reason(twice), "");
    ASSERT_TRUE(rule("R2-1").apply(twice, b2, 0));
    physical::normalize(twice);
    physical::infer(twice);
    IaPlan once = with_roots(p, {b1});
    physical::normalize(once);  // without the second Bcast
    physical::infer(once);
    check_rewrite({once, static_cast<int>(once.nodes.size()) - 1, 0, "Bcast(R) vs R2-1(Bcast(Bcast(R)))"}, [&twice](IaPlan& q) {
      q = twice;
      return true;
    });
  }
  Rng rng2(103);
  IaPlan p;
  const int s = random_scan(rng2, p, 2, false);
  const int b = bcast(p, shuffle(p, s, {1}));
  expect_not_applicable("R2-1", {with_roots(std::move(p), {b}), b, 0, "a broadcast over a shuffle"});
}

// σ(b)(Bcast(R)) or σ(b)(Shuf(d)(R)).
Case filter_over_movement(Rng& rng) {
  IaPlan p;
  const int arity = static_cast<int>(draw(rng, 1, 3));
  const bool b = coin(rng);
  const int s = random_scan(rng, p, arity, !b);
  const int mv = b ? bcast(p, s) : shuffle(p, s, random_dims(rng, arity, 1));
  std::vector<int> dims;
  for (int d = 0; d < arity; ++d) dims.push_back(d);
  const int f = filter(p, mv, random_predicate(rng, dims));
  return {with_roots(std::move(p), {f}), f, 0, "σ(Bcast or Shuf(R))"};
}

TEST(IaRules, R2_2_FilterBeforeMovement) {
  check_rule("R2-2", 111, filter_over_movement);
  Rng rng(112);
  IaPlan p;
  const int s = random_scan(rng, p, 2, false);
  const int f = filter(p, filter(p, s, predicate_on(rng, 0)), predicate_on(rng, 1));
  expect_not_applicable("R2-2", {with_roots(std::move(p), {f}), f, 0, "a filter over a filter"});
}

// ⋈(Shuf(kl)(A), σ(b)(Shuf(kr)(B))) with two joined dimensions: the filter
// over the shuffle is co-located with A's shuffle before the rewrite.
Case filter_over_shuffle_before_join(Rng& rng) {
  IaPlan p;
  const Shape f = {draw(rng, 2, 3), draw(rng, 2, 3)};
  const int a = random_scan(rng, p, 2, false, f);
  const int b = random_scan(rng, p, 2, false, f, p.node(a).out_type.chunk_shape);
  const int sa = shuffle(p, a, {0, 1});
  const int sb = shuffle(p, b, {0, 1});
  const int fb = filter(p, sb, predicate("k1 == 0", 2));
  const int j =
      join(p, sa, fb, p.node(a).out_type, p.node(b).out_type, {0, 1}, {0, 1}, mix_op(p.node(a).out_type.chunk_shape, p.node(b).out_type.chunk_shape));
  return {with_roots(std::move(p), {j}), fb, 0, "⋈(Shuf<0,1>(A), σ(k1 == 0)(Shuf<0,1>(B)))"};
}

TEST(IaRules, R2_2_FilterBeforeShuffleKeepsCoLocation) { check_rule("R2-2", 113, filter_over_shuffle_before_join); }

// Bcast(λ(R)), λ(Bcast(R)), Shuf(λ(idOp)(R)), λ(idOp)(Shuf(R)).
Case map_and_movement(Rng& rng, int form, bool identity_keys) {
  IaPlan p;
  const int arity = static_cast<int>(draw(rng, 2, 3));
  const bool b = form < 2;
  const int s = random_scan(rng, p, arity, !b);
  const RelType t = p.node(s).out_type;
  const KeyFn key = identity_keys ? KeyFn{} : random_key_map(rng, arity, false);
  const ArrayOp op = random_array_op(rng, t.chunk_shape);
  const std::vector<int> d = random_dims(rng, arity, 1);
  int top = -1;
  if (form % 2 == 0) {  // movement over map
    const int m = map1(p, s, t, key, op);
    top = b ? bcast(p, m) : shuffle(p, m, d);
  } else {  // map over movement
    top = map1(p, b ? bcast(p, s) : shuffle(p, s, d), t, key, op);
  }
  static const char* forms[] = {"Bcast(λ(R))", "λ(Bcast(R))", "Shuf(λ(idOp, a)(R))", "λ(idOp, a)(Shuf(R))"};
  return {with_roots(std::move(p), {top}), top, 0, forms[form]};
}

TEST(IaRules, R2_3_SwapMapAndMovement) {
  for (int form = 0; form < 4; ++form)
    check_rule("R2-3", 121 + static_cast<std::uint32_t>(form), [form](Rng& rng) { return map_and_movement(rng, form, form >= 2 || coin(rng)); });
  Rng rng(125);
  for (int form : {2, 3}) {
    Case c = map_and_movement(rng, form, false);
    c.what += " with a map that changes keys";
    expect_not_applicable("R2-3", c);
  }
}

// Σ(g)(Shuf(d)(R)) with R read so that every group is on one site (`grouped`)
// or with groups split across sites.
Case aggregation_over_shuffle(Rng& rng, bool grouped, bool decomposable = true) {
  for (;;) {
    IaPlan p;
    const int arity = static_cast<int>(draw(rng, 2, 3));
    Shape f = random_shape(rng, arity);
    std::vector<int> g = random_dims(rng, arity, 1);
    if (g.size() == static_cast<size_t>(arity)) g.pop_back();  // at least one dimension summed away
    std::vector<int> rest = complement(arity, g);
    std::vector<int> where;
    if (grouped) {
      for (int d : g)
        if (coin(rng)) where.push_back(d);  // Part on grouping dims only
      std::sort(where.begin(), where.end());
    } else {
      const int split = rest[static_cast<size_t>(draw(rng, 0, static_cast<Index>(rest.size()) - 1))];
      f[static_cast<size_t>(split)] = std::max<Index>(f[static_cast<size_t>(split)], 2);
      // Part<split> or Part<g0, split> (in that order) on a grid that gives
      // split every site, split a summed dimension with frontier >= 2:
      // consecutive values of split sit on consecutive sites, so every group
      // is split when np > 1.
      where = {split};
      if (coin(rng)) where.insert(where.begin(), g.front());
    }
    const Shape chunk = random_shape(rng, arity);
    Placement at = Placement::part(where, f);
    if (!grouped && at.dims.size() == 2) at.grid = {1, std::min<Index>(f[static_cast<size_t>(at.dims[1])], nsites())};
    const int s = scan(p, f, chunk, at, static_cast<std::uint64_t>(draw(rng, 1, 1000000)));
    // The shuffle places whole groups: on g or on a part of it.
    std::vector<int> d = g;
    std::shuffle(d.begin(), d.end(), rng);
    d.resize(static_cast<size_t>(draw(rng, 1, static_cast<Index>(d.size()))));
    const int sh = shuffle(p, s, d);
    const einsum::AggOp op = random_agg_op(rng);
    const int a = aggregate(p, sh, p.node(s).out_type, g, op);
    p.node(a).agg().decomposable = decomposable;
    IaPlan q = with_roots(std::move(p), {a});
    if (physical::invalid_reason(q) != "") continue;
    Index members = 1;
    for (int d : rest) members *= f[static_cast<size_t>(d)];
    Case c{std::move(q), a, op == einsum::AggOp::Sum ? reorder_tolerance(members, 1.0) : 0.0, "Σ(g)(Shuf(R))"};
    return c;
  }
}

TEST(IaRules, R2_4_AggregateInPlace) {
  check_rule("R2-4", 131, [](Rng& rng) { return aggregation_over_shuffle(rng, true); });
  // Groups split across sites: only meaningful with several sites.
  if (nsites() > 1) {
    Rng rng(132);
    for (int t = 0; t < 3; ++t) {
      Case c = aggregation_over_shuffle(rng, false);
      c.what = "an aggregation whose groups are split across sites";
      const IaNode& sh = c.plan.node(c.plan.node(c.at).inputs[0]);
      ASSERT_FALSE(physical::grouped_on_one_site(c.plan.node(sh.inputs[0]).dist, c.plan.node(c.at).agg().group_by));
      expect_not_applicable("R2-4", c);
    }
  }
}

// Σ(g)(Shuf(g)(R)) where R is grouped by g but placed more coarsely than
// Shuf(g) would place it, feeding ⋈ with a relation shuffled on g: before the
// rewrite, the aggregation's output is co-located with the other input.
Case grouped_aggregation_before_join(Rng& rng) {
  IaPlan p;
  const Shape f = {draw(rng, 2, 3), draw(rng, 2, 3), draw(rng, 1, 3)};
  const Shape chunk = random_shape(rng, 3);
  const int r = scan(p, f, chunk, Placement::part({0}, f), static_cast<std::uint64_t>(draw(rng, 1, 1000000)));
  const int sh = shuffle(p, r, {0, 1});
  const int a = aggregate(p, sh, p.node(r).out_type, {0, 1}, einsum::AggOp::Max);
  const int b = random_scan(rng, p, 2, false, Shape{f[0], f[1]});
  const int sb = shuffle(p, b, {0, 1});
  const int j = join(p, a, sb, p.node(a).out_type, p.node(b).out_type, {0, 1}, {0, 1}, mix_op(chunk, p.node(b).out_type.chunk_shape));
  return {with_roots(std::move(p), {j}), a, 0, "⋈(Σ<0,1>(Shuf<0,1>(R on Part<0>)), Shuf<0,1>(B))"};
}

// R2-4 keeps the aggregation's content but leaves its tuples where R was; a
// join above that was co-partitioned with the old placement then misses
// pairs. That is a global property no local precondition can see: infer()
// must flag the plan (and the optimizer discards it); when it does not, the
// rewritten plan must compute the same result.
TEST(IaRules, R2_4_UnderAPlacementDependentJoinIsCaught) {
  Rng rng(133);
  int flagged = 0;
  for (int t = 0; t < kTrials; ++t) {
    SCOPED_TRACE("trial " + std::to_string(t));
    const Case c = grouped_aggregation_before_join(rng);
    IaPlan after = c.plan;
    ASSERT_TRUE(rule("R2-4").apply(after, c.at, 0));
    physical::normalize(after);
    physical::infer(after);
    const std::string why = physical::invalid_reason(after);
    if (!why.empty()) {
      EXPECT_NE(why.find("not co-located"), std::string::npos) << why;
      ++flagged;
      continue;
    }
    check_rewrite(c, at_node("R2-4", c.at));
  }
  if (nsites() == 1) EXPECT_EQ(flagged, 0);
}

TEST(IaRules, R2_5_TwoPhaseAggregation) {
  if (nsites() == 1) {
    // One site: every group is on it, so the rule leaves the plan to R2-4.
    Rng rng(141);
    Case c = aggregation_over_shuffle(rng, false);
    c.what = "one site: groups are never split";
    expect_not_applicable("R2-5", c);
    return;
  }
  check_rule("R2-5", 142, [](Rng& rng) { return aggregation_over_shuffle(rng, false); });
  Rng rng(143);
  Case c = aggregation_over_shuffle(rng, false, false);
  c.what = "an aggregation that is not decomposable";
  expect_not_applicable("R2-5", c);
  Case g = aggregation_over_shuffle(rng, true);
  g.what = "an aggregation whose groups already sit on one site";
  expect_not_applicable("R2-5", g);
}

// R2-5's second form merges what its first split: Σ(g)(Shuf(Σ(g)(R))) back
// into one aggregation of R's members, shuffled to the sites the partial
// results went to.
TEST(IaRules, R2_5_MergesTheTwoPhasesAgain) {
  if (nsites() == 1) return;  // nothing is split on one site
  auto two_phases = [](Rng& rng) {
    Case c = aggregation_over_shuffle(rng, false);
    EXPECT_TRUE(rule("R2-5").apply(c.plan, c.at, 0));
    physical::normalize(c.plan);
    physical::infer(c.plan);
    c.at = c.plan.roots.at(0);
    c.what = "Σ(g)(Shuf(Σ(g)(R)))";
    return c;
  };
  check_rule("R2-5", 144, two_phases, 1);
  Rng rng(145);
  for (int t = 0; t < kTrials; ++t) {
    Case c = two_phases(rng);
    const physical::Distribution split_at = c.plan.node(c.at).dist;
    ASSERT_TRUE(rule("R2-5").apply(c.plan, c.at, 1));
    physical::normalize(c.plan);
    physical::infer(c.plan);
    int aggregations = 0;
    for (const IaNode& n : c.plan.nodes) aggregations += n.kind() == IaNode::Kind::LocalAgg;
    EXPECT_EQ(aggregations, 1) << c.plan.str();
    // Each group ends on the site its partial results went to: a consumer
    // that relied on where they were (a join above) still finds them there.
    EXPECT_TRUE(c.plan.node(c.plan.roots.at(0)).dist == split_at) << c.plan.str();
  }
  Case whole = aggregation_over_shuffle(rng, false);
  whole.what = "an aggregation in one phase";
  expect_not_applicable("R2-5", whole, 1);
}

// The form R2-4 leaves when the partial results of each group sit on one
// site: Σ(Σ(g)(R)), no shuffle between the phases, merged into Σ(g)(R).
TEST(IaRules, R2_5_MergesTwoPhasesWithNoShuffleBetween) {
  check_rule(
      "R2-5", 146,
      [](Rng& rng) {
        Case c = aggregation_over_shuffle(rng, true);  // R grouped on one site each
        IaPlan& p = c.plan;
        const int r = p.node(p.node(c.at).inputs.at(0)).inputs.at(0);
        p.node(c.at).inputs = {r};
        p.node(c.at).agg().phase = physical::AggParams::Phase::Partial;
        IaNode f = p.node(c.at);
        f.inputs = {c.at};
        std::iota(f.agg().group_by.begin(), f.agg().group_by.end(), 0);
        f.agg().phase = physical::AggParams::Phase::Final;
        const int nf = physical::add_node(p, std::move(f));
        c.plan = with_roots(std::move(p), {nf});
        physical::normalize(c.plan);
        physical::infer(c.plan);
        c.at = c.plan.roots.at(0);
        c.what = "Σ(Σ(g)(R))";
        return c;
      },
      1);
}

// ⋈ of A and B in one of R2-6's three forms, optionally aggregated afterwards.
Case join_form(Rng& rng, int form, bool allow_all, bool mismatched = false) {
  IaPlan p;
  const JoinInputs in = random_join_inputs(rng, p, allow_all, mismatched ? 2 : 1, mismatched);
  // A form whose broadcast input is read on every site is not a valid plan: read it on Part instead.
  if (form == 0 && p.node(in.a).placement().is_all()) p.node(in.a).placement() = Placement::part({}, in.ta.frontier);
  if (form == 1 && p.node(in.b).placement().is_all()) p.node(in.b).placement() = Placement::part({}, in.tb.frontier);
  int l = in.a, r = in.b;
  if (form == 0) l = bcast(p, in.a);
  else if (form == 1) r = bcast(p, in.b);
  else {
    l = shuffle(p, in.a, in.kl);
    r = shuffle(p, in.b, in.kr);
  }
  const JoinOp op = mix_op(in.ta.chunk_shape, in.tb.chunk_shape);
  const int j = join(p, l, r, in.ta, in.tb, in.kl, in.kr, op);
  int root = j;
  if (coin(rng)) {
    const RelType jt = p.node(j).out_type;
    const std::vector<int> g = random_dims(rng, jt.key_arity(), 1);
    root = aggregate(p, shuffle(p, j, g), jt, g, einsum::AggOp::Sum);
  }
  return {with_roots(std::move(p), {root}), j, 0, "⋈ in form " + std::to_string(form)};
}

void check_join_forms(std::uint32_t seed, bool allow_all, bool mismatched) {
  Rng rng(seed);
  for (int t = 0; t < kTrials; ++t) {
    // Inputs shuffled on mismatched frontiers would not meet: start from a broadcast form then.
    const int form = static_cast<int>(draw(rng, 0, mismatched ? 1 : 2));
    Case c = join_form(rng, form, allow_all, mismatched);
    for (int variant = 0; variant < 3; ++variant) {
      SCOPED_TRACE("trial " + std::to_string(t) + ", form " + std::to_string(form) + " -> variant " + std::to_string(variant));
      // Already in that form, or broadcasting a side already on every site: no rewrite.
      auto everywhere = [&](int side) {
        int i = c.plan.node(c.at).inputs[static_cast<size_t>(side)];
        while (c.plan.node(i).moves()) i = c.plan.node(i).inputs[0];
        return c.plan.node(i).dist.everywhere;
      };
      if (variant == form || (variant < 2 && everywhere(variant))) {
        expect_not_applicable("R2-6", c, variant);
        continue;
      }
      check_rewrite(c, at_node("R2-6", c.at, variant));
    }
  }
}

TEST(IaRules, R2_6_JoinVariants) { check_join_forms(151, false, false); }

// Inputs read on every site (what scan-all leaves behind).
TEST(IaRules, R2_6_JoinVariantsOfReplicatedReads) { check_join_forms(152, true, false); }

// Joined dimensions with different frontiers on the two sides (2 vs 3).
TEST(IaRules, R2_6_JoinVariantsOfMismatchedFrontiers) { check_join_forms(153, false, true); }

// A Shuffle that moves nothing: R read on Part<d> and shuffled on d, or the
// output of a co-partitioned join shuffled on (some of) its join dimensions.
Case idle_shuffle(Rng& rng) {
  IaPlan p;
  if (coin(rng)) {
    const int arity = static_cast<int>(draw(rng, 1, 3));
    const Shape f = random_shape(rng, arity);
    const std::vector<int> d = sorted(random_dims(rng, arity, 1));
    const int s = scan(p, f, random_shape(rng, arity), Placement::part(d, f), static_cast<std::uint64_t>(draw(rng, 1, 1000000)));
    const int sh = shuffle(p, s, d);
    std::vector<int> g = d;  // grouped on (at least) the shuffled dimensions
    for (int x : random_dims(rng, arity))
      if (std::find(g.begin(), g.end(), x) == g.end()) g.push_back(x);
    const int a = aggregate(p, sh, p.node(s).out_type, g, random_agg_op(rng));
    return {with_roots(std::move(p), {a}), sh, 0, "Σ(Shuf(d)(R on Part<d>))"};
  }
  const JoinInputs in = random_join_inputs(rng, p, false);
  const int l = shuffle(p, in.a, in.kl), r = shuffle(p, in.b, in.kr);
  const int j = join(p, l, r, in.ta, in.tb, in.kl, in.kr, mix_op(in.ta.chunk_shape, in.tb.chunk_shape));
  const int sh = shuffle(p, j, in.kl);
  return {with_roots(std::move(p), {sh}), sh, 0, "Shuf(kl)(⋈(Shuf(kl)(A), Shuf(kr)(B)))"};
}

TEST(IaRules, R2_7_DropIdleShuffle) {
  Rng rng(161);
  int applied = 0;
  for (int t = 0; t < 2 * kTrials; ++t) {
    SCOPED_TRACE("trial " + std::to_string(t));
    const Case c = idle_shuffle(rng);
    // Exact check: the rule applies when the shuffle moves nothing, here the
    // usual case; an unmatched key can shrink the join's frontier and make it move some.
    if (c.plan.node(c.at).predicted_floats != 0) {
      expect_not_applicable("R2-7", c);
      continue;
    }
    ++applied;
    check_rewrite(c, at_node("R2-7", c.at));
  }
  EXPECT_GE(applied, kTrials);
  if (nsites() > 1) {
    IaPlan p;
    const Shape f = {2, 2};
    const int s = scan(p, f, {2, 1}, Placement::part({0}, f), 7);
    const int sh = shuffle(p, s, {1});
    expect_not_applicable("R2-7", {with_roots(p, {sh}), sh, 0, "a shuffle that moves tuples"});
  }
  IaPlan p;
  const Shape f = {2, 3};
  const int s = scan(p, f, {1, 2}, Placement::all(), 8);
  const int sh = shuffle(p, s, {1});
  expect_not_applicable("R2-7", {with_roots(p, {sh}), sh, 0, "a shuffle of a relation on every site"});
}

}  // namespace
}  // namespace tra
