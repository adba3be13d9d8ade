#include "tra/decomp/partitioners.hpp"

#include <algorithm>

#include "tra/decomp/viable.hpp"

namespace tra::decomp {
namespace {

// The largest power of two <= want dividing bound.
Index power_of_two_share(Index bound, Index want) {
  Index q = 1;
  while (q * 2 <= want && bound % (q * 2) == 0) q *= 2;
  return q;
}

// The largest divisor of n that is at most p (the `rows` rule of lowering).
Index largest_divisor_upto(Index n, Index p) {
  for (Index q = std::min(n, p); q > 1; --q)
    if (n % q == 0) return q;
  return 1;
}

// d for one statement by a fixed rule.
Partitioning by_rule(const Vertex& v, const PartitionerOptions& o, Index p) {
  Partitioning d(v.labels.size(), 1);
  if (v.labels.empty()) return d;
  switch (o.kind) {
    case Partitioner::Sqrt: {
      // √p, rounded up to a power of two so that each tensor has at least p pieces.
      Index root = 1;
      while (root * root < p) root *= 2;
      for (size_t l = 0; l < d.size(); ++l) d[l] = power_of_two_share(v.bound[l], root);
      break;
    }
    case Partitioner::DataParallel: {
      // The batch label, summed or not; without one (a forward deck, an
      // update, full-batch data) labels[0]: the first output label, or the
      // first aggregated one.
      const size_t l = v.batch_label >= 0 ? static_cast<size_t>(v.batch_label) : 0;
      d[l] = power_of_two_share(v.bound[l], p);
      break;
    }
    case Partitioner::ModelParallel: {
      const size_t l = v.output_pos.empty() ? d.size() - 1 : static_cast<size_t>(v.output_pos.back());
      d[l] = power_of_two_share(v.bound[l], p);
      break;
    }
    case Partitioner::Manual:
      if (o.manual_rows) d[0] = largest_divisor_upto(v.bound[0], o.nranks);
      break;
    case Partitioner::EinDecomp:
      break;
  }
  return d;
}

}  // namespace

Index kernel_calls_wanted(int nranks, Index overdecomposition) { return round_up_to_power_of_two(nranks) * overdecomposition; }

Plan decompose(const Graph& g, const PartitionerOptions& o) {
  const Index p = kernel_calls_wanted(o.nranks, o.overdecomposition);
  if (o.kind == Partitioner::EinDecomp) return plan_eindecomp(g, p);
  std::vector<Partitioning> d;
  for (const auto& v : g.vertices) d.push_back(v.pinned ? *v.pinned : by_rule(v, o, p));
  return costed(g, p, Method::Rule, std::move(d));
}

}  // namespace tra::decomp
