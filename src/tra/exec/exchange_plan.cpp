#include "tra/exec/exchange_plan.hpp"

#include "tra/common/error.hpp"

namespace tra::exec {

std::vector<int> broadcast_counts(const physical::IaPlan& plan, const physical::IaNode& n) {
  const physical::IaNode& x = plan.node(n.inputs.at(0));
  TRA_ASSERT(!x.dist.everywhere, "broadcast of a relation on every site");
  std::vector<int> held(static_cast<size_t>(plan.nsites), 0);
  for (const auto& [key, site] : x.dist.at) ++held[static_cast<size_t>(site)];
  return held;
}

comm::Counts shuffle_counts(const physical::IaPlan& plan, const physical::IaNode& n, int rank) {
  const physical::IaNode& x = plan.node(n.inputs.at(0));
  // Inference lists a shuffle's (key, destination) pairs in the order of its
  // input's (key, source) pairs.
  TRA_ASSERT(!x.dist.everywhere && x.dist.at.size() == n.dist.at.size(), "shuffle " << n.words() << ": distributions do not pair up");
  comm::Counts c{std::vector<int>(static_cast<size_t>(plan.nsites), 0), std::vector<int>(static_cast<size_t>(plan.nsites), 0)};
  for (size_t i = 0; i < x.dist.at.size(); ++i) {
    const int from = x.dist.at[i].second, to = n.dist.at[i].second;
    if (from == to) continue;
    if (from == rank) ++c.send[static_cast<size_t>(to)];
    if (to == rank) ++c.recv[static_cast<size_t>(from)];
  }
  return c;
}

}  // namespace tra::exec
