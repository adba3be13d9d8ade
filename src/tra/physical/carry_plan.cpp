#include "tra/physical/carry_plan.hpp"

#include <algorithm>
#include <map>

#include "tra/physical/infer.hpp"
#include "tra/physical/ops/ops.hpp"

namespace tra::physical {

std::map<Key, int> sites_of(const Distribution& d) {
  std::map<Key, int> out;
  for (const auto& [k, site] : d.at) out.emplace(k, site);
  return out;
}

namespace {

// Whether chunk `a` (of shape `ca`) and chunk `b` (of shape `cb`) share an element.
bool overlap(const Key& a, const Shape& ca, const Key& b, const Shape& cb) {
  for (size_t i = 0; i < a.size(); ++i)
    if ((a[i] + 1) * ca[i] <= b[i] * cb[i] || (b[i] + 1) * cb[i] <= a[i] * ca[i]) return false;
  return true;
}

}  // namespace

std::map<Key, std::set<int>> regrid_sites(const IaNode& next, const std::vector<const IaNode*>& scans, int nranks) {
  std::map<Key, std::set<int>> out;
  const bool any = std::any_of(scans.begin(), scans.end(), [&](const IaNode* s) { return s->type.chunk_shape != next.type.chunk_shape; });
  if (!any) return out;
  for (const auto& [k, site] : next.dist.at) {
    std::set<int>& to = out[k];
    for (const IaNode* scan : scans) {
      if (scan->type.chunk_shape == next.type.chunk_shape) continue;  // carried chunk for chunk
      if (scan->dist.everywhere) {
        for (int r = 0; r < nranks; ++r) to.insert(r);
        continue;
      }
      for (const auto& [q, at] : scan->dist.at)
        if (overlap(k, next.type.chunk_shape, q, scan->type.chunk_shape)) to.insert(at);
    }
  }
  return out;
}

namespace {

// The carries of a training step's plan, as their parameters (X named, not
// copied: the search costs them for every candidate), each with X.next's node.
struct CarrySpec {
  int next;
  const std::string* tensor;
  std::vector<int> scans;
  bool regrid;
};

std::vector<CarrySpec> carry_specs(const IaPlan& plan, const std::vector<int>& live, const CarriedRoots& carried) {
  // The Scans of each carried tensor, in the order of `carried` (the search
  // calls this for every candidate).
  std::vector<std::vector<int>> scans_of(carried.size());
  for (int i : live) {
    const IaNode& n = plan.node(i);
    if (n.kind() != IaKind::Scan || !n.scan().source) continue;
    if (auto x = carried.find(n.scan().source->name); x != carried.end())
      scans_of[static_cast<size_t>(std::distance(carried.begin(), x))].push_back(i);
  }
  std::vector<CarrySpec> out;
  size_t t = 0;
  for (const auto& [x, root] : carried) {
    const int next = plan.roots.at(static_cast<size_t>(root));
    std::vector<int> other_chunks;
    for (int s : scans_of[t++]) {
      if (plan.node(s).type.chunk_shape == plan.node(next).type.chunk_shape) out.push_back({next, &x, {s}, false});
      else other_chunks.push_back(s);
    }
    if (!other_chunks.empty()) out.push_back({next, &x, std::move(other_chunks), true});
  }
  return out;
}

}  // namespace

std::vector<IaNode> carries(const IaPlan& plan, const std::vector<int>& live, const CarriedRoots& carried) {
  std::vector<IaNode> out;
  for (CarrySpec& s : carry_specs(plan, live, carried)) {
    IaNode c;
    c.params = CarryParams{*s.tensor, std::move(s.scans), s.regrid};
    c.inputs = {s.next};
    out.push_back(std::move(c));
  }
  return out;
}

void add_carry_costs(PlanCost& c, const IaPlan& plan, const std::vector<int>& live, const CarriedRoots& carried, const Rates& rates) {
  if (carried.empty()) return;
  const ops::Context context{plan, plan.nsites};
  for (const CarrySpec& s : carry_specs(plan, live, carried)) {
    const IaNode& next = plan.node(s.next);
    const ops::CarryTraffic t = ops::carry_traffic(s.scans, s.regrid, next, context);
    const double seconds = ops::carry_seconds(t.busiest, t.everywhere, next.type.dtype, rates);
    c.seconds += seconds;
    c.floats_moved += t.floats;
    c.paper_cost += t.paper_cost;
    ++c.operators;
    c.node_seconds.push_back(seconds);
  }
}

std::vector<int> carry_cost_inputs(const IaPlan& plan, const std::vector<int>& live, const CarriedRoots& carried) {
  std::vector<int> out;
  for (const CarrySpec& s : carry_specs(plan, live, carried)) {
    out.push_back(s.next);
    out.insert(out.end(), s.scans.begin(), s.scans.end());
  }
  return out;
}

std::map<std::string, std::vector<int>> add_carries(IaPlan& plan, const CarriedRoots& carried) {
  const std::vector<int> live = live_nodes(plan);
  std::map<std::string, std::vector<int>> out;
  for (IaNode& c : carries(plan, live, carried)) {
    const std::string x = c.carry().tensor;
    plan.nodes.push_back(std::move(c));
    const int id = static_cast<int>(plan.nodes.size()) - 1;
    plan.roots.push_back(id);
    out[x].push_back(id);
  }
  infer_stale(plan);
  return out;
}

}  // namespace tra::physical
