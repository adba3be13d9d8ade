#include "tra/app/local_rounds.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <sstream>

#include "tra/app/training_log.hpp"
#include "tra/autodiff/updates.hpp"
#include "tra/comm/agreement.hpp"
#include "tra/comm/value_exchange.hpp"
#include "tra/common/log.hpp"
#include "tra/common/timer.hpp"
#include "tra/exec/input_cache.hpp"
#include "tra/io/generators.hpp"
#include "tra/io/hdf5/reader.hpp"
#include "tra/model/batch_order.hpp"
#include "tra/physical/memory_estimate.hpp"
#include "tra/physical/optimizer.hpp"

namespace tra::app {

namespace {

using model::TrainSettings;

std::string floats_text(Index n) { return std::to_string(n) + " floats"; }

// A loop-carried tensor's starting values, whole: its declaration's source
// (a parameter's initial values, an optimizer state's zeros), as the
// synchronous run's Scans read them.
exec::HostTensor initial_values(const model::TensorDecl& t, DType dtype, const comm::Communicator& self) {
  const Key origin(t.shape.size(), 0);
  Chunk chunk;
  if (const auto* g = std::get_if<model::Generator>(&t.source)) chunk = io::generate_chunk(*g, t.shape, t.shape, origin, dtype);
  else chunk = io::hdf5::read_chunks(self, std::get<model::Hdf5Source>(t.source), t.shape, {origin}, {}, dtype).at(0).chunk;
  return {t.shape, chunk.to_host()};
}

// Where each entry of a cut tensor was last trained: a rank (plan_rounds
// refuses more ranks than this holds), or kEverywhere (its initial value,
// which every rank holds).
constexpr std::int16_t kEverywhere = -1;

// The entries of each site's subnetwork in one tensor: offsets into the
// whole tensor, in the site's row-major order.
std::vector<Index> site_offsets(const RoundsPlan::Carried& x, const std::vector<std::vector<std::vector<Index>>>& dealt, int site) {
  std::vector<const std::vector<Index>*> keep(x.layers.size(), nullptr);
  for (size_t d = 0; d < x.layers.size(); ++d)
    if (x.layers[d] >= 0) keep[d] = &dealt[static_cast<size_t>(x.layers[d])][static_cast<size_t>(site)];
  return exec::cut_offsets(x.whole, keep);
}

// The sites' copies of the whole network and where each cut entry is current.
class Network {
 public:
  // `resume`: the state to start from (a checkpoint's; none: the deck's sources).
  Network(const RoundsPlan& plan, const model::Workflow& whole, DType dtype, const comm::Communicator& c, const Checkpoint& resume)
      : plan_(plan), c_(c), dtype_(dtype) {
    comm::Communicator self(MPI_COMM_SELF);
    for (const auto& [name, x] : plan.carried) {
      auto saved = resume.carried.find(name);
      values_[name] = saved != resume.carried.end() ? *saved->second : initial_values(*whole.find_tensor(name), dtype, self);
      if (x.cut()) home_[name].assign(values_[name].values.size(), kEverywhere);
    }
  }

  // This site's tensors for a round whose neurons are `dealt` (per layer,
  // per site): the entries held elsewhere come in one exchange. Every rank
  // walks every site's entries in the same order, so each knows what it
  // sends and receives without asking.
  std::map<std::string, exec::HostTensor> assemble(const std::vector<std::vector<std::vector<Index>>>& dealt, Index& assembled, Index& moved) {
    const int n = c_.size(), me = c_.rank();
    std::vector<std::vector<Scalar>> to_rank(static_cast<size_t>(n));
    std::vector<Index> from_counts(static_cast<size_t>(n), 0);
    std::map<std::string, std::vector<Index>> mine;  // my entries' offsets
    std::map<std::string, std::vector<std::int16_t>> source;  // and where each comes from
    for (const auto& [name, x] : plan_.carried) {
      if (!x.cut()) continue;
      std::vector<std::int16_t>& home = home_.at(name);
      const std::vector<Scalar>& values = values_.at(name).values;
      for (int t = 0; t < n; ++t) {
        std::vector<Index> offsets = site_offsets(x, dealt, t);
        assembled += static_cast<Index>(offsets.size());
        std::vector<std::int16_t> from;
        for (Index o : offsets) {
          std::int16_t& h = home[static_cast<size_t>(o)];
          if (t == me) {
            from.push_back(h);
            if (h != kEverywhere && h != me) ++from_counts[static_cast<size_t>(h)];
          } else if (h == me) {
            to_rank[static_cast<size_t>(t)].push_back(values[static_cast<size_t>(o)]);
          }
          h = static_cast<std::int16_t>(t);  // where it is trained this round, and current after it
        }
        if (t == me) mine[name] = std::move(offsets), source[name] = std::move(from);
      }
    }
    comm::Moved sent;
    const std::vector<Scalar> received = comm::exchange_values(c_, to_rank, from_counts, sent);
    moved += sent.floats;
    std::vector<size_t> cursor(static_cast<size_t>(n), 0);  // into `received`, rank by rank
    for (size_t r = 1; r < cursor.size(); ++r) cursor[r] = cursor[r - 1] + static_cast<size_t>(from_counts[r - 1]);  // none from itself
    std::map<std::string, exec::HostTensor> site;
    for (const auto& [name, x] : plan_.carried) {
      exec::HostTensor& t = site[name];
      t.shape = x.site;
      if (!x.cut()) {
        t.values = values_.at(name).values;
        continue;
      }
      const std::vector<Index>& offsets = mine.at(name);
      const std::vector<std::int16_t>& from = source.at(name);
      const std::vector<Scalar>& values = values_.at(name).values;
      t.values.resize(offsets.size());
      for (size_t i = 0; i < offsets.size(); ++i)
        t.values[i] =
            from[i] == kEverywhere || from[i] == me ? values[static_cast<size_t>(offsets[i])] : received[cursor[static_cast<size_t>(from[i])]++];
      mine_[name] = std::move(mine.at(name));
    }
    return site;
  }

  // The round's results back in this rank's copy: a cut tensor's entries
  // where this site trained them, the others' averages (every site's, added
  // in rank order, divided by n: the same bits on every rank).
  void put_back(const std::map<std::string, exec::HostTensor>& site, Index& moved) {
    const int n = c_.size();
    for (const auto& [name, x] : plan_.carried) {
      std::vector<Scalar>& whole = values_.at(name).values;
      const std::vector<Scalar>& trained = site.at(name).values;
      if (x.cut()) {
        const std::vector<Index>& offsets = mine_.at(name);
        for (size_t i = 0; i < offsets.size(); ++i) whole[static_cast<size_t>(offsets[i])] = trained[i];
        continue;
      }
      comm::Moved sent;
      TRA_ASSERT(trained.size() == whole.size(), "'" + name + "' is trained whole at every site");
      const std::vector<Scalar> all = comm::gather_values(c_, trained, sent);  // rank r's at r·size
      moved += sent.floats;
      const size_t size = trained.size();
      for (size_t i = 0; i < whole.size(); ++i) {
        Scalar sum = all[i];
        for (size_t r = 1; r < static_cast<size_t>(n); ++r) sum += all[r * size + i];
        whole[i] = dtype_ == DType::Float32 ? static_cast<Scalar>(static_cast<float>(sum / n)) : sum / n;  // held in the run's type
      }
    }
  }

  // Every rank's copy made whole: the entries current on another rank
  // come from it (one exchange). Where each entry is current is left as it
  // was, so that a held-out evaluation does not change what later rounds
  // move (their count is the training's own).
  const std::map<std::string, exec::HostTensor>& gathered(Index& moved) {
    const int n = c_.size(), me = c_.rank();
    std::vector<Index> counts(static_cast<size_t>(n), 0);  // entries current on each rank
    for (const auto& [name, home] : home_)
      for (std::int16_t h : home)
        if (h != kEverywhere) ++counts[static_cast<size_t>(h)];
    std::vector<size_t> cursor(static_cast<size_t>(n), 0);  // each rank's block in the shared buffer
    for (size_t r = 1; r < cursor.size(); ++r) cursor[r] = cursor[r - 1] + static_cast<size_t>(counts[r - 1]);
    std::vector<Scalar> all(cursor.back() + static_cast<size_t>(counts.back()));
    size_t at = cursor[static_cast<size_t>(me)];
    for (const auto& [name, home] : home_)
      for (size_t o = 0; o < home.size(); ++o)
        if (home[o] == me) all[at++] = values_.at(name).values[o];
    comm::Moved sent;
    const std::vector<Scalar> received = comm::share_values(c_, std::move(all), counts, sent);
    moved += sent.floats;
    for (auto& [name, home] : home_)
      for (size_t o = 0; o < home.size(); ++o)
        if (home[o] != kEverywhere && home[o] != me) values_.at(name).values[o] = received[cursor[static_cast<size_t>(home[o])]++];
    return values_;
  }

 private:
  const RoundsPlan& plan_;
  const comm::Communicator& c_;
  DType dtype_;
  std::map<std::string, exec::HostTensor> values_;  // this rank's copy of every loop-carried tensor
  std::map<std::string, std::vector<std::int16_t>> home_;  // cut tensors: where each entry is current
  std::map<std::string, std::vector<Index>> mine_;  // this round's entries of this site
};

}  // namespace

std::int64_t RoundsPlan::copy_bytes() const {
  // W: the network's entries, C: its cut ones, S: a site's, U: the largest
  // tensor every site trains whole (averaged).
  std::int64_t w = 0, cut_entries = 0, s = 0, u = 0;
  for (const auto& [name, x] : carried) {
    w += volume(x.whole), s += volume(x.site);
    if (x.cut()) cut_entries += volume(x.whole);
    else u = std::max<std::int64_t>(u, volume(x.whole));
  }
  constexpr std::int64_t value = sizeof(Scalar), offset = sizeof(Index), source = sizeof(std::int16_t);
  // Always: the copy, where each cut entry is current, and the offsets of
  // the site's entries in this round.
  const std::int64_t kept = value * w + source * cut_entries + offset * s;
  // A round's start (assemble): what the rank sends, in its lists and MPI's
  // buffer (each entry goes to one site: at most the cut entries), what it
  // receives and the site's tensors (each at most the site's entries), with
  // each cut site entry's new offset and source.
  const std::int64_t start = 2 * value * cut_entries + 2 * value * s + (offset + source) * s;
  // A round's end (put_back): the site's trained tensors, and one averaged
  // tensor from every rank.
  const std::int64_t end = value * s + value * sites * u;
  // A gather (held-out accuracy, checkpoints, the last round): the shared
  // buffer, at most the network, or the copy the run keeps at the end; and
  // a held-out evaluation's two copies of the parameters (its own plan's
  // memory is not counted here).
  const std::int64_t gather = 3 * value * w;
  return kept + std::max({start, end, gather});
}

bool RoundsPlan::Carried::cut() const {
  for (int l : layers)
    if (l >= 0) return true;
  return false;
}

RoundsPlan plan_rounds(const model::Workflow& deck, const PlannedDeck& whole, const physical::OptimizerOptions& options, int sites) {
  const TrainSettings& train = *deck.train;
  const std::string method = model::method_name(train.method);
  RoundsPlan p;
  p.sites = sites;
  p.method = method;
  p.local_steps = train.local_steps;
  std::set<std::string> trained;
  for (const auto& [name, carried] : whole.carried) trained.insert(name);
  for (const auto& o : deck.outputs)
    if (!trained.count(o.tensor))
      throw UserError(o.loc, "method " + method + " writes what it trains (parameters, an optimizer's state); '" + o.tensor +
                                 "' is computed by each site on its own batches" +
                                 (train.method == TrainSettings::Method::Ist ? " and subnetwork" : ""));
  for (const auto& t : deck.tensors)
    if (t.param && std::holds_alternative<model::SparseSource>(t.source))
      throw UserError(t.param_loc, "method " + method + " trains dense parameters; '" + t.name + "' is sparse");
  if (train.method == TrainSettings::Method::Ist) {
    if (sites > std::numeric_limits<std::int16_t>::max())
      throw UserError(train.method_loc, "method ist runs on at most " + std::to_string(std::numeric_limits<std::int16_t>::max()) + " ranks");
    p.layers = model::hidden_layers(whole.workflow, trained);
    if (p.layers.empty())
      throw UserError(train.method_loc,
                      "method ist deals hidden neurons out to the sites, and this graph has none: every dimension of its parameters is also a "
                      "dimension of its data or of a constant (docs/training.md says which graphs IST cuts)");
    for (const auto& l : p.layers)
      if (l.size % sites != 0)
        throw UserError(deck.find_tensor(l.dims.front().tensor)->loc,
                        "method ist deals the " + std::to_string(l.size) + " hidden neurons of " + l.name() + " equally to the " +
                            std::to_string(sites) + " ranks; run it on a number of ranks that divides " + std::to_string(l.size));
  }
  // The site's deck: every hidden layer n times narrower, parameters set
  // each round, nothing written, one rank.
  model::Workflow site = deck;
  site.outputs.clear();
  drop_partitioning(site);
  site.train->log_file.clear();
  for (auto& t : site.tensors) {
    if (!t.param) continue;
    const std::vector<int> layers = model::layers_of(p.layers, t.name, static_cast<int>(t.shape.size()));
    for (size_t d = 0; d < layers.size(); ++d)
      if (layers[d] >= 0) t.shape[d] /= sites;
    t.source = model::Generator{};
    t.chunk.reset();
  }
  for (const auto& [name, carried] : whole.carried) {
    const model::TensorDecl* w = whole.workflow.find_tensor(name);
    TRA_ASSERT(w, "loop-carried tensor '" + name + "' declared");
    RoundsPlan::Carried x{w->shape, w->shape, model::layers_of(p.layers, name, static_cast<int>(w->shape.size()))};
    for (size_t d = 0; d < x.layers.size(); ++d)
      if (x.layers[d] >= 0) x.site[d] /= sites;
    if (x.cut()) p.assembled += volume(x.site) * sites;
    else p.averaged += volume(x.whole);
    p.carried[name] = x;
  }
  // The site's step is planned for what the rank's copy of the network
  // leaves of the memory bound.
  physical::OptimizerOptions site_options = options;
  if (options.memory_per_rank > 0) site_options.memory_per_rank = std::max<std::int64_t>(1, options.memory_per_rank - p.copy_bytes());
  p.site = plan_deck(site, 1, site_options);
  for (const auto& [name, x] : p.carried) {
    const model::TensorDecl* s = p.site.workflow.find_tensor(name);
    TRA_ASSERT(s && s->shape == x.site, "'" + name + "' is cut along its hidden layers alone");
  }
  return p;
}

std::string RoundsPlan::text() const {
  std::ostringstream os;
  os << "== training by rounds: method " << method << ", " << sites << " site(s), one per rank, " << local_steps << " local step(s) a round\n";
  for (const auto& l : layers) {
    os << "  hidden layer " << l.name() << ": " << l.size << " neurons, " << l.size / sites << " at each site (";
    for (size_t i = 0; i < l.dims.size(); ++i) os << (i ? ", " : "") << l.dims[i].tensor << " dim " << l.dims[i].dim;
    os << ")\n";
  }
  os << "  at a site:";
  for (const auto& [name, x] : carried) os << " " << name << " " << shape_string(x.site) << (x.cut() ? "" : " (whole)");
  os << "\n";
  if (assembled > 0)
    os << "  each round the sites assemble their subnetworks from " << floats_text(assembled)
       << " (thesis §2.1.5's count per step, times J); those already on their rank do not move\n";
  if (averaged > 0)
    os << "  each round the " << floats_text(averaged) << " every site trains whole are averaged: " << floats_text(averaged * sites * (sites - 1))
       << " between ranks\n";
  os << "  each rank holds beside the site's step at most " << physical::bytes_text(copy_bytes())
     << ": its copy of the whole network and the buffers that move it\n";
  os << "== the site's step, planned for one rank\n" << physical::explain(site.optimized);
  return os.str();
}

RoundsRun run_rounds(const RoundsPlan& plan, const PlannedDeck& whole, const comm::Communicator& c, bool analyze, const TrainFiles& files,
                     Checkpoint resume, const std::function<void()>& check_files, std::int64_t spare_bytes, HeldOut* held_out) {
  const model::Workflow& deck = whole.workflow;
  const TrainSettings& train = *deck.train;
  const PlannedDeck& site = plan.site;
  const physical::IaPlan& ia = site.optimized.chosen;
  const int n = c.size(), me = c.rank();
  std::set<int> keep;
  for (const auto& [name, node] : site.iteration_nodes) keep.insert(node);
  for (const auto& [name, carried] : site.carried) keep.insert(carried.carries.begin(), carried.carries.end());
  const int loss_node = site.iteration_nodes.at(train.loss);
  comm::Communicator self(MPI_COMM_SELF);
  Network network(plan, deck, deck.run.dtype, c, resume);
  resume.carried.clear();  // the network holds its copy now
  TRA_ASSERT(resume.done % train.local_steps == 0, "a checkpoint of a run by rounds is written between rounds");
  const CheckpointRecord record = checkpoint_record(whole, train, model::batches_per_epoch(deck), n);
  std::map<std::string, int> next_nodes;  // the checkpoint's datasets
  for (const auto& [name, carried] : whole.carried) next_nodes[name] = carried.next;
  RoundsRun run;
  run.last = std::make_unique<exec::Executor>(ia, self, keep, analyze);
  exec::Executor& ex = *run.last;
  const Index batches = model::batches_per_epoch(site.workflow);
  // A site reads each of its batches once an epoch of its own: kept after
  // the first read where they fit, as a synchronous run keeps them.
  exec::InputCache input_cache(kept_inputs(ia, batches, train.iterations * n, spare_bytes, c));
  if (input_cache.keeps_any()) ex.set_input_cache(&input_cache);
  TrainingLog log(log_header(train, "iteration,round,loss,seconds,moved_floats"));
  const Index stride = std::max<Index>(1, train.iterations / 20);
  Index assembled = 0, moved = 0, gathered_moved = 0;  // this rank's, over the run
  bool accuracy_pending = false;
  // This site's loop-carried tensors: whole at a round's start, then handed
  // from one step to the next by the plan's Carry operators, in place.
  std::map<std::string, std::shared_ptr<const exec::HostTensor>> whole_inputs;
  std::map<int, std::vector<Tuple>> in_place;
  c.barrier();
  Stopwatch all;
  for (Index it = resume.done; it < train.iterations; ++it) {
    const Index iteration = it + 1, round = it / train.local_steps;
    Stopwatch step;
    Index step_moved = 0;
    if (it % train.local_steps == 0) {
      std::vector<std::vector<std::vector<Index>>> dealt;
      for (size_t l = 0; l < plan.layers.size(); ++l)
        dealt.push_back(model::deal_neurons(train.subnet_seed, round, static_cast<int>(l), plan.layers[l].size, n));
      for (auto& [name, t] : network.assemble(dealt, assembled, step_moved))
        whole_inputs[name] = std::make_shared<const exec::HostTensor>(std::move(t));
      in_place.clear();
    }
    for (const auto& [name, t] : whole_inputs) ex.set_input(name, t);
    for (auto& [node, tuples] : in_place) ex.set_scan_tuples(node, std::move(tuples));
    whole_inputs.clear();
    in_place.clear();
    for (const auto& [name, value] : autodiff::step_scalars(*train.optimizer, iteration))
      ex.set_input(name, std::make_shared<const exec::HostTensor>(exec::HostTensor{Shape{}, {value}}));
    const Index batch = model::batch_at(train, batches, it * n + me);
    for (const auto& t : site.workflow.tensors) {
      if (!t.batch) continue;
      Shape origin(t.shape.size(), 0);
      origin[static_cast<size_t>(t.batch->dim)] = batch * t.batch->size;
      ex.set_origin(t.name, origin);
    }
    // A site that fails alone (its batch unreadable) stops every site with it.
    comm::agree(c, [&] { ex.run(); });
    const bool round_ends = iteration % train.local_steps == 0 || iteration == train.iterations;
    if (round_ends) {
      std::map<std::string, exec::HostTensor> trained;
      for (const auto& [name, carried] : site.carried) {
        const physical::IaNode& next = ia.node(carried.next);
        trained[name] = exec::assemble(ex.result(carried.next), next.type.tensor_shape(), next.type.chunk_shape);
      }
      network.put_back(trained, step_moved);
    } else {
      for (const auto& [name, carried] : site.carried)
        for (int id : carried.carries) carry_over(ex, ia, name, carried, id, whole_inputs, in_place);
    }
    // The sites' mean loss, added in rank order.
    comm::Moved unused;
    const std::vector<Scalar> losses = comm::gather_values(c, {ex.result(loss_node).at(0).chunk.to_host().at(0)}, unused);
    double loss = 0;
    for (Scalar l : losses) loss += l;
    loss /= n;
    moved += step_moved;
    const double t = c.max(step.seconds());
    const Index all_moved = c.sum(step_moved);
    run.iterations.push_back({t, c.max(ex.totals().reading), c.max(ex.totals().operators), all_moved});
    const bool checkpointed =
        !files.checkpoint.empty() && round_ends && std::isfinite(loss) && (iteration == train.iterations || iteration % train.checkpoint_every == 0);
    if (checkpointed) {
      const auto& network_now = network.gathered(gathered_moved);
      for (const auto& [name, t] : network_now)
        for (Scalar v : t.values)
          if (!std::isfinite(v)) {
            log.write(c, files.log);
            throw UserError(train.loss_loc, "iteration " + std::to_string(iteration) + ": the round left a NaN or an infinite value in " + name +
                                                "; training stopped there and wrote no outputs; the checkpoint " + files.checkpoint +
                                                " holds the last good state, if any");
          }
      write_checkpoint(c, files.checkpoint, network_now, whole.optimized.chosen, next_nodes, iteration, record);
    }
    accuracy_pending = accuracy_pending || (held_out && accuracy_due(train, iteration));
    std::optional<double> accuracy;
    if (accuracy_pending && round_ends && std::isfinite(loss)) {
      std::map<std::string, exec::HostTensor> params;
      for (const auto& [name, values] : network.gathered(gathered_moved))
        if (deck.find_tensor(name)->param) params[name] = values;
      accuracy = held_out->accuracy(params, c);
      accuracy_pending = false;
    }
    log.add(log_row(train, {static_cast<double>(iteration), static_cast<double>(round + 1), loss, t, static_cast<double>(all_moved)}, accuracy));
    if (!std::isfinite(loss)) {
      log.write(c, files.log);
      throw UserError(train.loss_loc, "iteration " + std::to_string(iteration) + " (round " + std::to_string(round + 1) + "): the sites' mean loss " +
                                          train.loss + " is " +
                                          (std::isnan(loss) ? "NaN"
                                           : loss > 0       ? "+inf"
                                                            : "-inf") +
                                          "; training stopped there and wrote no outputs" +
                                          (files.log.empty() ? std::string() : "; the log up to it is " + files.log));
    }
    const bool reported = iteration <= 10 || iteration % stride == 0 || iteration == train.iterations;
    if (reported) {
      std::ostringstream line;
      line.precision(10);
      line << "iteration " << iteration << "/" << train.iterations << " (round " << round + 1 << "): loss " << loss;
      if (accuracy) line << ", held-out accuracy " << *accuracy;
      line << " (" << t << " s)";
      Log::progress(line.str());
    }
    if (iteration + 1 == train.iterations || (reported && iteration < train.iterations)) check_files();
  }
  Index final_moved = 0;
  run.trained = network.gathered(final_moved);
  if (held_out || !files.checkpoint.empty())
    Log::progress("the held-out evaluations and checkpoints gathered " + floats_text(c.sum(gathered_moved)) + " between the ranks");
  run.seconds = c.max(all.seconds());
  const Index rounds = (train.iterations - resume.done + train.local_steps - 1) / train.local_steps;
  const Index all_assembled = assembled / rounds;  // every rank counts every site's entries
  const Index moved_per_round = c.sum(moved) / rounds;
  std::ostringstream summary;
  summary << "training by rounds (" << plan.method << "): " << rounds << " round(s); per round the sites assembled " << floats_text(all_assembled)
          << " of subnetworks (predicted " << floats_text(plan.assembled) << ") and the ranks moved " << floats_text(moved_per_round)
          << " between them; the last gather moved " << floats_text(c.sum(final_moved));
  Log::progress(summary.str());
  // A run never ends "successfully" with non-finite weights.
  for (const auto& [name, t] : run.trained)
    for (Scalar v : t.values)
      if (!std::isfinite(v)) {
        log.write(c, files.log);
        throw UserError(train.loss_loc, "the last round left a NaN or an infinite value in " + name + "; training wrote no outputs");
      }
  log.write(c, files.log);
  return run;
}

}  // namespace tra::app
