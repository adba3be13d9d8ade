#include "tra/physical/infer.hpp"

#include <algorithm>
#include <numeric>
#include <type_traits>
#include <unordered_map>
#include <variant>

#include "tra/common/error.hpp"
#include "tra/physical/ops/ops.hpp"

namespace tra::physical {
namespace {

Shape bounding_frontier(const Distribution& d, int arity) {
  Shape f(static_cast<size_t>(arity), 0);
  for (const auto& [k, site] : d.at)
    for (int i = 0; i < arity; ++i) f[static_cast<size_t>(i)] = std::max(f[static_cast<size_t>(i)], k[static_cast<size_t>(i)] + 1);
  return f;
}

// Scans and Shuffles place their tuples; inference completes their placement.
bool places(const IaNode& n) { return n.kind() == IaNode::Kind::Scan || n.kind() == IaNode::Kind::Shuffle; }

class Inference {
 public:
  // Over the nodes in `order` (inputs first), which messages name by their
  // place in it.
  Inference(IaPlan& p, const std::vector<int>& order) : p_(p), s_(p.nsites), order_(order) {}

  // A node is inferred again when it is stale or an input's result changed.
  // Its consumers read only its type, distribution and scattering, so when
  // those come out as before the recomputation stops there: a rewrite deep in
  // a long plan then costs a few nodes, not everything downstream of it.
  std::vector<int> run(std::vector<std::pair<int, Inferred>>* overwritten) {
    std::vector<bool> changed(p_.nodes.size(), false);
    bool any_changed = false;  // until then, no node has an input that changed
    std::vector<int> redone;
    if (overwritten) overwritten->reserve(16);  // a search's edit infers a few nodes again, rarely more
    for (int node : order_) {
      const auto i = static_cast<size_t>(node);
      IaNode& n = p_.nodes[i];
      bool stale = n.stale;
      if (any_changed)
        for (int j : n.inputs) stale = stale || changed[static_cast<size_t>(j)];
      if (!stale) continue;
      redone.push_back(static_cast<int>(i));
      if (overwritten) overwritten->emplace_back(static_cast<int>(i), Inferred::of(n));
      const RelType old_type = std::move(n.type);
      Distribution old_dist = std::move(n.dist);
      const bool old_scattered = n.scattered;
      infer_node(n);
      changed[i] = !(n.type == old_type && n.scattered == old_scattered && n.dist == old_dist);
      any_changed = any_changed || changed[i];
      if (!changed[i]) n.dist = std::move(old_dist);  // the same pairs: keep sharing them with other copies of the plan
    }
    return redone;
  }

 private:
  void infer_node(IaNode& n) {
    n.stale = false;
    n.invalid.clear();
    n.scattered = false;
    n.predicted_floats = 0;
    n.paper_cost = 0;
    n.flops = n.site_flops = n.site_fold_flops = 0;
    n.site_floats_in = n.site_calls = 0;
    n.dist = {};
    const ops::Context c{p_, s_};
    const bool own_type = std::visit(
        [&](auto& p) {
          ops::infer(p, n, c);
          return std::decay_t<decltype(p)>::kOwnType;
        },
        n.params);
    // A kind without a type of its own (a movement, a filter) keeps its input's.
    const RelType& typed = own_type ? n.out_type : in(n).type;
    n.type = RelType{bounding_frontier(n.dist, typed.key_arity()), typed.chunk_shape, typed.dtype, typed.stored, typed.filled};
    // A filter or a shuffle of a relation whose keys are each on one site
    // leaves them so.
    const bool keeps_keys_apart = (n.kind() == IaNode::Kind::LocalFilter || n.kind() == IaNode::Kind::Shuffle) && !in(n).scattered;
    // A carry's key on several sites is a copy of one whole chunk, not a
    // partial aggregate.
    const bool copies = n.kind() == IaNode::Kind::Carry;
    if (!n.dist.everywhere && !keeps_keys_apart && !copies) {
      const std::vector<const Key*> keys = ops::sorted_keys(n.dist);
      n.scattered = std::adjacent_find(keys.begin(), keys.end(), [](const Key* a, const Key* b) { return *a == *b; }) != keys.end();
    }
    for (int i : n.inputs) {
      const IaNode& x = p_.node(i);
      if (!x.scattered || n.kind() == IaNode::Kind::Shuffle || !n.invalid.empty()) continue;
      if (n.kind() != IaNode::Kind::LocalAgg) n.invalid = "reads partial aggregates (p" + std::to_string(name(i)) + ") that were never combined";
      else if (!combines(n, x)) n.invalid = "aggregates partial aggregates (p" + std::to_string(name(i)) + ") with another ⊕ or after a map";
    }
  }

  // Whether aggregation n may add up the partial aggregates x (a key on
  // several sites): only the second phase of the same element-wise ⊕ can, and
  // only when no map was composed into the first (R1-4's map runs on whole
  // groups; composed into the second phase it does).
  bool combines(const IaNode& n, const IaNode& x) const {
    const IaNode* partial = &x;
    while (partial->kind() == IaNode::Kind::Shuffle) partial = &in(*partial);
    return partial->kind() == IaNode::Kind::LocalAgg && partial->agg().decomposable && n.agg().kernel.fold() != einsum::AggOp::None &&
           n.agg().kernel.fold() == partial->agg().kernel.fold();
  }

  const IaNode& in(const IaNode& n, size_t k = 0) const { return p_.node(n.inputs.at(k)); }
  // Node i's number in messages: its place in the order (looked up for a
  // message only: most inferences have none).
  int name(int i) const { return static_cast<int>(std::find(order_.begin(), order_.end(), i) - order_.begin()); }
  IaPlan& p_;
  int s_;
  const std::vector<int>& order_;
};

std::vector<int> every_node(const IaPlan& p) {
  std::vector<int> all(p.nodes.size());
  std::iota(all.begin(), all.end(), 0);
  return all;
}

// Nodes the roots need.
std::vector<bool> needed(const IaPlan& p) {
  std::vector<bool> need(p.nodes.size(), false);
  for (int r : p.roots) need[static_cast<size_t>(r)] = true;
  for (size_t i = p.nodes.size(); i-- > 0;)
    if (need[i])
      for (int j : p.nodes[i].inputs) need[static_cast<size_t>(j)] = true;
  return need;
}

// The first problem among the nodes in `order`, named as `name` says.
std::string invalid_reason(const IaPlan& plan, const std::vector<int>& order, const std::vector<int>& name) {
  for (int i : order)
    if (!plan.node(i).invalid.empty()) return "p" + std::to_string(name[static_cast<size_t>(i)]) + ": " + plan.node(i).invalid;
  for (int r : plan.roots)
    if (plan.node(r).scattered) return "p" + std::to_string(name[static_cast<size_t>(r)]) + ": a result is left as partial aggregates";
  return "";
}

}  // namespace

void infer(IaPlan& plan) {
  for (auto& n : plan.nodes) n.stale = true;
  Inference(plan, every_node(plan)).run(nullptr);
}

std::vector<int> infer_stale(IaPlan& plan) { return Inference(plan, every_node(plan)).run(nullptr); }

Inferred Inferred::of(const IaNode& n) {
  Inferred x{n.stale,           n.type,           n.dist,       n.scattered, n.invalid, n.predicted_floats, n.paper_cost, n.flops, n.site_flops,
             n.site_fold_flops, n.site_floats_in, n.site_calls, {},          {}};
  if (places(n)) {
    x.placement = n.placement();
    x.site_grid = n.site_grid();
  }
  return x;
}

void Inferred::restore(IaNode& n) {
  n.stale = stale;
  n.type = std::move(type);
  n.dist = std::move(dist);
  n.scattered = scattered;
  n.invalid = std::move(invalid);
  n.predicted_floats = predicted_floats;
  n.paper_cost = paper_cost;
  n.flops = flops;
  n.site_flops = site_flops;
  n.site_fold_flops = site_fold_flops;
  n.site_floats_in = site_floats_in;
  n.site_calls = site_calls;
  if (places(n)) {
    n.placement() = std::move(placement);
    n.site_grid() = std::move(site_grid);
  }
}

std::vector<int> infer_stale(IaPlan& plan, const std::vector<int>& order, std::vector<std::pair<int, Inferred>>* overwritten) {
  return Inference(plan, order).run(overwritten);
}

std::string invalid_reason(const IaPlan& plan) {
  const std::vector<bool> need = needed(plan);
  std::vector<int> order;
  for (size_t i = 0; i < plan.nodes.size(); ++i)
    if (need[i]) order.push_back(static_cast<int>(i));
  return invalid_reason(plan, order, every_node(plan));
}

std::string invalid_reason(const IaPlan& plan, const std::vector<int>& order) {
  std::vector<int> name(plan.nodes.size(), -1);
  for (size_t k = 0; k < order.size(); ++k) name[static_cast<size_t>(order[k])] = static_cast<int>(k);
  return invalid_reason(plan, order, name);
}

bool grouped_on_one_site(const Distribution& d, const std::vector<int>& group_by) {
  if (d.everywhere) return true;
  std::unordered_map<Key, int, KeyHash> site_of_group;
  for (const auto& [k, site] : d.at) {
    auto [it, fresh] = site_of_group.emplace(project(k, group_by), site);
    if (!fresh && it->second != site) return false;
  }
  return true;
}

}  // namespace tra::physical
