#include "tra/io/deck/deck_reader.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "tra/common/text.hpp"
#include "tra/einsum/parser.hpp"
#include "tra/io/deck/deck_overrides.hpp"
#include "tra/io/deck/deck_sections.hpp"

namespace tra::io {

namespace {

namespace fs = std::filesystem;

class DeckReader : public deck::DeckValues {
 public:
  DeckReader(std::string name, std::string base_dir, std::vector<DeckOverride> overrides)
      : DeckValues(deck_name_, deck_base_, placed_nodes_, substituted_nodes_), deck_name_(std::move(name)), deck_base_(std::move(base_dir)),
        overrides_(std::move(overrides)) {}
  mutable long nodes_seen_ = 0;  // by check_mapping_keys

  Workflow read(const std::string& text) {
    Workflow wf;
    wf.deck_path = name_;
    wf.deck_text = text;
    YAML::Node root;
    check_one_document(text);
    try {
      root = YAML::Load(text);
    } catch (const YAML::DeepRecursion& e) {
      throw UserError(SourceLoc{name_, e.mark.line + 1, e.mark.column + 1}, "YAML nested too deeply (lists or mappings inside each other)");
    } catch (const YAML::ParserException& e) {
      throw UserError(SourceLoc{name_, e.mark.line + 1, e.mark.column + 1}, "YAML syntax error: " + e.msg);
    }
    check_mapping_keys(root);
    if (!root.IsMap()) throw UserError(SourceLoc{name_, 1, 1}, "a deck is a YAML mapping with keys tensors, graph, outputs, run, train");
    placed_nodes_ = apply_overrides(root, overrides_);
    for (const auto& o : overrides_) wf.overrides.push_back(o.option());
    nodes_seen_ = 0;
    check_mapping_keys(root);  // what the overrides placed
    check_keys(root, {"params", "tensors", "graph", "outputs", "run", "train"}, "the deck");
    wf.params = substitute_params(root, name_, placed_, substituted_nodes_);
    if (!root["tensors"]) throw UserError(SourceLoc{name_, 1, 1}, "the deck has no 'tensors' section");
    if (!root["graph"]) throw UserError(SourceLoc{name_, 1, 1}, "the deck has no 'graph' section");
    try {
      deck::read_tensors(*this, root["tensors"], wf);
      deck::read_graph(*this, root["graph"], wf);
      if (root["outputs"]) deck::read_outputs(*this, root["outputs"], wf);
      if (root["run"]) deck::read_run(*this, root["run"], wf);
      if (root["train"]) deck::read_train(*this, root["train"], wf);
      apply_dtype(wf);
      for (const auto& t : wf.tensors) {
        if (t.param && !wf.train)
          throw UserError(t.param_loc, "tensor '" + t.name + "' is a parameter (param: true), but the deck has no train: section naming the loss");
        if (t.batch && !wf.train)
          throw UserError(t.batch->loc, "tensor '" + t.name + "' is read in batches, but the deck has no train: section to iterate over them");
        if (t.batch && t.param) throw UserError(t.batch->loc, "tensor '" + t.name + "' is a parameter; a parameter is not read in batches");
      }
    } catch (const YAML::Exception& e) {
      // A value of the wrong YAML kind (a list where a name was expected ...).
      throw UserError(SourceLoc{name_, e.mark.line + 1, e.mark.column + 1}, "unexpected value: " + e.msg);
    }
    return wf;
  }

 private:
  // run: dtype: float32 — outputs without a dtype of their own are written as
  // float32, as the run computes them (a training run's parameters, optimizer
  // state and checkpoints included).
  void apply_dtype(Workflow& wf) const {
    if (wf.run.dtype == DType::Float64) return;
    for (auto& o : wf.outputs)
      if (!o.dtype_given) o.storage.float32 = true;
  }

  // YAML::Load reads the first document and drops the rest without a word;
  // YAML::LoadAll, which would count them, loops forever on some broken
  // input (found by scripts/fuzz). Document markers are recognised by their
  // text: a line that is `---` or `...` (YAML forbids both at the start of
  // a line inside any scalar). One `---` before the deck's content is fine.
  void check_one_document(const std::string& text) const {
    bool content = false, ended = false;
    int line = 0;
    std::stringstream lines(text);
    for (std::string l; std::getline(lines, l);) {
      ++line;
      const bool start = l.rfind("---", 0) == 0 && (l.size() == 3 || std::isspace(static_cast<unsigned char>(l[3])));
      const bool end = l.rfind("...", 0) == 0 && (l.size() == 3 || std::isspace(static_cast<unsigned char>(l[3])));
      const size_t first = l.find_first_not_of(" \t\r");
      const bool blank = first == std::string::npos || l[first] == '#' || (first == 0 && l[0] == '%');
      if ((start && content) || (ended && !blank && !end))
        throw UserError(SourceLoc{name_, line, 1},
                        "a second YAML document (after '---' or '...'); a deck is one document, and the rest would be ignored");
      if (end) ended = true;
      else if (!blank && !start) content = true;
    }
  }

  // Every mapping in the deck, at any depth: keys are plain names, each once.
  // YAML parsers keep one of two equal keys and drop the other without a
  // word ({i: 2, i: 3}, a second `source:` or `outputs:`).
  void check_mapping_keys(const YAML::Node& n, int depth = 0) const {
    // An alias may point back into its own anchor (`&a [*a]`): a node inside
    // itself. No deck nests this deep.
    if (depth > 200) fail(n, "YAML nested too deeply (or an alias inside its own anchor)");
    // Aliases of aliases multiply: a few lines can stand for billions of nodes.
    if (++nodes_seen_ > 1000000) fail(n, "the deck's YAML stands for more than a million values (aliases of aliases?)");
    if (n.IsSequence())
      for (const auto& e : n) check_mapping_keys(e, depth + 1);
    if (!n.IsMap()) return;
    std::map<std::string, int> seen;  // key -> its line
    for (auto it = n.begin(); it != n.end(); ++it) {
      if (!it->first.IsScalar()) fail(it->first, "a key must be a plain name, not a list or a mapping");
      const std::string key = it->first.Scalar();
      auto [at, fresh] = seen.emplace(key, it->first.Mark().line + 1);
      if (!fresh) fail(it->first, "key '" + key + "' given twice in one mapping (first at line " + std::to_string(at->second) + ")");
      check_mapping_keys(it->second, depth + 1);
    }
  }

  // What DeckValues reads through its references (bound before these are
  // made, used only after).
  std::string deck_name_, deck_base_;
  std::vector<DeckOverride> overrides_;
  PlacedNodes placed_nodes_;  // nodes the overrides placed: reported at their option
  SubstitutedNodes substituted_nodes_;  // values $params changed, with where their characters are written
};

}  // namespace

Generator parse_generator(const std::string& text, const SourceLoc& where) {
  std::string name;
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  const size_t name_start = i;
  while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) name += text[i++];
  std::vector<double> args;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  if (i < text.size() && text[i] == '(') {
    ++i;
    for (;;) {
      while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
      if (i < text.size() && text[i] == ')') {
        ++i;
        break;
      }
      size_t used = 0;
      try {
        args.push_back(std::stod(text.substr(i), &used));
      } catch (...) {
        throw UserError(where.shifted(static_cast<int>(i)), "expected a number in the generator's arguments");
      }
      // inf and nan parse as numbers; as bounds, a mean or a step they
      // would fill the tensor with non-numbers.
      if (!std::isfinite(args.back()))
        throw UserError(where.shifted(static_cast<int>(i)), "the generator's arguments must be finite numbers, found '" + text.substr(i, used) + "'");
      i += used;
      while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
      if (i < text.size() && text[i] == ',') {
        ++i;
        continue;
      }
      if (i < text.size() && text[i] == ')') {
        ++i;
        break;
      }
      throw UserError(where.shifted(static_cast<int>(i)), "expected ',' or ')' in the generator's arguments");
    }
  }
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  if (i != text.size()) throw UserError(where.shifted(static_cast<int>(i)), "unexpected text after the generator");
  Generator g;
  auto need = [&](size_t lo, size_t hi, const char* usage) {
    if (args.size() < lo || args.size() > hi) throw UserError(where.shifted(static_cast<int>(name_start)), std::string("generator takes ") + usage);
  };
  if (name == "uniform") {
    need(3, 3, "uniform(low, high, seed)");
    g.kind = Generator::Kind::Uniform;
  } else if (name == "normal") {
    need(3, 3, "normal(mean, stddev, seed)");
    g.kind = Generator::Kind::Normal;
  } else if (name == "zeros" || name == "ones" || name == "identity") {
    need(0, 0, "no arguments");
    g.kind = name == "zeros" ? Generator::Kind::Zeros : name == "ones" ? Generator::Kind::Ones : Generator::Kind::Identity;
  } else if (name == "arange") {
    need(0, 2, "arange, arange(start) or arange(start, step)");
    g.kind = Generator::Kind::Arange;
    g.a = 0;
    g.b = 1;
    if (args.size() >= 1) g.a = args[0];
    if (args.size() == 2) g.b = args[1];
    return g;
  } else {
    throw UserError(where.shifted(static_cast<int>(name_start)), "unknown source '" + text +
                                                                     "'; expected uniform(low, high, seed), normal(mean, stddev, seed), zeros, ones, "
                                                                     "identity, arange(start, step) or {file: ..., dataset: ...}");
  }
  if (args.size() == 3) {
    g.a = args[0];
    g.b = args[1];
    // Range first: converting a negative, NaN or >= 2^64 double to uint64 is undefined.
    if (!(args[2] >= 0 && args[2] < 18446744073709551616.0) || args[2] != static_cast<double>(static_cast<std::uint64_t>(args[2])))
      throw UserError(where.shifted(static_cast<int>(name_start)), "the seed must be a non-negative integer");
    g.seed = static_cast<std::uint64_t>(args[2]);
    if (g.kind == Generator::Kind::Uniform && !(g.a < g.b))
      throw UserError(where.shifted(static_cast<int>(name_start)), "uniform(low, high, seed) needs low < high");
    if (g.kind == Generator::Kind::Normal && !(g.b > 0))
      throw UserError(where.shifted(static_cast<int>(name_start)), "normal(mean, stddev, seed) needs stddev > 0");
  }
  return g;
}

Workflow parse_deck(const std::string& text, const std::string& name, const std::string& base_dir, const std::vector<DeckOverride>& overrides) {
  return DeckReader(name, base_dir, overrides).read(text);
}

std::string read_deck_text(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw UserError("cannot open deck '" + path + "': it is a folder");
  errno = 0;
  std::ifstream in(path);
  if (!in) throw UserError("cannot open deck '" + path + "'" + (errno ? std::string(": ") + std::strerror(errno) : std::string()));
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw UserError("cannot read deck '" + path + "'");
  return ss.str();
}

std::string deck_folder(const std::string& path) { return fs::path(path).parent_path().string(); }

Workflow read_deck(const std::string& path) { return parse_deck(read_deck_text(path), path, deck_folder(path)); }

}  // namespace tra::io
