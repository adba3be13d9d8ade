#include "tra/io/deck/deck_reader.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <climits>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "tra/common/text.hpp"
#include "tra/einsum/parser.hpp"
#include "tra/io/deck/deck_overrides.hpp"
#include "tra/io/hdf5/dataset_extents.hpp"
#include "tra/model/batch_order.hpp"

namespace tra::io {

using model::Hdf5Source;
using model::OptimizerSettings;
using model::OutputDecl;
using model::RunOptions;
using model::TensorDecl;
using model::TraStatement;
namespace {

namespace fs = std::filesystem;

class DeckReader {
 public:
  DeckReader(std::string name, std::string base_dir, std::vector<DeckOverride> overrides)
      : name_(std::move(name)), base_(std::move(base_dir)), overrides_(std::move(overrides)) {}
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
    placed_ = apply_overrides(root, overrides_);
    for (const auto& o : overrides_) wf.overrides.push_back(o.option());
    nodes_seen_ = 0;
    check_mapping_keys(root);  // what the overrides placed
    check_keys(root, {"params", "tensors", "graph", "outputs", "run", "train"}, "the deck");
    wf.params = substitute_params(root, name_, placed_, substituted_);
    if (!root["tensors"]) throw UserError(SourceLoc{name_, 1, 1}, "the deck has no 'tensors' section");
    if (!root["graph"]) throw UserError(SourceLoc{name_, 1, 1}, "the deck has no 'graph' section");
    try {
      read_tensors(root["tensors"], wf);
      read_graph(root["graph"], wf);
      if (root["outputs"]) read_outputs(root["outputs"], wf);
      if (root["run"]) read_run(root["run"], wf);
      if (root["train"]) read_train(root["train"], wf);
      for (const auto& t : wf.tensors) {
        if (t.param && !wf.train) throw UserError(t.param_loc, "tensor '" + t.name + "' is a parameter (param: true), but the deck has no train: section naming the loss");
        if (t.batch && !wf.train) throw UserError(t.batch->loc, "tensor '" + t.name + "' is read in batches, but the deck has no train: section to iterate over them");
        if (t.batch && t.param) throw UserError(t.batch->loc, "tensor '" + t.name + "' is a parameter; a parameter is not read in batches");
      }
    } catch (const YAML::Exception& e) {
      // A value of the wrong YAML kind (a list where a name was expected ...).
      throw UserError(SourceLoc{name_, e.mark.line + 1, e.mark.column + 1}, "unexpected value: " + e.msg);
    }
    return wf;
  }

 private:
  SourceLoc loc(const YAML::Node& n) const { return node_loc(n, name_, placed_); }
  // Where the text of a scalar starts: past the opening quote of a quoted one.
  // A value a parameter changed maps its characters back to the deck's.
  SourceLoc text_loc(const YAML::Node& n) const {
    SourceLoc l = loc(n);
    if (n.Tag() == "!" && l.known()) l.column += 1;
    if (l.known())
      for (const auto& [node, offsets] : substituted_)
        if (node.is(n)) l.offsets = offsets;
    return l;
  }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& msg) const { throw UserError(loc(n), msg); }

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
        throw UserError(SourceLoc{name_, line, 1}, "a second YAML document (after '---' or '...'); a deck is one document, and the rest would be ignored");
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

  void check_keys(const YAML::Node& map, const std::set<std::string>& allowed, const std::string& where) const {
    for (auto it = map.begin(); it != map.end(); ++it) {
      const std::string key = it->first.as<std::string>();
      if (!allowed.count(key)) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(it->first, "unknown key '" + key + "' in " + where + "; expected one of: " + list);
      }
    }
  }

  std::string scalar(const YAML::Node& parent, const char* key, const std::string& where) const {
    const YAML::Node n = parent[key];
    if (!n) fail(parent, where + " needs '" + key + "'");
    if (!n.IsScalar()) fail(n, std::string("'") + key + "' must be a single value");
    return n.as<std::string>();
  }

  // The largest count a deck may give (iterations, extents, offsets): 2^53,
  // so that a count is exact as a double (Adam's step, rates) and sums and
  // products of a few never wrap a 64-bit integer.
  static constexpr Index kMaxCount = Index{1} << 53;
  static constexpr int kMaxRank = 8;  // dimensions of a tensor

  Index integer(const YAML::Node& n, const std::string& what, Index min_value, Index max_value = kMaxCount) const {
    if (!n.IsScalar()) fail(n, what + " must be an integer");
    const std::string s = n.as<std::string>();
    size_t used = 0;
    long long v = 0;
    bool too_large = false;
    try {
      v = std::stoll(s, &used);
    } catch (const std::out_of_range&) {
      too_large = true;  // beyond 64 bits, either way
      used = s.size();
      v = s.find('-') == std::string::npos ? LLONG_MAX : LLONG_MIN;
    } catch (...) {
      used = 0;
    }
    if (used != s.size() || s.empty()) fail(n, what + " must be an integer, found '" + s + "'");
    if (v < min_value) fail(n, what + " must be at least " + std::to_string(min_value) + ", found " + s);
    if (too_large || v > max_value)
      fail(n, what + " must be at most " + std::to_string(max_value) + (max_value == kMaxCount ? " (2^53)" : "") + ", found " + s);
    return v;
  }

  // A 64-bit seed: every value from 0 to 2^64 - 1.
  std::uint64_t seed_value(const YAML::Node& n, const std::string& what) const {
    const std::string s = n.IsScalar() ? n.as<std::string>() : std::string();
    size_t used = 0;
    unsigned long long v = 0;
    try {
      if (!s.empty() && std::isdigit(static_cast<unsigned char>(s[0]))) v = std::stoull(s, &used);
    } catch (...) {
      used = 0;
    }
    if (used != s.size() || s.empty()) fail(n, what + " must be an integer from 0 to 2^64 - 1 (18446744073709551615), found '" + s + "'");
    return v;
  }

  Shape shape(const YAML::Node& n, const std::string& what) const {
    if (!n.IsSequence()) fail(n, what + " must be a list of positive integers such as [1000, 500]");
    Shape s;
    // Elements are counted, indexed and sized in 64-bit integers, and a
    // tensor's bytes too: beyond 2^50 elements (8 PiB) no machine holds it
    // and the arithmetic would wrap.
    constexpr double kMaxElements = 1125899906842624.0;  // 2^50
    double elements = 1;
    for (const auto& e : n) {
      s.push_back(integer(e, "each extent of " + what, 1, LLONG_MAX));  // bounded by the elements below
      elements *= static_cast<double>(s.back());
      if (elements > kMaxElements)
        fail(e, what + " " + shape_text(n) + " has more than 2^50 elements; no machine holds such a tensor");
    }
    return s;
  }

  static std::string shape_text(const YAML::Node& n) {
    std::string out = "[";
    for (const auto& e : n) out += (out.size() > 1 ? ", " : "") + (e.IsScalar() ? e.Scalar() : std::string("?"));
    return out + "]";
  }

  std::string resolve(const std::string& file) const {
    fs::path p(file);
    if (p.is_relative() && !base_.empty()) p = fs::path(base_) / p;
    return p.lexically_normal().string();
  }

  void read_tensors(const YAML::Node& list, Workflow& wf) {
    if (!list.IsSequence()) fail(list, "'tensors' must be a list of tensors, each with name, shape and source");
    std::set<std::string> seen;
    for (const auto& t : list) {
      if (!t.IsMap()) fail(t, "each tensor is a mapping with name, shape, optional chunk, and source");
      check_keys(t, {"name", "shape", "chunk", "source", "param", "batch", "constraint"}, "a tensor");
      TensorDecl d;
      d.loc = loc(t);
      d.name = scalar(t, "name", "a tensor");
      if (!is_identifier(d.name)) fail(t["name"], "tensor name '" + d.name + "' must be a letter or '_' followed by letters, digits or '_'");
      if (!seen.insert(d.name).second) fail(t["name"], "tensor '" + d.name + "' is declared twice");
      const YAML::Node src = t["source"];
      if (!src) fail(t, "tensor '" + d.name + "' needs 'source': a generator such as uniform(-1, 1, 7) or {file: ..., dataset: ...}");
      if (t["shape"]) {
        d.shape = shape(t["shape"], "shape");
        if (d.shape.empty()) fail(t["shape"], "shape must have at least one extent (a scalar is written [1])");
      } else if (!src.IsMap()) {
        fail(t, "tensor '" + d.name + "' needs 'shape' (only an HDF5 source, {file: ..., dataset: ...}, gives its own)");
      }
      if (src.IsScalar()) {
        if (t["batch"]) fail(t["batch"], "tensor '" + d.name + "': batches are read from an HDF5 source ({file: ..., dataset: ...}), not from a generator");
        d.source = parse_generator(src.as<std::string>(), text_loc(src));
      } else if (src.IsMap()) {
        d.source = read_hdf5_source(src, d);
      } else {
        fail(src, "'source' must be a generator string or {file: ..., dataset: ...}");
      }
      const YAML::Node shape_node = t["shape"] ? t["shape"] : src;
      if (d.shape.size() > static_cast<size_t>(kMaxRank)) fail(shape_node, "tensors of rank above 8 are not supported");
      if (const YAML::Node b = t["batch"]) d.batch = read_batch(b, d);
      if (t["chunk"]) {
        d.chunk = shape(t["chunk"], "chunk");
        if (d.chunk->size() != d.shape.size()) fail(t["chunk"], "chunk has " + std::to_string(d.chunk->size()) + " extents but shape has " + std::to_string(d.shape.size()));
        for (size_t i = 0; i < d.shape.size(); ++i)
          if (d.shape[i] % (*d.chunk)[i] != 0)
            fail(t["chunk"], "chunk extent " + std::to_string((*d.chunk)[i]) + " does not divide shape extent " + std::to_string(d.shape[i]) + " (dimension " + std::to_string(i) + ")");
      }
      if (const YAML::Node p = t["param"]) {
        d.param_loc = loc(p);
        if (!p.IsScalar() || (p.as<std::string>() != "true" && p.as<std::string>() != "false")) fail(p, "'param' is true or false");
        d.param = p.as<std::string>() == "true";
      }
      if (const YAML::Node c = t["constraint"]) {
        if (!c.IsScalar() || c.as<std::string>() != "nonnegative") fail(c, "'constraint' is nonnegative (the only projection built)");
        if (!d.param) fail(c, "tensor '" + d.name + "': a constraint applies to a parameter (param: true)");
        d.nonnegative = true;
      }
      wf.tensors.push_back(d);
    }
  }

  // {file: F, dataset: D, select: {start: [..], count: [..]}}. Without a
  // shape in the deck the tensor takes the selection's count, else the
  // dataset's extents past `start` (the file is opened to read them).
  Hdf5Source read_hdf5_source(const YAML::Node& src, TensorDecl& d) const {
    check_keys(src, {"file", "dataset", "select"}, "an HDF5 source");
    Hdf5Source h;
    h.file = resolve(scalar(src, "file", "an HDF5 source"));
    h.dataset = scalar(src, "dataset", "an HDF5 source");
    std::optional<Shape> count;
    const YAML::Node sel = src["select"];
    if (sel) {
      if (!sel.IsMap()) fail(sel, "'select' is a mapping {start: [0, 0], count: [100, 64]}: the part of the dataset the tensor holds");
      check_keys(sel, {"start", "count"}, "select");
      if (!sel["start"]) fail(sel, "'select' needs 'start' (the first element read, as [0, 0]); 'count' defaults to the tensor's shape");
      if (!sel["start"].IsSequence()) fail(sel["start"], "select start must be a list of integers at least 0, such as [100, 0]");
      for (const auto& e : sel["start"]) h.start.push_back(integer(e, "each extent of select start", 0));
      if (sel["count"]) count = shape(sel["count"], "select count");
      if (count && count->size() != h.start.size())
        fail(sel["count"], "select count has " + std::to_string(count->size()) + " extents but start has " + std::to_string(h.start.size()));
    }
    if (d.shape.empty()) {
      if (count) {
        d.shape = *count;
      } else {
        // The file's own extents, checked by the reader as it will read them.
        const Shape dims = hdf5::dataset_extents(d, h);
        if (!h.start.empty() && h.start.size() != dims.size())
          fail(sel["start"], "select start has " + std::to_string(h.start.size()) + " extents but dataset '" + h.dataset + "' has rank " +
                                 std::to_string(dims.size()) + " (shape " + shape_string(dims) + ")");
        for (size_t i = 0; i < dims.size(); ++i) {
          const Index from = h.start.empty() ? 0 : h.start[i];
          if (from >= dims[i])
            fail(sel["start"], "select start " + shape_string(h.start) + " lies outside dataset '" + h.dataset + "' of shape " + shape_string(dims));
          d.shape.push_back(dims[i] - from);
        }
      }
    } else if (count && *count != d.shape) {
      fail(sel["count"], "select count " + shape_string(*count) + " differs from the tensor's shape " + shape_string(d.shape) + "; give one of them");
    }
    if (!h.start.empty() && h.start.size() != d.shape.size())
      fail(sel["start"], "select start has " + std::to_string(h.start.size()) + " extents but the tensor's shape " + shape_string(d.shape) + " has " +
                             std::to_string(d.shape.size()));
    return h;
  }

  // batch: {dim: D, size: B} on a tensor whose shape is its dataset's: the
  // graph sees B rows along D.
  model::BatchSpec read_batch(const YAML::Node& b, TensorDecl& d) const {
    if (!b.IsMap()) fail(b, "'batch' is a mapping {dim: D, size: B}: B rows along dimension D per iteration");
    check_keys(b, {"dim", "size"}, "batch");
    model::BatchSpec spec;
    spec.loc = loc(b);
    if (!b["dim"] || !b["size"]) fail(b, "'batch' needs 'dim' and 'size'");
    const Index dim = integer(b["dim"], "batch dim", 0, kMaxRank - 1);
    if (dim >= static_cast<Index>(d.shape.size()))
      fail(b["dim"], "batch dim " + std::to_string(dim) + " is not a dimension of tensor '" + d.name + "' (shape " + shape_string(d.shape) + ")");
    spec.dim = static_cast<int>(dim);
    spec.size = integer(b["size"], "batch size", 1);
    spec.rows = d.shape[static_cast<size_t>(dim)];
    if (spec.rows % spec.size != 0)
      fail(b["size"], "batch size " + std::to_string(spec.size) + " does not divide the " + std::to_string(spec.rows) + " rows of tensor '" + d.name +
                          "' along dimension " + std::to_string(dim));
    d.shape[static_cast<size_t>(dim)] = spec.size;
    return spec;
  }

  // train: {loss: L, optimizer: {...}, iterations: N, log: {file: F}} — the
  // checks that need the graph (a scalar loss, a path from every parameter
  // to it) are the gradient pass's (autodiff/).
  void read_train(const YAML::Node& train, Workflow& wf) {
    if (!train.IsMap()) fail(train, "'train' must be a mapping with 'loss' (a scalar tensor of the graph)");
    check_keys(train, {"loss", "optimizer", "iterations", "epochs", "order", "log", "checkpoint"}, "train");
    model::TrainSettings t;
    t.loc = loc(train);
    t.loss = scalar(train, "loss", "train");
    t.loss_loc = text_loc(train["loss"]);
    if (const YAML::Node o = train["optimizer"]) t.optimizer = read_update_rule(o);
    const Index batches = batches_per_epoch(wf);
    for (const auto& d : wf.tensors)
      if (d.batch && d.batch->batches() != batches)
        throw UserError(d.batch->loc, "tensor '" + d.name + "' has " + std::to_string(d.batch->batches()) + " batches, but other batch tensors have " +
                                          std::to_string(batches) + "; every batch tensor must have the same number");
    const YAML::Node iters = train["iterations"], epochs = train["epochs"];
    if (iters && epochs) fail(epochs, "give 'iterations' or 'epochs', not both");
    if (iters) {
      if (!t.optimizer) fail(iters, "'iterations' needs an 'optimizer' (such as {kind: sgd, lr: 0.1}) to run them with");
      t.iterations = integer(iters, "iterations", 1);
      t.iterations_loc = loc(iters);
    } else if (epochs) {
      if (!t.optimizer) fail(epochs, "'epochs' needs an 'optimizer' (such as {kind: sgd, lr: 0.1}) to run them with");
      t.epochs = integer(epochs, "epochs", 1);
      if (t.epochs > kMaxCount / batches)
        fail(epochs, "epochs " + epochs.Scalar() + " of " + std::to_string(batches) + " batch(es) each is more than 2^53 iterations, the most a run counts");
      t.iterations = t.epochs * batches;
      t.iterations_loc = loc(epochs);
    } else if (t.optimizer) {
      fail(train["optimizer"], "an optimizer needs 'iterations' or 'epochs' (how many updates to run)");
    }
    if (const YAML::Node o = train["order"]) read_order(o, t);
    if (const YAML::Node c = train["checkpoint"]) {
      if (!c.IsMap()) fail(c, "'checkpoint' is a mapping {file: ckpt.h5, every: 100}");
      check_keys(c, {"file", "every"}, "checkpoint");
      t.checkpoint_loc = loc(c);
      t.checkpoint_file = scalar(c, "file", "checkpoint");
      check_name_text(c["file"], t.checkpoint_file, "checkpoint file name");
      t.checkpoint_every = c["every"] ? integer(c["every"], "checkpoint every", 1) : t.iterations;
      if (!t.optimizer) fail(c, "'checkpoint' saves a training run; it needs an 'optimizer' and 'iterations'");
    }
    if (const YAML::Node l = train["log"]) {
      if (!l.IsMap()) fail(l, "'log' is a mapping {file: loss.csv}");
      check_keys(l, {"file"}, "log");
      t.log_file = scalar(l, "file", "log");
      check_name_text(l["file"], t.log_file, "log file name");
      t.log_loc = text_loc(l["file"]);
      if (!t.optimizer) fail(l, "'log' records iterations; it needs an 'optimizer' and 'iterations'");
    }
    wf.train = t;
  }

  // order: sequential | shuffled | {kind: shuffled, seed: S}
  void read_order(const YAML::Node& o, model::TrainSettings& t) const {
    t.order_loc = loc(o);
    std::string kind;
    if (o.IsScalar()) {
      kind = o.as<std::string>();
    } else if (o.IsMap()) {
      check_keys(o, {"kind", "seed"}, "order");
      kind = scalar(o, "kind", "order");
      if (const YAML::Node s = o["seed"]) {
        if (kind != "shuffled") fail(s, "'seed' chooses a shuffled order; a " + kind + " order has none");
        t.seed = seed_value(s, "seed");
      }
    } else {
      fail(o, "'order' is sequential, shuffled, or {kind: shuffled, seed: 7}");
    }
    if (kind == "sequential") t.order = model::TrainSettings::Order::Sequential;
    else if (kind == "shuffled") t.order = model::TrainSettings::Order::Shuffled;
    else fail(o.IsMap() ? o["kind"] : o, "unknown order '" + kind + "'; expected sequential or shuffled");
  }

  // The number at the start of s; `used`: its characters (0: none).
  static double leading_number(const std::string& s, size_t& used) {
    used = 0;
    try {
      return std::stod(s, &used);
    } catch (...) {
      used = 0;
      return 0;
    }
  }

  double positive_real(const YAML::Node& n, const std::string& what, bool below_one) const {
    if (!n.IsScalar()) fail(n, what + " must be a number");
    const std::string s = n.as<std::string>();
    size_t used = 0;
    const double v = leading_number(s, used);
    if (used != s.size() || s.empty() || !std::isfinite(v)) fail(n, what + " must be a number, found '" + s + "'");
    if (below_one ? !(v >= 0 && v < 1) : !(v > 0)) fail(n, what + (below_one ? " must be at least 0 and below 1" : " must be positive") + ", found " + s);
    return v;
  }

  model::UpdateRule read_update_rule(const YAML::Node& o) const {
    if (!o.IsMap()) fail(o, "'optimizer' is a mapping such as {kind: sgd, lr: 0.1}, {kind: momentum, lr: 0.1, beta: 0.9} or {kind: adam, lr: 0.001}");
    model::UpdateRule r;
    r.loc = loc(o);
    const std::string kind = scalar(o, "kind", "optimizer");
    if (kind == "sgd") {
      check_keys(o, {"kind", "lr"}, "an sgd optimizer");
    } else if (kind == "momentum") {
      check_keys(o, {"kind", "lr", "beta"}, "a momentum optimizer");
      r.kind = model::UpdateRule::Kind::Momentum;
      if (!o["beta"]) fail(o, "a momentum optimizer needs 'beta' (such as 0.9)");
      r.beta = positive_real(o["beta"], "beta", true);
    } else if (kind == "adam") {
      // PyTorch's defaults where a key is left out.
      check_keys(o, {"kind", "lr", "beta1", "beta2", "eps"}, "an adam optimizer");
      r.kind = model::UpdateRule::Kind::Adam;
      r.beta = o["beta1"] ? positive_real(o["beta1"], "beta1", true) : 0.9;
      r.beta2 = o["beta2"] ? positive_real(o["beta2"], "beta2", true) : 0.999;
      r.eps = o["eps"] ? positive_real(o["eps"], "eps", false) : 1e-8;
    } else {
      fail(o["kind"], "unknown optimizer '" + kind + "'; expected sgd, momentum or adam");
    }
    if (!o["lr"]) fail(o, "the optimizer needs 'lr' (the learning rate)");
    r.lr = positive_real(o["lr"], "lr", false);
    return r;
  }

  void read_graph(const YAML::Node& list, Workflow& wf) {
    if (!list.IsSequence()) fail(list, "'graph' must be a list of statements");
    for (const auto& s : list) {
      if (s.IsScalar()) {
        for (auto& e : einsum::parse_statement(s.as<std::string>(), text_loc(s))) wf.graph.push_back(std::move(e));  // a softmax is four
      } else if (s.IsMap()) {
        wf.graph.push_back(read_tra_statement(s));
      } else {
        fail(s, "a statement is an EinSum string such as \"C[i,k] = sum_j A[i,j] * B[j,k]\" or a TRA mapping with 'op'");
      }
    }
  }

  TraStatement read_tra_statement(const YAML::Node& s) {
    TraStatement t;
    t.loc = loc(s);
    const std::string op = scalar(s, "op", "a TRA statement");
    t.input = scalar(s, "input", "a TRA statement");
    t.output = scalar(s, "output", "a TRA statement");
    if (!is_identifier(t.output)) fail(s["output"], "output name '" + t.output + "' is not a valid name");
    if (op == "filter") {
      check_keys(s, {"op", "input", "output", "where"}, "a filter");
      t.op = TraStatement::Op::Filter;
      t.expr = scalar(s, "where", "a filter");
      t.expr_loc = text_loc(s["where"]);
    } else if (op == "rekey") {
      check_keys(s, {"op", "input", "output", "key"}, "a rekey");
      t.op = TraStatement::Op::ReKey;
      t.expr = scalar(s, "key", "a rekey");
      t.expr_loc = text_loc(s["key"]);
    } else if (op == "transform") {
      check_keys(s, {"op", "input", "output", "kernel"}, "a transform");
      t.op = TraStatement::Op::Transform;
      t.expr = scalar(s, "kernel", "a transform");
      t.expr_loc = text_loc(s["kernel"]);
      if (t.expr != "diag") einsum::parse_scalar_function(t.expr, t.expr_loc);  // reports errors now
    } else if (op == "tile") {
      check_keys(s, {"op", "input", "output", "dim", "size"}, "a tile");
      t.op = TraStatement::Op::Tile;
      if (!s["dim"] || !s["size"]) fail(s, "a tile needs 'dim' (array dimension) and 'size' (tile size)");
      t.dim = static_cast<int>(integer(s["dim"], "dim", 0, kMaxRank - 1));
      t.size = integer(s["size"], "size", 1);
      t.expr_loc = loc(s["size"]);
    } else if (op == "concat") {
      check_keys(s, {"op", "input", "output", "key_dim", "dim"}, "a concat");
      t.op = TraStatement::Op::Concat;
      if (!s["dim"] || !s["key_dim"]) fail(s, "a concat needs 'key_dim' (key dimension) and 'dim' (array dimension)");
      t.key_dim = static_cast<int>(integer(s["key_dim"], "key_dim", 0, kMaxRank - 1));
      t.dim = static_cast<int>(integer(s["dim"], "dim", 0, kMaxRank - 1));
      t.expr_loc = loc(s["key_dim"]);
    } else {
      fail(s["op"], "unknown op '" + op + "'; expected filter, rekey, transform, tile or concat");
    }
    return t;
  }

  // A file or dataset name holds no control characters: "out.h5\0" would
  // name out.h5 to the system, and a newline no shell could type back.
  void check_name_text(const YAML::Node& n, const std::string& text, const std::string& what) const {
    if (text.empty()) fail(n, what + " is empty");
    for (size_t i = 0; i < text.size(); ++i)
      if (static_cast<unsigned char>(text[i]) < 0x20 || text[i] == 0x7f)
        fail(n, what + " '" + printable(text) + "' holds a control character (byte " + std::to_string(static_cast<int>(text[i])) + " at position " +
                    std::to_string(i + 1) + ")");
  }

  static std::string printable(const std::string& s) {
    std::string out;
    for (char ch : s) out += static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f ? '?' : ch;
    return out;
  }

  // An output's dataset as HDF5 will name it: "/a/b" with one slash between
  // parts (HDF5 reads "//C" as "/C", so two spellings would be one dataset),
  // never the file's root group itself.
  std::string dataset_name(const YAML::Node& n) const {
    if (!n.IsScalar()) fail(n, "'dataset' must be a single value");
    const std::string text = n.as<std::string>();
    check_name_text(n, text, "dataset name");
    std::string out;
    std::stringstream parts(text);
    for (std::string part; std::getline(parts, part, '/');) {
      if (part.empty()) continue;
      if (part == "." || part == "..") fail(n, "dataset name '" + text + "' has a '" + part + "' part; HDF5 names have no relative parts");
      out += "/" + part;
    }
    if (out.empty()) fail(n, "dataset name '" + text + "' names the file's root group, not a dataset; give a name such as /C");
    return out;
  }

  void read_outputs(const YAML::Node& list, Workflow& wf) {
    if (!list.IsSequence()) fail(list, "'outputs' must be a list of {tensor, file, dataset}");
    for (const auto& o : list) {
      if (!o.IsMap()) fail(o, "each output is a mapping {tensor, file, dataset}");
      check_keys(o, {"tensor", "file", "dataset", "dtype", "chunks", "gzip"}, "an output");
      OutputDecl d;
      d.loc = loc(o);
      d.tensor = scalar(o, "tensor", "an output");
      d.file = scalar(o, "file", "an output");
      check_name_text(o["file"], d.file, "file name");
      d.dataset = o["dataset"] ? dataset_name(o["dataset"]) : "/" + d.tensor;
      if (const YAML::Node t = o["dtype"]) {
        const std::string v = t.IsScalar() ? t.Scalar() : "";
        if (v != "float64" && v != "float32") fail(t, "dtype is float64 (the default) or float32");
        d.storage.float32 = v == "float32";
      }
      if (o["chunks"]) d.storage.chunks = shape(o["chunks"], "chunks");
      if (const YAML::Node g = o["gzip"]) {
        d.storage.gzip = static_cast<int>(integer(g, "gzip (a compression level from 1, fastest, to 9, smallest)", 1, 9));
      }
      for (const auto& prev : wf.outputs)
        if (prev.file == d.file && prev.dataset == d.dataset) fail(o, "dataset " + d.dataset + " of " + d.file + " is written twice");
      wf.outputs.push_back(d);
    }
  }

  void read_run(const YAML::Node& run, Workflow& wf) {
    if (!run.IsMap()) fail(run, "'run' must be a mapping");
    check_keys(run, {"partitioning", "optimizer", "partitioner", "overdecomposition", "memory_per_rank"}, "run");
    if (run["optimizer"]) read_optimizer(run["optimizer"], wf.run.optimizer);
    if (run["partitioning"]) read_partitioning(run["partitioning"], wf);
    read_partitioner(run, wf.run);
  }

  // run: partitioner: and run: overdecomposition: (docs/eindecomp.md).
  void read_partitioner(const YAML::Node& run, RunOptions& r) {
    using P = RunOptions::Partitioner;
    if (const YAML::Node n = run["partitioner"]) {
      const std::string v = scalar(run, "partitioner", "run");
      r.partitioner_loc = text_loc(n);
      const std::optional<P> named = model::partitioner_named(v);
      if (!named) throw UserError(text_loc(n), "unknown partitioner '" + v + "'; expected " + model::partitioner_names());
      r.partitioner = *named;
      if (r.default_given && r.partitioner != P::Manual)
        throw UserError(default_loc_, "'default' applies to partitioner manual only; this deck uses " + v + " (remove 'default' or write partitioner: manual)");
    } else if (r.default_given) {
      r.partitioner = P::Manual;  // a deck written before EinDecomp keeps its meaning
    }
    if (const YAML::Node n = run["overdecomposition"]) {
      const Index f = integer(n, "overdecomposition", 1);
      if ((f & (f - 1)) != 0 || f > 1024) fail(n, "overdecomposition is a power of two from 1 to 1024 (kernel calls per rank), found " + std::to_string(f));
      r.overdecomposition = f;
      r.overdecomposition_loc = loc(n);
    }
    if (const YAML::Node n = run["memory_per_rank"]) {
      r.memory_per_rank = bytes(n, "memory_per_rank");
      r.memory_per_rank_loc = loc(n);
    }
  }

  // "4 GiB", "512 MiB", "2GB", or a number of bytes.
  std::int64_t bytes(const YAML::Node& n, const std::string& what) const {
    const std::string expected = what + " is an amount of memory such as 4 GiB, 512 MiB or 2000000000 (bytes)";
    if (!n.IsScalar()) fail(n, expected);
    const std::string s = n.as<std::string>();
    size_t used = 0;
    const double v = leading_number(s, used);
    if (used == 0) fail(n, expected + ", found '" + s + "'");
    std::string unit = s.substr(used);
    unit.erase(0, unit.find_first_not_of(' '));
    static const std::map<std::string, double> units{{"", 1},         {"B", 1},          {"KB", 1e3},         {"MB", 1e6},
                                                     {"GB", 1e9},     {"TB", 1e12},      {"KiB", 1024.0},     {"MiB", 1048576.0},
                                                     {"GiB", 1073741824.0}, {"TiB", 1099511627776.0}};
    const auto u = units.find(unit);
    if (u == units.end() || !std::isfinite(v)) fail(n, expected + ", found '" + s + "'");
    const double b = v * u->second;
    if (!(b >= 1) || b >= 9.2e18) fail(n, what + " must be from 1 byte to 8 EiB, found '" + s + "'");
    return static_cast<std::int64_t>(b);
  }

  void read_partitioning(const YAML::Node& p, Workflow& wf) {
    if (!p.IsMap()) fail(p, "'partitioning' maps 'default' or a statement's output name to its parts per label");
    for (auto it = p.begin(); it != p.end(); ++it) {
      const std::string key = it->first.as<std::string>();
      if (key == "default") {
        if (!it->second.IsScalar()) fail(it->second, "'default' is rows or none");
        const std::string v = it->second.as<std::string>();
        if (v == "rows") wf.run.default_partitioning = RunOptions::DefaultPartitioning::Rows;
        else if (v == "none") wf.run.default_partitioning = RunOptions::DefaultPartitioning::None;
        else fail(it->second, "unknown default partitioning '" + v + "'; expected rows or none");
        wf.run.default_given = true;
        default_loc_ = loc(it->second);
        continue;
      }
      if (!it->second.IsMap()) fail(it->second, "the partitioning of '" + key + "' maps labels to parts, as in {i: 2, j: 1}");
      auto& d = wf.run.partitioning[key];
      wf.run.partitioning_loc[key] = loc(it->first);
      for (auto l = it->second.begin(); l != it->second.end(); ++l)
        d[l->first.as<std::string>()] = integer(l->second, "the parts of label " + l->first.as<std::string>(), 1);
    }
  }

  // The names themselves are checked against the optimizer's tables where
  // its options are made (app/run_deck.cpp), which list them all.
  static constexpr const char* kDisableLists = "'disable' lists names of optimizer rules, join strategy families or search phases (tra-run --help lists them)";

  void read_optimizer(const YAML::Node& o, OptimizerSettings& s) {
    if (!o.IsMap()) fail(o, "'optimizer' must be a mapping with keys disable, strategy, calibration");
    check_keys(o, {"disable", "strategy", "calibration"}, "optimizer");
    if (const YAML::Node d = o["disable"]) {
      if (d.IsScalar()) s.disable.emplace_back(d.as<std::string>(), text_loc(d));
      else if (d.IsSequence())
        for (const auto& x : d) {
          if (!x.IsScalar()) fail(x, kDisableLists);
          s.disable.emplace_back(x.as<std::string>(), text_loc(x));
        }
      else fail(d, kDisableLists);
    }
    if (const YAML::Node st = o["strategy"]) {
      s.strategy = scalar(o, "strategy", "optimizer");
      s.strategy_loc = text_loc(st);
    }
    if (const YAML::Node c = o["calibration"]) {
      const std::string file = scalar(o, "calibration", "optimizer");
      s.calibration = fs::path(file).is_relative() && !base_.empty() ? (fs::path(base_) / file).string() : file;
      s.calibration_loc = text_loc(c);
    }
  }

  std::string name_, base_;
  std::vector<DeckOverride> overrides_;
  PlacedNodes placed_;  // nodes the overrides placed: reported at their option
  SubstitutedNodes substituted_;  // values $params changed, with where their characters are written
  SourceLoc default_loc_;  // where run: partitioning: default: is written
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
      if (i < text.size() && text[i] == ')') { ++i; break; }
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
      if (i < text.size() && text[i] == ',') { ++i; continue; }
      if (i < text.size() && text[i] == ')') { ++i; break; }
      throw UserError(where.shifted(static_cast<int>(i)), "expected ',' or ')' in the generator's arguments");
    }
  }
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  if (i != text.size()) throw UserError(where.shifted(static_cast<int>(i)), "unexpected text after the generator");
  Generator g;
  auto need = [&](size_t lo, size_t hi, const char* usage) {
    if (args.size() < lo || args.size() > hi)
      throw UserError(where.shifted(static_cast<int>(name_start)), std::string("generator takes ") + usage);
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
    throw UserError(where.shifted(static_cast<int>(name_start)),
                    "unknown source '" + text + "'; expected uniform(low, high, seed), normal(mean, stddev, seed), zeros, ones, identity, arange(start, step) or {file: ..., dataset: ...}");
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
