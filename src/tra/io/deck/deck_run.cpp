// The deck's run: the partitioning, the partitioner, the optimizer's settings and the memory bound.
#include "tra/io/deck/deck_sections.hpp"

namespace tra::io::deck {
namespace {

class RunSection : public DeckValues {
 public:
  explicit RunSection(const DeckValues& values) : DeckValues(values) {}

  void read_run(const YAML::Node& run, Workflow& wf) {
    if (!run.IsMap()) fail(run, "'run' must be a mapping");
    check_keys(run, {"partitioning", "optimizer", "partitioner", "overdecomposition", "memory_per_rank", "dtype"}, "run");
    if (const YAML::Node n = run["dtype"]) {
      const std::string v = scalar(run, "dtype", "run");
      const std::optional<DType> t = dtype_named(v);
      if (!t) throw UserError(text_loc(n), "unknown dtype '" + v + "'; expected float64 or float32");
      wf.run.dtype = *t;
      wf.run.dtype_loc = text_loc(n);
    }
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
        throw UserError(default_loc_,
                        "'default' applies to partitioner manual only; this deck uses " + v + " (remove 'default' or write partitioner: manual)");
    } else if (r.default_given) {
      r.partitioner = P::Manual;  // a deck written before EinDecomp keeps its meaning
    }
    if (const YAML::Node n = run["overdecomposition"]) {
      const Index f = integer(n, "overdecomposition", 1);
      if ((f & (f - 1)) != 0 || f > 1024)
        fail(n, "overdecomposition is a power of two from 1 to 1024 (kernel calls per rank), found " + std::to_string(f));
      r.overdecomposition = f;
      r.overdecomposition_loc = loc(n);
    }
    if (const YAML::Node n = run["memory_per_rank"]) {
      r.memory_per_rank = bytes(n, "memory_per_rank");
      r.memory_per_rank_loc = loc(n);
    }
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
      for (auto l = it->second.begin(); l != it->second.end(); ++l) {
        const std::string label = l->first.as<std::string>();
        if (l->second.IsNull()) fail(l->first, "label '" + label + "' of the partitioning of '" + key + "' has no parts" + colon_hint(label));
        d[label] = integer(l->second, "the parts of label " + label, 1);
      }
    }
  }

  // The names themselves are checked against the optimizer's tables where
  // its options are made (app/run_deck.cpp), which list them all.
  static constexpr const char* kDisableLists =
      "'disable' lists names of optimizer rules, join strategy families or search phases (tra-run --help lists them)";

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

 private:
  SourceLoc default_loc_;  // where run: partitioning: default: is written
};

}  // namespace

void read_run(const DeckValues& values, const YAML::Node& run, Workflow& wf) { RunSection(values).read_run(run, wf); }

}  // namespace tra::io::deck
