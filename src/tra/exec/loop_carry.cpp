#include "tra/exec/loop_carry.hpp"

#include <map>

#include "tra/comm/exchange.hpp"

namespace tra::exec {

namespace {

std::map<Key, int> sites_of(const physical::Distribution& d) {
  std::map<Key, int> out;
  for (const auto& [k, site] : d.at) out.emplace(k, site);
  return out;
}

}  // namespace

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
  std::vector<Tuple> out = comm::shuffle(c, mine, key_arity, scan.type.chunk_shape, [&](const Key& k) { return want.at(k); }, m);
  moved = m.floats;
  return out;
}

}  // namespace tra::exec
