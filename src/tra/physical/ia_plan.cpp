#include "tra/physical/ia_plan.hpp"

#include <iomanip>
#include <sstream>

namespace tra::physical {

std::string IaNode::name() const {
  switch (kind) {
    case Kind::Scan: return "Scan";
    case Kind::Bcast: return "Bcast";
    case Kind::Shuffle: return "Shuf";
    case Kind::LocalJoin: return "⋈L";
    case Kind::LocalAgg: return "ΣL";
    case Kind::LocalFilter: return "σL";
    case Kind::LocalMap: return "λL";
  }
  return "?";
}

Index IaPlan::predicted_floats() const {
  Index n = 0;
  for (const auto& x : nodes) n += x.predicted_floats;
  return n;
}

double IaPlan::flops() const {
  double f = 0;
  for (const auto& x : nodes) f += x.flops;
  return f;
}

std::string IaPlan::str() const {
  std::ostringstream os;
  int last_tra = -2;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const IaNode& n = nodes[i];
    if (n.tra_node != last_tra && n.tra_node >= 0) {
      os << "  -- implements t" << n.tra_node << "\n";
      last_tra = n.tra_node;
    }
    os << "  p" << i << " = " << n.name() << "(" << n.detail << ")";
    if (!n.inputs.empty()) {
      os << "(";
      for (size_t k = 0; k < n.inputs.size(); ++k) os << (k ? ", " : "") << "p" << n.inputs[k];
      os << ")";
    }
    std::string where = n.dist.everywhere ? "All" : n.scattered ? "Scattered" : "one site each";
    if (n.kind == IaNode::Kind::Scan || n.kind == IaNode::Kind::Shuffle) where = n.placement.str();
    os << "   " << n.type.str() << ", " << n.dist.tuples() << " tuples, " << where;
    if (n.moves()) os << ", moves " << n.predicted_floats << " floats (paper cost " << std::setprecision(6) << n.paper_cost << ")";
    os << "\n";
  }
  os << "  predicted: " << predicted_floats() << " floats moved between " << nsites << " sites, " << std::setprecision(4)
     << flops() / 1e9 << " GFLOP\n";
  return os.str();
}

}  // namespace tra::physical
