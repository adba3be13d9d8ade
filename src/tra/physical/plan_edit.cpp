#include "tra/physical/plan_edit.hpp"

#include <algorithm>
#include <functional>
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

void normalize(IaPlan& p) {
  // The nodes some root needs.
  std::vector<bool> needed(p.nodes.size(), false);
  std::function<void(int)> mark = [&](int i) {
    if (needed[static_cast<size_t>(i)]) return;
    needed[static_cast<size_t>(i)] = true;
    for (int j : p.nodes[static_cast<size_t>(i)].inputs) mark(j);
  };
  for (int r : p.roots) mark(r);
  // Kahn's algorithm, smallest original index first: plans keep reading
  // top-down in the order they were written.
  std::vector<int> pending(p.nodes.size(), 0);
  std::vector<std::vector<int>> users(p.nodes.size());
  std::vector<int> ready;
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    if (!needed[i]) continue;
    std::vector<int> ins = p.nodes[i].inputs;
    std::sort(ins.begin(), ins.end());
    ins.erase(std::unique(ins.begin(), ins.end()), ins.end());
    pending[i] = static_cast<int>(ins.size());
    for (int j : ins) users[static_cast<size_t>(j)].push_back(static_cast<int>(i));
    if (ins.empty()) ready.push_back(static_cast<int>(i));
  }
  std::vector<int> position(p.nodes.size(), -1);
  std::vector<int> order;
  while (!ready.empty()) {
    auto it = std::min_element(ready.begin(), ready.end());
    const int i = *it;
    ready.erase(it);
    position[static_cast<size_t>(i)] = static_cast<int>(order.size());
    order.push_back(i);
    for (int u : users[static_cast<size_t>(i)])
      if (--pending[static_cast<size_t>(u)] == 0) ready.push_back(u);
  }
  std::vector<IaNode> nodes;
  nodes.reserve(order.size());
  for (int i : order) {
    IaNode n = std::move(p.nodes[static_cast<size_t>(i)]);
    for (int& j : n.inputs) j = position[static_cast<size_t>(j)];
    nodes.push_back(std::move(n));
  }
  p.nodes = std::move(nodes);
  for (int& r : p.roots) r = position[static_cast<size_t>(r)];
  for (int& t : p.tra_to_ia) t = t < 0 ? -1 : position[static_cast<size_t>(t)];
}

IaNode make_bcast(int in) {
  IaNode b;
  b.kind = IaNode::Kind::Bcast;
  b.inputs = {in};
  return b;
}

IaNode make_shuffle(int in, std::vector<int> dims, Shape site_grid) {
  IaNode s;
  s.site_grid = std::move(site_grid);
  s.kind = IaNode::Kind::Shuffle;
  s.inputs = {in};
  s.placement = Placement{Placement::Kind::Part, std::move(dims), {}};
  std::string d;
  for (int x : s.placement.dims) d += (d.empty() ? "" : ",") + std::to_string(x);
  s.detail = "<" + d + ">";
  return s;
}

}  // namespace tra::physical
