// Bcast(R): every tuple to every site.
#include <algorithm>

#include "tra/physical/ops/ops.hpp"

namespace tra::physical {

bool operator==(const BcastParams&, const BcastParams&) { return true; }

namespace ops {

void infer(BcastParams&, IaNode& n, const Context& c) {
  const IaNode& x = c.in(n);
  const int s = c.nsites;
  if (x.dist.everywhere) n.invalid = "broadcasts a relation that is already on every site";
  else if (x.type.sparse()) n.invalid = "broadcasts a sparse relation (its blocks are read where they are needed instead)";
  n.dist.everywhere = true;
  n.dist.at.reserve(x.dist.at.size());
  for (const auto& [k, site] : x.dist.at) n.dist.at.emplace_back(k, kEverySite);
  const Index f = volume(x.type.chunk_shape);
  if (x.dist.everywhere) return;
  n.predicted_floats = x.dist.tuples() * f * (s - 1);  // a site does not send to itself
  n.paper_cost = static_cast<double>(x.dist.tuples() * f) * s;
  const std::vector<Index> own = per_site(x.dist, s);
  Index received = 0;
  for (Index o : own) received = std::max(received, x.dist.tuples() - o);
  n.site_floats_in = received * f;
}

// A start-up latency and the busiest site's bytes received.
double seconds(const BcastParams&, const IaNode& n, const Rates& r, bool) {
  return r.latency + static_cast<double>(n.site_floats_in) * static_cast<double>(element_bytes(n.type.dtype)) / r.bcast_bytes;
}

std::string text(const BcastParams&) { return ""; }

std::string words(const BcastParams&, const IaNode&) { return ""; }

// From a relation on every site nothing moves: the input is the result.
std::vector<std::int64_t> bytes_passed_through(const BcastParams&, const IaNode& n, const Context& c) {
  const IaNode& in = c.in(n);
  return in.dist.everywhere ? held_bytes(n, c.nsites) : broadcast_passes_through(in, c.nsites);
}

std::string typing_problem(const BcastParams&, const IaNode& n, const Context&) {
  return n.dist.everywhere ? "" : "a Bcast whose result is not on every site";
}

}  // namespace ops
}  // namespace tra::physical
