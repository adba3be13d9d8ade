#pragma once
// The cost of an IA plan (TRA paper §5.3) and a time estimate.
//
// The paper's cost is the floats moved: f·s per broadcast and f per shuffle of
// a relation of f floats. Because placement is deterministic the engine also
// knows the floats each Bcast and Shuffle really sends (a Bcast sends f·(s−1):
// a site does not send to itself), and that is what the executor measures.
//
// The time estimate adds what the paper leaves out and the plan choice needs:
// per operator, the busiest site's kernel flops at the GEMM or loop rate, the
// bytes its busiest site sends or receives at the network rate, its reads at
// the generator or HDF5 rate, a start-up latency per collective, and the fixed
// costs of an operator, of each kernel call and of opening an HDF5 file
// (ops::fixed_seconds); operators run one after another, so the estimate is
// their sum.
#include <vector>

#include "tra/physical/calibration.hpp"
#include "tra/physical/ia_plan.hpp"

namespace tra::physical {

struct PlanCost {
  double seconds = 0;  // time estimate
  Index floats_moved = 0;  // exact floats sent between sites
  double paper_cost = 0;  // Σ f·s over Bcasts + Σ f over Shuffles
  double flops = 0;
  int operators = 0;
  std::vector<double> node_seconds;  // per node (0 for nodes no root needs)

  // Plans are ranked by estimated time, then floats moved, then size.
  bool better_than(const PlanCost& o) const;
  std::string str() const;  // "est 0.512 s, 1200000 floats moved (paper cost 2.4e6), 12.8 GFLOP, 9 operators"
};

PlanCost cost_of(const IaPlan& plan, const Rates& rates);
// The same over the nodes in `order` (the nodes the roots need, in the order
// normalize() would give them; node_seconds follows it): the optimizer costs
// candidates before it normalizes them.
PlanCost cost_of(const IaPlan& plan, const Rates& rates, const std::vector<int>& order);
// The nodes the roots need, in plan order.
std::vector<int> live_nodes(const IaPlan& plan);

}  // namespace tra::physical
