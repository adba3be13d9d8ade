#include "tra/exec/loop_carry.hpp"

#include <algorithm>
#include <map>

#include "tra/comm/exchange.hpp"

namespace tra::exec {

namespace {

std::map<Key, int> sites_of(const physical::Distribution& d) {
  std::map<Key, int> out;
  for (const auto& [k, site] : d.at) out.emplace(k, site);
  return out;
}

// Whether chunk `a` (of shape `ca`) and chunk `b` (of shape `cb`) share an element.
bool overlap(const Key& a, const Shape& ca, const Key& b, const Shape& cb) {
  for (size_t i = 0; i < a.size(); ++i)
    if ((a[i] + 1) * ca[i] <= b[i] * cb[i] || (b[i] + 1) * cb[i] <= a[i] * ca[i]) return false;
  return true;
}

}  // namespace

std::map<Key, std::set<int>> regrid_sites(const physical::IaNode& next, const std::vector<const physical::IaNode*>& scans, int nranks) {
  std::map<Key, std::set<int>> out;
  const bool any = std::any_of(scans.begin(), scans.end(), [&](const physical::IaNode* s) { return s->type.chunk_shape != next.type.chunk_shape; });
  if (!any) return out;
  for (const auto& [k, site] : next.dist.at) {
    std::set<int>& to = out[k];
    for (const physical::IaNode* scan : scans) {
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

Index regrid_floats(const physical::IaNode& next, const std::map<Key, std::set<int>>& sites) {
  if (next.dist.everywhere || sites.empty()) return 0;
  Index chunks = 0;
  for (const auto& [k, site] : next.dist.at) {
    const std::set<int>& to = sites.at(k);
    chunks += static_cast<Index>(to.size()) - static_cast<Index>(to.count(site));
  }
  return chunks * volume(next.type.chunk_shape);
}

std::vector<Tuple> regrid(const comm::Communicator& c, const std::vector<Tuple>& mine, const physical::IaNode& next,
                          const std::map<Key, std::set<int>>& sites, Index& moved) {
  moved = 0;
  if (next.dist.everywhere) return mine;  // every rank holds every chunk already
  // One Shuffle of a copy of each chunk per rank that needs it: the
  // destination rides as an extra key dimension (the chunk is shared, not
  // copied, until it is packed).
  std::vector<Tuple> addressed;
  for (const Tuple& t : mine)
    for (int to : sites.at(t.key)) {
      Key k = t.key;
      k.push_back(to);
      addressed.push_back({k, t.chunk});
    }
  comm::Moved m;
  std::vector<Tuple> out = comm::shuffle(
      c, std::move(addressed), next.type.key_arity() + 1, next.type.chunk_shape, [](const Key& k) { return static_cast<int>(k.back()); }, m);
  moved = m.floats;
  for (Tuple& t : out) t.key.pop_back();
  return out;
}

std::optional<Index> carry_floats(const physical::IaNode& next, const physical::IaNode& scan, int nranks) {
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

std::optional<std::vector<Tuple>> carry(const comm::Communicator& c, const std::vector<Tuple>& mine, const physical::IaNode& next,
                                        const physical::IaNode& scan, Index& moved) {
  moved = 0;
  if (next.type.chunk_shape != scan.type.chunk_shape) return std::nullopt;
  const int key_arity = scan.type.key_arity();
  if (scan.dist.everywhere) {
    if (next.dist.everywhere) return mine;
    comm::Moved m;
    std::vector<Tuple> all = comm::broadcast(c, mine, key_arity, scan.type.chunk_shape, m);
    moved = m.floats;
    return all;
  }
  const std::map<Key, int> want = sites_of(scan.dist);
  if (next.dist.everywhere) {
    std::vector<Tuple> out;
    for (const Tuple& t : mine)
      if (auto w = want.find(t.key); w != want.end() && w->second == c.rank()) out.push_back(t);
    return out;
  }
  comm::Moved m;
  std::vector<Tuple> out = comm::shuffle(
      c, mine, key_arity, scan.type.chunk_shape, [&](const Key& k) { return want.at(k); }, m);
  moved = m.floats;
  return out;
}

}  // namespace tra::exec
