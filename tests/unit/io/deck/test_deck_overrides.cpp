// --set PATH=VALUE and params: change what the deck reader reads; a value an
// override placed is reported at its option, a parameter's use at its place
// in the deck.
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "tra/io/deck/deck_reader.hpp"
#include "tra/model/workflow.hpp"

namespace tra::io {
namespace {

const char* kDeck =
    "params: {n: 8, seed: 7, out: sweep}\n"  // 1
    "tensors:\n"  // 2
    "  - {name: X, shape: [$n, 4], source: \"uniform(-1, 1, ${seed})\"}\n"  // 3
    "  - {name: W, shape: [4, 2], source: ones}\n"  // 4
    "graph:\n"  // 5
    "  - \"Y[i,k] = sum_j X[i,j] * W[j,k]\"\n"  // 6
    "outputs:\n"  // 7
    "  - {tensor: Y, file: \"${out}_$n.h5\"}\n"  // 8
    "run: {partitioner: eindecomp}\n";  // 9

Workflow read(const std::vector<std::string>& sets, const std::string& text = kDeck) {
  std::vector<DeckOverride> overrides;
  for (const auto& s : sets) overrides.push_back(parse_override(s));
  return parse_deck(text, "deck.yaml", "", overrides);
}

std::string error_of(const std::vector<std::string>& sets, const std::string& text = kDeck) {
  try {
    read(sets, text);
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(DeckParams, ReferencesTakeTheParametersValues) {
  const Workflow wf = read({});
  EXPECT_EQ(wf.tensors[0].shape, (Shape{8, 4}));
  EXPECT_EQ(std::get<model::Generator>(wf.tensors[0].source).seed, 7u);
  EXPECT_EQ(wf.outputs[0].file, "sweep_8.h5");
  ASSERT_EQ(wf.params.size(), 3u);
  EXPECT_EQ(wf.params[0].name, "n");
  EXPECT_EQ(wf.params[0].value, "8");
  EXPECT_TRUE(wf.params[0].used && wf.params[1].used && wf.params[2].used);
  EXPECT_TRUE(wf.overrides.empty());
}

TEST(DeckParams, SetChangesAParameterEverywhereItIsUsed) {
  const Workflow wf = read({"params/n=16"});
  EXPECT_EQ(wf.tensors[0].shape, (Shape{16, 4}));
  EXPECT_EQ(wf.outputs[0].file, "sweep_16.h5");
  // (a replaced key moves to its mapping's end: yaml-cpp has no insertion in place)
  for (const auto& p : wf.params) EXPECT_EQ(p.value, p.name == "n" ? "16" : p.name == "seed" ? "7" : "sweep") << p.name;
  EXPECT_EQ(wf.overrides, (std::vector<std::string>{"--set params/n=16"}));
}

TEST(DeckParams, ADollarSignIsWrittenTwice) {
  std::string text = kDeck;
  text.replace(text.find("\"${out}_$n.h5\""), 14, "\"cost$$_$n.h5\"");
  EXPECT_EQ(read({}, text).outputs[0].file, "cost$_8.h5");
}

TEST(DeckParams, UnknownAndMalformedReferencesAreLocated) {
  std::string text = kDeck;
  text.replace(text.find("[$n, 4]"), 7, "[$m, 4]");
  EXPECT_EQ(error_of({}, text), "deck.yaml:3:23: unknown parameter '$m'; params: declares n, seed, out");
  text = kDeck;
  text.replace(text.find("${seed}"), 7, "${seed");
  EXPECT_NE(error_of({}, text).find("deck.yaml:3:55: '$' starts a parameter reference"), std::string::npos);
}

// An error inside a value a parameter changed points into the deck's text:
// column 42 is the '@' after "$n" in the deck, not after the value.
TEST(DeckParams, ErrorsAfterAReferenceKeepTheDecksColumns) {
  std::string text = kDeck;
  text.replace(text.find("\"Y[i,k] = sum_j X[i,j] * W[j,k]\""), 32, "\"Y[i,k] = sum_j X[i,j] * W[j,k] * $n @\"");
  EXPECT_EQ(error_of({}, text).substr(0, 16), "deck.yaml:6:42: ");
  std::string twelve = text;
  twelve.replace(twelve.find("{n: 8,"), 6, "{n: 123456789012,");
  twelve.replace(twelve.find("[$n, 4]"), 7, "[8, 4]");
  EXPECT_EQ(error_of({}, twelve).substr(0, 16), "deck.yaml:6:42: ");
}

// Aliases of aliases in a few bytes of a --set value stand for 10^8 values:
// refused at the option before they are walked.
TEST(DeckOverrides, AnAliasBombIsRefused) {
  std::string bomb = "[&a0 [0,0,0,0,0,0,0,0,0,0]";
  for (int i = 1; i < 8; ++i) {
    bomb += ", &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) bomb += (k ? ",*a" : "*a") + std::to_string(i - 1);
    bomb += "]";
  }
  bomb += "]";
  EXPECT_NE(error_of({"tensors/W/shape=" + bomb}).find("the value stands for more than 100000 values (aliases of aliases?)"), std::string::npos);
}

TEST(DeckParams, AnUnusedParameterIsWarnedAbout) {
  std::string text = kDeck;
  text.replace(text.find("out: sweep}"), 11, "out: a, k: 3}");
  const Workflow wf = read({}, text);
  bool warned = false;
  for (const auto& [where, what] : model::unused(wf))
    if (what.find("parameter 'k' is declared in params:") != std::string::npos) warned = where.str() == "deck.yaml:1:33";
  EXPECT_TRUE(warned);
}

TEST(DeckOverrides, ReplaceAValueChosenByNameOrIndex) {
  const Workflow wf = read({"tensors/W/shape=[4, 3]", "tensors/0/source=zeros", "run/partitioner=sqrt", "outputs/Y/dataset=/out/Y"});
  EXPECT_EQ(wf.tensors[1].shape, (Shape{4, 3}));
  EXPECT_EQ(std::get<model::Generator>(wf.tensors[0].source).kind, model::Generator::Kind::Zeros);
  EXPECT_EQ(wf.run.partitioner, model::RunOptions::Partitioner::Sqrt);
  EXPECT_EQ(wf.outputs[0].dataset, "/out/Y");
}

TEST(DeckOverrides, AddAKeyTheDeckLeftOut) {
  EXPECT_EQ(read({"run/overdecomposition=4"}).run.overdecomposition, 4);
  EXPECT_EQ(read({"tensors/W/chunk=[2, 2]"}).tensors[1].chunk, (Shape{2, 2}));
}

TEST(DeckOverrides, ErrorsNameTheOption) {
  EXPECT_EQ(error_of({"tensors/W/shape=[0, 2]"}), "--set tensors/W/shape=[0, 2]: each extent of shape must be at least 1, found 0");
  EXPECT_EQ(error_of({"run/partitioner=best"}), "--set run/partitioner=best: unknown partitioner 'best'; expected " + model::partitioner_names());
  EXPECT_NE(error_of({"run/partitionr=sqrt"}).find("--set run/partitionr=sqrt: unknown key 'partitionr' in run"), std::string::npos);
  EXPECT_NE(error_of({"tensors/Z/shape=[1]"}).find("--set tensors/Z/shape=[1]: 'tensors' has no element named 'Z' (it has X, W)"), std::string::npos);
  EXPECT_NE(error_of({"tensors/2/shape=[1]"}).find("'tensors' is a list of 2; there is no element 2"), std::string::npos);
  EXPECT_NE(error_of({"params/k=1"}).find("--set params/k=1: the deck declares no parameter 'k' (its params: are n, seed, out)"), std::string::npos);
  EXPECT_NE(error_of({"graph/0/op=filter"}).find("'graph/0' is a single value or a list; it has no part 'op'"), std::string::npos);
  EXPECT_NE(error_of({"run//partitioner=sqrt"}).find("has an empty part"), std::string::npos);
  EXPECT_NE(error_of({"run/partitioner=[a"}).find("the value is not YAML"), std::string::npos);
  EXPECT_EQ(error_of({"run/partitioner="}), "--set run/partitioner=: no value after '='; give one, as --set run/partitioner=sqrt");
  EXPECT_THROW(parse_override("run"), UserError);
  EXPECT_THROW(parse_override("=sqrt"), UserError);
}

TEST(DeckOverrides, TheDecksOwnErrorsKeepTheirLines) {
  // An override elsewhere does not move the deck's own locations.
  std::string text = kDeck;
  text.replace(text.find("source: ones"), 12, "source: once");
  EXPECT_NE(error_of({"run/partitioner=sqrt"}, text).find("deck.yaml:4:38: unknown source 'once'"), std::string::npos);
}

// yaml-cpp loads an alias as its anchor's node: an override of one place
// must leave the other alone.
TEST(DeckOverrides, AnAliasedValueChangesOnlyWhereItIsSet) {
  const std::string text =
      "tensors:\n"
      "  - {name: A, shape: &s [4, 4], source: ones}\n"
      "  - {name: B, shape: *s, source: ones}\n"
      "graph:\n  - \"C[i,j] = A[i,j] + B[i,j]\"\n";
  const Workflow wf = read({"tensors/B/shape=[4, 4]", "tensors/A/shape/1=8"}, text);
  EXPECT_EQ(wf.tensors[0].shape, (Shape{4, 8}));
  EXPECT_EQ(wf.tensors[1].shape, (Shape{4, 4}));
  const Workflow other = read({"tensors/B/shape/0=2"}, text);
  EXPECT_EQ(other.tensors[0].shape, (Shape{4, 4}));
  EXPECT_EQ(other.tensors[1].shape, (Shape{2, 4}));
}

TEST(DeckOverrides, ANameTwoElementsHaveIsAnError) {
  std::string text = kDeck;
  text += "";
  text.replace(text.find("outputs:\n"), 9, "outputs:\n  - {tensor: Y, file: other.h5}\n");
  EXPECT_NE(error_of({"outputs/Y/dtype=float32"}, text).find("'outputs' has 2 elements named 'Y' (at 0, 1); choose one by its index"),
            std::string::npos);
  EXPECT_TRUE(read({"outputs/1/dtype=float32"}, text).outputs[1].storage.float32);
}

TEST(DeckOverrides, AnEmptySectionTakesKeys) {
  std::string text = kDeck;
  text.replace(text.find("run: {partitioner: eindecomp}"), 29, "run:");
  EXPECT_EQ(read({"run/partitioner=sqrt"}, text).run.partitioner, model::RunOptions::Partitioner::Sqrt);
  // A section the override made is reported at the option.
  EXPECT_NE(error_of({"train/iterations=5"}).find("--set train/iterations=5: "), std::string::npos) << error_of({"train/iterations=5"});
}

TEST(DeckParams, AnAliasedValueIsSubstitutedOnce) {
  const std::string text =
      "params: {n: 4}\n"
      "tensors:\n"
      "  - {name: A, shape: [$n, 2], source: ones}\n"
      "graph: []\n"
      "outputs:\n"
      "  - {tensor: A, file: &f \"a$$n.h5\"}\n"
      "  - {tensor: A, file: *f, dataset: /B}\n";
  const Workflow wf = read({}, text);
  EXPECT_EQ(wf.outputs[0].file, "a$n.h5");
  EXPECT_EQ(wf.outputs[1].file, "a$n.h5");
}

TEST(DeckParams, KeysAreSubstitutedToo) {
  std::string text = kDeck;
  text.replace(text.find("run: {partitioner: eindecomp}"), 29, "run: {partitioning: {$out: {i: 2}}}");
  text.replace(text.find("out: sweep"), 10, "out: Y");
  text.replace(text.find("\"${out}_$n.h5\""), 14, "y.h5");
  const Workflow wf = read({}, text);
  EXPECT_EQ(wf.run.partitioning.count("Y"), 1u);
}

}  // namespace
}  // namespace tra::io
