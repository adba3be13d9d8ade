#include "tra/physical/cost_model.hpp"

#include <cmath>
#include <cstdio>
#include <variant>

#include "tra/physical/ops/ops.hpp"

namespace tra::physical {

bool PlanCost::better_than(const PlanCost& o) const {
  // Estimates within a part in a million are ties: decided by traffic, then size.
  const double tol = 1e-6 * std::max(seconds, o.seconds);
  if (std::abs(seconds - o.seconds) > tol) return seconds < o.seconds;
  if (floats_moved != o.floats_moved) return floats_moved < o.floats_moved;
  return operators < o.operators;
}

std::string PlanCost::str() const {
  char line[256];
  std::snprintf(line, sizeof line, "est %.4g s, %lld floats moved (paper cost %.3g), %.4g GFLOP, %d operators", seconds,
                static_cast<long long>(floats_moved), paper_cost, flops / 1e9, operators);
  return line;
}

namespace {

// Each kind's estimate lives with the kind (ops/<kind>.cpp); `gemm_folds`: a
// LocalAgg whose members a GEMM adds in place as it makes them (folds_in_gemm).
double node_seconds(const IaNode& n, const Rates& r, bool gemm_folds) {
  return std::visit([&](const auto& p) { return ops::seconds(p, n, r, gemm_folds); }, n.params);
}

// Node n's share, added in plan order (sums of the same terms in the same
// order give the same estimate to the last bit).
void add(PlanCost& c, const IaNode& n, const Rates& rates, bool gemm_folds, double& seconds) {
  seconds = node_seconds(n, rates, gemm_folds);
  c.seconds += seconds;
  c.floats_moved += n.predicted_floats;
  c.paper_cost += n.paper_cost;
  c.flops += n.flops;
  ++c.operators;
}

// Per node: a LocalAgg whose join streams into it and folds in its GEMM.
std::vector<bool> folded_in_gemm(const IaPlan& plan, const std::vector<int>& live) {
  const std::vector<int> into = streamed_into(plan, live);
  std::vector<bool> out(plan.nodes.size(), false);
  for (size_t j = 0; j < into.size(); ++j)
    if (folds_in_gemm(plan, static_cast<int>(j), into[j])) out[static_cast<size_t>(into[j])] = true;
  return out;
}

}  // namespace

std::vector<int> live_nodes(const IaPlan& plan) {
  std::vector<bool> need(plan.nodes.size(), false);
  for (int r : plan.roots) need[static_cast<size_t>(r)] = true;
  for (size_t i = plan.nodes.size(); i-- > 0;)
    if (need[i])
      for (int j : plan.nodes[i].inputs) need[static_cast<size_t>(j)] = true;
  std::vector<int> live;
  for (size_t i = 0; i < plan.nodes.size(); ++i)
    if (need[i]) live.push_back(static_cast<int>(i));
  return live;
}

PlanCost cost_of(const IaPlan& plan, const Rates& rates) {
  const std::vector<int> live = live_nodes(plan);
  const std::vector<bool> gemm_folds = folded_in_gemm(plan, live);
  PlanCost c;
  c.node_seconds.assign(plan.nodes.size(), 0);
  for (int i : live) add(c, plan.node(i), rates, gemm_folds[static_cast<size_t>(i)], c.node_seconds[static_cast<size_t>(i)]);
  return c;
}

PlanCost cost_of(const IaPlan& plan, const Rates& rates, const std::vector<int>& order) {
  const std::vector<bool> gemm_folds = folded_in_gemm(plan, order);
  PlanCost c;
  c.node_seconds.assign(order.size(), 0);
  for (size_t k = 0; k < order.size(); ++k) add(c, plan.node(order[k]), rates, gemm_folds[static_cast<size_t>(order[k])], c.node_seconds[k]);
  return c;
}

}  // namespace tra::physical
