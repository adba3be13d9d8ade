#include "tra/app/checkpoint.hpp"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "tra/app/result_dataset.hpp"
#include "tra/comm/agreement.hpp"
#include "tra/common/digest.hpp"
#include "tra/common/error.hpp"
#include "tra/common/log.hpp"
#include "tra/common/text.hpp"
#include "tra/io/hdf5/whole_file.hpp"
#include "tra/io/hdf5/writer.hpp"

namespace tra::app {

namespace {

const char* const kDone = "tra_checkpoint_iterations_done";
const char* const kSetup = "tra_checkpoint_setup";
const char* const kRanks = "tra_ranks";
const char* const kPlan = "tra_checkpoint_plan";  // the IA plan's digest
const char* const kPartitioner = "tra_checkpoint_partitioner";
const char* const kDtype = "tra_checkpoint_dtype";  // absent in checkpoints from before float32: float64

std::string joined(const std::vector<SetupPart>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p.text;
  return out;
}

std::vector<std::string> split_setup(const std::string& text) {
  std::vector<std::string> out;
  size_t from = 0;
  for (size_t at; (at = text.find("; ", from)) != std::string::npos; from = at + 2) out.push_back(text.substr(from, at - from));
  out.push_back(text.substr(from));
  return out;
}

// Whether two setup parts say the same: word by word, numbers by value
// ("lr 0.9" and a checkpoint's "lr 0.90000000000000002" are one rate).
bool same_part(const std::string& a, const std::string& b) {
  std::istringstream wa(a), wb(b);
  std::string x, y;
  while (true) {
    const bool more_a = static_cast<bool>(wa >> x), more_b = static_cast<bool>(wb >> y);
    if (!more_a || !more_b) return more_a == more_b;
    if (x == y) continue;
    char* end_x = nullptr;
    char* end_y = nullptr;
    const double vx = std::strtod(x.c_str(), &end_x), vy = std::strtod(y.c_str(), &end_y);
    if (*end_x != '\0' || *end_y != '\0' || end_x == x.c_str() || end_y == y.c_str() || vx != vy) return false;
  }
}

// What a checkpoint says about the run that wrote it ("" where it is silent).
struct WrittenBy {
  std::string ranks, plan, partitioner;
};

// Where the deck declares carried tensor `name` (W, or its state W.exp_avg: W's).
SourceLoc declared_at(const model::Workflow& wf, const std::string& name) {
  const model::TensorDecl* d = wf.find_tensor(name.substr(0, name.find('.')));
  return d ? d->loc : SourceLoc{wf.deck_path, 0, 0};
}

// The checkpoint as this rank reads it, and a digest of everything read
// (read_checkpoint makes the ranks agree on both).
Checkpoint read_here(const std::string& path, const PlannedDeck& planned, const CheckpointRecord& now, std::string& digest, WrittenBy& by) {
  const model::Workflow& wf = planned.workflow;
  const model::TrainSettings& train = *wf.train;
  const std::string what = "--resume " + path + ": ";
  const io::hdf5::WholeFile file(path);
  const auto done = file.attribute(kDone);
  const auto written_for = file.attribute(kSetup);
  if (!done || !written_for) throw UserError(what + "not a TRA training checkpoint (no attribute " + std::string(kDone) + ")");
  const std::vector<std::string> theirs = split_setup(*written_for);
  if (theirs.size() != now.setup.size())
    throw UserError(train.loc, what + "the checkpoint was written by a run training with '" + *written_for + "', but the deck trains with '" +
                                   joined(now.setup) + "'");
  for (size_t i = 0; i < theirs.size(); ++i)
    if (!same_part(theirs[i], now.setup[i].text))
      throw UserError(now.setup[i].where, what + "the checkpoint was written by a run training with '" + theirs[i] + "', but the deck trains with '" +
                                              now.setup[i].text + "'");
  const std::string theirs_dtype = file.attribute(kDtype).value_or(dtype_name(DType::Float64));
  if (theirs_dtype != dtype_name(now.dtype)) {
    const SourceLoc& at = wf.run.dtype_loc.file.empty() ? train.loc : wf.run.dtype_loc;  // where run: dtype is given (--set included)
    throw UserError(at, what + "the checkpoint holds " + theirs_dtype + " values, but this run computes in " + dtype_name(now.dtype) +
                            " (run: dtype); resume in " + theirs_dtype + ", as it was written");
  }
  Checkpoint ck;
  size_t used = 0;
  try {
    ck.done = std::stoll(*done, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != done->size() || ck.done < 0)
    throw UserError(what + "attribute " + std::string(kDone) + " is '" + *done + "', not a count");
  if (ck.done >= train.iterations)
    throw UserError(train.iterations_loc, what + "the checkpoint is after iteration " + std::to_string(ck.done) + ", but the deck runs " +
                                              std::to_string(train.iterations) + "; nothing is left to run");
  Digest d;
  d.add(*done).add(*written_for);
  for (const auto& [name, carried] : planned.carried) {
    const Shape shape = planned.optimized.chosen.node(carried.next).type.tensor_shape();
    const std::string ds = "/" + name;
    if (!file.has_dataset(ds))
      throw UserError(declared_at(wf, name), what + "no dataset " + ds + " for the deck's tensor " + name + " (written by a different deck?)");
    if (file.shape(ds) != shape)
      throw UserError(declared_at(wf, name), what + "dataset " + ds + " has shape " + shape_string(file.shape(ds)) + ", but the deck's " + name +
                                                 " has shape " + shape_string(shape));
    std::vector<Scalar> values = file.values(ds);
    Index nonfinite = 0;
    for (Scalar v : values) nonfinite += std::isfinite(v) ? 0 : 1;
    if (nonfinite > 0)
      throw UserError(what + "dataset " + ds + " holds " + std::to_string(nonfinite) +
                      " NaN or infinite value(s); training never checkpoints such a state (was the file changed?)");
    d.add(name).add(values.data(), values.size() * sizeof(Scalar));
    ck.carried[name] = std::make_shared<const exec::HostTensor>(exec::HostTensor{shape, std::move(values)});
  }
  digest = d.hex();
  by = {file.attribute(kRanks).value_or(""), file.attribute(kPlan).value_or(""), file.attribute(kPartitioner).value_or("")};
  return ck;
}

}  // namespace

CheckpointRecord checkpoint_record(const PlannedDeck& planned, const model::TrainSettings& train, Index batches_per_epoch, int ranks) {
  CheckpointRecord r;
  const model::UpdateRule& u = *train.optimizer;
  const auto num = [](double x) { return shortest_text(x); };
  std::string rule;
  switch (u.kind) {
    case model::UpdateRule::Kind::Sgd:
      rule = "sgd lr " + num(u.lr);
      break;
    case model::UpdateRule::Kind::Momentum:
      rule = "momentum lr " + num(u.lr) + " beta " + num(u.beta);
      break;
    case model::UpdateRule::Kind::Adam:
      rule = "adam lr " + num(u.lr) + " beta1 " + num(u.beta) + " beta2 " + num(u.beta2) + " eps " + num(u.eps);
      break;
  }
  const SourceLoc& order_at = train.order_loc.known() ? train.order_loc : train.loc;
  SourceLoc batches_at = train.loc;
  for (const auto& t : planned.workflow.tensors)
    if (t.batch) {
      batches_at = t.batch->loc;
      break;
    }
  r.setup = {
      {rule, u.loc},
      {"order " + (train.order == model::TrainSettings::Order::Shuffled ? "shuffled seed " + std::to_string(train.seed) : std::string("sequential")),
       order_at},
      {std::to_string(batches_per_epoch) + " batch(es) per epoch", batches_at}};
  // A run by rounds is its sites: the same method, rounds, assignments and
  // rank count, or another training altogether.
  if (train.by_rounds())
    r.setup.push_back({std::string("method ") + model::method_name(train.method) + " local_steps " + std::to_string(train.local_steps) + " seed " +
                           std::to_string(train.subnet_seed) + " on " + std::to_string(ranks) + " rank(s)",
                       train.method_loc});
  r.ranks = ranks;
  r.plan = Digest().add(planned.optimized.chosen.parameters()).hex();  // equal plans print alike, any other prints differently
  r.partitioner = planned.lowering.decomposition.partitioner;
  r.dtype = planned.workflow.run.dtype;
  return r;
}

namespace {

// The datasets, with what the run records, in place at `path`.
void write_with_record(const comm::Communicator& c, const std::string& path, std::vector<io::hdf5::DatasetData> datasets, Index done,
                       const CheckpointRecord& record) {
  io::hdf5::FileData f;
  f.path = path;
  f.what = "the checkpoint";
  f.datasets = std::move(datasets);
  for (auto& d : f.datasets) d.storage.float32 = record.dtype == DType::Float32;  // as computed: a resume reads back the same values
  f.attributes[kDone] = std::to_string(done);
  f.attributes[kSetup] = joined(record.setup);
  f.attributes[kRanks] = std::to_string(record.ranks);
  f.attributes[kPlan] = record.plan;
  f.attributes[kPartitioner] = record.partitioner;
  f.attributes[kDtype] = dtype_name(record.dtype);
  io::hdf5::write_file(c, f);
}

}  // namespace

void write_checkpoint(const comm::Communicator& c, const std::string& path, const exec::Executor& ex, const physical::IaPlan& plan,
                      const std::map<std::string, int>& next_nodes, Index done, const CheckpointRecord& record) {
  std::vector<io::hdf5::DatasetData> datasets;
  for (const auto& [name, node] : next_nodes) datasets.push_back(result_dataset(ex, plan, node, "/" + name, c));
  write_with_record(c, path, std::move(datasets), done, record);
}

void write_checkpoint(const comm::Communicator& c, const std::string& path, const std::map<std::string, exec::HostTensor>& tensors,
                      const physical::IaPlan& plan, const std::map<std::string, int>& next_nodes, Index done, const CheckpointRecord& record) {
  std::vector<io::hdf5::DatasetData> datasets;
  for (const auto& [name, node] : next_nodes) datasets.push_back(host_dataset(tensors.at(name), plan.node(node).type.chunk_shape, "/" + name, c));
  write_with_record(c, path, std::move(datasets), done, record);
}

Checkpoint read_checkpoint(const comm::Communicator& c, const std::string& path, const PlannedDeck& planned, const CheckpointRecord& now) {
  // Every rank reads the file; they agree on the outcome before anyone
  // throws, so that a rank that cannot read it (a node that does not see
  // the file) stops them all instead of leaving the others in a collective.
  Checkpoint ck;
  std::string digest;
  WrittenBy by;
  comm::agree(c, [&] {
    try {
      ck = read_here(path, planned, now, digest, by);
    } catch (const UserError& e) {
      // The file's own errors (missing, not HDF5, unreadable) name the option too.
      const std::string message = e.what();
      if (message.find("--resume ") != std::string::npos) throw;
      throw UserError("--resume " + path + ": " + message);
    }
  });
  // And on what they read: a stale node-local copy on one rank would train
  // from another state there, and the ranks would part ways.
  const std::string digest_on_0 = c.broadcast(digest);
  const long long done_on_0 = std::stoll(c.broadcast(std::to_string(ck.done)));
  comm::agree(c, [&] {
    if (digest != digest_on_0)
      throw UserError("--resume " + path + ": this rank read another checkpoint than rank 0 (after iteration " + std::to_string(ck.done) + " here, " +
                      std::to_string(done_on_0) +
                      " on rank 0, or other values); every rank must resume from the same file "
                      "(a stale copy on one node?)");
  });
  // The promise holds for the same arithmetic: the same ranks and plan.
  std::string differs;
  if (by.ranks != std::to_string(now.ranks))
    differs = "on " + (by.ranks.empty() ? std::string("unrecorded") : by.ranks) + " rank(s), now " + std::to_string(now.ranks);
  else if (by.plan != now.plan)
    differs = "under another IA plan (partitioner " + (by.partitioner.empty() ? std::string("unrecorded") : by.partitioner) + ", now " +
              now.partitioner + "; or other --disable, --strategy, calibration or memory bounds)";
  if (!differs.empty())
    Log::warn("--resume " + path + ": the checkpoint was written " + differs +
              ": the result equals the uninterrupted run's within rounding, bit for bit only on the same ranks under the same plan");
  return ck;
}

}  // namespace tra::app
