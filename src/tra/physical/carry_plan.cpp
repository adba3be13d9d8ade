#include "tra/physical/carry_plan.hpp"

#include <algorithm>
#include <map>

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

Index regrid_floats(const IaNode& next, const std::map<Key, std::set<int>>& sites) {
  if (next.dist.everywhere || sites.empty()) return 0;
  Index chunks = 0;
  for (const auto& [k, site] : next.dist.at) {
    const std::set<int>& to = sites.at(k);
    chunks += static_cast<Index>(to.size()) - static_cast<Index>(to.count(site));
  }
  return chunks * volume(next.type.chunk_shape);
}

std::optional<Index> carry_floats(const IaNode& next, const IaNode& scan, int nranks) {
  if (next.type.chunk_shape != scan.type.chunk_shape) return std::nullopt;
  if (next.dist.everywhere) return 0;
  const Index chunk = volume(scan.type.chunk_shape);
  if (scan.dist.everywhere) return static_cast<Index>(next.dist.tuples()) * (nranks - 1) * chunk;
  const std::map<Key, int> want = sites_of(scan.dist);
  Index floats = 0;
  for (const auto& [k, site] : next.dist.at)
    if (auto w = want.find(k); w != want.end() && w->second != site) floats += chunk;
  return floats;
}

}  // namespace tra::physical
