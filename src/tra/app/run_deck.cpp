#include "tra/app/run_deck.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include <unistd.h>

#include "tra/app/checkpoint.hpp"
#include "tra/app/json_report.hpp"
#include "tra/app/output_paths.hpp"
#include "tra/app/provenance.hpp"
#include "tra/app/plan_deck.hpp"
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

// The optimizer's settings: the deck's, with the command line's on top.
physical::OptimizerOptions optimizer_options(const model::Workflow& wf, const RunOptions& opt) {
  std::vector<std::string> known = physical::rule_and_strategy_names();
  known.push_back(kBaselineLabelings);
  std::string list;
  for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
  auto check = [&](const std::string& name, const std::function<void(const std::string&)>& fail) {
    if (std::find(known.begin(), known.end(), name) == known.end()) fail("unknown rule or strategy '" + name + "'; known: " + list);
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
  std::string expected;
  for (size_t i = 0; i < strategies.size(); ++i) expected += (i == 0 ? "" : i + 1 == strategies.size() ? " or " : ", ") + strategies[i];
  auto known_strategy = [&](std::string s) {
    for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return std::find(strategies.begin(), strategies.end(), s) != strategies.end() ? s : std::string();
  };
  std::string strategy = known_strategy(wf.run.optimizer.strategy);
  if (strategy.empty())
    throw UserError(wf.run.optimizer.strategy_loc, "unknown strategy '" + wf.run.optimizer.strategy + "'; expected " + expected);
  if (!opt.strategy.empty()) {
    strategy = known_strategy(opt.strategy);
    if (strategy.empty()) throw UserError("--strategy " + opt.strategy + ": expected " + expected);
  }
  o.strategy = strategy;
  const std::string calibration = !opt.calibration.empty() ? opt.calibration : wf.run.optimizer.calibration;
  if (!calibration.empty()) o.rates = physical::load_rates(calibration);
  return o;
}

// --partitioner and --overdecomposition on top of the deck's run: section.
void apply_partitioner_options(const RunOptions& opt, model::RunOptions& run) {
  if (!opt.partitioner.empty()) {
    const auto named = model::partitioner_named(opt.partitioner);
    if (!named) throw UserError("--partitioner " + opt.partitioner + ": expected " + model::kPartitionerNames);
    run.partitioner = *named;
  }
  if (opt.overdecomposition != 0) {
    const Index o = opt.overdecomposition;
    if (o < 1 || o > 1024 || (o & (o - 1)) != 0)
      throw UserError("--overdecomposition " + std::to_string(o) + ": expected a power of two from 1 to 1024");
    run.overdecomposition = o;
  }
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
    const bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") == std::string::npos;
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
    for (const auto& t : wf.tensors)
      if (auto h = std::get_if<model::Hdf5Source>(&t.source)) digests.emplace_back(&t, io::hdf5::dataset_digest(t, *h));
  });
  for (const auto& [t, digest] : digests) {
    const std::string on_0 = c.broadcast(digest);
    comm::agree(c, [&, t = t, digest = digest] {
      const auto& h = std::get<model::Hdf5Source>(t->source);
      if (digest != on_0)
        throw UserError(t->loc, "tensor '" + t->name + "': dataset '" + h.dataset + "' of '" + h.file +
                                    "' holds other values here than on rank 0; every rank must read the same file (a stale copy on one node?)");
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
      throw UserError("the ranks were given different options (rank 0:" + (on_0.empty() ? std::string(" none of") : on_0) + "; this rank:" +
                      (mine.empty() ? std::string(" none of") : mine) + " --explain, --dry-run, --resume, --report); every rank must run the same command");
  });
}

// Every rank plans by itself and must plan the same plan: other --set,
// --partitioner, --strategy, --disable or calibration values on one rank
// (an MPMD launch) would send the ranks into different collectives.
void agree_plan(const PlannedDeck& planned, const comm::Communicator& c) {
  const std::string mine = Digest().add(planned.optimized.chosen.parameters()).hex(), on_0 = c.broadcast(mine);
  comm::agree(c, [&] {
    if (mine != on_0)
      throw UserError("this rank planned another IA plan than rank 0 (was it given other --set, --partitioner, --strategy, --disable or "
                      "--calibration values?); every rank must plan alike");
  });
}

// Each HDF5-sourced tensor's name, shape and selection, on one line.
std::string input_shapes(const model::Workflow& wf) {
  std::string out;
  for (const auto& t : wf.tensors)
    if (auto h = std::get_if<model::Hdf5Source>(&t.source))
      out += (out.empty() ? "" : ", ") + t.name + " " + shape_string(t.source_shape()) + (h->start.empty() ? "" : " from " + shape_string(h->start));
  return out.empty() ? "none" : out;
}

}  // namespace

void run_deck(const RunOptions& opt, const comm::Communicator& c) {
  Stopwatch total;
  agree_run_path(opt, c);
  // Each rank's own; rank 0's are the ones written (the writer writes rank
  // 0's attributes, and rank 0 writes --report).
  const std::string started = utc_now();
  const std::string host = host_name();
  Log::progress("reading deck " + opt.deck);
  // Rank 0 reads the deck and every rank plans from that text: plans are
  // made on every rank and must be the same plan. What each rank checks on
  // its own (its view of the input files, the calibration file) is agreed
  // before anything collective (comm/agreement.hpp).
  std::string deck_text;
  comm::agree(c, [&] {
    if (c.rank() == 0) deck_text = io::read_deck_text(opt.deck);
  });
  deck_text = c.broadcast(deck_text);
  model::Workflow wf;
  physical::OptimizerOptions optimizer;
  comm::agree(c, [&] {
    std::vector<io::DeckOverride> overrides;
    for (const auto& s : opt.set) overrides.push_back(io::parse_override(s));
    wf = io::parse_deck(deck_text, opt.deck, io::deck_folder(opt.deck), overrides);
    apply_partitioner_options(opt, wf.run);
    for (const auto& t : wf.tensors)
      if (auto h = std::get_if<model::Hdf5Source>(&t.source)) io::hdf5::validate_source(t, *h);
    optimizer = optimizer_options(wf, opt);
  });

  // A tensor without a shape in the deck takes its dataset's, which each
  // rank reads from its own view of the file; every rank must plan the same
  // plan, so the shapes are agreed before planning.
  const std::string shapes = input_shapes(wf), shapes_on_0 = c.broadcast(shapes);
  comm::agree(c, [&] {
    if (shapes != shapes_on_0)
      throw UserError("the HDF5 inputs differ between nodes (rank 0 reads " + shapes_on_0 + "; this rank reads " + shapes +
                      "); every rank must see the same files");
  });
  // And their values: a stale copy on one node has the same shape.
  agree_input_values(wf, c);
  // Threads per rank: Kokkos' host backend (OpenMP: OMP_NUM_THREADS) runs
  // the element loops, the BLAS its own (OPENBLAS_NUM_THREADS).
  const int threads = Kokkos::DefaultHostExecutionSpace().concurrency();
  Log::progress("planning for " + std::to_string(c.size()) + " rank(s) x " + std::to_string(threads) + " thread(s) (" + kokkos_build() + ")");
  Stopwatch planning;
  const MemoryLimit limit = memory_limit(wf, c);
  optimizer.memory_per_rank = limit.bytes;
  const PlannedDeck planned = plan_deck(wf, c.size(), optimizer);
  agree_plan(planned, c);
  if (planned.memory.peak_bytes > limit.bytes) {
    const std::string need = "the plan needs an estimated " + physical::bytes_text(planned.memory.peak_bytes) + " on its fullest rank, over " +
                             limit.origin + " (" + physical::bytes_text(limit.bytes) + ")" +
                             (planned.candidates.empty() ? std::string() : ", and no other labeling compared fits either") +
                             "; run on more ranks, or raise the limit";
    if (wf.run.memory_per_rank > 0) throw UserError(wf.run.memory_per_rank_loc, need);
    throw UserError(SourceLoc{opt.deck, 0, 0}, need + " (run: memory_per_rank: in the deck)");
  }
  for (const auto& [where, what] : model::unused(wf)) Log::warn(where.str() + ": " + what);
  if (wf.outputs.empty()) {
    std::string sinks;
    for (const auto& s : model::graph_sinks(planned.workflow)) sinks += (sinks.empty() ? "" : ", ") + s;
    Log::warn("the deck has no outputs: computing the graph's results (" + (sinks.empty() ? std::string("none") : sinks) +
              ") and writing nothing");
  }
  const logical::Lowering& low = planned.lowering;
  const physical::Optimized& optimized = planned.optimized;
  const physical::IaPlan& ia = optimized.chosen;
  for (const auto& note : optimized.notes) Log::warn(note);

  // Where results go, checked on every rank before computing (an output
  // folder may be node-local), and agreed.
  std::vector<PlannedOutput> outputs;
  const bool training = wf.train && wf.train->optimizer;
  TrainFiles train_files;
  std::string report_path;  // --report: the JSON run report
  std::vector<OtherFile> other_files;
  comm::agree(c, [&] {
    outputs = plan_outputs(wf, ia, planned.output_nodes, opt.output_dir);
    if (!opt.resume.empty() && !training) throw UserError("--resume " + opt.resume + ": the deck does not train (no train: optimizer:)");
    // A training run's log and checkpoint go where outputs go.
    if (training && !wf.train->log_file.empty()) train_files.log = resolve_output(wf.train->log_file, opt.output_dir);
    if (training && !wf.train->checkpoint_file.empty()) train_files.checkpoint = resolve_output(wf.train->checkpoint_file, opt.output_dir);
    if (!opt.report.empty()) report_path = resolve_output(opt.report, "");
    other_files = {{"the training log", train_files.log, training ? wf.train->log_loc : SourceLoc{}},
                   {"the checkpoint", train_files.checkpoint, training ? wf.train->checkpoint_loc : SourceLoc{}},
                   {"--report", report_path, SourceLoc{}}};
    check_other_files(wf, outputs, other_files);
  });
  Checkpoint resume;
  if (!opt.resume.empty())
    resume = read_checkpoint(c, opt.resume, planned, checkpoint_record(planned, *wf.train, model::batches_per_epoch(wf), c.size()));
  const double plan_seconds = planning.seconds();

  const std::string tra_text = low.plan.str();
  const std::string ia_text = ia.str();
  if (opt.explain == RunOptions::Explain::Dot) {
    // Standard output holds the graph alone, for `| dot -Tsvg -o plan.svg`.
    Log::info(physical::plan_dot(ia, opt.deck + " on " + std::to_string(c.size()) + " rank(s): the chosen IA plan"));
    return;
  }
  if (opt.explain != RunOptions::Explain::None) {
    const std::string gradients = gradients_text(planned);
    if (!gradients.empty()) Log::info("== gradients (statements generated for train: loss " + wf.train->loss + ")\n" + gradients);
    Log::info("== partitioning (one d per EinSum statement)\n" + partitioning_text(low) + candidates_text(planned));
    Log::info("== TRA plan\n" + tra_text);
    Log::info("== machine rates: " + optimizer.rates.origin + "\n" + physical::explain(optimized));
    Log::info("== memory: the chosen plan holds an estimated " + physical::bytes_text(planned.memory.peak_bytes) + " on its fullest rank (" +
              std::to_string(planned.memory.peak_site) + ", at p" + std::to_string(planned.memory.peak_node) +
              "; operators' results, not their scratch); the limit is " + physical::bytes_text(limit.bytes) + ", " + limit.origin);
    Log::info("== reads: inputs read on more than one rank add " + std::to_string(chosen_candidate(planned).replicated_reads) +
              " floats beyond their first copy");
    if (training) Log::info("== between iterations the loop-carried tensors move " + std::to_string(planned.carried_floats) +
                            " floats (predicted)");
  }
  if (opt.dry_run) {
    Log::info("dry run: planned in " + std::to_string(plan_seconds) + " s; nothing executed, nothing written");
    return;
  }

  std::set<int> keep;
  for (const auto& o : outputs) keep.insert(o.ia_node);
  const bool analyze = opt.explain == RunOptions::Explain::Analyze;
  std::unique_ptr<exec::Executor> executor;
  double execute_seconds = 0;
  std::vector<IterationTimes> iterations;  // a training run's
  if (training) {
    Log::progress("training: " + std::to_string(wf.train->iterations) + " iterations of " + std::to_string(ia.nodes.size()) + " IA operators" +
                  (resume.done ? ", resuming after iteration " + std::to_string(resume.done) : std::string()));
    // Where the run writes, checked again as it goes (a folder removed or
    // made read-only mid-run is found then, not at the end).
    const auto check_files = [&] {
      comm::agree(c, [&] {
        for (const auto& o : outputs) io::hdf5::check_writable(o.path);
        check_other_files(wf, outputs, other_files);
      });
    };
    TrainingRun run = run_iterations(planned, *wf.train, c, keep, analyze, train_files, std::move(resume), check_files,
                                     limit.bytes - planned.memory.peak_bytes);
    executor = std::move(run.last);
    iterations = std::move(run.iterations);
    execute_seconds = run.seconds;
  } else {
    executor = std::make_unique<exec::Executor>(ia, c, keep, analyze);
    Log::progress("executing " + std::to_string(ia.nodes.size()) + " IA operators");
    // Every rank plans on its own and finishes at its own time; without this the
    // execution clock (and the first collective) would absorb that skew.
    c.barrier();
    Stopwatch running;
    executor->run([&](int node) {
      const auto& n = ia.nodes[static_cast<size_t>(node)];
      if (opt.verbose || running.seconds() > 1.0)
        Log::progress("  p" + std::to_string(node) + "/" + std::to_string(ia.nodes.size()) + " " + n.name() + " " + n.detail);
    });
    execute_seconds = c.max(running.seconds());
  }
  const exec::Executor& ex = *executor;
  const std::string report = format_report(ia, ex.stats(), ex.totals(), execute_seconds, iterations);
  if (opt.explain == RunOptions::Explain::Analyze) Log::info(format_analyze(ia, optimized.cost, ex.stats()));

  RunFacts facts{version_line("tra-run"), opt.command_line, started, host, c.size(), execute_seconds, plan_seconds, total.seconds(),
                 static_cast<std::int64_t>(c.max(static_cast<double>(peak_resident_bytes()))), training ? wf.train->iterations : 0};

  // Group datasets by file; every rank writes the chunks it holds.
  std::map<std::string, io::hdf5::FileData> files;
  for (const auto& o : outputs) {
    auto& f = files[o.path];
    f.path = o.path;
    f.datasets.push_back(result_dataset(ex, ia, o.ia_node, o.decl->dataset, c));
    f.datasets.back().storage = o.storage;
  }
  // Every file records the same (rank 0's times: the writer writes rank 0's attributes).
  const std::map<std::string, std::string> recorded =
      provenance(wf, facts, {tra_text, ia_text, report, json_report(planned, ex.stats(), ex.totals(), facts, iterations)});
  double writing_seconds = 0;
  for (auto& [path, f] : files) {
    f.attributes = recorded;
    Log::progress("writing " + path);
    Stopwatch writing;
    io::hdf5::write_file(c, f);
    const double seconds = writing.seconds(), mib = io::hdf5::file_bytes(f) / (1024.0 * 1024.0);
    writing_seconds += seconds;
    char line[160];
    std::snprintf(line, sizeof line, "wrote %s: %.0f MiB in %.2f s (%.0f MiB/s)", path.c_str(), mib, seconds, seconds > 0 ? mib / seconds : 0.0);
    Log::progress(line);
  }

  Log::info(report);
  const double peak_mib = static_cast<double>(facts.peak_resident_bytes) / (1024.0 * 1024.0);
  Log::info("peak memory per rank: " + std::to_string(static_cast<long long>(peak_mib + 0.5)) + " MiB (resident, the largest rank's)");
  for (const auto& o : outputs)
    Log::info("wrote " + o.decl->tensor + " to " + o.path + ":" + o.decl->dataset + "   (view: h5dump -d " + o.decl->dataset + " " + o.path + ")");
  Log::info("total " + std::to_string(total.seconds()) + " s (planning " + std::to_string(plan_seconds) + " s)");
  if (!report_path.empty()) {
    facts.total_seconds = total.seconds();
    facts.writing_seconds = writing_seconds;
    comm::agree(c, [&] {
      if (c.rank() == 0) io::write_text_file(report_path, json_report(planned, ex.stats(), ex.totals(), facts, iterations), "the JSON report");
    });
    Log::info("wrote the run report to " + report_path);
  }
}

}  // namespace tra::app
