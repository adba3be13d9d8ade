#include <algorithm>

#include "tra/physical/ops/ops.hpp"

namespace tra::physical::ops {

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

double fixed_seconds(const IaNode& n, const Rates& r) {
  return n.site_calls > 0 ? r.operator_seconds + static_cast<double>(n.site_calls) * r.call_seconds : 0;
}

std::vector<const Key*> sorted_keys(const Distribution& d) {
  std::vector<const Key*> keys;
  keys.reserve(d.at.size());
  for (const auto& [k, site] : d.at) keys.push_back(&k);
  // Most distributions list their keys in order already (a Scan's grid, a
  // join of ordered inputs): checked first, that costs one comparison a key.
  const auto less = [](const Key* a, const Key* b) { return *a < *b; };
  if (!std::is_sorted(keys.begin(), keys.end(), less)) std::sort(keys.begin(), keys.end(), less);
  return keys;
}

std::vector<const Key*> distinct_keys(const Distribution& d) {
  std::vector<const Key*> keys = sorted_keys(d);
  keys.erase(std::unique(keys.begin(), keys.end(), [](const Key* a, const Key* b) { return *a == *b; }), keys.end());
  return keys;
}

std::string dims_list(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return "<" + s + ">";
}

std::string key_text(const KeyFn& f) { return f.identity() ? "idOp" : f.text(); }

std::vector<std::int64_t> held_bytes(const IaNode& n, int nsites) {
  std::vector<std::int64_t> bytes(static_cast<size_t>(nsites), 0);
  const auto chunk = static_cast<std::int64_t>(n.type.bytes_per_tuple());
  if (n.dist.everywhere) {
    std::fill(bytes.begin(), bytes.end(), n.dist.tuples() * chunk);
    return bytes;
  }
  for (const auto& [key, site] : n.dist.at)
    if (site >= 0 && site < nsites) bytes[static_cast<size_t>(site)] += chunk;
  return bytes;
}

std::vector<std::int64_t> broadcast_passes_through(const IaNode& in, int nsites) {
  return nsites == 1 ? held_bytes(in, nsites) : std::vector<std::int64_t>(static_cast<size_t>(nsites), 0);
}

bool dims_below(const std::vector<int>& dims, int arity) {
  for (int d : dims)
    if (d < 0 || d >= arity) return false;
  return true;
}

std::string placement_problem(const Placement& p, int arity) {
  if (p.kind == Placement::Kind::Part && !dims_below(p.dims, arity)) return "placement " + p.str() + " names a dimension its relation's keys lack";
  return "";
}

}  // namespace tra::physical::ops
