#include "tra/physical/infer.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "tra/common/error.hpp"

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

class Inference {
 public:
  explicit Inference(IaPlan& p) : p_(p), s_(p.nsites) {}

  void run() {
    std::vector<bool> redone(p_.nodes.size(), false);
    for (size_t i = 0; i < p_.nodes.size(); ++i) {
      IaNode& n = p_.nodes[i];
      bool stale = n.stale;
      for (int j : n.inputs) stale = stale || redone[static_cast<size_t>(j)];
      if (!stale) continue;
      redone[i] = true;
      n.stale = false;
      n.invalid.clear();
      n.scattered = false;
      n.predicted_floats = 0;
      n.paper_cost = 0;
      n.flops = n.site_flops = 0;
      n.site_floats_in = 0;
      n.dist = {};
      switch (n.kind) {
        case IaNode::Kind::Scan: scan(n); break;
        case IaNode::Kind::Bcast: bcast(n); break;
        case IaNode::Kind::Shuffle: shuffle(n); break;
        case IaNode::Kind::LocalJoin: join(n); break;
        case IaNode::Kind::LocalAgg: aggregate(n); break;
        case IaNode::Kind::LocalFilter: filter(n); break;
        case IaNode::Kind::LocalMap: map(n); break;
      }
      const int arity = n.kind == IaNode::Kind::Scan || n.kind == IaNode::Kind::LocalJoin || n.kind == IaNode::Kind::LocalAgg ||
                                n.kind == IaNode::Kind::LocalMap
                            ? n.out_type.key_arity()
                            : in(n).type.key_arity();
      const Shape chunk = n.kind == IaNode::Kind::Bcast || n.kind == IaNode::Kind::Shuffle || n.kind == IaNode::Kind::LocalFilter
                              ? in(n).type.chunk_shape
                              : n.out_type.chunk_shape;
      n.type = RelType{bounding_frontier(n.dist, arity), chunk};
      if (!n.dist.everywhere) {
        std::set<Key> seen;
        for (const auto& [k, site] : n.dist.at) n.scattered |= !seen.insert(k).second;
      }
      for (int i : n.inputs) {
        const IaNode& x = p_.node(i);
        if (x.scattered && n.kind != IaNode::Kind::Shuffle && n.kind != IaNode::Kind::LocalAgg && n.invalid.empty())
          n.invalid = "reads partial aggregates (p" + std::to_string(i) + ") that were never combined";
      }
    }
  }

 private:
  const IaNode& in(const IaNode& n, size_t k = 0) const { return p_.node(n.inputs.at(k)); }
  Index per(const IaNode& n) const { return volume(n.kind == IaNode::Kind::Scan ? n.out_type.chunk_shape : in(n).type.chunk_shape); }

  void scan(IaNode& n) {
    const Shape& f = n.out_type.frontier;
    n.dist.everywhere = n.placement.is_all();
    if (n.site_grid.empty()) n.site_grid = f;
    for_each_key(f, [&](const Key& k) { n.dist.at.emplace_back(k, n.dist.everywhere ? kEverySite : n.placement.site_of(k, n.site_grid, s_)); });
    n.site_floats_in = max_of(per_site(n.dist, s_)) * volume(n.out_type.chunk_shape);
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
    if (n.site_grid.empty()) n.site_grid = x.type.frontier;
    const Placement& p = n.placement;
    const Index f = per(n);
    std::vector<Index> sent(static_cast<size_t>(s_), 0), received(static_cast<size_t>(s_), 0);
    for (const auto& [k, site] : x.dist.at) {
      const int to = p.site_of(k, n.site_grid, s_);
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
    const std::vector<int> right_rest = logical::complement(r.type.key_arity(), n.keys_right);
    auto out_key = [&](const Key& lk, const Key& rk) {
      Key k = lk;
      for (int p : right_rest) k.push_back(rk[static_cast<size_t>(p)]);
      return n.out_key(k);
    };
    // Right keys by (site, join-key projection); everywhere tuples are on site -1.
    std::map<int, std::unordered_map<Key, std::vector<Key>, KeyHash>> right;
    for (const auto& [k, site] : r.dist.at) right[r.dist.everywhere ? kEverySite : site][project(k, n.keys_right)].push_back(k);
    auto emit = [&](const Key& lk, int lsite, int rsite, int out_site) {
      auto it = right.find(rsite);
      if (it == right.end()) return;
      auto m = it->second.find(project(lk, n.keys_left));
      if (m == it->second.end()) return;
      for (const Key& rk : m->second) n.dist.at.emplace_back(out_key(lk, rk), out_site);
      (void)lsite;
    };
    n.dist.everywhere = l.dist.everywhere && r.dist.everywhere;
    for (const auto& [lk, lsite] : l.dist.at) {
      if (l.dist.everywhere && r.dist.everywhere) emit(lk, kEverySite, kEverySite, kEverySite);
      else if (l.dist.everywhere)
        for (int s = 0; s < s_; ++s) emit(lk, kEverySite, s, s);
      else if (r.dist.everywhere) emit(lk, lsite, kEverySite, lsite);
      else emit(lk, lsite, lsite, lsite);
    }
    // Every pair of matching keys must meet exactly once.
    std::unordered_map<Key, int, KeyHash> global;
    {
      std::set<Key> lkeys, rkeys;
      for (const auto& [k, s] : l.dist.at) lkeys.insert(k);
      for (const auto& [k, s] : r.dist.at) rkeys.insert(k);
      std::unordered_map<Key, std::vector<Key>, KeyHash> rby;
      for (const Key& k : rkeys) rby[project(k, n.keys_right)].push_back(k);
      for (const Key& lk : lkeys) {
        auto m = rby.find(project(lk, n.keys_left));
        if (m != rby.end())
          for (const Key& rk : m->second) ++global[out_key(lk, rk)];
      }
    }
    std::unordered_map<Key, int, KeyHash> produced;
    for (const auto& [k, s] : n.dist.at) ++produced[k];
    if (produced != global) n.invalid = "its inputs are not co-located: some matching pairs meet twice or never";
    n.flops = n.call_flops * static_cast<double>(n.dist.tuples()) * (n.dist.everywhere ? s_ : 1);
    n.site_flops = n.call_flops * static_cast<double>(max_of(per_site(n.dist, s_)));
  }

  void aggregate(IaNode& n) {
    const IaNode& x = in(n);
    n.dist.everywhere = x.dist.everywhere;
    std::map<std::pair<Key, int>, Index> members;
    for (const auto& [k, site] : x.dist.at) ++members[{project(k, n.group_by), site}];
    std::vector<Index> work(static_cast<size_t>(s_), 0);
    const Index f = volume(n.out_type.chunk_shape);
    for (const auto& [g, count] : members) {
      n.dist.at.emplace_back(g.first, g.second);
      if (g.second >= 0) work[static_cast<size_t>(g.second)] += (count - 1) * f;
      else
        for (auto& w : work) w += (count - 1) * f;
    }
    // A map composed into the aggregation (R1-4) runs once per group.
    for (const auto& [g, count] : members) {
      if (g.second >= 0) work[static_cast<size_t>(g.second)] += static_cast<Index>(n.call_flops);
      else
        for (auto& w : work) w += static_cast<Index>(n.call_flops);
    }
    for (Index w : work) n.flops += static_cast<double>(w);
    n.site_flops = static_cast<double>(max_of(work));
  }

  void filter(IaNode& n) {
    const IaNode& x = in(n);
    n.dist.everywhere = x.dist.everywhere;
    for (const auto& [k, site] : x.dist.at)
      if (n.predicate.test(k)) n.dist.at.emplace_back(k, site);
  }

  void map(IaNode& n) {
    const IaNode& x = in(n);
    n.dist.everywhere = x.dist.everywhere;
    for (const auto& [k, site] : x.dist.at) {
      if (n.map)
        for (Key& o : n.expand(k)) n.dist.at.emplace_back(std::move(o), site);
      else n.dist.at.emplace_back(n.key_map(k), site);
    }
    const std::vector<Index> count = per_site(x.dist, s_);
    n.flops = n.call_flops * static_cast<double>(x.dist.tuples()) * (x.dist.everywhere ? s_ : 1);
    n.site_flops = n.call_flops * static_cast<double>(max_of(count));
  }

  IaPlan& p_;
  int s_;
};

// Nodes the roots need.
std::vector<bool> needed(const IaPlan& p) {
  std::vector<bool> need(p.nodes.size(), false);
  for (int r : p.roots) need[static_cast<size_t>(r)] = true;
  for (size_t i = p.nodes.size(); i-- > 0;)
    if (need[i])
      for (int j : p.nodes[i].inputs) need[static_cast<size_t>(j)] = true;
  return need;
}

}  // namespace

void infer(IaPlan& plan) {
  for (auto& n : plan.nodes) n.stale = true;
  Inference(plan).run();
}

void infer_stale(IaPlan& plan) { Inference(plan).run(); }

std::string invalid_reason(const IaPlan& plan) {
  const std::vector<bool> need = needed(plan);
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    if (!need[i]) continue;
    if (!plan.nodes[i].invalid.empty()) return "p" + std::to_string(i) + ": " + plan.nodes[i].invalid;
  }
  for (int r : plan.roots)
    if (plan.node(r).scattered) return "p" + std::to_string(r) + ": a result is left as partial aggregates";
  return "";
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
