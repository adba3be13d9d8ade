#include "tra/app/checkpoint.hpp"

#include <sstream>

#include "tra/app/result_dataset.hpp"
#include "tra/common/error.hpp"
#include "tra/common/log.hpp"
#include "tra/io/hdf5/whole_file.hpp"
#include "tra/io/hdf5/writer.hpp"

namespace tra::app {

namespace {

const char* const kDone = "tra_checkpoint_iterations_done";
const char* const kSetup = "tra_checkpoint_setup";
const char* const kRanks = "tra_ranks";

// The checkpoint as this rank reads it (read_checkpoint makes the ranks agree).
Checkpoint read_here(const std::string& path, const std::map<std::string, Shape>& shapes, const std::string& setup, Index iterations) {
  const io::hdf5::WholeFile file(path);
  const auto done = file.attribute(kDone);
  const auto written_for = file.attribute(kSetup);
  if (!done || !written_for) throw UserError("not a TRA training checkpoint (no attribute " + std::string(kDone) + ")");
  if (*written_for != setup)
    throw UserError("the checkpoint was written by a run training with '" + *written_for + "', but the deck trains with '" + setup + "'");
  Checkpoint ck;
  size_t used = 0;
  try {
    ck.done = std::stoll(*done, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != done->size() || ck.done < 0) throw UserError("attribute " + std::string(kDone) + " is '" + *done + "', not a count");
  if (ck.done >= iterations)
    throw UserError("the checkpoint is after iteration " + std::to_string(ck.done) + ", but the deck runs " + std::to_string(iterations) +
                    "; nothing is left to run");
  for (const auto& [name, shape] : shapes) {
    const std::string ds = "/" + name;
    if (!file.has_dataset(ds)) throw UserError("no dataset " + ds + " for the deck's tensor " + name + " (written by a different deck?)");
    if (file.shape(ds) != shape)
      throw UserError("dataset " + ds + " has shape " + shape_string(file.shape(ds)) + ", but the deck's " + name + " has shape " + shape_string(shape));
    ck.carried[name] = std::make_shared<const exec::HostTensor>(exec::HostTensor{shape, file.values(ds)});
  }
  return ck;
}

}  // namespace

std::string training_setup(const model::TrainSettings& train, Index batches_per_epoch) {
  std::ostringstream os;
  os.precision(17);
  const model::UpdateRule& r = *train.optimizer;
  switch (r.kind) {
    case model::UpdateRule::Kind::Sgd: os << "sgd lr " << r.lr; break;
    case model::UpdateRule::Kind::Momentum: os << "momentum lr " << r.lr << " beta " << r.beta; break;
    case model::UpdateRule::Kind::Adam: os << "adam lr " << r.lr << " beta1 " << r.beta << " beta2 " << r.beta2 << " eps " << r.eps; break;
  }
  os << "; order " << (train.order == model::TrainSettings::Order::Shuffled ? "shuffled seed " + std::to_string(train.seed) : "sequential");
  os << "; " << batches_per_epoch << " batch(es) per epoch";
  return os.str();
}

void write_checkpoint(const comm::Communicator& c, const std::string& path, const exec::Executor& ex, const physical::IaPlan& plan,
                      const std::map<std::string, int>& next_nodes, Index done, const std::string& setup) {
  io::hdf5::FileData f;
  f.path = path;
  for (const auto& [name, node] : next_nodes) f.datasets.push_back(result_dataset(ex, plan, node, "/" + name, c));
  f.attributes[kDone] = std::to_string(done);
  f.attributes[kSetup] = setup;
  f.attributes[kRanks] = std::to_string(c.size());
  io::hdf5::write_file(c, f);
}

Checkpoint read_checkpoint(const comm::Communicator& c, const std::string& path, const std::map<std::string, Shape>& shapes,
                           const std::string& setup, Index iterations) {
  const std::string what = "--resume " + path + ": ";
  // Every rank reads the file; they agree on the outcome before anyone
  // throws, so that a rank that cannot read it (a node that does not see
  // the file) stops them all instead of leaving the others in a collective.
  Checkpoint ck;
  std::string failure;
  try {
    ck = read_here(path, shapes, setup, iterations);
  } catch (const UserError& e) {
    failure = e.what();
  }
  if (c.max(failure.empty() ? 0.0 : 1.0) > 0) {
    if (!failure.empty()) throw UserError(what + failure);
    throw UserError(what + "another rank cannot read the checkpoint (is the file visible on every node?)");
  }
  if (const auto ranks = io::hdf5::WholeFile(path).attribute(kRanks); ranks && *ranks != std::to_string(c.size()))
    Log::warn("resuming on " + std::to_string(c.size()) + " rank(s) a checkpoint written on " + *ranks +
              ": the result equals the uninterrupted run's within rounding, bit for bit only on the same rank count");
  return ck;
}

}  // namespace tra::app
