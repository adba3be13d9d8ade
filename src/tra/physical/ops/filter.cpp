// σL(boolFunc): each site keeps the tuples whose key passes.
#include "tra/physical/ops/ops.hpp"

namespace tra::physical {

bool operator==(const FilterParams& a, const FilterParams& b) { return a.predicate == b.predicate; }

namespace ops {

void infer(FilterParams& p, IaNode& n, const Context& c) {
  const IaNode& x = c.in(n);
  n.dist.everywhere = x.dist.everywhere;
  for (const auto& [k, site] : x.dist.at)
    if (p.predicate.test(k)) n.dist.at.emplace_back(k, site);
}

// Filters cost nothing in the time estimate: a pass over keys.
double seconds(const FilterParams&, const IaNode&, const Rates&, bool) { return 0; }

std::string text(const FilterParams& p) { return " " + p.predicate.text(); }

std::string words(const FilterParams& p, const IaNode&) { return p.predicate.text(); }

// Its survivors are its input's tuples.
std::vector<std::int64_t> bytes_passed_through(const FilterParams&, const IaNode& n, const Context& c) { return held_bytes(n, c.nsites); }

// A predicate is read through its input's key layout: nothing to check here.
std::string typing_problem(const FilterParams&, const IaNode&, const Context&) { return ""; }

}  // namespace ops
}  // namespace tra::physical
