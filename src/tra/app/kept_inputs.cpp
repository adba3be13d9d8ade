#include "tra/app/kept_inputs.hpp"

#include "tra/physical/memory_estimate.hpp"

namespace tra::app {
namespace {

// The distinct parts of a data tensor a run reads.
Index parts(const model::TensorDecl& t, Index batches) { return t.batch ? batches : 1; }

}  // namespace

std::set<int> reread_data_scans(const physical::IaPlan& ia, Index batches, Index runs) {
  std::set<int> out;
  for (size_t i = 0; i < ia.nodes.size(); ++i) {
    const physical::IaNode& n = ia.nodes[i];
    if (n.kind() != physical::IaNode::Kind::Scan || !n.scan().source->is_data()) continue;
    if (runs > parts(*n.scan().source, batches)) out.insert(static_cast<int>(i));
  }
  return out;
}

double kept_bytes(const physical::IaPlan& ia, const std::set<int>& scans, Index batches, int rank) {
  double bytes = 0;
  for (int s : scans) {
    const physical::IaNode& n = ia.node(s);
    Index keys = 0;
    for (const auto& [k, site] : n.dist.at) keys += n.dist.everywhere || site == rank;
    bytes += static_cast<double>(keys) * n.type.bytes_per_tuple() * static_cast<double>(parts(*n.scan().source, batches));
  }
  return bytes;
}

double keeping_adds(const physical::IaPlan& ia, const std::set<int>& scans, Index batches, int rank) {
  if (scans.empty()) return 0;
  physical::IaPlan keeping = ia;
  keeping.roots.insert(keeping.roots.end(), scans.begin(), scans.end());
  const auto held_along = physical::estimate_memory(keeping).peak_bytes - physical::estimate_memory(ia).peak_bytes;
  return static_cast<double>(held_along) + kept_bytes(ia, scans, batches, rank) - kept_bytes(ia, scans, 1, rank);
}

}  // namespace tra::app
