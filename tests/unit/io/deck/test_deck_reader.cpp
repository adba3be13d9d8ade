// The YAML deck reader: a good deck read into a Workflow, and every kind of
// mistake reported as "deck.yaml:LINE:COLUMN: what was expected".
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "tra/io/deck/deck_reader.hpp"
#include "tra/logical/key_expr.hpp"

using tra::io::parse_deck;
using tra::model::Generator;
using tra::model::Hdf5Source;
using tra::model::TraStatement;
using tra::model::Workflow;

namespace {

// Line numbers in the comments on the right are used by the tests below.
const char* kGoodDeck =
    "tensors:\n"  // 1
    "  - name: A\n"  // 2
    "    shape: [8, 6]\n"  // 3
    "    chunk: [4, 3]\n"  // 4
    "    source: uniform(-1, 1, 7)\n"  // 5
    "  - name: B\n"  // 6
    "    shape: [6, 4]\n"  // 7
    "    source: {file: data/b.h5, dataset: /B}\n"  // 8
    "graph:\n"  // 9
    "  - C[i,k] = sum_j A[i,j] * B[j,k]\n"  // 10
    "  - \"D[i,k] = max_j abs(A[i,j] - B[j,k])\"\n"  // 11
    "  - {op: filter, input: C, output: F, where: \"k0 == k1\"}\n"  // 12
    "  - {op: rekey, input: F, output: G, key: \"[k0]\"}\n"  // 13
    "  - {op: transform, input: G, output: H, kernel: diag}\n"  // 14
    "  - {op: transform, input: C, output: R, kernel: relu(x)}\n"  // 15
    "  - {op: tile, input: C, output: T, dim: 1, size: 2}\n"  // 16
    "  - {op: concat, input: T, output: U, key_dim: 2, dim: 1}\n"  // 17
    "outputs:\n"  // 18
    "  - {tensor: C, file: out.h5, dataset: C}\n"  // 19
    "  - {tensor: D, file: out.h5}\n"  // 20
    "run:\n"  // 21
    "  partitioning:\n"  // 22
    "    default: none\n"  // 23
    "    C: {i: 2, j: 1, k: 1}\n";  // 24

// The message of the UserError that parsing `text` raises.
std::string error_of(const std::string& text) {
  try {
    parse_deck(text, "deck.yaml", "/decks");
  } catch (const tra::UserError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for deck:\n" << text;
  return "";
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// The 1-based column of `needle` in a line of the deck, as text.
std::string column(const std::string& line, const std::string& needle) {
  const size_t at = line.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  return std::to_string(at + 1);
}

// A minimal valid deck with one line replaced by the caller's.
const std::string kHead = "tensors:\n  - name: A\n    shape: [4, 4]\n";  // lines 1-3

}  // namespace

TEST(TraDeckReader, GoodDeckTensors) {
  const Workflow wf = parse_deck(kGoodDeck, "deck.yaml", "/decks");
  EXPECT_EQ(wf.deck_path, "deck.yaml");
  ASSERT_EQ(wf.tensors.size(), 2u);

  const auto& a = wf.tensors[0];
  EXPECT_EQ(a.name, "A");
  EXPECT_EQ(a.shape, (tra::Shape{8, 6}));
  ASSERT_TRUE(a.chunk.has_value());
  EXPECT_EQ(*a.chunk, (tra::Shape{4, 3}));
  const auto* g = std::get_if<Generator>(&a.source);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->kind, Generator::Kind::Uniform);
  EXPECT_EQ(g->a, -1);
  EXPECT_EQ(g->b, 1);
  EXPECT_EQ(g->seed, 7u);
  EXPECT_EQ(a.loc.line, 2);
  EXPECT_EQ(a.loc.column, 5);

  const auto& b = wf.tensors[1];
  EXPECT_FALSE(b.chunk.has_value());
  const auto* h = std::get_if<Hdf5Source>(&b.source);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->file, "/decks/data/b.h5");  // resolved against the deck's folder
  EXPECT_EQ(h->dataset, "/B");
  EXPECT_EQ(wf.find_tensor("B"), &b);
  EXPECT_EQ(wf.find_tensor("Z"), nullptr);
}

TEST(TraDeckReader, GoodDeckGraph) {
  const Workflow wf = parse_deck(kGoodDeck, "deck.yaml", "/decks");
  ASSERT_EQ(wf.graph.size(), 8u);

  const auto* c = std::get_if<tra::einsum::EinSum>(&wf.graph[0]);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->output.name, "C");
  EXPECT_EQ(c->agg, tra::einsum::AggOp::Sum);
  EXPECT_TRUE(c->join.is_product());
  EXPECT_EQ(c->loc.line, 10);
  EXPECT_EQ(c->loc.column, 5);  // a plain scalar starts at its first character
  EXPECT_EQ(c->inputs[1].loc.column, 5 + 24);

  const auto* d = std::get_if<tra::einsum::EinSum>(&wf.graph[1]);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->agg, tra::einsum::AggOp::Max);
  EXPECT_EQ(d->loc.line, 11);
  EXPECT_EQ(d->loc.column, 6);  // past the opening quote

  auto tra_at = [&](size_t i) { return std::get<TraStatement>(wf.graph.at(i)); };
  EXPECT_EQ(tra_at(2).op, TraStatement::Op::Filter);
  EXPECT_EQ(tra_at(2).input, "C");
  EXPECT_EQ(tra_at(2).output, "F");
  EXPECT_EQ(tra_at(2).expr, "k0 == k1");
  EXPECT_EQ(tra_at(2).expr_loc.line, 12);
  EXPECT_EQ(tra_at(2).expr_loc.column, 47);  // inside the quotes of "k0 == k1"
  EXPECT_EQ(tra_at(3).op, TraStatement::Op::ReKey);
  EXPECT_EQ(tra_at(3).expr, "[k0]");
  EXPECT_EQ(tra_at(4).op, TraStatement::Op::Transform);
  EXPECT_EQ(tra_at(4).expr, "diag");
  EXPECT_EQ(tra_at(5).expr, "relu(x)");
  EXPECT_EQ(tra_at(6).op, TraStatement::Op::Tile);
  EXPECT_EQ(tra_at(6).dim, 1);
  EXPECT_EQ(tra_at(6).size, 2);
  EXPECT_EQ(tra_at(7).op, TraStatement::Op::Concat);
  EXPECT_EQ(tra_at(7).key_dim, 2);
  EXPECT_EQ(tra_at(7).dim, 1);
  EXPECT_EQ(tra_at(7).str(), "U = Concat(2, 1)(T)");
  EXPECT_EQ(tra::model::statement_output(wf.graph[7]), "U");
  EXPECT_EQ(tra::model::statement_loc(wf.graph[7]).line, 17);
}

TEST(TraDeckReader, GoodDeckOutputsAndRun) {
  const Workflow wf = parse_deck(kGoodDeck, "deck.yaml", "/decks");
  ASSERT_EQ(wf.outputs.size(), 2u);
  EXPECT_EQ(wf.outputs[0].tensor, "C");
  EXPECT_EQ(wf.outputs[0].file, "out.h5");
  EXPECT_EQ(wf.outputs[0].dataset, "/C");  // a leading '/' is added
  EXPECT_EQ(wf.outputs[1].dataset, "/D");  // default: the tensor's name
  EXPECT_EQ(wf.run.default_partitioning, tra::model::RunOptions::DefaultPartitioning::None);
  ASSERT_EQ(wf.run.partitioning.count("C"), 1u);
  const auto& p = wf.run.partitioning.at("C");
  EXPECT_EQ(p.at("i"), 2);
  EXPECT_EQ(p.at("j"), 1);
  EXPECT_EQ(p.at("k"), 1);
  EXPECT_EQ(wf.run.partitioning_loc.at("C").line, 24);
}

TEST(TraDeckErrors, YamlSyntaxError) {
  // "tensors: x: y": the second ':' (column 11 of line 2) makes an illegal map value.
  const std::string msg = error_of("graph: []\ntensors: x: y\n");
  EXPECT_TRUE(starts_with(msg, "deck.yaml:2:11: YAML syntax error")) << msg;
}

TEST(TraDeckErrors, UnknownTopLevelKey) {
  const std::string msg = error_of("tensors: []\ngraph: []\ngrahp: []\n");
  EXPECT_TRUE(starts_with(msg, "deck.yaml:3:1: unknown key 'grahp' in the deck")) << msg;
  EXPECT_NE(msg.find("expected one of: graph, outputs, params, run, tensors, train"), std::string::npos) << msg;
}

TEST(TraDeckErrors, UnknownKeyInTensor) {
  const std::string msg = error_of(kHead + "    sorce: zeros\ngraph: []\n");
  EXPECT_TRUE(starts_with(msg, "deck.yaml:4:5: unknown key 'sorce' in a tensor")) << msg;
}

TEST(TraDeckErrors, BadShapeEntry) {
  std::string msg = error_of("tensors:\n  - name: A\n    shape: [8, x]\n    source: zeros\ngraph: []\n");
  EXPECT_TRUE(starts_with(msg, "deck.yaml:3:16: each extent of shape must be an integer, found 'x'")) << msg;
  msg = error_of("tensors:\n  - name: A\n    shape: [0, 4]\n    source: zeros\ngraph: []\n");
  EXPECT_TRUE(starts_with(msg, "deck.yaml:3:13: each extent of shape must be at least 1")) << msg;
  msg = error_of("tensors:\n  - name: A\n    shape: 8\n    source: zeros\ngraph: []\n");
  EXPECT_TRUE(starts_with(msg, "deck.yaml:3:12: shape must be a list")) << msg;
}

TEST(TraDeckErrors, ChunkNotDividingShape) {
  const std::string msg = error_of(kHead + "    chunk: [3, 2]\n    source: zeros\ngraph: []\n");
  EXPECT_TRUE(starts_with(msg, "deck.yaml:4:12: chunk extent 3 does not divide shape extent 4 (dimension 0)")) << msg;
  const std::string rank = error_of(kHead + "    chunk: [2]\n    source: zeros\ngraph: []\n");
  EXPECT_TRUE(starts_with(rank, "deck.yaml:4:12: chunk has 1 extents but shape has 2")) << rank;
}

TEST(TraDeckErrors, UnknownGenerator) {
  std::string msg = error_of(kHead + "    source: unifrm(0, 1, 2)\ngraph: []\n");
  EXPECT_TRUE(starts_with(msg, "deck.yaml:4:13: unknown source 'unifrm(0, 1, 2)'")) << msg;
  // Quoted: the text starts one column after the quote.
  msg = error_of(kHead + "    source: \"unifrm(0, 1, 2)\"\ngraph: []\n");
  EXPECT_TRUE(starts_with(msg, "deck.yaml:4:14: unknown source")) << msg;
  // A bad argument points at the argument itself.
  msg = error_of(kHead + "    source: uniform(0, one, 2)\ngraph: []\n");
  EXPECT_TRUE(starts_with(msg, "deck.yaml:4:24: expected a number")) << msg;
}

TEST(TraDeckErrors, BadStatementPointsInsideTheString) {
  const std::string tensors = kHead + "    source: zeros\ngraph:\n";  // graph entries on line 6
  // Plain scalar at column 5: '@' is at offset 16 of the statement.
  std::string msg = error_of(tensors + "  - C[i,j] = A[i,j] @\n");
  EXPECT_TRUE(starts_with(msg, "deck.yaml:6:21: unexpected character '@'")) << msg;
  // Quoted: the statement's text starts at column 6, so '@' is at column 22.
  msg = error_of(tensors + "  - \"C[i,j] = A[i,j] @\"\n");
  EXPECT_TRUE(starts_with(msg, "deck.yaml:6:22: unexpected character '@'")) << msg;
  // A '$' there is a parameter reference (params:), located the same way.
  msg = error_of(tensors + "  - \"C[i,j] = A[i,j] $\"\n");
  EXPECT_TRUE(starts_with(msg, "deck.yaml:6:22: '$' starts a parameter reference")) << msg;
  msg = error_of(tensors + "  - 'C[i,j] = foo(A[i,j])'\n");
  EXPECT_TRUE(starts_with(msg, "deck.yaml:6:15: unknown function 'foo'")) << msg;
}

TEST(TraDeckErrors, KeyExpressionLocationIsInsideItsQuotes) {
  // The reader keeps a filter's predicate as text; its location, handed to the
  // key-expression parser later, must put the offending k9 at its own column.
  const std::string line = "  - {op: filter, input: A, output: F, where: \"k0 == k9\"}";
  const Workflow wf = parse_deck(kHead + "    source: zeros\ngraph:\n" + line + "\n", "deck.yaml", "");
  const auto& f = std::get<TraStatement>(wf.graph.at(0));
  try {
    tra::logical::KeyExpr::parse_predicate(f.expr, 2, f.expr_loc);
    ADD_FAILURE() << "k9 accepted for keys of arity 2";
  } catch (const tra::UserError& e) {
    EXPECT_TRUE(starts_with(e.what(), "deck.yaml:6:" + column(line, "k9") + ": key dimension k9")) << e.what();
  }
}

TEST(TraDeckErrors, BadTransformKernelIsReportedByTheReader) {
  const std::string line = "  - {op: transform, input: A, output: R, kernel: \"relu(y)\"}";
  const std::string msg = error_of(kHead + "    source: zeros\ngraph:\n" + line + "\n");
  EXPECT_TRUE(starts_with(msg, "deck.yaml:6:" + column(line, "y)") + ": tensor 'y' needs its labels")) << msg;
}

TEST(TraDeckErrors, UnknownOp) {
  const std::string msg = error_of(kHead + "    source: zeros\ngraph:\n  - {op: transpose, input: A, output: T}\n");
  EXPECT_TRUE(starts_with(msg, "deck.yaml:6:10: unknown op 'transpose'")) << msg;
}

TEST(TraDeckErrors, OtherMistakes) {
  // A tensor declared twice, a missing section, a bad default partitioning.
  std::string msg = error_of(kHead + "    source: zeros\n  - name: A\n    shape: [2]\n    source: ones\ngraph: []\n");
  EXPECT_TRUE(starts_with(msg, "deck.yaml:5:11: tensor 'A' is declared twice")) << msg;
  msg = error_of("tensors: []\n");
  EXPECT_TRUE(starts_with(msg, "deck.yaml:1:1: the deck has no 'graph' section")) << msg;
  msg = error_of("tensors: []\ngraph: []\nrun:\n  partitioning:\n    default: cols\n");
  EXPECT_TRUE(starts_with(msg, "deck.yaml:5:14: unknown default partitioning 'cols'")) << msg;
  const std::string tile = "  - {op: tile, input: A, output: T, dim: 1, size: 0}";
  msg = error_of(kHead + "    source: zeros\ngraph:\n" + tile + "\n");
  EXPECT_TRUE(starts_with(msg, "deck.yaml:6:" + column(tile, "0}") + ": size must be at least 1")) << msg;
}

// ---- generators

TEST(TraGenerators, ParseEachGenerator) {
  const tra::SourceLoc at{"deck.yaml", 5, 13};
  using K = Generator::Kind;
  Generator g = tra::io::parse_generator("uniform(-1, 1, 7)", at);
  EXPECT_EQ(g.kind, K::Uniform);
  EXPECT_EQ(g.a, -1);
  EXPECT_EQ(g.b, 1);
  EXPECT_EQ(g.seed, 7u);
  EXPECT_EQ(g.str(), "uniform(-1, 1, 7)");
  g = tra::io::parse_generator("normal(0.5, 2, 3)", at);
  EXPECT_EQ(g.kind, K::Normal);
  EXPECT_EQ(g.a, 0.5);
  EXPECT_EQ(g.b, 2);
  EXPECT_EQ(g.seed, 3u);
  EXPECT_EQ(tra::io::parse_generator("zeros", at).kind, K::Zeros);
  EXPECT_EQ(tra::io::parse_generator("ones", at).kind, K::Ones);
  EXPECT_EQ(tra::io::parse_generator(" identity ", at).kind, K::Identity);
  EXPECT_EQ(tra::io::parse_generator("zeros()", at).kind, K::Zeros);
  g = tra::io::parse_generator("arange", at);
  EXPECT_EQ(g.kind, K::Arange);
  EXPECT_EQ(g.a, 0);
  EXPECT_EQ(g.b, 1);
  g = tra::io::parse_generator("arange(5)", at);
  EXPECT_EQ(g.a, 5);
  EXPECT_EQ(g.b, 1);
  g = tra::io::parse_generator("arange(5, 0.5)", at);
  EXPECT_EQ(g.a, 5);
  EXPECT_EQ(g.b, 0.5);
  EXPECT_EQ(g.str(), "arange(5, 0.5)");
}

TEST(TraGenerators, BadArguments) {
  const tra::SourceLoc at{"deck.yaml", 5, 13};
  auto error = [&](const std::string& text) -> std::string {
    try {
      tra::io::parse_generator(text, at);
    } catch (const tra::UserError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no error for " << text;
    return "";
  };
  EXPECT_TRUE(starts_with(error("uniform(0, 1)"), "deck.yaml:5:13: generator takes uniform(low, high, seed)"));
  EXPECT_TRUE(starts_with(error("normal(0, 1, 2, 3)"), "deck.yaml:5:13: generator takes normal(mean, stddev, seed)"));
  EXPECT_TRUE(starts_with(error("zeros(1)"), "deck.yaml:5:13: generator takes no arguments"));
  EXPECT_TRUE(starts_with(error("arange(1, 2, 3)"), "deck.yaml:5:13: generator takes arange"));
  EXPECT_TRUE(starts_with(error("uniform(1, 0, 3)"), "deck.yaml:5:13: uniform(low, high, seed) needs low < high"));
  EXPECT_TRUE(starts_with(error("normal(0, -1, 3)"), "deck.yaml:5:13: normal(mean, stddev, seed) needs stddev > 0"));
  EXPECT_TRUE(starts_with(error("uniform(0, 1, 2.5)"), "deck.yaml:5:13: the seed must be a non-negative integer"));
  EXPECT_TRUE(starts_with(error("uniform(0, 1, -2)"), "deck.yaml:5:13: the seed must be a non-negative integer"));
  EXPECT_TRUE(starts_with(error("uniform(0, 1, 1e30)"), "deck.yaml:5:13: the seed must be a non-negative integer"));
  EXPECT_TRUE(starts_with(error("uniform(0, 1, nan)"), "deck.yaml:5:27: the generator's arguments must be finite numbers, found 'nan'"));
  EXPECT_TRUE(starts_with(error("normal(-inf, 1, 2)"), "deck.yaml:5:20: the generator's arguments must be finite numbers, found '-inf'"));
  // Syntax errors point at the character: "uniform(0 1 2)" has '1' at offset 10.
  EXPECT_TRUE(starts_with(error("uniform(0 1 2)"), "deck.yaml:5:23: expected ',' or ')'"));
  EXPECT_TRUE(starts_with(error("uniform(0, x, 2)"), "deck.yaml:5:24: expected a number"));
  EXPECT_TRUE(starts_with(error("ones junk"), "deck.yaml:5:18: unexpected text after the generator"));
  EXPECT_TRUE(starts_with(error("uniform(0, 1, 2"), "deck.yaml:5:28: expected ',' or ')'"));
  EXPECT_TRUE(starts_with(error("  gauss(0, 1, 2)"), "deck.yaml:5:15: unknown source"));
}

// run: dtype: the run's element type; outputs without a dtype of their own
// follow it, one with `dtype: float64` keeps it.
TEST(TraDeckReader, RunDtypeSetsTheOutputsStorageUnlessTheyGiveTheirOwn) {
  const std::string deck =
      "tensors:\n  - {name: A, shape: [4], source: ones}\ngraph:\n  - \"B[i] = A[i] * 2\"\n"
      "outputs:\n  - {tensor: B, file: b.h5}\n  - {tensor: B, file: b.h5, dataset: /wide, dtype: float64}\n";
  const Workflow wide = parse_deck(deck, "deck.yaml", "/decks");
  EXPECT_EQ(wide.run.dtype, tra::DType::Float64);
  EXPECT_FALSE(wide.outputs[0].storage.float32);
  const Workflow narrow = parse_deck(deck + "run: {dtype: float32}\n", "deck.yaml", "/decks");
  EXPECT_EQ(narrow.run.dtype, tra::DType::Float32);
  EXPECT_TRUE(narrow.outputs[0].storage.float32);
  EXPECT_FALSE(narrow.outputs[1].storage.float32);
}

TEST(TraDeckErrors, RunDtypeUnknown) {
  const std::string head = "tensors:\n  - {name: A, shape: [4], source: ones}\ngraph:\n  - \"B[i] = A[i] * 2\"\n";
  const std::string msg = error_of(head + "run: {dtype: float16}\n");
  EXPECT_TRUE(starts_with(msg, "deck.yaml:5:14: unknown dtype 'float16'; expected float64 or float32")) << msg;
}

TEST(TraDeckReader, RunDtypeTrainsInFloat32) {
  const Workflow wf = parse_deck(
      "tensors:\n  - {name: W, shape: [4], source: ones, param: true}\ngraph:\n  - \"L = sum_i W[i] * W[i]\"\n"
      "train: {loss: L, optimizer: {kind: sgd, lr: 0.1}, iterations: 2}\nrun: {dtype: float32}\n"
      "outputs:\n  - {tensor: W, file: w.h5}\n",
      "deck.yaml", "/decks");
  EXPECT_EQ(wf.run.dtype, tra::DType::Float32);
  ASSERT_TRUE(wf.train.has_value());
  EXPECT_TRUE(wf.outputs[0].storage.float32);
}
