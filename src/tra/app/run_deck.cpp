#include "tra/app/run_deck.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include <unistd.h>

#include "tra/app/checkpoint.hpp"
#include "tra/app/environment.hpp"
#include "tra/app/gpu_sharing.hpp"
#include "tra/app/json_report.hpp"
#include "tra/app/local_rounds.hpp"
#include "tra/app/output_paths.hpp"
#include "tra/app/plan_deck.hpp"
#include "tra/app/provenance.hpp"
#include "tra/app/ranks_needed.hpp"
#include "tra/app/report.hpp"
#include "tra/app/result_dataset.hpp"
#include "tra/app/train_loop.hpp"
#include "tra/comm/agreement.hpp"
#include "tra/common/build_info.hpp"
#include "tra/common/digest.hpp"
#include "tra/common/kokkos_types.hpp"
#include "tra/common/log.hpp"
#include "tra/common/peak_memory.hpp"
#include "tra/common/timer.hpp"
#include "tra/exec/executor.hpp"
#include "tra/io/deck/deck_reader.hpp"
#include "tra/io/hdf5/dataset_digest.hpp"
#include "tra/io/hdf5/reader.hpp"
#include "tra/io/hdf5/writer.hpp"
#include "tra/io/text_file.hpp"
#include "tra/logical/lower.hpp"
#include "tra/model/batch_order.hpp"
#include "tra/physical/optimizer.hpp"
#include "tra/physical/plan_dot.hpp"

namespace tra::app {
namespace {

// d per statement and its EinDecomp §7 cost terms in floats (docs/eindecomp.md
// explains how to read them).
std::string partitioning_text(const logical::Lowering& low) {
  const auto& r = low.decomposition;
  auto floats = [](double x) {
    std::ostringstream f;
    f.precision(x < 1e15 ? 15 : 6);
    f << x;
    return f.str();
  };
  std::ostringstream os;
  os << "  partitioner " << r.partitioner << ": p = " << r.kernel_calls << " kernel calls per statement (" << r.nranks << " rank(s)";
  if (r.kernel_calls != r.nranks * r.overdecomposition) os << " rounded up to a power of two";
  os << " x over-decomposition " << r.overdecomposition << ")\n";
  for (const auto& m : r.methods) os << "  planned " << m << "\n";
  // In the order the statements are lowered (the deck's), not by name.
  std::vector<std::string> order;
  for (const auto& n : low.plan.nodes)
    if (low.d.count(n.tensor) && std::find(order.begin(), order.end(), n.tensor) == order.end()) order.push_back(n.tensor);
  for (const auto& [stmt, d] : low.d)
    if (std::find(order.begin(), order.end(), stmt) == order.end()) order.push_back(stmt);
  for (const auto& stmt : order) {
    const auto& d = low.d.at(stmt);
    os << "  " << stmt << ": d = {";
    bool first = true;
    for (const auto& [label, parts] : d) {
      os << (first ? "" : ", ") << label << ": " << parts;
      first = false;
    }
    os << "}" << (r.from_deck.count(stmt) ? "  (set in the deck)" : "");
    if (auto s = r.aggregated_in_parts.find(stmt); s != r.aggregated_in_parts.end()) {
      os << "  (";
      for (size_t i = 0; i < s->second.size(); ++i) os << (i ? ", " : "") << s->second[i];
      os << ": split as its operand is, aggregated in parts)";
    }
    os << "\n";
    auto c = r.cost.find(stmt);
    if (c == r.cost.end()) continue;
    os << "      cost: join " << floats(c->second.join) << " + agg " << floats(c->second.agg);
    for (const auto& [input, floats_moved] : c->second.repart) os << " + repart " << input << " " << floats(floats_moved);
    os << " = " << floats(c->second.total()) << "\n";
  }
  os << "  total cost: " << floats(r.total) << " floats (an upper bound on the floats moved, EinDecomp §7)\n";
  return os.str();
}

// "a, b or c".
std::string one_of(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return s;
}

std::vector<std::string> disable_names_list() {
  std::vector<std::string> known = physical::rule_and_strategy_names();
  known.push_back(kBaselineLabelings);
  return known;
}

// The optimizer's settings: the deck's, with the command line's on top.
physical::OptimizerOptions optimizer_options(const model::Workflow& wf, const RunOptions& opt) {
  const std::vector<std::string> known = disable_names_list();
  auto check = [&](const std::string& name, const std::function<void(const std::string&)>& fail) {
    if (std::find(known.begin(), known.end(), name) == known.end()) fail("unknown rule or strategy '" + name + "'; known: " + disable_names());
  };
  physical::OptimizerOptions o;
  for (const auto& entry : wf.run.optimizer.disable) {  // (no structured binding: lambdas capture it only from C++20)
    const std::string& name = entry.first;
    const SourceLoc& where = entry.second;
    check(name, [&](const std::string& m) { throw UserError(where, m); });
    o.disabled.insert(name);
  }
  for (const auto& name : opt.disable) {
    check(name, [&](const std::string& m) { throw UserError("--disable " + name + ": " + m); });
    o.disabled.insert(name);
  }
  const std::vector<std::string> strategies = physical::strategy_names();
  auto known_strategy = [&](std::string s) {
    for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return std::find(strategies.begin(), strategies.end(), s) != strategies.end() ? s : std::string();
  };
  o.strategy = known_strategy(wf.run.optimizer.strategy);
  if (o.strategy.empty())
    throw UserError(wf.run.optimizer.strategy_loc, "unknown strategy '" + wf.run.optimizer.strategy + "'; expected " + strategy_names());
  const std::string calibration = !opt.calibration.empty() ? opt.calibration : wf.run.optimizer.calibration;
  if (!calibration.empty()) o.rates = physical::load_rates(calibration);
  return o;
}

// The deck values the command line replaces: --set's, then the options that
// are sugar for it (kDeckValueOptions).
std::vector<io::DeckOverride> deck_overrides(const RunOptions& opt) {
  std::vector<io::DeckOverride> out;
  for (const auto& s : opt.set) out.push_back(io::parse_override(s));
  for (const auto& [option, value] : opt.deck_values)
    for (const DeckValueOption& d : kDeckValueOptions)
      if (option == d.option) out.push_back({d.path, value, option + " " + value});
  return out;
}

struct MemoryLimit {
  std::int64_t bytes = 0;
  std::string origin;
};

// The deck's run: memory_per_rank:, else the machine's memory shared by the
// ranks on this node (the least over the nodes).
MemoryLimit memory_limit(const model::Workflow& wf, const comm::Communicator& c) {
  if (wf.run.memory_per_rank > 0) return {wf.run.memory_per_rank, "run: memory_per_rank"};
  const double machine = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  const double share = -c.max(-machine / c.ranks_on_node());
  return {static_cast<std::int64_t>(share), "the memory of a rank's share of its node (" + std::to_string(c.ranks_on_node()) + " rank(s) on it)"};
}

}  // namespace

std::string command_line(int argc, char** argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    const bool plain =
        !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") == std::string::npos;
    std::string quoted = "'";
    for (char ch : a) quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    out += (i ? " " : "") + (plain ? a : quoted + "'");
  }
  return out;
}

namespace {

// The ranks agree that each HDF5 input holds the same values where they
// read it (io/hdf5/dataset_digest.hpp): UserError at the tensor otherwise.
void agree_input_values(const model::Workflow& wf, const comm::Communicator& c) {
  if (c.size() == 1) return;  // nothing to compare
  std::vector<std::pair<const model::TensorDecl*, std::string>> digests;
  comm::agree(c, [&] {
    for (const auto& t : wf.tensors) {
      if (auto h = std::get_if<model::Hdf5Source>(&t.source)) digests.emplace_back(&t, io::hdf5::dataset_digest(t, *h));
      if (auto s = std::get_if<model::SparseSource>(&t.source)) digests.emplace_back(&t, io::hdf5::coordinate_digest(t, *s));
    }
  });
  for (const auto& [t, digest] : digests) {
    const std::string on_0 = c.broadcast(digest);
    comm::agree(c, [&, t = t, digest = digest] {
      const auto* h = std::get_if<model::Hdf5Source>(&t->source);
      const std::string what = h ? "dataset '" + h->dataset + "' of '" + h->file + "' holds"
                                 : "the coordinate lists of '" + std::get<model::SparseSource>(t->source).file + "' hold";
      if (digest != on_0)
        throw UserError(t->loc, "tensor '" + t->name + "': " + what +
                                    " other values here than on rank 0; every rank must read the same file (a stale copy on one node?)");
    });
  }
}

// The options that decide which collectives a run enters (a checkpoint read,
// a report written, the plan printed, execution at all): the same on every
// rank, or a launch that gave ranks their own arguments (MPMD) would leave
// some waiting for the others forever. (Paths may differ between ranks: a
// node-local folder or copy is checked where it is used.)
void agree_run_path(const RunOptions& opt, const comm::Communicator& c) {
  static const char* const kExplain[] = {"", " --explain", " --explain=analyze", " --explain=dot"};
  const std::string mine = std::string(kExplain[static_cast<int>(opt.explain)]) + (opt.dry_run ? " --dry-run" : "") +
                           (opt.resume.empty() ? "" : " --resume") + (opt.report.empty() ? "" : " --report");
  const std::string on_0 = c.broadcast(mine);
  comm::agree(c, [&] {
    if (mine != on_0)
      throw UserError("the ranks were given different options (rank 0:" + (on_0.empty() ? std::string(" none of") : on_0) +
                      "; this rank:" + (mine.empty() ? std::string(" none of") : mine) +
                      " --explain, --dry-run, --resume, --report); every rank must run the same command");
  });
}

// Every rank plans by itself and must plan the same plan: other --set,
// --partitioner, --strategy, --disable or calibration values on one rank
// (an MPMD launch) would send the ranks into different collectives.
void agree_plan(const PlannedDeck& planned, const comm::Communicator& c) {
  const std::string mine = Digest().add(planned.optimized.chosen.parameters()).hex(), on_0 = c.broadcast(mine);
  comm::agree(c, [&] {
    if (mine != on_0)
      throw UserError(
          "this rank planned another IA plan than rank 0 (was it given other --set, --partitioner, --strategy, --disable or "
          "--calibration values?); every rank must plan alike");
  });
}

// Each HDF5-sourced tensor's name, shape and selection, on one line.
std::string input_shapes(const model::Workflow& wf) {
  std::string out;
  for (const auto& t : wf.tensors)
    if (auto h = std::get_if<model::Hdf5Source>(&t.source))
      out += (out.empty() ? "" : ", ") + t.name + " " + shape_string(t.source_shape()) + (h->start.empty() ? "" : " from " + shape_string(h->start));
    else if (auto s = std::get_if<model::SparseSource>(&t.source))
      out += (out.empty() ? "" : ", ") + t.name + " " +
             (s->index_list() ? "an index of " + std::to_string(t.source_shape()[0]) : std::to_string(s->entries)) + " entries";
  return out.empty() ? "none" : out;
}

}  // namespace

std::string disable_names() { return one_of(disable_names_list()); }

std::string strategy_names() { return one_of(physical::strategy_names()); }

namespace {

// What the stages of one run hand on to the next (run_deck below).
struct Run {
  Run(const RunOptions& o, const comm::Communicator& comm) : opt(o), c(comm) {}
  const RunOptions& opt;
  const comm::Communicator& c;
  Stopwatch total;
  // Each rank's own; rank 0's are the ones written (the writer writes rank
  // 0's attributes, and rank 0 writes --report).
  std::string started = utc_now(), host = host_name();
  bool done = false;  // a stage ended the run (--dry-run, --explain=dot)
  // read
  model::Workflow wf;
  physical::OptimizerOptions optimizer;
  // plan
  Stopwatch planning;
  MemoryLimit limit;
  PlannedDeck planned;
  std::unique_ptr<RoundsPlan> rounds;  // a training run by rounds (train: method: local_sgd | ist)
  std::unique_ptr<HeldOut> held_out;  // train: accuracy:
  // where
  std::vector<PlannedOutput> outputs;
  bool training = false;
  TrainFiles train_files;
  std::string report_path;  // --report: the JSON run report
  std::vector<OtherFile> other_files;
  Checkpoint resume;
  double plan_seconds = 0;
  // execute
  std::unique_ptr<exec::Executor> executor;
  double execute_seconds = 0;
  std::vector<IterationTimes> iterations;  // a training run's
  std::map<std::string, exec::HostTensor> trained;  // a run by rounds': every loop-carried tensor, whole
  // write
  RunFacts facts;
  std::string report;  // the per-operator summary
  double writing_seconds = 0;

  const physical::IaPlan& ia() const { return planned.optimized.chosen; }
  // The plan the executor ran: a run by rounds runs one site's.
  const PlannedDeck& executed() const { return rounds ? rounds->site : planned; }
};

// Rank 0 reads the deck and every rank plans from that text: plans are made
// on every rank and must be the same plan. What each rank checks on its own
// (its view of the input files, the calibration file) is agreed before
// anything collective (comm/agreement.hpp).
void read_stage(Run& r) {
  const comm::Communicator& c = r.c;
  agree_run_path(r.opt, c);
  Log::progress("reading deck " + r.opt.deck);
  std::string deck_text;
  comm::agree(c, [&] {
    if (c.rank() == 0) deck_text = io::read_deck_text(r.opt.deck);
  });
  deck_text = c.broadcast(deck_text);
  comm::agree(c, [&] {
    r.wf = io::parse_deck(deck_text, r.opt.deck, io::deck_folder(r.opt.deck), deck_overrides(r.opt));
    for (const auto& t : r.wf.tensors)
      if (auto h = std::get_if<model::Hdf5Source>(&t.source)) io::hdf5::validate_source(t, *h);
    r.optimizer = optimizer_options(r.wf, r.opt);
  });
  // A tensor without a shape in the deck takes its dataset's, which each
  // rank reads from its own view of the file; every rank must plan the same
  // plan, so the shapes are agreed before planning.
  const std::string shapes = input_shapes(r.wf), shapes_on_0 = c.broadcast(shapes);
  comm::agree(c, [&] {
    if (shapes != shapes_on_0)
      throw UserError("the HDF5 inputs differ between nodes (rank 0 reads " + shapes_on_0 + "; this rank reads " + shapes +
                      "); every rank must see the same files");
  });
  // And their values: a stale copy on one node has the same shape.
  agree_input_values(r.wf, c);
}

// A plan over the memory bound, refused at the deck's memory_per_rank (or
// the deck itself, when the bound is the machine's).
[[noreturn]] void refuse_over_limit(const Run& r, const std::string& need) {
  if (r.wf.run.memory_per_rank > 0) throw UserError(r.wf.run.memory_per_rank_loc, need);
  throw UserError(SourceLoc{r.opt.deck, 0, 0}, need + " (run: memory_per_rank: in the deck)");
}

// A run by rounds runs one site's step on every rank, beside the rank's
// copy of the whole network and the buffers that assemble, average and
// gather it (RoundsPlan::copy_bytes): both must fit the bound. More ranks make an IST
// site's subnetwork smaller, never the copy, so the remedy said is the limit.
void check_site_fits(const Run& r) {
  const RoundsPlan& p = *r.rounds;
  const std::int64_t step = p.site.memory.peak_bytes, copy = p.copy_bytes();
  if (step + copy <= r.limit.bytes) return;
  refuse_over_limit(r, "method " + p.method + ": a site needs an estimated " + physical::bytes_text(step + copy) + " (its step's plan " +
                           physical::bytes_text(step) + ", its copy of the whole network with the buffers that move it " +
                           physical::bytes_text(copy) + "), over " + r.limit.origin + " (" + physical::bytes_text(r.limit.bytes) +
                           "): raise the limit");
}

// The plan, the same on every rank, under the memory bound.
void plan_stage(Run& r) {
  const comm::Communicator& c = r.c;
  // Threads per rank: Kokkos' host backend (OpenMP: OMP_NUM_THREADS) runs
  // the element loops, the BLAS its own (OPENBLAS_NUM_THREADS).
  const int threads = Kokkos::DefaultHostExecutionSpace().concurrency();
  Log::progress("planning for " + std::to_string(c.size()) + " rank(s) x " + std::to_string(threads) + " thread(s) (" + kokkos_build() + ")");
  warn_if_ranks_share_a_gpu(c);
  // Decided before any work, so that a bad TRA_GPU_AWARE_MPI or TRA_ELEMENT_PROGRAMS is refused first.
  if (const comm::ChunkTransport t = agree_on_environment(c); t != comm::ChunkTransport::Host)
    Log::progress(std::string("chunks reach MPI in ") + comm::transport_name(t));
  r.planning.restart();
  r.limit = memory_limit(r.wf, c);
  r.optimizer.memory_per_rank = r.limit.bytes;
  r.planned = plan_deck(r.wf, c.size(), r.optimizer, &c);
  const PlannedDeck& planned = r.planned;
  agree_plan(planned, c);
  if (planned.memory.peak_bytes > r.limit.bytes) {
    const std::optional<RanksNeeded> more = ranks_needed(r.wf, c.size(), r.optimizer, &c);
    const std::string where = more ? "; it fits on " + std::to_string(more->ranks) + " ranks with this much memory each (an estimated " +
                                         physical::bytes_text(more->peak_bytes) + " on the fullest of " + std::to_string(more->ranks) +
                                         "), or raise the limit"
                                   : "; it fits on none of " + std::to_string(c.size() * 2) + " to " + std::to_string(c.size() * kMaxFactor) +
                                         " ranks (doubling) either: raise the limit";
    const std::string need = "the plan needs an estimated " + physical::bytes_text(planned.memory.peak_bytes) + " on its fullest rank, over " +
                             r.limit.origin + " (" + physical::bytes_text(r.limit.bytes) + ")" +
                             (planned.candidates.empty() ? std::string() : ", and no other labeling compared fits either") + where;
    refuse_over_limit(r, need);
  }
  if (r.wf.train && r.wf.train->by_rounds()) {
    comm::agree(c, [&] { r.rounds = std::make_unique<RoundsPlan>(plan_rounds(r.wf, planned, r.optimizer, c.size())); });
    check_site_fits(r);
  }
  if (r.wf.train && r.wf.train->accuracy) comm::agree(c, [&] { r.held_out = std::make_unique<HeldOut>(r.wf, r.optimizer); });
  for (const auto& [where, what] : model::unused(r.wf)) Log::warn(where.str() + ": " + what);
  if (r.wf.outputs.empty()) {
    std::string sinks;
    for (const auto& s : model::graph_sinks(planned.workflow)) sinks += (sinks.empty() ? "" : ", ") + s;
    Log::warn("the deck has no outputs: computing the graph's results (" + (sinks.empty() ? std::string("none") : sinks) + ") and writing nothing");
  }
  for (const auto& note : planned.optimized.notes) Log::warn(note);
}

// Where results go, checked on every rank before computing (an output
// folder may be node-local), and agreed; a training run's checkpoint to
// resume from, read.
void files_stage(Run& r) {
  const RunOptions& opt = r.opt;
  const model::Workflow& wf = r.wf;
  r.training = wf.train && wf.train->optimizer;
  comm::agree(r.c, [&] {
    r.outputs = plan_outputs(wf, r.ia(), r.planned.output_nodes, opt.output_dir);
    if (!opt.resume.empty() && !r.training) throw UserError("--resume " + opt.resume + ": the deck does not train (no train: optimizer:)");
    // A training run's log and checkpoint go where outputs go.
    if (r.training && !wf.train->log_file.empty()) r.train_files.log = resolve_output(wf.train->log_file, opt.output_dir);
    if (r.training && !wf.train->checkpoint_file.empty()) r.train_files.checkpoint = resolve_output(wf.train->checkpoint_file, opt.output_dir);
    if (!opt.report.empty()) r.report_path = resolve_output(opt.report, "");
    r.other_files = {{"the training log", r.train_files.log, r.training ? wf.train->log_loc : SourceLoc{}},
                     {"the checkpoint", r.train_files.checkpoint, r.training ? wf.train->checkpoint_loc : SourceLoc{}},
                     {"--report", r.report_path, SourceLoc{}}};
    check_other_files(wf, r.outputs, r.other_files);
  });
  if (!opt.resume.empty())
    r.resume = read_checkpoint(r.c, opt.resume, r.planned, checkpoint_record(r.planned, *wf.train, model::batches_per_epoch(wf), r.c.size()));
  r.plan_seconds = r.planning.seconds();
}

// What --explain asks to see; --explain=dot and --dry-run end the run here.
void explain_stage(Run& r) {
  const RunOptions& opt = r.opt;
  const PlannedDeck& planned = r.planned;
  if (opt.explain == RunOptions::Explain::Dot) {
    // Standard output holds the graph alone, for `| dot -Tsvg -o plan.svg`.
    Log::info(physical::plan_dot(r.ia(), opt.deck + " on " + std::to_string(r.c.size()) + " rank(s): the chosen IA plan"));
    r.done = true;
    return;
  }
  if (opt.explain != RunOptions::Explain::None) {
    const std::string gradients = gradients_text(planned);
    if (!gradients.empty()) Log::info("== gradients (statements generated for train: loss " + r.wf.train->loss + ")\n" + gradients);
    Log::info("== partitioning (one d per EinSum statement)\n" + partitioning_text(planned.lowering) + candidates_text(planned));
    Log::info("== TRA plan\n" + planned.lowering.plan.str());
    Log::info("== machine rates: " + r.optimizer.rates.origin + "\n" + physical::explain(planned.optimized));
    Log::info("== memory: the chosen plan holds an estimated " + physical::bytes_text(planned.memory.peak_bytes) + " on its fullest rank (" +
              std::to_string(planned.memory.peak_site) + ", at p" + std::to_string(planned.memory.peak_node) +
              "; operators' results and shuffles' send buffers, not kernels' scratch); the limit is " + physical::bytes_text(r.limit.bytes) + ", " +
              r.limit.origin);
    Log::info("== reads: inputs read on more than one rank add " + std::to_string(chosen_candidate(planned).replicated_reads) +
              " floats beyond their first copy");
    if (r.rounds) Log::info(r.rounds->text());
    else if (r.training)
      Log::info("== between iterations the loop-carried tensors move " + std::to_string(planned.carried_floats) + " floats (predicted)");
  }
  if (opt.dry_run) {
    Log::info("dry run: planned in " + std::to_string(r.plan_seconds) + " s; nothing executed, nothing written");
    r.done = true;
  }
}

// The plan run once, or a training run's iterations.
void execute_stage(Run& r) {
  const comm::Communicator& c = r.c;
  const physical::IaPlan& ia = r.ia();
  std::set<int> keep;
  for (const auto& o : r.outputs) keep.insert(o.ia_node);
  const bool analyze = r.opt.explain == RunOptions::Explain::Analyze;
  if (r.training) {
    Log::progress("training: " + std::to_string(r.wf.train->iterations) + " iterations of " + std::to_string(ia.nodes.size()) + " IA operators" +
                  (r.resume.done ? ", resuming after iteration " + std::to_string(r.resume.done) : std::string()));
    // Where the run writes, checked again as it goes (a folder removed or
    // made read-only mid-run is found then, not at the end).
    const auto check_files = [&] {
      comm::agree(c, [&] {
        for (const auto& o : r.outputs) io::hdf5::check_writable(o.path);
        check_other_files(r.wf, r.outputs, r.other_files);
      });
    };
    if (r.rounds) {
      RoundsRun run = run_rounds(*r.rounds, r.planned, c, analyze, r.train_files, std::move(r.resume), check_files,
                                 r.limit.bytes - r.rounds->site.memory.peak_bytes - r.rounds->copy_bytes(), r.held_out.get());
      r.executor = std::move(run.last);
      r.trained = std::move(run.trained);
      r.iterations = std::move(run.iterations);
      r.execute_seconds = run.seconds;
    } else {
      TrainingRun run = run_iterations(r.planned, *r.wf.train, c, keep, analyze, r.train_files, std::move(r.resume), check_files,
                                       r.limit.bytes - r.planned.memory.peak_bytes, r.held_out.get());
      r.executor = std::move(run.last);
      r.iterations = std::move(run.iterations);
      r.execute_seconds = run.seconds;
    }
  } else {
    r.executor = std::make_unique<exec::Executor>(ia, c, keep, analyze);
    Log::progress("executing " + std::to_string(ia.nodes.size()) + " IA operators");
    // Every rank plans on its own and finishes at its own time; without this the
    // execution clock (and the first collective) would absorb that skew.
    c.barrier();
    Stopwatch running;
    r.executor->run([&](int node) {
      const auto& n = ia.nodes[static_cast<size_t>(node)];
      if (r.opt.verbose || running.seconds() > 1.0)
        Log::progress("  p" + std::to_string(node) + "/" + std::to_string(ia.nodes.size()) + " " + n.name() + " " + n.words());
    });
    r.execute_seconds = c.max(running.seconds());
  }
  const exec::Executor& ex = *r.executor;
  const PlannedDeck& executed = r.executed();
  r.report = format_report(executed.optimized.chosen, ex.stats(), ex.totals(), r.execute_seconds, r.iterations);
  if (r.opt.explain == RunOptions::Explain::Analyze) {
    Log::info(format_analyze(executed.optimized.chosen, executed.optimized.cost, ex.stats()));
    Log::info("started the plan's kernels and libraries when it was bound, in no operator's time (rank 0): " + ex.start_times().text());
  }
}

// The outputs, each file with the run's provenance.
void write_stage(Run& r) {
  const comm::Communicator& c = r.c;
  const exec::Executor& ex = *r.executor;
  r.facts = {version_line("tra-run"),
             r.opt.command_line,
             r.started,
             r.host,
             c.size(),
             r.execute_seconds,
             r.plan_seconds,
             r.total.seconds(),
             static_cast<std::int64_t>(c.max(static_cast<double>(peak_resident_bytes()))),
             r.training ? r.wf.train->iterations : 0};
  r.facts.start_seconds = c.max(ex.start_times().total());
  // Group datasets by file; every rank writes the chunks it holds.
  std::map<std::string, io::hdf5::FileData> files;
  for (const auto& o : r.outputs) {
    auto& f = files[o.path];
    f.path = o.path;
    if (r.rounds) f.datasets.push_back(host_dataset(r.trained.at(o.decl->tensor), r.ia().node(o.ia_node).type.chunk_shape, o.decl->dataset, c));
    else f.datasets.push_back(result_dataset(ex, r.ia(), o.ia_node, o.decl->dataset, c));
    f.datasets.back().storage = o.storage;
  }
  // Every file records the same (rank 0's times: the writer writes rank 0's attributes).
  const std::map<std::string, std::string> recorded = provenance(r.wf, r.facts,
                                                                 {r.executed().lowering.plan.str(), r.executed().optimized.chosen.str(), r.report,
                                                                  json_report(r.executed(), ex.stats(), ex.totals(), r.facts, r.iterations)});
  for (auto& [path, f] : files) {
    f.attributes = recorded;
    Log::progress("writing " + path);
    Stopwatch writing;
    io::hdf5::write_file(c, f);
    const double seconds = writing.seconds(), mib = io::hdf5::file_bytes(f) / (1024.0 * 1024.0);
    r.writing_seconds += seconds;
    char line[160];
    std::snprintf(line, sizeof line, "wrote %s: %.0f MiB in %.2f s (%.0f MiB/s)", path.c_str(), mib, seconds, seconds > 0 ? mib / seconds : 0.0);
    Log::progress(line);
  }
}

// What the run did, and --report.
void report_stage(Run& r) {
  Log::info(r.report);
  const double peak_mib = static_cast<double>(r.facts.peak_resident_bytes) / (1024.0 * 1024.0);
  Log::info("peak memory per rank: " + std::to_string(static_cast<long long>(peak_mib + 0.5)) + " MiB (resident, the largest rank's)");
  for (const auto& o : r.outputs)
    Log::info("wrote " + o.decl->tensor + " to " + o.path + ":" + o.decl->dataset + "   (view: h5dump -d " + o.decl->dataset + " " + o.path + ")");
  Log::info("total " + std::to_string(r.total.seconds()) + " s (planning " + std::to_string(r.plan_seconds) + " s)");
  if (!r.report_path.empty()) {
    r.facts.total_seconds = r.total.seconds();
    r.facts.writing_seconds = r.writing_seconds;
    const exec::Executor& ex = *r.executor;
    comm::agree(r.c, [&] {
      if (r.c.rank() == 0)
        io::write_text_file(r.report_path, json_report(r.executed(), ex.stats(), ex.totals(), r.facts, r.iterations), "the JSON report");
    });
    Log::info("wrote the run report to " + r.report_path);
  }
}

// The stages of a run, in order (design.md: deck → Workflow → plans →
// execution → HDF5).
struct Stage {
  const char* name;
  void (*run)(Run&);
};
constexpr Stage kStages[] = {
    {"read", read_stage},       {"plan", plan_stage},   {"files", files_stage},   {"explain", explain_stage},
    {"execute", execute_stage}, {"write", write_stage}, {"report", report_stage},
};

}  // namespace

void run_deck(const RunOptions& opt, const comm::Communicator& c) {
  Run run(opt, c);
  for (const Stage& stage : kStages) {
    stage.run(run);
    if (run.done) return;
  }
}

}  // namespace tra::app
