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
#include "tra/exec/executor.hpp"
#include "tra/model/workflow.hpp"
#include "tra/einsum/parser.hpp"
#include "tra/kernels/einsum_kernel.hpp"
#include "tra/exec/local/tra_ops.hpp"
#include "tra/physical/infer.hpp"
#include "tra/physical/plan_edit.hpp"
#include "tra/physical/rules/join_strategies.hpp"
#include "tra/physical/rules/rule.hpp"

namespace tra {
namespace {

using physical::IaNode;
using physical::IaPlan;
using physical::KeyFn;
using physical::KeyPredicate;
using Kind = IaNode::Kind;
using Rng = std::mt19937;

constexpr int kTrials = 5;

// ---------------------------------------------------------------- random draws

Index draw(Rng& rng, Index lo, Index hi) { return std::uniform_int_distribution<Index>(lo, hi)(rng); }
bool coin(Rng& rng) { return draw(rng, 0, 1) == 1; }

Shape random_shape(Rng& rng, int arity, Index lo = 1, Index hi = 3) {
  Shape s;
  for (int d = 0; d < arity; ++d) s.push_back(draw(rng, lo, hi));
  return s;
}

// A random subset of 0..n-1 in random order (possibly empty unless min_size > 0).
std::vector<int> random_dims(Rng& rng, int n, int min_size = 0) {
  std::vector<int> all(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) all[static_cast<size_t>(i)] = i;
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(static_cast<size_t>(draw(rng, min_size, n)));
  return all;
}

std::vector<int> sorted(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::string dims_text(const std::vector<int>& d) {
  std::string s;
  for (int x : d) s += (s.empty() ? "" : ",") + std::to_string(x);
  return "<" + s + ">";
}

// ---------------------------------------------------------------- plan builders

// A generated tensor's declaration, named T0, T1, ... in the order made.
model::TensorDecl tensor(const Shape& frontier, const Shape& chunk, std::uint64_t seed) {
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

int scan(IaPlan& p, const Shape& frontier, const Shape& chunk, Placement where, std::uint64_t seed) {
  IaNode n;
  n.params = physical::ScanParams{tensor(frontier, chunk, seed), std::move(where), {}};
  n.out_type = RelType{frontier, chunk};
  n.detail = n.scan().source->name + ", " + n.placement().str();
  return physical::add_node(p, std::move(n));
}

// Where a Scan reads: Part on a random subset of its dimensions, or (if
// allowed) every site.
Placement random_placement(Rng& rng, const Shape& frontier, bool allow_all) {
  if (allow_all && draw(rng, 0, 3) == 0) return Placement::all();
  return Placement::part(sorted(random_dims(rng, static_cast<int>(frontier.size()))), frontier);
}

// A Scan of a random standard relation: key arity = chunk rank.
int random_scan(Rng& rng, IaPlan& p, int arity, bool allow_all, Shape frontier = {}, Shape chunk = {}) {
  if (frontier.empty()) frontier = random_shape(rng, arity);
  if (chunk.empty()) chunk = random_shape(rng, arity);
  const Placement where = random_placement(rng, frontier, allow_all);
  return scan(p, frontier, chunk, where, static_cast<std::uint64_t>(draw(rng, 1, 1000000)));
}

int bcast(IaPlan& p, int in) { return physical::add_node(p, physical::make_bcast(in)); }
int shuffle(IaPlan& p, int in, std::vector<int> dims) { return physical::add_node(p, physical::make_shuffle(in, std::move(dims))); }

int filter(IaPlan& p, int in, KeyPredicate pred) {
  IaNode n;
  n.params = physical::FilterParams{};
  n.inputs = {in};
  n.detail = pred.text();
  n.filter().predicate = std::move(pred);
  return physical::add_node(p, std::move(n));
}

// A deck predicate, parsed as a filter statement's would be, over keys of
// `arity` dimensions.
KeyPredicate predicate(const std::string& text, int arity) {
  return KeyPredicate::of(std::make_shared<const logical::KeyExpr>(logical::KeyExpr::parse_predicate(text, arity, {"test", 1, 1})));
}

// A predicate on one key dimension.
std::string predicate_text(Rng& rng, int d) {
  const std::string k = "k" + std::to_string(d);
  switch (draw(rng, 0, 3)) {
    case 0: return k + " % 2 == 0";
    case 1: return k + " < 2";
    case 2: return k + " != 1";
    default: return k + " >= 1";
  }
}

KeyPredicate predicate_on(Rng& rng, int d) { return predicate(predicate_text(rng, d), d + 1); }

// A predicate on one or two of the given dimensions.
KeyPredicate random_predicate(Rng& rng, const std::vector<int>& dims) {
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
std::vector<std::string> labels(const std::string& prefix, size_t rank) {
  std::vector<std::string> l;
  for (size_t d = 0; d < rank; ++d) l.push_back(prefix + std::to_string(d));
  return l;
}

std::string indexed(const std::string& name, const std::vector<std::string>& ls) {
  std::string s;
  for (const auto& l : ls) s += (s.empty() ? "" : ",") + l;
  return name + "[" + s + "]";
}

// An EinSum kernel for `statement`, each label's chunk extent given.
physical::EinSumCall einsum_call(const std::string& statement, const std::map<einsum::Label, Index>& extent) {
  auto kernel = std::make_shared<const kernels::EinSumKernel>(einsum::parse_einsum(statement, {"test", 1, 1}), extent);
  return {kernel, statement};
}

std::map<einsum::Label, Index> extents(const std::vector<std::string>& ls, const Shape& s) {
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

ArrayOp elements(const std::string& f, const Shape& in) {
  const einsum::ScalarProgram prog = einsum::parse_scalar_function(f, {"test", 1, 1});
  return {physical::ArrayFn::of(physical::ArrayFn::Elements{prog}), static_cast<double>(prog.flops_per_eval() * volume(in)), in};
}

ArrayOp random_array_op(Rng& rng, const Shape& in, bool allow_identity = true) {
  const int kind = static_cast<int>(draw(rng, allow_identity ? 0 : 1, 4));
  const std::vector<std::string> x = labels("a", in.size());
  switch (kind) {
    case 0: return {{}, 0, in};
    case 1: {
      std::ostringstream t;
      t << "x * " << static_cast<double>(draw(rng, -3, 3)) / 2 + 0.25;
      return elements(t.str(), in);
    }
    case 2: return elements("x * x - 0.5", in);
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
KeyFn permutation(const std::vector<int>& perm) { return KeyFn::projecting(perm, static_cast<int>(perm.size())); }

KeyFn random_key_map(Rng& rng, int arity, bool allow_identity = true) {
  for (int tries = 0; tries < 16; ++tries) {
    std::vector<int> perm = random_dims(rng, arity, arity);
    KeyFn f = permutation(perm);
    if (allow_identity || !f.identity()) return f;
  }
  std::vector<int> rot;
  for (int i = 0; i < arity; ++i) rot.push_back((i + 1) % arity);
  return permutation(rot);
}

Shape permuted(const Shape& s, const KeyFn& f) { return f.identity() ? s : f(s); }

// A one-to-one LocalMap; out_type follows from the input's (nominal) type.
int map1(IaPlan& p, int in, const RelType& in_type, const KeyFn& key, const ArrayOp& op) {
  IaNode n;
  n.params = physical::MapParams{};
  n.inputs = {in};
  n.map().key_map = key;
  n.map().array_map = op.fn;
  n.map().call_flops = op.flops;
  n.out_type = RelType{permuted(in_type.frontier, key), op.out};
  n.detail = (key.identity() ? "idOp" : key.text()) + ", " + (op.fn.identity() ? "idOp" : op.fn.text());
  return physical::add_node(p, std::move(n));
}

// A LocalMap from one tuple to two (key <k..., 0> and <k..., 1>, same chunk): not composable.
int duplicate(IaPlan& p, int in, const RelType& in_type) {
  IaNode n;
  n.params = physical::MapParams{};
  n.inputs = {in};
  n.out_type = in_type;
  n.out_type.frontier.push_back(2);
  n.map().expand = physical::Replicate{{2}};
  n.map().arity = 2;
  n.detail = "duplicate x2";
  return physical::add_node(p, std::move(n));
}

// Join kernels. "mix" takes any two chunks: Z = Σ_r L · (R + 1), over the
// left chunk's labels, every right element summed.
struct JoinOp {
  physical::JoinKernel fn;
  double flops = 0;
  Shape out;
};

JoinOp join_op(const std::string& statement, const std::map<einsum::Label, Index>& extent) {
  const physical::EinSumCall k = einsum_call(statement, extent);
  return {{k, false, {}}, k.kernel->flops(), k.kernel->z_shape()};
}

JoinOp mix_op(const Shape& left, const Shape& right) {
  const std::vector<std::string> l = labels("a", left.size()), r = labels("b", right.size());
  std::map<einsum::Label, Index> e = extents(l, left);
  for (const auto& [k, v] : extents(r, right)) e[k] = v;
  return join_op(indexed("Z", l) + " = " + indexed("L", l) + " * (" + indexed("R", r) + " + 1)", e);
}

// ⊗ element by element on two chunks of one shape: L · (R + 1).
JoinOp zip_op(const Shape& shape) {
  const std::vector<std::string> l = labels("a", shape.size());
  return join_op(indexed("Z", l) + " = " + indexed("L", l) + " * (" + indexed("R", l) + " + 1)", extents(l, shape));
}

// Batched matrix product of chunks [t..., p, q] x [t..., q, r] -> [t..., p, r].
JoinOp matmul_op(const Shape& left, const Shape& right) {
  const bool batched = left.size() == 3;
  std::map<einsum::Label, Index> e{{"p", left[left.size() - 2]}, {"q", left.back()}, {"r", right.back()}};
  if (batched) e["t"] = left[0];
  return join_op(batched ? "Z[t,p,r] = sum_q A[t,p,q] * B[t,q,r]" : "Z[p,r] = sum_q A[p,q] * B[q,r]", e);
}

int join(IaPlan& p, int l, int r, const RelType& lt, const RelType& rt, std::vector<int> kl, std::vector<int> kr, const JoinOp& op) {
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
  n.detail = op.fn.call.text() + " on " + dims_text(n.join().keys_left) + "=" + dims_text(n.join().keys_right);
  return physical::add_node(p, std::move(n));
}

einsum::AggOp random_agg_op(Rng& rng) {
  switch (draw(rng, 0, 2)) {
    case 0: return einsum::AggOp::Sum;
    case 1: return einsum::AggOp::Max;
    default: return einsum::AggOp::Min;
  }
}

int aggregate(IaPlan& p, int in, const RelType& in_type, std::vector<int> group_by, einsum::AggOp op) {
  IaNode n;
  n.params = physical::AggParams{};
  n.inputs = {in};
  n.out_type = RelType{project(in_type.frontier, group_by), in_type.chunk_shape};
  n.agg().group_by = std::move(group_by);
  n.agg().kernel = physical::AggKernel{physical::AggKernel::Fold{op}, {}};  // a join feeding it runs streamed (exec/join_aggregate), as compiled aggregations do
  n.agg().decomposable = true;
  n.detail = dims_text(n.agg().group_by) + ", " + einsum::agg_name(op);
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

Outcome execute(const IaPlan& plan, const comm::Communicator& c) {
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
    std::vector<Tuple> all = comm::broadcast(c, mine, n.type.key_arity(), n.type.chunk_shape, ignored);
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

void expect_same(const Rel& a, const Rel& b, double tol, const std::string& what) {
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
  double tol = 0;      // 0: both sides must agree exactly
  std::string what;    // in words, for failure messages
};

int nsites() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

IaPlan with_roots(IaPlan p, std::vector<int> roots) {
  p.nsites = nsites();
  p.roots = std::move(roots);
  physical::infer(p);
  return p;
}

// Applies `rewrite` to a copy of c.plan (it must report that it applied),
// checks that both plans are valid, runs both and compares their roots tuple
// by tuple, and checks each plan's predicted floats against the measured ones.
void check_rewrite(const Case& c, const std::function<bool(IaPlan&)>& rewrite) {
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

const physical::Rule& rule(const std::string& name) {
  for (const physical::Rule* r : physical::all_rules())
    if (r->name == name) return *r;
  throw std::runtime_error("no rule " + name);
}

std::function<bool(IaPlan&)> at_node(const std::string& name, int at, int variant = 0) {
  return [&r = rule(name), at, variant](IaPlan& p) { return r.apply(p, at, variant); };
}

// The rule must refuse and leave the plan as it was.
void expect_not_applicable(const std::string& name, const Case& c, int variant = 0) {
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
void check_rule(const std::string& name, std::uint32_t seed, const std::function<Case(Rng&)>& make, int variant = 0) {
  Rng rng(seed);
  for (int t = 0; t < kTrials; ++t) {
    SCOPED_TRACE(name + " trial " + std::to_string(t) + " at np " + std::to_string(nsites()));
    const Case c = make(rng);
    check_rewrite(c, at_node(name, c.at, variant));
  }
}

// ---------------------------------------------------------------- the rule list

TEST(IaRules, EveryRuleHasATest) {
  std::vector<std::string> names;
  for (const physical::Rule* r : physical::all_rules()) names.push_back(r->name);
  const std::vector<std::string> tested = {"R2-1", "R2-2", "R2-3", "R2-4", "R2-5", "R2-6", "R2-7",     "R1-1",
                                           "R1-2", "R1-3", "R1-4", "R1-5", "R1-6", "R1-7", "scan-part", "scan-all",
                                           "scan-face", "shuffle-spread", "share-exchange", "broadcast-below"};
  EXPECT_EQ(names, tested) << "a rule was added or renamed: give it a test in this file";
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
  const int m = map1(p, a, at, identity_keys ? KeyFn{} : random_key_map(rng, static_cast<int>(g.size()), false),
                     random_array_op(rng, at.chunk_shape));
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

// Two random relations and a join between them: A's join dims kl, B's kr,
// with equal frontiers on the joined dimensions unless `mismatched`.
struct JoinInputs {
  int a = -1, b = -1;
  RelType ta, tb;
  std::vector<int> kl, kr;
};

JoinInputs random_join_inputs(Rng& rng, IaPlan& p, bool allow_all, int min_keys = 1, bool mismatched = false) {
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
  const int m = one_to_one ? map1(p, j, jt, random_key_map(rng, jt.key_arity()), random_array_op(rng, jt.chunk_shape))
                           : duplicate(p, j, jt);
  const int root = maybe_aggregated(rng, p, m);
  return {with_roots(std::move(p), {root}), m, 0, "λ(⋈)"};
}

TEST(IaRules, R1_7_MapIntoJoin) {
  check_rule("R1-7", 71, [](Rng& rng) { return map_over_join(rng, true); }, 1);
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
  check_rule("R1-7", 73, [](Rng& rng) { return diag_over_elementwise_join(rng, true); }, 0);
  Rng rng(74);
  Case c = diag_over_elementwise_join(rng, false);
  c.what = "a map that computes, not selects, over an elementwise join";
  expect_not_applicable("R1-7", c, 0);
  c = map_over_join(rng, true);
  c.what = "a join whose ⊗ is not elementwise";
  expect_not_applicable("R1-7", c, 0);
}

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
  const int j = join(p, sa, fb, p.node(a).out_type, p.node(b).out_type, {0, 1}, {0, 1}, mix_op(p.node(a).out_type.chunk_shape, p.node(b).out_type.chunk_shape));
  return {with_roots(std::move(p), {j}), fb, 0, "⋈(Shuf<0,1>(A), σ(k1 == 0)(Shuf<0,1>(B)))"};
}

TEST(IaRules, R2_2_FilterBeforeShuffleKeepsCoLocation) {
  check_rule("R2-2", 113, filter_over_shuffle_before_join);
}

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
TEST(IaRules, R2_6_JoinVariantsOfReplicatedReads) {
  check_join_forms(152, true, false);
}

// Joined dimensions with different frontiers on the two sides (2 vs 3).
TEST(IaRules, R2_6_JoinVariantsOfMismatchedFrontiers) {
  check_join_forms(153, false, true);
}

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

// ---------------------------------------------------------------- join strategies

// C = A ⋈ B with a batched matrix product on chunks: A[i,j] B[j,k] or
// A[b,i,j] B[b,j,k], initially ⋈(Bcast(A), B) or ⋈(A, Bcast(B)) as compile()
// plans it; with an aggregation over j (Shuf + Σ) or without one.
struct MatmulOptions {
  bool aggregated = true;
  bool filter_left_j = false;  // A read through σ(j < 2) with j's frontier 3: A's j frontier is 2, B's 3
};

Case matmul_join(Rng& rng, const MatmulOptions& o) {
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

int the_join(const IaPlan& p) {
  int at = -1;
  for (size_t i = 0; i < p.nodes.size(); ++i)
    if (p.nodes[i].kind() == Kind::LocalJoin) at = static_cast<int>(i);
  return at;
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
    EXPECT_EQ(static_cast<size_t>(std::min<Index>(f[0], nsites())), sites.size()) << "spread, the groups sit on as many sites as there are groups or sites";
  }
  Rng r2(186);
  IaPlan p;
  const int s = random_scan(r2, p, 2, false);
  const int sh = shuffle(p, s, {0});
  expect_not_applicable("shuffle-spread", {with_roots(std::move(p), {sh}), sh, 0, "a shuffle on the default grid already"});
}

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
    if (nsites() > 1 && c.plan.node(r).dist.tuples() > 0)
      EXPECT_LT(after.predicted_floats(), c.plan.predicted_floats()) << "R is broadcast once";
  }
  Rng r2(190);
  IaPlan p;
  const int r = random_scan(r2, p, 2, false);
  const RelType t = p.node(r).out_type;
  const int b = bcast(p, map1(p, r, t, KeyFn{}, random_array_op(r2, t.chunk_shape)));
  expect_not_applicable("broadcast-below", {with_roots(std::move(p), {b}), b, 0, "no other broadcast of R"});
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
TEST(IaJoinStrategies, FilteredContractedDimension) {
  check_strategies(195, {true, true});
}

}  // namespace
}  // namespace tra
