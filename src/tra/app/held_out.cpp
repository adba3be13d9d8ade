#include "tra/app/held_out.hpp"

#include <algorithm>
#include <set>

#include "tra/comm/agreement.hpp"
#include "tra/io/hdf5/reader.hpp"

namespace tra::app {

namespace {

// Each row's first largest entry, of a row-major rows × columns tensor.
std::vector<Index> row_classes(const exec::HostTensor& t) {
  const Index rows = t.shape.at(0), cols = t.shape.at(1);
  std::vector<Index> out(static_cast<size_t>(rows));
  for (Index r = 0; r < rows; ++r) {
    const auto first = t.values.begin() + r * cols;
    out[static_cast<size_t>(r)] = std::max_element(first, first + cols) - first;
  }
  return out;
}

// The deck's forward graph over the held-out rows: no training, the
// parameters plain inputs set before each run, the batch tensors the rows
// past the trained ones, the predictions its one output.
model::Workflow held_out_graph(const model::Workflow& deck) {
  const auto& acc = *deck.train->accuracy;
  model::Workflow e = deck;
  e.train.reset();
  drop_partitioning(e);
  model::OutputDecl out;
  out.tensor = acc.predictions;
  out.loc = acc.predictions_loc;
  e.outputs = {out};
  for (auto& t : e.tensors) {
    if (t.param) {
      t.param = false;
      t.nonnegative = false;
      t.source = model::Generator{};
      t.chunk.reset();
    }
    if (!t.batch) continue;
    const size_t dim = static_cast<size_t>(t.batch->dim);
    auto& h = std::get<model::Hdf5Source>(t.source);
    if (h.start.empty()) h.start = Shape(t.shape.size(), 0);
    h.start[dim] += t.batch->rows - t.batch->held_out;
    t.shape[dim] = t.batch->held_out;
    t.chunk.reset();
    t.batch.reset();
  }
  return e;
}

}  // namespace

HeldOut::HeldOut(const model::Workflow& deck, const physical::OptimizerOptions& options) : self_(MPI_COMM_SELF) {
  const auto& acc = *deck.train->accuracy;
  bool computed = false;
  for (const auto& s : deck.graph) computed = computed || model::statement_output(s) == acc.predictions;
  if (!computed) throw UserError(acc.predictions_loc, "accuracy predictions '" + acc.predictions + "' is not a tensor the graph computes");
  const model::Workflow e = held_out_graph(deck);
  plan_ = plan_deck(e, 1, options);
  const model::TensorDecl& targets = *e.find_tensor(acc.targets);
  const Shape predicted = plan_.optimized.chosen.node(plan_.output_nodes.at(0)).type.tensor_shape();
  if (targets.shape.size() != 2 || deck.find_tensor(acc.targets)->batch->dim != 0 || predicted != targets.shape)
    throw UserError(acc.predictions_loc, "accuracy compares each row's largest entry of predictions '" + acc.predictions + "' (" +
                                             shape_string(predicted) + " on the held-out rows) and of targets '" + acc.targets + "' (" +
                                             shape_string(targets.shape) + ", its batch along dimension " +
                                             std::to_string(deck.find_tensor(acc.targets)->batch->dim) +
                                             "): both must be rows × classes, with the rows the batch dimension");
  targets_ = acc.targets;
}

double HeldOut::accuracy(const std::map<std::string, exec::HostTensor>& params, const comm::Communicator& c) {
  double fraction = -1;  // on the other ranks
  // Rank 0 alone reads and runs; a failure there (the held-out rows
  // unreadable) stops every rank with it.
  comm::agree(c, [&] {
    if (c.rank() != 0) return;
    const model::TensorDecl& targets = *plan_.workflow.find_tensor(targets_);
    if (!ex_) {
      ex_ = std::make_unique<exec::Executor>(plan_.optimized.chosen, self_, std::set<int>{plan_.output_nodes.at(0)}, false);
      const Key origin(targets.shape.size(), 0);
      const Chunk read = io::hdf5::read_chunks(self_, std::get<model::Hdf5Source>(targets.source), targets.shape, {origin}).at(0).chunk;
      target_class_ = row_classes({targets.shape, read.to_host()});
    }
    for (const auto& [name, values] : params) ex_->set_input(name, std::make_shared<const exec::HostTensor>(values));
    ex_->run();
    const int node = plan_.output_nodes.at(0);
    const physical::IaNode& n = plan_.optimized.chosen.node(node);
    const std::vector<Index> predicted = row_classes(exec::assemble(ex_->result(node), n.type.tensor_shape(), n.type.chunk_shape));
    Index right = 0;
    for (size_t r = 0; r < predicted.size(); ++r) right += predicted[r] == target_class_[r];
    fraction = static_cast<double>(right) / static_cast<double>(predicted.size());
  });
  return c.max(fraction);
}

}  // namespace tra::app
