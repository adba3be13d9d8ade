#include "tra/app/train_loop.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "tra/autodiff/updates.hpp"
#include "tra/comm/agreement.hpp"
#include "tra/comm/exchange.hpp"
#include "tra/common/error.hpp"
#include "tra/common/log.hpp"
#include "tra/common/timer.hpp"
#include "tra/exec/loop_carry.hpp"
#include "tra/io/text_file.hpp"
#include "tra/model/batch_order.hpp"

namespace tra::app {

namespace {

// Every tuple of `node`'s result, on every rank (a relation held everywhere
// is taken from rank 0 only).
std::vector<Tuple> gathered(const exec::Executor& ex, const physical::IaNode& node, int node_id, const comm::Communicator& c) {
  std::vector<Tuple> mine;
  if (!node.dist.everywhere || c.rank() == 0) mine = ex.result(node_id);
  comm::Moved moved;
  return comm::broadcast(c, mine, node.type.key_arity(), node.type.chunk_shape, moved);
}

}  // namespace

std::unique_ptr<exec::Executor> run_iterations(const PlannedDeck& planned, const model::TrainSettings& train, const comm::Communicator& c,
                                               std::set<int> keep, bool analyze, const TrainFiles& files, Checkpoint resume,
                                               double& seconds) {
  const physical::IaPlan& ia = planned.optimized.chosen;
  for (const auto& [name, node] : planned.iteration_nodes) keep.insert(node);
  const int loss_node = planned.iteration_nodes.at(train.loss);
  std::map<std::string, int> next_nodes;  // X -> the node computing X.next (the checkpoint's datasets)
  for (const auto& [name, carried] : planned.carried) next_nodes[name] = carried.next;
  const Index predicted = planned.carried_floats;
  std::map<std::string, std::map<Key, std::set<int>>> regrid_sites;  // X -> where each chunk of X.next goes, for Scans on another grid
  for (const auto& [name, carried] : planned.carried)
    regrid_sites[name] = exec::regrid_sites(ia.node(carried.next), carried.scan_nodes(ia), c.size());
  Log::progress("between iterations the loop-carried tensors move " + std::to_string(predicted) + " floats (predicted)");
  const Index batches = model::batches_per_epoch(planned.workflow);
  const std::string setup = training_setup(train, batches);
  // The next run's loop-carried inputs: whole tensors (a checkpoint's, or
  // where the update's chunks differ from the read's), else each Scan's tuples.
  std::map<std::string, std::shared_ptr<const exec::HostTensor>> whole = std::move(resume.carried);
  std::map<int, std::vector<Tuple>> in_place;
  std::ostringstream log;
  log << "iteration,batch,loss,seconds,reading_seconds\n";
  log.precision(17);
  std::unique_ptr<exec::Executor> ex;
  Index carried_moved = 0;
  c.barrier();
  Stopwatch all;
  for (Index it = resume.done; it < train.iterations; ++it) {
    Stopwatch step;
    ex = std::make_unique<exec::Executor>(ia, c, keep, analyze);
    for (const auto& [name, values] : whole) ex->set_input(name, values);
    for (auto& [node, tuples] : in_place) ex->set_scan_tuples(node, std::move(tuples));
    whole.clear();
    in_place.clear();
    for (const auto& [name, value] : autodiff::step_scalars(*train.optimizer, it + 1))
      ex->set_input(name, std::make_shared<const exec::HostTensor>(exec::HostTensor{Shape{}, {value}}));
    const Index batch = model::batch_at(train, batches, it);
    for (const auto& t : planned.workflow.tensors) {
      if (!t.batch) continue;
      Shape origin(t.shape.size(), 0);
      origin[static_cast<size_t>(t.batch->dim)] = batch * t.batch->size;
      ex->set_origin(t.name, origin);
    }
    ex->run();
    const std::vector<Tuple> loss_tuples = gathered(*ex, ia.node(loss_node), loss_node, c);
    const double loss = loss_tuples.at(0).chunk.to_host().at(0);
    const Index done = it + 1;
    if (done < train.iterations) {
      for (const auto& [name, carried] : planned.carried) {
        const physical::IaNode& n = ia.node(carried.next);
        for (int scan : carried.scans) {
          Index moved = 0;
          if (auto tuples = exec::carry(c, ex->result(carried.next), n, ia.node(scan), moved)) {
            in_place[scan] = std::move(*tuples);
            carried_moved += moved;
          }
        }
        // Scans on another chunk grid cut their chunks from the parts of X
        // this rank receives (an X read whole, updated in blocks).
        if (const auto& sites = regrid_sites.at(name); !sites.empty()) {
          Index moved = 0;
          const std::vector<Tuple> parts = exec::regrid(c, ex->result(carried.next), n, sites, moved);
          carried_moved += moved;
          whole[name] = std::make_shared<const exec::HostTensor>(exec::assemble(parts, n.type.tensor_shape(), n.type.chunk_shape));
        }
      }
    }
    const double t = c.max(step.seconds());
    if (!files.checkpoint.empty() && (done % train.checkpoint_every == 0 || done == train.iterations))
      write_checkpoint(c, files.checkpoint, *ex, ia, next_nodes, done, setup);
    log << it << "," << batch << "," << loss << "," << t << "," << ex->totals().reading << "\n";
    // The first ten iterations, then every 5% of the run, and the last (the
    // log has every one).
    const Index stride = std::max<Index>(1, train.iterations / 20);
    if (done <= 10 || done % stride == 0 || done == train.iterations) {
      std::ostringstream line;
      line.precision(10);
      line << "iteration " << done << "/" << train.iterations << ": loss " << loss << " (" << t << " s, " << 1 / t << " it/s)";
      Log::progress(line.str());
    }
  }
  seconds = c.max(all.seconds());
  const Index runs = train.iterations - resume.done;
  if (runs > 1) {
    const Index measured = c.sum(carried_moved) / (runs - 1);
    Log::progress("between iterations the loop-carried tensors moved " + std::to_string(measured) + " floats per iteration (measured; predicted " +
                  std::to_string(predicted) + ")");
  }
  // Rank 0 writes the log; a failure there (a full disk) stops every rank.
  comm::agree(c, [&] {
    if (!files.log.empty() && c.rank() == 0) io::write_text_file(files.log, log.str(), "the training log");
  });
  return ex;
}

}  // namespace tra::app
