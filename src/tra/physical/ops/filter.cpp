// σL(boolFunc): each site keeps the tuples whose key passes.
#include "tra/physical/ops/ops.hpp"

namespace tra::physical {

bool operator==(const FilterParams& a, const FilterParams& b) { return a.predicate == b.predicate; }

namespace ops {

// Filters cost nothing in the time estimate: a pass over keys.
void infer_filter(IaNode& n, const Context& c) {
  const IaNode& x = c.in(n);
  n.dist.everywhere = x.dist.everywhere;
  for (const auto& [k, site] : x.dist.at)
    if (n.filter().predicate.test(k)) n.dist.at.emplace_back(k, site);
}

std::string text(const FilterParams& p) { return " " + p.predicate.text(); }

}  // namespace ops
}  // namespace tra::physical
