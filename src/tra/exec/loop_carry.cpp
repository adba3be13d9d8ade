#include "tra/exec/loop_carry.hpp"

#include <algorithm>

#include "tra/comm/exchange.hpp"

namespace tra::exec {

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
      c, std::move(addressed), next.type.key_arity() + 1, next.type.chunk_shape, next.type.dtype,
      [](const Key& k) { return static_cast<int>(k.back()); }, m);
  moved = m.floats;
  for (Tuple& t : out) t.key.pop_back();
  return out;
}

std::optional<std::vector<Tuple>> carry(const comm::Communicator& c, const std::vector<Tuple>& mine, const physical::IaNode& next,
                                        const physical::IaNode& scan, Index& moved) {
  moved = 0;
  if (next.type.chunk_shape != scan.type.chunk_shape || next.type.dtype != scan.type.dtype) return std::nullopt;
  const int key_arity = scan.type.key_arity();
  if (scan.dist.everywhere) {
    if (next.dist.everywhere) return mine;
    comm::Moved m;
    std::vector<Tuple> all = comm::broadcast(c, mine, key_arity, scan.type.chunk_shape, scan.type.dtype, m);
    moved = m.floats;
    return all;
  }
  const std::map<Key, int> want = physical::sites_of(scan.dist);
  if (next.dist.everywhere) {
    std::vector<Tuple> out;
    for (const Tuple& t : mine)
      if (auto w = want.find(t.key); w != want.end() && w->second == c.rank()) out.push_back(t);
    return out;
  }
  // Every chunk already where it is read (plain data, the same on every
  // rank): nothing moves, and no rank waits for the others, as a Shuffle's
  // exchange of counts would make them.
  const auto in_place = [&](const auto& key_site) {
    const auto w = want.find(key_site.first);
    return w != want.end() && w->second == key_site.second;
  };
  if (std::all_of(next.dist.at.begin(), next.dist.at.end(), in_place)) return mine;
  comm::Moved m;
  std::vector<Tuple> out = comm::shuffle(
      c, mine, key_arity, scan.type.chunk_shape, scan.type.dtype, [&](const Key& k) { return want.at(k); }, m);
  moved = m.floats;
  return out;
}

}  // namespace tra::exec
