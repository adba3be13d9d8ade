#pragma once
// Every IA equivalence rule (TRA paper §5.2, Table 2; rules/rule.hpp) and every
// join placement strategy (rules/join_strategies.hpp), checked the way the
// issue asks: build small random plans in which the rule's left-hand side
// occurs (random frontiers, chunk shapes, placements; run at np = 1, 2, 4),
// run both sides of the rule with the executor, and compare the outputs tuple
// by tuple. Each rewritten plan must also be valid for infer(), and every
// plan's predicted floats must equal the floats the executor moved.
//
// Every rank builds the same plans: one fixed-seed std::mt19937 per test and
// no rank-dependent branching, so the collectives of the executor match.
// Assertions that end a check early only test plan properties (identical on
// every rank); results are compared with EXPECT so no rank leaves a
// collective behind.
//
// This header holds what the rule tests share: random draws, builders of
// small IA plans, running a plan and comparing two plans' results, and the
// check of one rewrite. The tests are one file per file of rules under
// tests/mpi/physical/rules/, as src/tra/physical/rules/ holds them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/tolerance.hpp"
#include "tra/comm/exchange.hpp"
#include "tra/einsum/parser.hpp"
#include "tra/exec/executor.hpp"
#include "tra/exec/local/tra_ops.hpp"
#include "tra/kernels/einsum_kernel.hpp"
#include "tra/model/workflow.hpp"
#include "tra/physical/infer.hpp"
#include "tra/physical/plan_edit.hpp"
#include "tra/physical/rules/join_strategies.hpp"
#include "tra/physical/rules/rule.hpp"

namespace tra::rule_cases {

using physical::IaNode;
using physical::IaPlan;
using physical::KeyFn;
using physical::KeyPredicate;
using Kind = IaNode::Kind;
using Rng = std::mt19937;

constexpr int kTrials = 5;

// ---------------------------------------------------------------- random draws

inline Index draw(Rng& rng, Index lo, Index hi) { return std::uniform_int_distribution<Index>(lo, hi)(rng); }
inline bool coin(Rng& rng) { return draw(rng, 0, 1) == 1; }

inline Shape random_shape(Rng& rng, int arity, Index lo = 1, Index hi = 3) {
  Shape s;
  for (int d = 0; d < arity; ++d) s.push_back(draw(rng, lo, hi));
  return s;
}

// A random subset of 0..n-1 in random order (possibly empty unless min_size > 0).
inline std::vector<int> random_dims(Rng& rng, int n, int min_size = 0) {
  std::vector<int> all(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) all[static_cast<size_t>(i)] = i;
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(static_cast<size_t>(draw(rng, min_size, n)));
  return all;
}

inline std::vector<int> sorted(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// ---------------------------------------------------------------- plan builders

// A generated tensor's declaration, named T0, T1, ... in the order made.
inline model::TensorDecl tensor(const Shape& frontier, const Shape& chunk, std::uint64_t seed) {
  static int made = 0;
  model::TensorDecl t;
  t.name = "T" + std::to_string(made++);
  for (size_t d = 0; d < frontier.size(); ++d) t.shape.push_back(frontier[d] * chunk[d]);
  t.chunk = chunk;
  model::Generator g;
  g.kind = model::Generator::Kind::Uniform;
  g.a = -1;
  g.b = 1;
  g.seed = seed;
  t.source = g;
  return t;
}

inline int scan(IaPlan& p, const Shape& frontier, const Shape& chunk, Placement where, std::uint64_t seed) {
  IaNode n;
  n.params = physical::ScanParams{tensor(frontier, chunk, seed), std::move(where), {}};
  n.out_type = RelType{frontier, chunk};
  return physical::add_node(p, std::move(n));
}

// Where a Scan reads: Part on a random subset of its dimensions, or (if
// allowed) every site.
inline Placement random_placement(Rng& rng, const Shape& frontier, bool allow_all) {
  if (allow_all && draw(rng, 0, 3) == 0) return Placement::all();
  return Placement::part(sorted(random_dims(rng, static_cast<int>(frontier.size()))), frontier);
}

// A Scan of a random standard relation: key arity = chunk rank.
inline int random_scan(Rng& rng, IaPlan& p, int arity, bool allow_all, Shape frontier = {}, Shape chunk = {}) {
  if (frontier.empty()) frontier = random_shape(rng, arity);
  if (chunk.empty()) chunk = random_shape(rng, arity);
  const Placement where = random_placement(rng, frontier, allow_all);
  return scan(p, frontier, chunk, where, static_cast<std::uint64_t>(draw(rng, 1, 1000000)));
}

inline int bcast(IaPlan& p, int in) { return physical::add_node(p, physical::make_bcast(in)); }
inline int shuffle(IaPlan& p, int in, std::vector<int> dims) { return physical::add_node(p, physical::make_shuffle(in, std::move(dims))); }

inline int filter(IaPlan& p, int in, KeyPredicate pred) {
  IaNode n;
  n.params = physical::FilterParams{};
  n.inputs = {in};
  n.filter().predicate = std::move(pred);
  return physical::add_node(p, std::move(n));
}

// A deck predicate, parsed as a filter statement's would be, over keys of
// `arity` dimensions.
inline KeyPredicate predicate(const std::string& text, int arity) {
  return KeyPredicate::of(std::make_shared<const logical::KeyExpr>(logical::KeyExpr::parse_predicate(text, arity, {"test", 1, 1})));
}

// A predicate on one key dimension.
inline std::string predicate_text(Rng& rng, int d) {
  const std::string k = "k" + std::to_string(d);
  switch (draw(rng, 0, 3)) {
    case 0:
      return k + " % 2 == 0";
    case 1:
      return k + " < 2";
    case 2:
      return k + " != 1";
    default:
      return k + " >= 1";
  }
}

inline KeyPredicate predicate_on(Rng& rng, int d) { return predicate(predicate_text(rng, d), d + 1); }

// A predicate on one or two of the given dimensions.
inline KeyPredicate random_predicate(Rng& rng, const std::vector<int>& dims) {
  const int a = dims[static_cast<size_t>(draw(rng, 0, static_cast<Index>(dims.size()) - 1))];
  const std::string p = predicate_text(rng, a);
  if (dims.size() < 2 || coin(rng)) return predicate(p, a + 1);
  int b = a;
  while (b == a) b = dims[static_cast<size_t>(draw(rng, 0, static_cast<Index>(dims.size()) - 1))];
  return predicate("(" + p + ") || (" + predicate_text(rng, b) + ")", std::max(a, b) + 1);
}

// ---- chunk kernels: the engine's own (EinSum kernels, scalar programs), as
// plans hold them; both sides of a rule run the same ones

// Labels p0, p1, ... for a chunk of the given rank.
inline std::vector<std::string> labels(const std::string& prefix, size_t rank) {
  std::vector<std::string> l;
  for (size_t d = 0; d < rank; ++d) l.push_back(prefix + std::to_string(d));
  return l;
}

inline std::string indexed(const std::string& name, const std::vector<std::string>& ls) {
  std::string s;
  for (const auto& l : ls) s += (s.empty() ? "" : ",") + l;
  return name + "[" + s + "]";
}

// An EinSum kernel for `statement`, each label's chunk extent given.
inline physical::EinSumCall einsum_call(const std::string& statement, const std::map<einsum::Label, Index>& extent) {
  auto kernel = std::make_shared<const kernels::EinSumKernel>(einsum::parse_einsum(statement, {"test", 1, 1}), extent);
  return {kernel, statement};
}

inline std::map<einsum::Label, Index> extents(const std::vector<std::string>& ls, const Shape& s) {
  std::map<einsum::Label, Index> e;
  for (size_t d = 0; d < ls.size(); ++d) e[ls[d]] = s[d];
  return e;
}

// A one-to-one map's array side: what it does, flops per call and the chunk
// shape it yields.
struct ArrayOp {
  physical::ArrayFn fn;  // idOp when empty
  double flops = 0;
  Shape out;
};

inline ArrayOp elements(const std::string& f, const Shape& in) {
  const einsum::ScalarProgram prog = einsum::parse_scalar_function(f, {"test", 1, 1});
  return {physical::ArrayFn::of(physical::ArrayFn::Elements{prog}), static_cast<double>(prog.flops_per_eval() * volume(in)), in};
}

inline ArrayOp random_array_op(Rng& rng, const Shape& in, bool allow_identity = true) {
  const int kind = static_cast<int>(draw(rng, allow_identity ? 0 : 1, 4));
  const std::vector<std::string> x = labels("a", in.size());
  switch (kind) {
    case 0:
      return {{}, 0, in};
    case 1: {
      std::ostringstream t;
      t << "x * " << static_cast<double>(draw(rng, -3, 3)) / 2 + 0.25;
      return elements(t.str(), in);
    }
    case 2:
      return elements("x * x - 0.5", in);
    case 3: {  // sum over the last array dimension: the chunk loses it
      if (in.size() < 2) return elements("x + 1", in);
      std::vector<std::string> y = x;
      y.pop_back();
      const physical::EinSumCall k = einsum_call(indexed("Y", y) + " = sum_" + x.back() + " " + indexed("X", x), extents(x, in));
      return {physical::ArrayFn::of(k), k.kernel->flops(), k.kernel->z_shape()};
    }
    default: {  // swap the first two array dimensions
      if (in.size() < 2) return elements("x - 1", in);
      std::vector<std::string> y = x;
      std::swap(y[0], y[1]);
      const physical::EinSumCall k = einsum_call(indexed("Y", y) + " = " + indexed("X", x), extents(x, in));
      return {physical::ArrayFn::of(k), k.kernel->flops(), k.kernel->z_shape()};
    }
  }
}

// A key map that permutes dimensions: out[i] = in[perm[i]].
inline KeyFn permutation(const std::vector<int>& perm) { return KeyFn::projecting(perm, static_cast<int>(perm.size())); }

inline KeyFn random_key_map(Rng& rng, int arity, bool allow_identity = true) {
  for (int tries = 0; tries < 16; ++tries) {
    std::vector<int> perm = random_dims(rng, arity, arity);
    KeyFn f = permutation(perm);
    if (allow_identity || !f.identity()) return f;
  }
  std::vector<int> rot;
  for (int i = 0; i < arity; ++i) rot.push_back((i + 1) % arity);
  return permutation(rot);
}

inline Shape permuted(const Shape& s, const KeyFn& f) { return f.identity() ? s : f(s); }

// A one-to-one LocalMap; out_type follows from the input's (nominal) type.
inline int map1(IaPlan& p, int in, const RelType& in_type, const KeyFn& key, const ArrayOp& op) {
  IaNode n;
  n.params = physical::MapParams{};
  n.inputs = {in};
  n.map().key_map = key;
  n.map().array_map = op.fn;
  n.map().call_flops = op.flops;
  n.out_type = RelType{permuted(in_type.frontier, key), op.out};
  return physical::add_node(p, std::move(n));
}

// A LocalMap from one tuple to two (key <k..., 0> and <k..., 1>, same chunk): not composable.
inline int duplicate(IaPlan& p, int in, const RelType& in_type) {
  IaNode n;
  n.params = physical::MapParams{};
  n.inputs = {in};
  n.out_type = in_type;
  n.out_type.frontier.push_back(2);
  n.map().expand = physical::Replicate{{2}};
  n.map().arity = 2;
  return physical::add_node(p, std::move(n));
}

// Join kernels. "mix" takes any two chunks: Z = Σ_r L · (R + 1), over the
// left chunk's labels, every right element summed.
struct JoinOp {
  physical::JoinKernel fn;
  double flops = 0;
  Shape out;
};

inline JoinOp join_op(const std::string& statement, const std::map<einsum::Label, Index>& extent) {
  const physical::EinSumCall k = einsum_call(statement, extent);
  return {{k, false, {}}, k.kernel->flops(), k.kernel->z_shape()};
}

inline JoinOp mix_op(const Shape& left, const Shape& right) {
  const std::vector<std::string> l = labels("a", left.size()), r = labels("b", right.size());
  std::map<einsum::Label, Index> e = extents(l, left);
  for (const auto& [k, v] : extents(r, right)) e[k] = v;
  return join_op(indexed("Z", l) + " = " + indexed("L", l) + " * (" + indexed("R", r) + " + 1)", e);
}

// Batched matrix product of chunks [t..., p, q] x [t..., q, r] -> [t..., p, r].
inline JoinOp matmul_op(const Shape& left, const Shape& right) {
  const bool batched = left.size() == 3;
  std::map<einsum::Label, Index> e{{"p", left[left.size() - 2]}, {"q", left.back()}, {"r", right.back()}};
  if (batched) e["t"] = left[0];
  return join_op(batched ? "Z[t,p,r] = sum_q A[t,p,q] * B[t,q,r]" : "Z[p,r] = sum_q A[p,q] * B[q,r]", e);
}

inline int join(IaPlan& p, int l, int r, const RelType& lt, const RelType& rt, std::vector<int> kl, std::vector<int> kr, const JoinOp& op) {
  IaNode n;
  n.params = physical::JoinParams{};
  n.inputs = {l, r};
  Shape f = lt.frontier;
  for (int d : complement(rt.key_arity(), kr)) f.push_back(rt.frontier[static_cast<size_t>(d)]);
  n.out_type = RelType{f, op.out};
  n.join().keys_left = std::move(kl);
  n.join().keys_right = std::move(kr);
  n.join().kernel = op.fn;
  n.join().call_flops = op.flops;
  n.join().gemm = op.fn.call.kernel->uses_gemm();
  return physical::add_node(p, std::move(n));
}

inline einsum::AggOp random_agg_op(Rng& rng) {
  switch (draw(rng, 0, 2)) {
    case 0:
      return einsum::AggOp::Sum;
    case 1:
      return einsum::AggOp::Max;
    default:
      return einsum::AggOp::Min;
  }
}

inline int aggregate(IaPlan& p, int in, const RelType& in_type, std::vector<int> group_by, einsum::AggOp op) {
  IaNode n;
  n.params = physical::AggParams{};
  n.inputs = {in};
  n.out_type = RelType{project(in_type.frontier, group_by), in_type.chunk_shape};
  n.agg().group_by = std::move(group_by);
  n.agg().kernel =
      physical::AggKernel{physical::AggKernel::Fold{op}, {}};  // a join feeding it runs streamed (exec/join_aggregate), as compiled aggregations do
  n.agg().decomposable = true;
  return physical::add_node(p, std::move(n));
}

// ---------------------------------------------------------------- running plans

// One root's tuples, gathered to every rank and sorted by key.
struct Rel {
  std::vector<Key> keys;
  std::vector<Shape> shapes;
  std::vector<std::vector<Scalar>> values;
};

struct Outcome {
  std::vector<Rel> roots;
  Index predicted = 0, measured = 0;
};

inline Outcome execute(const IaPlan& plan, const comm::Communicator& c) {
  exec::Executor ex(plan, c, std::set<int>(plan.roots.begin(), plan.roots.end()));
  ex.run();
  Outcome out;
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    out.predicted += plan.nodes[i].predicted_floats;
    out.measured += ex.stats()[i].floats_moved;
  }
  for (int r : plan.roots) {
    const IaNode& n = plan.node(r);
    std::vector<Tuple> mine;
    if (!n.dist.everywhere || c.rank() == 0) mine = ex.result(r);
    for (Tuple& t : mine) {
      // A chunk of another shape than the plan says cannot travel; flag it and send zeros.
      EXPECT_EQ(t.chunk.shape, n.type.chunk_shape) << "p" << r << " key " << to_string(t.key);
      if (t.chunk.shape != n.type.chunk_shape) t.chunk = Chunk(n.type.chunk_shape);
    }
    comm::Moved ignored;
    std::vector<Tuple> all = comm::broadcast(c, mine, n.type.key_arity(), n.type.chunk_shape, n.type.dtype, ignored);
    std::sort(all.begin(), all.end(), [](const Tuple& a, const Tuple& b) { return a.key < b.key; });
    Rel rel;
    for (const Tuple& t : all) {
      rel.keys.push_back(t.key);
      rel.shapes.push_back(t.chunk.shape);
      rel.values.push_back(t.chunk.to_host());
    }
    out.roots.push_back(std::move(rel));
  }
  return out;
}

inline void expect_same(const Rel& a, const Rel& b, double tol, const std::string& what) {
  EXPECT_TRUE(std::adjacent_find(a.keys.begin(), a.keys.end()) == a.keys.end()) << what << ": duplicate keys before";
  EXPECT_TRUE(std::adjacent_find(b.keys.begin(), b.keys.end()) == b.keys.end()) << what << ": duplicate keys after";
  ASSERT_EQ(a.keys, b.keys) << what << ": key sets differ";
  for (size_t i = 0; i < a.keys.size(); ++i) {
    ASSERT_EQ(a.shapes[i], b.shapes[i]) << what << ": chunk shape at key " << to_string(a.keys[i]);
    double worst = 0;
    for (size_t e = 0; e < a.values[i].size(); ++e) worst = std::max(worst, std::abs(a.values[i][e] - b.values[i][e]));
    if (tol == 0) {
      EXPECT_EQ(a.values[i], b.values[i]) << what << ": chunk at key " << to_string(a.keys[i]) << " (max diff " << worst << ")";
    } else {
      EXPECT_LE(worst, tol) << what << ": chunk at key " << to_string(a.keys[i]);
    }
  }
}

// Results that a rewrite sums in another order differ by at most
// testing::reorder_tolerance (support/tolerance.hpp).
using tra::testing::reorder_tolerance;

// A plan in which a rule's left-hand side occurs at `at`.
struct Case {
  IaPlan plan;
  int at = -1;
  double tol = 0;  // 0: both sides must agree exactly
  std::string what;  // in words, for failure messages
};

inline int nsites() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

inline IaPlan with_roots(IaPlan p, std::vector<int> roots) {
  p.nsites = nsites();
  p.roots = std::move(roots);
  physical::infer(p);
  return p;
}

// Applies `rewrite` to a copy of c.plan (it must report that it applied),
// checks that both plans are valid, runs both and compares their roots tuple
// by tuple, and checks each plan's predicted floats against the measured ones.
inline void check_rewrite(const Case& c, const std::function<bool(IaPlan&)>& rewrite) {
  const IaPlan& before = c.plan;
  SCOPED_TRACE(c.what + "\nbefore:\n" + before.str());
  ASSERT_EQ(physical::invalid_reason(before), "") << "the left-hand side is not a valid plan";
  IaPlan after = before;
  ASSERT_TRUE(rewrite(after)) << "the rule did not apply";
  physical::normalize(after);
  physical::infer(after);
  SCOPED_TRACE("after:\n" + after.str());
  ASSERT_EQ(physical::invalid_reason(after), "") << "the rewritten plan is invalid";
  const comm::Communicator world;
  const Outcome x = execute(before, world);
  const Outcome y = execute(after, world);
  EXPECT_EQ(x.predicted, x.measured) << "before: prediction must equal measurement";
  EXPECT_EQ(y.predicted, y.measured) << "after: prediction must equal measurement";
  ASSERT_EQ(x.roots.size(), y.roots.size());
  for (size_t r = 0; r < x.roots.size(); ++r) expect_same(x.roots[r], y.roots[r], c.tol, "root " + std::to_string(r));
}

inline const physical::Rule& rule(const std::string& name) {
  for (const physical::Rule* r : physical::all_rules())
    if (r->name == name) return *r;
  throw std::runtime_error("no rule " + name);
}

inline std::function<bool(IaPlan&)> at_node(const std::string& name, int at, int variant = 0) {
  return [&r = rule(name), at, variant](IaPlan& p) { return r.apply(p, at, variant); };
}

// The rule must refuse and leave the plan as it was.
inline void expect_not_applicable(const std::string& name, const Case& c, int variant = 0) {
  SCOPED_TRACE(name + " must not apply: " + c.what + "\n" + c.plan.str());
  IaPlan copy = c.plan;
  EXPECT_FALSE(rule(name).apply(copy, c.at, variant));
  EXPECT_EQ(copy.str(), c.plan.str());
  ASSERT_EQ(copy.nodes.size(), c.plan.nodes.size());
  for (size_t i = 0; i < copy.nodes.size(); ++i) {
    EXPECT_EQ(copy.nodes[i].kind(), c.plan.nodes[i].kind());
    EXPECT_EQ(copy.nodes[i].inputs, c.plan.nodes[i].inputs);
  }
  EXPECT_EQ(copy.roots, c.plan.roots);
}

// Builds kTrials cases with `make` and checks `name` on each.
inline void check_rule(const std::string& name, std::uint32_t seed, const std::function<Case(Rng&)>& make, int variant = 0) {
  Rng rng(seed);
  for (int t = 0; t < kTrials; ++t) {
    SCOPED_TRACE(name + " trial " + std::to_string(t) + " at np " + std::to_string(nsites()));
    const Case c = make(rng);
    check_rewrite(c, at_node(name, c.at, variant));
  }
}

// Two random relations and a join between them: A's join dims kl, B's kr,
// with equal frontiers on the joined dimensions unless `mismatched`.
struct JoinInputs {
  int a = -1, b = -1;
  RelType ta, tb;
  std::vector<int> kl, kr;
};

inline JoinInputs random_join_inputs(Rng& rng, IaPlan& p, bool allow_all, int min_keys = 1, bool mismatched = false) {
  JoinInputs j;
  const int la = static_cast<int>(draw(rng, std::max(1, min_keys), 3)), lb = static_cast<int>(draw(rng, std::max(1, min_keys), 3));
  const int m = static_cast<int>(draw(rng, min_keys, std::min(la, lb)));
  j.kl = random_dims(rng, la, la);
  j.kr = random_dims(rng, lb, lb);
  j.kl.resize(static_cast<size_t>(m));
  j.kr.resize(static_cast<size_t>(m));
  Shape fa = random_shape(rng, la), fb = random_shape(rng, lb);
  for (int i = 0; i < m; ++i) {
    const auto il = static_cast<size_t>(j.kl[static_cast<size_t>(i)]), ir = static_cast<size_t>(j.kr[static_cast<size_t>(i)]);
    if (mismatched) {
      fa[il] = draw(rng, 2, 3);
      fb[ir] = fa[il] == 2 ? 3 : 2;
    } else {
      fb[ir] = fa[il];
    }
  }
  j.a = random_scan(rng, p, la, allow_all, fa);
  j.b = random_scan(rng, p, lb, allow_all, fb);
  j.ta = p.node(j.a).out_type;
  j.tb = p.node(j.b).out_type;
  return j;
}

// ---------------------------------------------------------------- join strategies

// C = A ⋈ B with a batched matrix product on chunks: A[i,j] B[j,k] or
// A[b,i,j] B[b,j,k], initially ⋈(Bcast(A), B) or ⋈(A, Bcast(B)) as compile()
// plans it; with an aggregation over j (Shuf + Σ) or without one.
struct MatmulOptions {
  bool aggregated = true;
  bool filter_left_j = false;  // A read through σ(j < 2) with j's frontier 3: A's j frontier is 2, B's 3
};

inline Case matmul_join(Rng& rng, const MatmulOptions& o) {
  IaPlan p;
  const bool batched = coin(rng);
  const Index fb = batched ? draw(rng, 1, 2) : 1, fi = draw(rng, 1, 3), fk = draw(rng, 1, 3);
  const Index fj = o.filter_left_j ? 3 : draw(rng, 1, 3);
  const Index cb = batched ? draw(rng, 1, 2) : 1, ci = draw(rng, 1, 3), cj = draw(rng, 1, 3), ck = draw(rng, 1, 3);
  Shape fa = {fi, fj}, fbb = {fj, fk}, ca = {ci, cj}, cbb = {cj, ck};
  if (batched) {
    fa.insert(fa.begin(), fb);
    fbb.insert(fbb.begin(), fb);
    ca.insert(ca.begin(), cb);
    cbb.insert(cbb.begin(), cb);
  }
  int a = random_scan(rng, p, static_cast<int>(fa.size()), false, fa, ca);
  const int b = random_scan(rng, p, static_cast<int>(fbb.size()), false, fbb, cbb);
  const RelType ta = p.node(a).out_type, tb = p.node(b).out_type;
  const std::vector<int> kl = batched ? std::vector<int>{0, 2} : std::vector<int>{1};
  const std::vector<int> kr = batched ? std::vector<int>{0, 1} : std::vector<int>{0};
  if (o.filter_left_j) {
    const auto jd = static_cast<size_t>(kl.back());
    a = filter(p, a, predicate("k" + std::to_string(jd) + " < 2", kl.back() + 1));
  }
  const bool left = coin(rng);
  const int j = join(p, left ? bcast(p, a) : a, left ? b : bcast(p, b), ta, tb, kl, kr, matmul_op(ca, cbb));
  int root = j;
  if (o.aggregated) {
    // Natural output key: <i, j, k> or <b, i, j, k>; j is summed away.
    const std::vector<int> g = batched ? std::vector<int>{0, 1, 3} : std::vector<int>{0, 2};
    const RelType jt = p.node(j).out_type;  // a copy: adding nodes moves them
    root = aggregate(p, shuffle(p, j, g), jt, g, einsum::AggOp::Sum);
  }
  return {with_roots(std::move(p), {root}), j, 0, batched ? "A[b,i,j] ⋈ B[b,j,k]" : "A[i,j] ⋈ B[j,k]"};
}

inline int the_join(const IaPlan& p) {
  int at = -1;
  for (size_t i = 0; i < p.nodes.size(); ++i)
    if (p.nodes[i].kind() == Kind::LocalJoin) at = static_cast<int>(i);
  return at;
}

}  // namespace tra::rule_cases
