#pragma once
// Runs an IA plan on the MPI ranks: one rank is one site. Each node turns its
// inputs' local tuples into its own; Bcast and Shuffle are the only steps that
// talk to other ranks. Per node the executor measures wall time and the floats
// actually sent between ranks, to stand next to the plan's prediction.
#include <functional>
#include <set>
#include <vector>

#include "tra/comm/communicator.hpp"
#include "tra/physical/ia_plan.hpp"

namespace tra::exec {

struct NodeRun {
  double seconds = 0;   // slowest rank
  Index floats_moved = 0;  // all ranks together
};

class Executor {
 public:
  // Results of the nodes in `keep` stay available after run(); others are
  // freed as soon as their last consumer has run.
  Executor(const physical::IaPlan& plan, const comm::Communicator& c, std::set<int> keep);

  void run(const std::function<void(int node)>& before_node = {});
  const std::vector<Tuple>& result(int node) const;
  const std::vector<NodeRun>& stats() const { return stats_; }

 private:
  std::vector<Tuple> scan(const physical::IaNode& n) const;
  std::vector<Tuple> execute(const physical::IaNode& n, Index& moved);

  const physical::IaPlan& plan_;
  const comm::Communicator& comm_;
  std::set<int> keep_;
  std::vector<std::vector<Tuple>> results_;
  std::vector<NodeRun> stats_;
};

}  // namespace tra::exec
