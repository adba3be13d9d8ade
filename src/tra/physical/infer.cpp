#include "tra/physical/infer.hpp"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "tra/common/error.hpp"
#include "tra/logical/tra_ops.hpp"

namespace tra::physical {
namespace {

constexpr int kEverySite = -1;

Shape bounding_frontier(const Distribution& d, int arity) {
  Shape f(static_cast<size_t>(arity), 0);
  for (const auto& [k, site] : d.at)
    for (int i = 0; i < arity; ++i) f[static_cast<size_t>(i)] = std::max(f[static_cast<size_t>(i)], k[static_cast<size_t>(i)] + 1);
  return f;
}

// Tuples per site (everywhere: all of them on every site).
std::vector<Index> per_site(const Distribution& d, int s) {
  std::vector<Index> n(static_cast<size_t>(s), 0);
  if (d.everywhere) {
    std::fill(n.begin(), n.end(), d.tuples());
    return n;
  }
  for (const auto& [k, site] : d.at) ++n[static_cast<size_t>(site)];
  return n;
}

Index max_of(const std::vector<Index>& v) { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }

// The keys of d, sorted (a key on several sites as often); they point into d.
std::vector<const Key*> sorted_keys(const Distribution& d) {
  std::vector<const Key*> keys;
  keys.reserve(d.at.size());
  for (const auto& [k, site] : d.at) keys.push_back(&k);
  std::sort(keys.begin(), keys.end(), [](const Key* a, const Key* b) { return *a < *b; });
  return keys;
}

// Each key of d once, sorted.
std::vector<const Key*> distinct_keys(const Distribution& d) {
  std::vector<const Key*> keys = sorted_keys(d);
  keys.erase(std::unique(keys.begin(), keys.end(), [](const Key* a, const Key* b) { return *a == *b; }), keys.end());
  return keys;
}

// Scans and Shuffles place their tuples; inference completes their placement.
bool places(const IaNode& n) { return n.kind() == IaNode::Kind::Scan || n.kind() == IaNode::Kind::Shuffle; }

class Inference {
 public:
  // Over the nodes in `order` (inputs first), which messages name by their
  // place in it.
  Inference(IaPlan& p, const std::vector<int>& order) : p_(p), s_(p.nsites), order_(order), name_(p.nodes.size(), -1) {
    for (size_t k = 0; k < order.size(); ++k) name_[static_cast<size_t>(order[k])] = static_cast<int>(k);
  }

  // A node is inferred again when it is stale or an input's result changed.
  // Its consumers read only its type, distribution and scattering, so when
  // those come out as before the recomputation stops there: a rewrite deep in
  // a long plan then costs a few nodes, not everything downstream of it.
  std::vector<int> run(std::vector<std::pair<int, Inferred>>* overwritten) {
    std::vector<bool> changed(p_.nodes.size(), false);
    bool any_changed = false;  // until then, no node has an input that changed
    std::vector<int> redone;
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
    n.site_floats_in = 0;
    n.dist = {};
    switch (n.kind()) {
      case IaNode::Kind::Scan: scan(n); break;
      case IaNode::Kind::Bcast: bcast(n); break;
      case IaNode::Kind::Shuffle: shuffle(n); break;
      case IaNode::Kind::LocalJoin: join(n); break;
      case IaNode::Kind::LocalAgg: aggregate(n); break;
      case IaNode::Kind::LocalFilter: filter(n); break;
      case IaNode::Kind::LocalMap: map(n); break;
    }
    const int arity = n.kind() == IaNode::Kind::Scan || n.kind() == IaNode::Kind::LocalJoin || n.kind() == IaNode::Kind::LocalAgg ||
                              n.kind() == IaNode::Kind::LocalMap
                          ? n.out_type.key_arity()
                          : in(n).type.key_arity();
    const Shape chunk = n.kind() == IaNode::Kind::Bcast || n.kind() == IaNode::Kind::Shuffle || n.kind() == IaNode::Kind::LocalFilter
                            ? in(n).type.chunk_shape
                            : n.out_type.chunk_shape;
    n.type = RelType{bounding_frontier(n.dist, arity), chunk};
    // A filter or a shuffle of a relation whose keys are each on one site
    // leaves them so.
    const bool keeps_keys_apart = (n.kind() == IaNode::Kind::LocalFilter || n.kind() == IaNode::Kind::Shuffle) && !in(n).scattered;
    if (!n.dist.everywhere && !keeps_keys_apart) {
      const std::vector<const Key*> keys = sorted_keys(n.dist);
      n.scattered = std::adjacent_find(keys.begin(), keys.end(), [](const Key* a, const Key* b) { return *a == *b; }) != keys.end();
    }
    for (int i : n.inputs) {
      const IaNode& x = p_.node(i);
      if (!x.scattered || n.kind() == IaNode::Kind::Shuffle || !n.invalid.empty()) continue;
      if (n.kind() != IaNode::Kind::LocalAgg)
        n.invalid = "reads partial aggregates (p" + std::to_string(name_[static_cast<size_t>(i)]) + ") that were never combined";
      else if (!combines(n, x))
        n.invalid = "aggregates partial aggregates (p" + std::to_string(name_[static_cast<size_t>(i)]) + ") with another ⊕ or after a map";
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
  Index per(const IaNode& n) const { return volume(n.kind() == IaNode::Kind::Scan ? n.out_type.chunk_shape : in(n).type.chunk_shape); }

  void scan(IaNode& n) {
    const Shape& f = n.out_type.frontier;
    n.dist.everywhere = n.placement().is_all();
    if (n.site_grid().empty()) n.site_grid() = f;
    fix_grid(n);
    for_each_key(f, [&](const Key& k) { n.dist.at.emplace_back(k, n.dist.everywhere ? kEverySite : n.placement().site_of(k, n.site_grid(), s_)); });
    n.site_floats_in = max_of(per_site(n.dist, s_)) * volume(n.out_type.chunk_shape);
  }

  // A Part placement's processor grid, fixed the first time it is needed
  // (like site_grid), so that every later inference and the executor place
  // keys alike.
  void fix_grid(IaNode& n) const {
    if (n.placement().kind == Placement::Kind::Part && n.placement().grid.empty())
      n.placement().grid = n.placement().grid_for(n.site_grid(), s_);
  }

  void bcast(IaNode& n) {
    const IaNode& x = in(n);
    if (x.dist.everywhere) n.invalid = "broadcasts a relation that is already on every site";
    n.dist.everywhere = true;
    for (const auto& [k, site] : x.dist.at) n.dist.at.emplace_back(k, kEverySite);
    const Index f = per(n);
    if (x.dist.everywhere) return;
    n.predicted_floats = x.dist.tuples() * f * (s_ - 1);
    n.paper_cost = static_cast<double>(x.dist.tuples() * f) * s_;
    const std::vector<Index> own = per_site(x.dist, s_);
    Index received = 0;
    for (Index o : own) received = std::max(received, x.dist.tuples() - o);
    n.site_floats_in = received * f;
  }

  void shuffle(IaNode& n) {
    const IaNode& x = in(n);
    if (n.site_grid().empty()) n.site_grid() = x.type.frontier;
    fix_grid(n);
    const Placement& p = n.placement();
    const Index f = per(n);
    std::vector<Index> sent(static_cast<size_t>(s_), 0), received(static_cast<size_t>(s_), 0);
    for (const auto& [k, site] : x.dist.at) {
      const int to = p.site_of(k, n.site_grid(), s_);
      n.dist.at.emplace_back(k, to);  // from everywhere: each site keeps its own, nothing moves
      if (!x.dist.everywhere && site != to) {
        n.predicted_floats += f;
        sent[static_cast<size_t>(site)] += f;
        received[static_cast<size_t>(to)] += f;
      }
    }
    n.paper_cost = static_cast<double>(x.dist.tuples() * f);
    n.site_floats_in = std::max(max_of(sent), max_of(received));
  }

  void join(IaNode& n) {
    const IaNode& l = in(n, 0);
    const IaNode& r = in(n, 1);
    const std::vector<int> right_rest = logical::complement(r.type.key_arity(), n.join().keys_right);
    auto out_key = [&](const Key& lk, const Key& rk) {
      Key k = lk;
      for (int p : right_rest) k.push_back(rk[static_cast<size_t>(p)]);
      return n.join().out_key(k);
    };
    // Right keys by (site, join-key projection); everywhere tuples are on
    // site -1, which is slot 0.
    std::vector<std::unordered_map<Key, std::vector<const Key*>, KeyHash>> right(static_cast<size_t>(s_) + 1);
    for (const auto& [k, site] : r.dist.at) right[static_cast<size_t>((r.dist.everywhere ? kEverySite : site) + 1)][project(k, n.join().keys_right)].push_back(&k);
    n.dist.everywhere = l.dist.everywhere && r.dist.everywhere;
    for (const auto& [lk, lsite] : l.dist.at) {
      const Key joined = project(lk, n.join().keys_left);
      auto emit = [&](int rsite, int out_site) {
        const auto& at_site = right[static_cast<size_t>(rsite + 1)];
        auto m = at_site.find(joined);
        if (m == at_site.end()) return;
        for (const Key* rk : m->second) n.dist.at.emplace_back(out_key(lk, *rk), out_site);
      };
      if (l.dist.everywhere && r.dist.everywhere) emit(kEverySite, kEverySite);
      else if (l.dist.everywhere)
        for (int s = 0; s < s_; ++s) emit(s, s);
      else if (r.dist.everywhere) emit(kEverySite, lsite);
      else emit(lsite, lsite);
    }
    // Every pair of matching keys must meet exactly once.
    bool co_located;
    if (!l.scattered && !r.scattered) {
      // Each key of either input is held once (or once everywhere), so no
      // pair met twice: they all met if as many met as match.
      std::unordered_map<Key, Index, KeyHash> right_count;
      for (const auto& [k, site] : r.dist.at) ++right_count[project(k, n.join().keys_right)];
      Index matching = 0;
      for (const auto& [k, site] : l.dist.at) {
        auto m = right_count.find(project(k, n.join().keys_left));
        if (m != right_count.end()) matching += m->second;
      }
      co_located = matching == n.dist.tuples();
    } else {
      co_located = joined_exactly_once(n, l, r, out_key);
    }
    if (!co_located) n.invalid = "its inputs are not co-located: some matching pairs meet twice or never";
    n.flops = n.join().call_flops * static_cast<double>(n.dist.tuples()) * (n.dist.everywhere ? s_ : 1);
    n.site_flops = n.join().call_flops * static_cast<double>(max_of(per_site(n.dist, s_)));
  }

  // The output keys are those of the matching pairs of distinct keys, each as
  // often (the general check, for inputs that hold a key more than once).
  template <class OutKey>
  static bool joined_exactly_once(const IaNode& n, const IaNode& l, const IaNode& r, const OutKey& out_key) {
    std::vector<Key> expected;
    {
      std::unordered_map<Key, std::vector<const Key*>, KeyHash> rby;
      for (const Key* k : distinct_keys(r.dist)) rby[project(*k, n.join().keys_right)].push_back(k);
      for (const Key* lk : distinct_keys(l.dist)) {
        auto m = rby.find(project(*lk, n.join().keys_left));
        if (m != rby.end())
          for (const Key* rk : m->second) expected.push_back(out_key(*lk, *rk));
      }
    }
    std::sort(expected.begin(), expected.end());
    const std::vector<const Key*> produced = sorted_keys(n.dist);
    return std::equal(expected.begin(), expected.end(), produced.begin(), produced.end(), [](const Key& e, const Key* k) { return e == *k; });
  }

  void aggregate(IaNode& n) {
    const IaNode& x = in(n);
    n.dist.everywhere = x.dist.everywhere;
    // The groups on each site (by key, then site) and their sizes.
    std::vector<std::pair<Key, int>> member;
    member.reserve(x.dist.at.size());
    for (const auto& [k, site] : x.dist.at) member.emplace_back(project(k, n.agg().group_by), site);
    std::sort(member.begin(), member.end());
    std::vector<std::pair<std::pair<Key, int>, Index>> members;
    for (auto& m : member)
      if (!members.empty() && members.back().first == m) ++members.back().second;
      else members.emplace_back(std::move(m), 1);
    std::vector<Index> work(static_cast<size_t>(s_), 0);
    const Index f = volume(n.out_type.chunk_shape);
    for (const auto& [g, count] : members) {
      n.dist.at.emplace_back(g.first, g.second);
      if (g.second >= 0) work[static_cast<size_t>(g.second)] += (count - 1) * f;
      else
        for (auto& w : work) w += (count - 1) * f;
    }
    n.site_fold_flops = static_cast<double>(max_of(work));
    // A map composed into the aggregation (R1-4) runs once per group.
    for (const auto& [g, count] : members) {
      if (g.second >= 0) work[static_cast<size_t>(g.second)] += static_cast<Index>(n.agg().call_flops);
      else
        for (auto& w : work) w += static_cast<Index>(n.agg().call_flops);
    }
    for (Index w : work) n.flops += static_cast<double>(w);
    n.site_flops = static_cast<double>(max_of(work));
  }

  void filter(IaNode& n) {
    const IaNode& x = in(n);
    n.dist.everywhere = x.dist.everywhere;
    for (const auto& [k, site] : x.dist.at)
      if (n.filter().predicate.test(k)) n.dist.at.emplace_back(k, site);
  }

  void map(IaNode& n) {
    const IaNode& x = in(n);
    n.dist.everywhere = x.dist.everywhere;
    for (const auto& [k, site] : x.dist.at) {
      if (n.map().expand)
        for (Key& o : expand_keys(*n.map().expand, k)) n.dist.at.emplace_back(std::move(o), site);
      else n.dist.at.emplace_back(n.map().key_map(k), site);
    }
    const std::vector<Index> count = per_site(x.dist, s_);
    n.flops = n.map().call_flops * static_cast<double>(x.dist.tuples()) * (x.dist.everywhere ? s_ : 1);
    n.site_flops = n.map().call_flops * static_cast<double>(max_of(count));
  }

  IaPlan& p_;
  int s_;
  const std::vector<int>& order_;
  std::vector<int> name_;  // a node's number in messages
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
  Inferred x{n.stale, n.type, n.dist, n.scattered, n.invalid, n.predicted_floats, n.paper_cost, n.flops, n.site_flops, n.site_fold_flops, n.site_floats_in, {}, {}};
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
