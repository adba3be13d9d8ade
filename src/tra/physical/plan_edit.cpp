#include "tra/physical/plan_edit.hpp"

#include <algorithm>
#include <functional>
#include <iterator>
#include <queue>
#include <string>

namespace tra::physical {

int add_node(IaPlan& p, IaNode n) {
  n.stale = true;
  p.nodes.push_back(std::move(n));
  return static_cast<int>(p.nodes.size()) - 1;
}

void redirect(IaPlan& p, int from, int to) {
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    if (static_cast<int>(i) == to) continue;
    for (int& j : p.nodes[i].inputs)
      if (j == from) {
        j = to;
        p.nodes[i].stale = true;
      }
  }
  for (int& r : p.roots)
    if (r == from) r = to;
  for (int& t : p.tra_to_ia)
    if (t == from) t = to;
}

std::vector<std::vector<int>> consumers(const IaPlan& p) {
  std::vector<std::vector<int>> c(p.nodes.size());
  for (size_t i = 0; i < p.nodes.size(); ++i)
    for (int j : p.nodes[i].inputs) c[static_cast<size_t>(j)].push_back(static_cast<int>(i));
  return c;
}

bool needed(const IaPlan& p, int i) {
  std::vector<bool> seen(p.nodes.size(), false);
  std::vector<int> todo(p.roots.begin(), p.roots.end());
  while (!todo.empty()) {
    const int k = todo.back();
    todo.pop_back();
    if (k == i) return true;
    if (seen[static_cast<size_t>(k)]) continue;
    seen[static_cast<size_t>(k)] = true;
    for (int in : p.node(k).inputs) todo.push_back(in);
  }
  return false;
}

namespace {

// Which nodes some root needs.
std::vector<char> needed_nodes(const IaPlan& p) {
  std::vector<char> needed(p.nodes.size(), 0);
  std::vector<int> todo(p.roots.begin(), p.roots.end());
  while (!todo.empty()) {
    const int i = todo.back();
    todo.pop_back();
    if (needed[static_cast<size_t>(i)]) continue;
    needed[static_cast<size_t>(i)] = 1;
    for (int j : p.nodes[static_cast<size_t>(i)].inputs)
      if (!needed[static_cast<size_t>(j)]) todo.push_back(j);
  }
  return needed;
}

// Kahn's algorithm over the nodes `by_rank` (each needed node once, in rank
// order; rank[i]: node i's place there), the ready node of smallest rank
// first. The nodes are taken in rank order; one whose inputs are not all
// placed yet is passed over, and placed as soon as they are (before any node
// not yet taken, as they all rank higher). Plans are mostly in rank order
// already, so few nodes wait: the users of a node are listed only for those
// (waiting[] heads, for each node not yet placed, the list of passed nodes
// that wait for it), and the heap of those ready again stays small.
std::vector<int> kahn(const IaPlan& p, const std::vector<int>& by_rank, const std::vector<int>& rank) {
  const size_t n = p.nodes.size();
  std::vector<char> placed(n, 0);
  std::vector<int> pending(n, 0), waiting(n, -1);
  std::vector<std::pair<int, int>> waits;  // (waiting node, next in the list)
  std::priority_queue<std::pair<int, int>, std::vector<std::pair<int, int>>, std::greater<>> ready_again;
  std::vector<int> order;
  order.reserve(by_rank.size());
  size_t next = 0;
  while (!ready_again.empty() || next < by_rank.size()) {
    int i;
    if (!ready_again.empty()) {
      i = ready_again.top().second;
      ready_again.pop();
    } else {
      i = by_rank[next++];
      const auto& ins = p.nodes[static_cast<size_t>(i)].inputs;
      for (size_t k = 0; k < ins.size(); ++k) {
        const auto in = static_cast<size_t>(ins[k]);
        // A node that reads an input twice waits for it once.
        if (placed[in] || std::find(ins.begin(), ins.begin() + static_cast<long>(k), ins[k]) != ins.begin() + static_cast<long>(k)) continue;
        ++pending[static_cast<size_t>(i)];
        waits.emplace_back(i, waiting[in]);
        waiting[in] = static_cast<int>(waits.size()) - 1;
      }
      if (pending[static_cast<size_t>(i)] > 0) continue;  // passed over
    }
    order.push_back(i);
    placed[static_cast<size_t>(i)] = 1;
    for (int w = waiting[static_cast<size_t>(i)]; w >= 0; w = waits[static_cast<size_t>(w)].second) {
      const int u = waits[static_cast<size_t>(w)].first;
      if (--pending[static_cast<size_t>(u)] == 0) ready_again.emplace(rank[static_cast<size_t>(u)], u);
    }
  }
  return order;
}

}  // namespace

std::vector<int> topological_order(const IaPlan& p, const std::vector<int>& rank) {
  const size_t n = p.nodes.size();
  const std::vector<char> needed = needed_nodes(p);
  std::vector<std::pair<int, int>> ranked;  // (rank, node)
  for (size_t i = 0; i < n; ++i)
    if (needed[i]) ranked.emplace_back(rank.empty() ? static_cast<int>(i) : rank[i], static_cast<int>(i));
  if (!rank.empty()) std::sort(ranked.begin(), ranked.end());
  std::vector<int> by_rank, place(n, -1);
  by_rank.reserve(ranked.size());
  for (const auto& [r, i] : ranked) {
    place[static_cast<size_t>(i)] = static_cast<int>(by_rank.size());
    by_rank.push_back(i);
  }
  return kahn(p, by_rank, place);
}

std::vector<int> topological_order_after_edit(const IaPlan& p, const std::vector<int>& before, size_t size_before) {
  const size_t n = p.nodes.size();
  const std::vector<char> needed = needed_nodes(p);
  // The needed nodes in rank order, without a sort.
  std::vector<int> by_rank, rank(n, -1);
  by_rank.reserve(before.size() + (n - size_before));
  auto take = [&](size_t i) {
    rank[i] = static_cast<int>(by_rank.size());
    by_rank.push_back(static_cast<int>(i));
  };
  for (int i : before)
    if (needed[static_cast<size_t>(i)]) take(static_cast<size_t>(i));
  for (size_t i = size_before; i < n; ++i)
    if (needed[i]) take(i);
  for (size_t i = 0; i < size_before; ++i)
    if (needed[i] && rank[i] < 0) take(i);
  return kahn(p, by_rank, rank);
}

std::vector<int> reorder(IaPlan& p, const std::vector<int>& order) {
  std::vector<int> position(p.nodes.size(), -1);
  for (size_t k = 0; k < order.size(); ++k) position[static_cast<size_t>(order[k])] = static_cast<int>(k);
  // A rewrite appends its nodes, so a long prefix of the plan usually stays
  // where it is (and its inputs, all in the prefix, keep their numbers); only
  // the nodes from the first one that moves are moved.
  size_t same = 0;
  while (same < order.size() && order[same] == static_cast<int>(same)) ++same;
  std::vector<IaNode> tail;
  tail.reserve(order.size() - same);
  for (size_t k = same; k < order.size(); ++k) {
    IaNode& x = p.nodes[static_cast<size_t>(order[k])];
    for (int& j : x.inputs) j = position[static_cast<size_t>(j)];
    tail.push_back(std::move(x));
  }
  p.nodes.erase(p.nodes.begin() + static_cast<long>(same), p.nodes.end());
  std::move(tail.begin(), tail.end(), std::back_inserter(p.nodes));
  for (int& r : p.roots) r = position[static_cast<size_t>(r)];
  for (int& t : p.tra_to_ia) t = t < 0 ? -1 : position[static_cast<size_t>(t)];
  return position;
}

// Smallest original index first: plans keep reading top-down in the order
// they were written.
std::vector<int> normalize(IaPlan& p) { return reorder(p, topological_order(p)); }

IaNode make_bcast(int in) {
  IaNode b;
  b.params = BcastParams{};
  b.inputs = {in};
  return b;
}

IaNode make_shuffle(int in, std::vector<int> dims, Shape site_grid) {
  IaNode s;
  s.params = ShuffleParams{Placement{Placement::Kind::Part, std::move(dims), {}, {}, {}, {}}, std::move(site_grid)};
  s.inputs = {in};
  return s;
}

}  // namespace tra::physical
