#include "tra/app/train_loop.hpp"

#include <map>
#include <sstream>

#include "tra/autodiff/updates.hpp"
#include "tra/comm/exchange.hpp"
#include "tra/common/error.hpp"
#include "tra/common/log.hpp"
#include "tra/common/timer.hpp"
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
                                               std::set<int> keep, bool analyze, const TrainFiles& files, const Checkpoint& resume,
                                               double& seconds) {
  const physical::IaPlan& ia = planned.optimized.chosen;
  for (const auto& [name, node] : planned.iteration_nodes) keep.insert(node);
  const int loss_node = planned.iteration_nodes.at(train.loss);
  std::map<std::string, int> next_nodes;  // X -> the node computing X.next
  for (const auto& [name, node] : planned.iteration_nodes)
    if (name != train.loss) next_nodes[autodiff::carried_by(name)] = node;
  const Index batches = model::batches_per_epoch(planned.workflow);
  const std::string setup = training_setup(train, batches);
  std::map<std::string, std::shared_ptr<const exec::HostTensor>> carried = resume.carried;  // X -> its value for the next run
  std::ostringstream log;
  log << "iteration,batch,loss,seconds\n";
  log.precision(17);
  std::unique_ptr<exec::Executor> ex;
  c.barrier();
  Stopwatch all;
  for (Index it = resume.done; it < train.iterations; ++it) {
    Stopwatch step;
    ex = std::make_unique<exec::Executor>(ia, c, keep, analyze);
    for (const auto& [name, values] : carried) ex->set_input(name, values);
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
    for (const auto& [name, node] : next_nodes) {
      const physical::IaNode& n = ia.node(node);
      carried[name] = std::make_shared<const exec::HostTensor>(exec::assemble(gathered(*ex, n, node, c), n.type.tensor_shape(), n.type.chunk_shape));
    }
    const double t = c.max(step.seconds());
    const Index done = it + 1;
    if (!files.checkpoint.empty() && (done % train.checkpoint_every == 0 || done == train.iterations))
      write_checkpoint(c, files.checkpoint, *ex, ia, next_nodes, done, setup);
    log << it << "," << batch << "," << loss << "," << t << "\n";
    std::ostringstream line;
    line.precision(10);
    line << "iteration " << done << "/" << train.iterations << ": loss " << loss << " (" << t << " s, " << 1 / t << " it/s)";
    Log::progress(line.str());
  }
  seconds = c.max(all.seconds());
  if (!files.log.empty() && c.rank() == 0) io::write_text_file(files.log, log.str(), "the training log");
  return ex;
}

}  // namespace tra::app
