#include "tra/physical/memory_estimate.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

#include "tra/physical/ops/ops.hpp"

namespace tra::physical {

namespace {

// Bytes per site of node's result that are its input's chunks, handed on
// without a copy: a Shuffle's tuples that stay on their site, a Bcast's
// own tuples, a filter's survivors (each kind says which: ops/<kind>.cpp).
std::vector<std::int64_t> passed_through(const IaPlan& plan, const IaNode& n, int nsites) {
  const ops::Context c{plan, nsites};
  return std::visit([&](const auto& p) { return ops::bytes_passed_through(p, n, c); }, n.params);
}

// Bytes per site a Shuffle packs into one send buffer (comm/exchange.cpp):
// the tuples it sends, held twice while it runs, beside its input and its
// result; empty for other kinds. A shuffle of filled rows holds the rows it
// sends and, beside its result's chunks, the rows it receives.
std::vector<std::int64_t> packed_for_sending(const IaPlan& plan, const IaNode& n, int nsites) {
  if (n.kind() != IaNode::Kind::Shuffle || n.inputs.size() != 1) return {};
  const IaNode& in = plan.nodes[static_cast<size_t>(n.inputs[0])];
  if (in.dist.everywhere) return {};  // every site keeps its own: nothing is sent
  if (in.dist.filled_rows) return ops::filled_rows_buffer_bytes(n, {plan, nsites});
  std::vector<std::int64_t> sent = ops::held_bytes(in, nsites);
  const std::vector<std::int64_t> stay = passed_through(plan, n, nsites);
  for (int s = 0; s < nsites; ++s) sent[static_cast<size_t>(s)] -= stay[static_cast<size_t>(s)];
  return sent;
}

}  // namespace

MemoryEstimate estimate_memory(const IaPlan& plan) {
  const int nsites = plan.nsites;
  const size_t n = plan.nodes.size();
  std::vector<int> last_use(n, -1);
  for (size_t i = 0; i < n; ++i)
    for (int j : plan.nodes[i].inputs) last_use[static_cast<size_t>(j)] = std::max(last_use[static_cast<size_t>(j)], static_cast<int>(i));
  std::vector<bool> kept(n, false);
  for (int r : plan.roots) kept[static_cast<size_t>(r)] = true;
  // The executor's order: the Scans, then the rest (exec/executor.cpp).
  std::vector<size_t> order;
  for (size_t i = 0; i < n; ++i)
    if (plan.nodes[i].kind() == IaNode::Kind::Scan) order.push_back(i);
  for (size_t i = 0; i < n; ++i)
    if (plan.nodes[i].kind() != IaNode::Kind::Scan) order.push_back(i);

  // A join streamed into its aggregation holds the aggregated tuples, which
  // the aggregation then takes over (exec/join_aggregate.hpp).
  const std::vector<int> streamed = streamed_into(plan);
  MemoryEstimate e;
  e.site_peak_bytes.assign(static_cast<size_t>(nsites), 0);
  std::vector<std::int64_t> live(static_cast<size_t>(nsites), 0);
  std::vector<std::vector<std::int64_t>> bytes(n);
  for (size_t i : order) {
    const IaNode& node = plan.nodes[i];
    // A read nobody consumes is skipped (its consumer reads a replicated copy).
    if (node.kind() == IaNode::Kind::Scan && last_use[i] < 0 && !kept[i]) continue;
    const bool taken_over =
        node.kind() == IaNode::Kind::LocalAgg && !node.inputs.empty() && streamed[static_cast<size_t>(node.inputs[0])] == static_cast<int>(i);
    if (taken_over) {
      // The join's tuples (already counted) are now the aggregation's.
      std::swap(bytes[i], bytes[static_cast<size_t>(node.inputs[0])]);
    } else {
      bytes[i] = ops::held_bytes(streamed[i] >= 0 ? plan.nodes[static_cast<size_t>(streamed[i])] : node, nsites);
      // Chunks handed on from the input are counted once: from now on as
      // this node's (the input's count drops by them).
      const std::vector<std::int64_t> shared = passed_through(plan, node, nsites);
      const std::vector<std::int64_t> scratch = packed_for_sending(plan, node, nsites);
      std::vector<std::int64_t>* input = node.inputs.empty() ? nullptr : &bytes[static_cast<size_t>(node.inputs[0])];
      for (int s = 0; s < nsites; ++s) {
        const size_t k = static_cast<size_t>(s);
        const std::int64_t moved_over = input && !input->empty() ? std::min(shared[k], (*input)[k]) : 0;
        if (moved_over) (*input)[k] -= moved_over;
        live[k] += bytes[i][k] - moved_over;
        const std::int64_t running = live[k] + (scratch.empty() ? 0 : scratch[k]);
        e.site_peak_bytes[k] = std::max(e.site_peak_bytes[k], running);
        if (running > e.peak_bytes) {
          e.peak_bytes = running;
          e.peak_site = s;
          e.peak_node = static_cast<int>(i);
        }
      }
    }
    for (int j : node.inputs) {
      const size_t u = static_cast<size_t>(j);
      if (last_use[u] == static_cast<int>(i) && !kept[u] && !bytes[u].empty()) {
        for (int s = 0; s < nsites; ++s) live[static_cast<size_t>(s)] -= bytes[u][static_cast<size_t>(s)];
        bytes[u].clear();  // freed once, also when listed twice (a join of a relation with itself)
      }
    }
  }
  return e;
}

std::string bytes_text(std::int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.3g %s", v, units[u]);
  return buf;
}

}  // namespace tra::physical
