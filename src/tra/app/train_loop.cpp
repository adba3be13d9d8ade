#include "tra/app/train_loop.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "tra/app/input_file_stamps.hpp"
#include "tra/app/kept_inputs.hpp"
#include "tra/app/training_log.hpp"
#include "tra/autodiff/updates.hpp"
#include "tra/comm/agreement.hpp"
#include "tra/comm/exchange.hpp"
#include "tra/common/device_memory.hpp"
#include "tra/common/error.hpp"
#include "tra/common/log.hpp"
#include "tra/common/timer.hpp"
#include "tra/exec/host_tensor.hpp"
#include "tra/exec/input_cache.hpp"
#include "tra/kernels/finite.hpp"
#include "tra/model/batch_order.hpp"
#include "tra/physical/memory_estimate.hpp"

namespace tra::app {

namespace {

// Every tuple of `node`'s result, on every rank (a relation held everywhere
// is taken from rank 0 only).
std::vector<Tuple> gathered(const exec::Executor& ex, const physical::IaNode& node, int node_id, const comm::Communicator& c) {
  std::vector<Tuple> mine;
  if (!node.dist.everywhere || c.rank() == 0) mine = ex.result(node_id);
  comm::Moved moved;
  return comm::broadcast(c, mine, node.type.key_arity(), node.type.chunk_shape, node.type.dtype, moved);
}

// The first loop-carried tensor (by name) whose update holds a NaN or an
// infinity on any rank, with how many such values, or ("", 0). One
// reduction on each chunk where it lives, one collective for all tensors.
std::pair<std::string, Index> first_nonfinite(const exec::Executor& ex, const std::map<std::string, PlannedDeck::Carried>& carried,
                                              const physical::IaPlan& ia, const comm::Communicator& c) {
  std::vector<long long> counts;
  for (const auto& [name, x] : carried) {
    long long n = 0;
    // A tensor held on every rank is counted once, on rank 0.
    if (!ia.node(x.next).dist.everywhere || c.rank() == 0)
      for (const Tuple& t : ex.result(x.next)) n += kernels::nonfinite_count(t.chunk);
    counts.push_back(n);
  }
  c.sum(counts);
  size_t i = 0;
  for (const auto& [name, x] : carried) {
    if (counts[i] > 0) return {name, counts[i]};
    ++i;
  }
  return {"", 0};
}

}  // namespace

std::set<int> kept_inputs(const physical::IaPlan& ia, Index batches, Index runs, std::int64_t spare_bytes, const comm::Communicator& c) {
  std::set<int> scans = reread_data_scans(ia, batches, runs);
  const double all = c.max(kept_bytes(ia, scans, batches, c.rank()));
  if (all == 0) return {};
  const double adds = c.max(keeping_adds(ia, scans, batches, c.rank()));
  const double room = static_cast<double>(spare_bytes);
  const int ranks_on_node = c.ranks_on_node();  // collective: called by every rank
  const std::int64_t device = device_free_bytes();
  const bool device_fits = device < 0 || all <= static_cast<double>(device) / 2 / ranks_on_node;
  const bool fits = c.max(adds <= room && device_fits ? 0.0 : 1.0) == 0;
  const auto text = [](double b) { return physical::bytes_text(static_cast<std::int64_t>(std::max(0.0, b))); };
  const std::string size = text(all) + " per rank, " + text(adds) + " beyond the plan's estimate";
  if (!fits) {
    Log::progress("data inputs: read every iteration (keeping them would take " + size + ", more than the " + text(room) + " left beside the plan" +
                  (device >= 0 ? " or half of a rank's share of the device's free memory" : "") + ")");
    return {};
  }
  Log::progress("data inputs: kept after their first read (" + size + ")");
  return scans;
}

TrainingRun run_iterations(const PlannedDeck& planned, const model::TrainSettings& train, const comm::Communicator& c, std::set<int> keep,
                           bool analyze, const TrainFiles& files, Checkpoint resume, const std::function<void()>& check_files,
                           std::int64_t spare_bytes, HeldOut* held_out) {
  const physical::IaPlan& ia = planned.optimized.chosen;
  for (const auto& [name, node] : planned.iteration_nodes) keep.insert(node);
  const int loss_node = planned.iteration_nodes.at(train.loss);
  std::map<std::string, int> next_nodes;  // X -> the node computing X.next (the checkpoint's datasets)
  for (const auto& [name, carried] : planned.carried) {
    next_nodes[name] = carried.next;
    keep.insert(carried.carries.begin(), carried.carries.end());
  }
  const Index predicted = planned.carried_floats;
  Log::progress("between iterations the loop-carried tensors move " + std::to_string(predicted) + " floats (predicted)");
  const Index batches = model::batches_per_epoch(planned.workflow);
  const CheckpointRecord record = checkpoint_record(planned, train, batches, c.size());
  exec::InputCache input_cache(kept_inputs(ia, batches, train.iterations - resume.done, spare_bytes, c));
  const bool reuse_inputs = input_cache.keeps_any();
  const InputFileStamps input_files(planned.workflow);  // checked at each epoch when the data is kept
  // The next run's loop-carried inputs: whole tensors (a checkpoint's, or
  // where the update's chunks differ from the read's), else each Scan's tuples.
  std::map<std::string, std::shared_ptr<const exec::HostTensor>> whole = std::move(resume.carried);
  std::map<int, std::vector<Tuple>> in_place;
  TrainingLog log(log_header(train, "iteration,batch,loss,seconds,reading_seconds"));
  TrainingRun run;
  Index carried_moved = 0;
  Index last_checkpoint = 0;  // the iterations the last checkpoint this run wrote holds (0: none written)
  const Index stride = std::max<Index>(1, train.iterations / 20);  // progress: the first ten, then every 5%, and the last
  // Stops every rank alike (the loss is the same on every rank, the counts
  // are summed): the log up to this iteration is written, the checkpoint
  // on disk is the last good one.
  auto stop = [&](Index iteration, const std::string& what) {
    std::string kept;
    if (!files.checkpoint.empty())
      kept = last_checkpoint > 0 ? " The checkpoint " + files.checkpoint + " holds the state after iteration " + std::to_string(last_checkpoint) + "."
             : resume.done > 0   ? " No checkpoint was written by this run (it resumed after iteration " + std::to_string(resume.done) + ")."
                                 : " No checkpoint was written by this run.";
    // The log, unless writing it fails too (which then must not hide why the run stopped).
    try {
      log.write(c, files.log);
      if (!files.log.empty()) kept += " The log up to iteration " + std::to_string(iteration) + " is " + files.log + ".";
    } catch (const UserError& e) {
      kept += std::string(" The log could not be written: ") + e.what();
    }
    throw UserError(train.loss_loc, "iteration " + std::to_string(iteration) + ": " + what +
                                        "; training stopped there and wrote no outputs (a NaN or an infinity in the data, a division by zero, "
                                        "or a step too large for the loss)." +
                                        kept);
  };
  // One executor for every iteration: the plan's exchange counts and the
  // rest of what it decides are worked out once. Each run drops the last
  // run's results before it starts, so a parameter handed back in place is
  // held by its Scan alone and updated in its own buffer.
  TRA_ASSERT(resume.done < train.iterations, "a training run of no iterations (the deck reader bounds them)");
  auto ex = std::make_unique<exec::Executor>(ia, c, keep, analyze);
  if (reuse_inputs) ex->set_input_cache(&input_cache);
  c.barrier();
  Stopwatch all, since_log;
  for (Index it = resume.done; it < train.iterations; ++it) {
    const Index iteration = it + 1;  // counted from 1 (the header)
    Stopwatch step;
    for (const auto& [name, values] : whole) ex->set_input(name, values);
    for (auto& [node, tuples] : in_place) ex->set_scan_tuples(node, std::move(tuples));
    whole.clear();
    in_place.clear();
    for (const auto& [name, value] : autodiff::step_scalars(*train.optimizer, iteration))
      ex->set_input(name, std::make_shared<const exec::HostTensor>(exec::HostTensor{Shape{}, {value}}));
    const Index batch = model::batch_at(train, batches, it);
    for (const auto& t : planned.workflow.tensors) {
      if (!t.batch) continue;
      Shape origin(t.shape.size(), 0);
      origin[static_cast<size_t>(t.batch->dim)] = batch * t.batch->size;
      ex->set_origin(t.name, origin);
    }
    if (reuse_inputs && it > resume.done && it % batches == 0) input_files.check(c);
    ex->run();
    const std::vector<Tuple> loss_tuples = gathered(*ex, ia.node(loss_node), loss_node, c);
    const double loss = loss_tuples.at(0).chunk.to_host().at(0);
    const bool reported = iteration <= 10 || iteration % stride == 0 || iteration == train.iterations;  // a progress line
    const bool checkpointed = !files.checkpoint.empty() && (iteration % train.checkpoint_every == 0 || iteration == train.iterations);
    // The updated tensors are checked where the run saves them (a
    // checkpoint, the outputs after the last iteration): a pass over every
    // parameter each iteration would cost a large model's step a few
    // percent, and between checks a NaN update shows in the next
    // iteration's loss, which it reaches through any path.
    const auto [broken, nonfinite] =
        checkpointed || iteration == train.iterations ? first_nonfinite(*ex, planned.carried, ia, c) : std::pair<std::string, Index>{"", 0};
    // The run's Carry operators brought each X.next to where the next run
    // reads X: its Scans take their tuples, and Scans on another chunk grid
    // cut their chunks from the parts of X this rank received (an X read
    // whole, updated in blocks).
    for (const auto& [name, carried] : planned.carried)
      for (int id : carried.carries) {
        carried_moved += ex->stats()[static_cast<size_t>(id)].floats_moved;
        if (iteration == train.iterations || !std::isfinite(loss) || !broken.empty()) continue;
        carry_over(*ex, ia, name, carried, id, whole, in_place);
      }
    const double t = c.max(step.seconds());
    Index moved = 0;
    for (const exec::NodeRun& r : ex->stats()) moved += r.floats_moved;
    run.iterations.push_back({t, ex->totals().reading, ex->totals().operators, moved});
    // The parameters' updates gathered whole (not timed with the step).
    std::optional<double> accuracy;
    if (held_out && std::isfinite(loss) && accuracy_due(train, iteration)) {
      std::map<std::string, exec::HostTensor> params;
      for (const auto& t : planned.workflow.tensors) {
        if (!t.param) continue;
        const int next = planned.carried.at(t.name).next;
        const physical::IaNode& n = ia.node(next);
        params[t.name] = exec::assemble(gathered(*ex, n, next, c), n.type.tensor_shape(), n.type.chunk_shape);
      }
      accuracy = held_out->accuracy(params, c);
    }
    log.add(log_row(train, {static_cast<double>(iteration), static_cast<double>(batch), loss, t, ex->totals().reading}, accuracy));
    if (!std::isfinite(loss)) stop(iteration, "the loss " + train.loss + " is " + (std::isnan(loss) ? "NaN" : loss > 0 ? "+inf" : "-inf"));
    if (!broken.empty())
      stop(iteration,
           "the update left " + std::to_string(nonfinite) + " NaN or infinite value(s) in " + broken + " (a gradient or a step was not finite)");
    if (checkpointed) {
      write_checkpoint(c, files.checkpoint, *ex, ia, next_nodes, iteration, record);
      last_checkpoint = iteration;
      // The log up to the checkpoint, for a job that is stopped before the
      // end; at most every 10 s (the log is written whole, and a run may
      // checkpoint every iteration). Rank 0's clock decides for all.
      if (c.broadcast(std::to_string(since_log.seconds() >= 10)) == "1") {
        log.write(c, files.log);
        since_log.restart();
      }
    }
    if (reported) {
      std::ostringstream line;
      line.precision(10);
      line << "iteration " << iteration << "/" << train.iterations << ": loss " << loss;
      if (accuracy) line << ", held-out accuracy " << *accuracy;
      line << " (" << t << " s, " << 1 / t << " it/s)";
      Log::progress(line.str());
    }
    // Where the run writes, checked as it goes: with each progress line and
    // before the iteration whose results are the outputs.
    if (iteration + 1 == train.iterations || (reported && iteration < train.iterations)) check_files();
  }
  run.last = std::move(ex);
  run.seconds = c.max(all.seconds());
  const Index runs = train.iterations - resume.done;
  if (runs > 0) {
    const Index measured = carried_moved / runs;  // summed over the ranks by the executor
    Log::progress("between iterations the loop-carried tensors moved " + std::to_string(measured) + " floats per iteration (measured; predicted " +
                  std::to_string(predicted) + ")");
  }
  log.write(c, files.log);
  return run;
}

bool accuracy_due(const model::TrainSettings& train, Index iteration) {
  return train.accuracy && (iteration % train.accuracy->every == 0 || iteration == train.iterations);
}

std::string log_header(const model::TrainSettings& train, const std::string& columns) { return columns + (train.accuracy ? ",accuracy" : ""); }

std::vector<std::optional<double>> log_row(const model::TrainSettings& train, std::vector<std::optional<double>> row,
                                           std::optional<double> accuracy) {
  if (train.accuracy) row.push_back(accuracy);
  return row;
}

void carry_over(const exec::Executor& ex, const physical::IaPlan& ia, const std::string& name, const PlannedDeck::Carried& carried, int carry_node,
                std::map<std::string, std::shared_ptr<const exec::HostTensor>>& whole, std::map<int, std::vector<Tuple>>& in_place) {
  const physical::CarryParams& carry = ia.node(carry_node).carry();
  const physical::IaNode& next = ia.node(carried.next);
  if (!carry.regrid) in_place[carry.scans.at(0)] = ex.result(carry_node);
  else whole[name] = std::make_shared<const exec::HostTensor>(exec::assemble(ex.result(carry_node), next.type.tensor_shape(), next.type.chunk_shape));
}

}  // namespace tra::app
