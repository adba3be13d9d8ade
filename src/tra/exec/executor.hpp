#pragma once
// Runs an IA plan on the MPI ranks: one rank is one site. Each node turns its
// inputs' local tuples into its own; Bcast, Shuffle and a training step's
// Carry (exec/loop_carry.hpp) are the only steps that talk to other ranks.
// Per node the executor measures wall time and the floats actually sent
// between ranks, to stand next to the plan's prediction.
//
// The Scans run first, then the ranks meet, then the other operators in plan
// order: reading the inputs and computing are timed apart.
//
// A LocalJoin that feeds only a LocalAgg folding element-wise runs as one step
// with it (physical::streamed_into): the join's node holds the aggregated
// tuples, which the LocalAgg then takes over, and the join's time includes
// the fold.
//
// An element-wise join (an update W - lr·G, relu(Z + b)) writes its result
// over the chunks of an input that nothing reads after it, where no other
// relation shares them: parameters are updated in place, and such chains
// need no buffer per step.
//
// An executor is bound to its plan once and may run it many times (a
// training run's iterations): what the plan alone decides (every Bcast's and
// Shuffle's counts, which joins stream into their aggregations, when each
// result is last read) is worked out when it is made. Each run starts by
// dropping the previous run's results, so that a loop-carried tensor handed
// back through set_scan_tuples is held by its Scan alone and is updated in
// its own buffer.
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tra/comm/communicator.hpp"
#include "tra/comm/exchange.hpp"
#include "tra/exec/host_tensor.hpp"
#include "tra/exec/input_cache.hpp"
#include "tra/exec/kernel_start.hpp"
#include "tra/physical/ia_plan.hpp"

namespace tra::exec {

struct NodeRun {
  double seconds = 0;  // slowest rank's time in the operator
  Index floats_moved = 0;  // all ranks together
  int streamed_into = -1;  // a LocalJoin run as one step with this LocalAgg (its seconds include the fold)
  // A Scan that read nothing: its tuples were held from before (a training
  // run's loop-carried tensors, a batch kept after its first read).
  bool held = false;
};

// Time of the whole run, per rank summed and then the slowest rank's: with
// the ranks meeting only in collectives, a sum of per-operator maxima would
// count one rank's wait for another twice (where the slow rank worked, and
// where the others waited for it).
struct RunTotals {
  double reading = 0;  // Scans: generating or reading the inputs
  double operators = 0;  // everything else
};

class Executor {
 public:
  // Results of the nodes in `keep` stay available after run(); others are
  // freed as soon as their last consumer has run. `barrier_each`: the ranks
  // meet after every operator, so that each operator's time is its own and
  // not the wait for a slower rank's earlier work (EXPLAIN ANALYZE); without
  // it they meet only in the Bcasts and Shuffles. Collective over `c` where
  // the plan reads an HDF5 file or moves chunks between ranks: binding it
  // starts what it will run (exec/kernel_start.hpp).
  Executor(const physical::IaPlan& plan, const comm::Communicator& c, std::set<int> keep, bool barrier_each = false);

  // The Scans of `tensor` cut their chunks from `values` instead of reading
  // its source (a training loop's parameters after an update).
  void set_input(const std::string& tensor, std::shared_ptr<const HostTensor> values) { inputs_[tensor] = std::move(values); }
  // The Scan `node` returns `tuples` (this rank's, where the plan reads
  // them) instead of reading: a loop-carried tensor left in place by the
  // previous run (exec/loop_carry.hpp).
  void set_scan_tuples(int node, std::vector<Tuple> tuples) { scan_tuples_[node] = std::move(tuples); }
  // The Scans of `tensor` read the part of its HDF5 dataset that starts at
  // `origin` (a training loop's batch).
  void set_origin(const std::string& tensor, Shape origin) { origins_[tensor] = std::move(origin); }
  // The Scans `cache` keeps return what it kept of them (at their origin),
  // and keep what they read there (a training run's data that fits:
  // exec/input_cache.hpp).
  void set_input_cache(InputCache* cache) { input_cache_ = cache; }

  // One run of the plan. The inputs given by set_input and set_scan_tuples
  // are used by this run only; origins and the input cache stay set.
  void run(const std::function<void(int node)>& before_node = {});
  const std::vector<Tuple>& result(int node) const;
  const std::vector<NodeRun>& stats() const { return stats_; }
  const RunTotals& totals() const { return totals_; }
  // Seconds spent starting the plan's kernels and libraries when it was
  // bound (exec/kernel_start.hpp), in no operator's time.
  const StartTimes& start_times() const { return start_; }

 private:
  std::vector<Tuple> scan(int node, bool& held) const;
  std::vector<Tuple> execute(size_t at, Index& moved);  // node `at` on this rank
  const std::vector<Tuple>& input(size_t at, size_t k = 0) const;  // node at's k-th input's tuples on this rank
  // Each kind's step on this rank, one per parameters type
  // (physical/ops/kinds.hpp), defined in executor.cpp; execute(at) visits
  // the node's parameters.
  template <class Params>
  std::vector<Tuple> step(const Params& p, size_t at, Index& moved);
  // The input of element-wise join `at` whose chunks it may overwrite with
  // its own (0 or 1), or -1: an input read by no later operator, not kept,
  // each chunk paired once (the other side's keys are all joined on).
  int overwritable_input(size_t at) const;

  const physical::IaPlan& plan_;
  const comm::Communicator& comm_;
  std::set<int> keep_;
  bool barrier_each_;
  std::vector<std::vector<Tuple>> results_;
  std::vector<NodeRun> stats_;
  RunTotals totals_;
  StartTimes start_;
  std::map<std::string, std::shared_ptr<const HostTensor>> inputs_;
  std::map<std::string, Shape> origins_;
  InputCache* input_cache_ = nullptr;
  std::map<int, std::vector<Tuple>> scan_tuples_;
  std::vector<int> streamed_into_;  // per LocalJoin, the LocalAgg computed with it (exec/join_aggregate.hpp), or -1
  std::vector<int> last_use_;  // per node, its last consumer (-1: none), after which its tuples are freed
  // Per Bcast, the tuples each rank holds before it; per Shuffle, what this
  // rank sends and receives (exec/exchange_plan.hpp). Empty elsewhere.
  std::vector<std::vector<int>> broadcast_counts_;
  std::vector<comm::Counts> shuffle_counts_;
};

}  // namespace tra::exec
