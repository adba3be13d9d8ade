#include "tra/physical/verify.hpp"

#include <cstdlib>
#include <optional>
#include <type_traits>

#include "tra/common/error.hpp"
#include "tra/physical/infer.hpp"
#include "tra/physical/ops/ops.hpp"

namespace tra::physical {

namespace {

std::string at(size_t i, const std::string& why) { return "p" + std::to_string(i) + ": " + why; }

// The nodes the roots need.
std::vector<bool> needed(const IaPlan& plan) {
  std::vector<bool> need(plan.nodes.size(), false);
  for (int r : plan.roots) need[static_cast<size_t>(r)] = true;
  for (size_t i = plan.nodes.size(); i-- > 0;)
    if (need[i])
      for (int j : plan.nodes[i].inputs) need[static_cast<size_t>(j)] = true;
  return need;
}

// Inputs, roots and results name nodes, inputs before their consumers.
std::string structure_problem(const IaPlan& plan) {
  const int n = static_cast<int>(plan.nodes.size());
  if (plan.nsites < 1) return "the plan has " + std::to_string(plan.nsites) + " sites";
  for (int r : plan.roots)
    if (r < 0 || r >= n) return "root p" + std::to_string(r) + " is not a node";
  for (int r : plan.tra_to_ia)
    if (r < -1 || r >= n) return "result p" + std::to_string(r) + " is not a node";
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    const IaNode& node = plan.nodes[i];
    const int reads = std::visit([](const auto& p) { return std::decay_t<decltype(p)>::kInputs; }, node.params);
    if (static_cast<int>(node.inputs.size()) != reads)
      return at(i, node.name() + " reads " + std::to_string(reads) + " input(s), it has " + std::to_string(node.inputs.size()));
    for (int j : node.inputs)
      if (j < 0 || j >= static_cast<int>(i)) return at(i, "input p" + std::to_string(j) + " does not come before it");
  }
  return "";
}

// Types and placements of one inferred node agree with its parameters
// (each kind says how: ops/<kind>.cpp).
std::string typing_problem(const IaPlan& plan, const IaNode& n) {
  const ops::Context c{plan, plan.nsites};
  return std::visit([&](const auto& p) { return ops::typing_problem(p, n, c); }, n.params);
}

// A node's derived fields as a fresh inference makes them.
bool same_derived(const IaNode& held, const IaNode& fresh) {
  return held.type == fresh.type && held.dist == fresh.dist && held.scattered == fresh.scattered && held.invalid == fresh.invalid &&
         held.predicted_floats == fresh.predicted_floats && held.paper_cost == fresh.paper_cost && held.flops == fresh.flops &&
         held.site_flops == fresh.site_flops && held.site_fold_flops == fresh.site_fold_flops && held.site_floats_in == fresh.site_floats_in &&
         held.site_calls == fresh.site_calls;
}

std::optional<bool>& forced() {
  static std::optional<bool> on;
  return on;
}

}  // namespace

std::string plan_problem(const IaPlan& plan) {
  if (std::string s = structure_problem(plan); !s.empty()) return s;
  const std::vector<bool> need = needed(plan);
  // Typing first: inference cannot run on keys that name no dimension.
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    if (!need[i]) continue;
    if (plan.nodes[i].stale) return at(i, "not inferred since it or an input changed");
    if (std::string s = typing_problem(plan, plan.nodes[i]); !s.empty()) return at(i, s);
  }
  IaPlan fresh = plan;
  for (IaNode& n : fresh.nodes) n.stale = true;
  infer(fresh);
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    if (!need[i]) continue;
    const IaNode& n = plan.nodes[i];
    if (!same_derived(n, fresh.nodes[i])) return at(i, "its derived fields are not what its parameters and inputs give now");
    if (!n.invalid.empty()) return at(i, n.invalid);
  }
  return "";
}

bool verifying() {
  if (forced()) return *forced();
#ifndef NDEBUG
  return true;
#else
  static const bool from_env = [] {
    const char* v = std::getenv("TRA_VERIFY_PLANS");
    return v && std::string(v) == "1";
  }();
  return from_env;
#endif
}

void set_verifying(bool on) { forced() = on; }

void verify(const IaPlan& plan, const std::string& step) {
  if (!verifying()) return;
  const std::string problem = plan_problem(plan);
  TRA_ASSERT(problem.empty(), "the IA plan after " << step << " breaks an invariant: " << problem << "\n" << plan.str());
}

}  // namespace tra::physical
