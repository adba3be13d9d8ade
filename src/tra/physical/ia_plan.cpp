#include "tra/physical/ia_plan.hpp"

#include <iomanip>
#include <sstream>
#include <type_traits>

#include "tra/physical/ops/ops.hpp"

namespace tra::physical {

std::string IaNode::name() const {
  return std::visit([](const auto& p) { return std::decay_t<decltype(p)>::kName; }, params);
}

Role IaNode::role() const {
  return std::visit([](const auto& p) { return std::decay_t<decltype(p)>::kRole; }, params);
}

double IaNode::call_flops() const {
  return std::visit([](const auto& p) { return ops::call_flops(p); }, params);
}

bool IaNode::same_operator(const IaNode& o) const {
  return inputs == o.inputs && tra_node == o.tra_node && out_type == o.out_type && params == o.params;
}

std::string IaNode::parameters() const {
  std::ostringstream os;
  os << name() << " " << ops::dims_list(inputs) << " t" << tra_node << " " << out_type.str();
  if (call_flops() != 0) os << " " << call_flops() << " flops/call";
  os << std::visit([](const auto& x) { return ops::text(x); }, params);
  return os.str();
}

std::string IaNode::words() const {
  return std::visit([&](const auto& p) { return ops::words(p, *this); }, params);
}

std::string IaPlan::parameters() const {
  std::ostringstream os;
  os << nsites << " sites, roots " << ops::dims_list(roots) << ", results " << ops::dims_list(tra_to_ia) << "\n";
  for (size_t i = 0; i < nodes.size(); ++i) os << "p" << i << " = " << nodes[i].parameters() << "\n";
  return os.str();
}

bool IaPlan::operator==(const IaPlan& o) const {
  if (nsites != o.nsites || roots != o.roots || tra_to_ia != o.tra_to_ia || nodes.size() != o.nodes.size()) return false;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (!nodes[i].same_operator(o.nodes[i])) return false;
  return true;
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

std::vector<int> streamed_into(const IaPlan& plan, const std::vector<int>& live) {
  const size_t n = plan.nodes.size();
  std::vector<int> consumers(n, 0), out(n, -1);
  for (int x : live)
    for (int i : plan.node(x).inputs) ++consumers[static_cast<size_t>(i)];
  for (int r : plan.roots) ++consumers[static_cast<size_t>(r)];  // a wanted result is kept whole
  for (int a : live) {
    const IaNode& agg = plan.node(a);
    if (agg.kind() != IaNode::Kind::LocalAgg || agg.agg().kernel.fold() == einsum::AggOp::None) continue;
    const int j = agg.inputs.at(0);
    if (plan.node(j).kind() == IaNode::Kind::LocalJoin && consumers[static_cast<size_t>(j)] == 1) out[static_cast<size_t>(j)] = a;
  }
  return out;
}

std::vector<int> streamed_into(const IaPlan& plan) {
  std::vector<int> all(plan.nodes.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  return streamed_into(plan, all);
}

bool folds_in_gemm(const IaPlan& plan, int j, int agg) {
  return agg >= 0 && plan.node(agg).agg().kernel.fold() == einsum::AggOp::Sum && plan.node(j).join().kernel.adds_into();
}

std::string IaNode::where() const {
  return std::visit(
      [&](const auto& p) -> std::string {
        using Params = std::decay_t<decltype(p)>;
        if constexpr (Params::kPlaced) return p.placement.str();
        else if constexpr (std::is_same_v<Params, CarryParams>)  // a regridded chunk: a copy on each site that reads part of it
          if (p.regrid && !dist.everywhere) return "copies where read";
        return dist.everywhere ? "All" : scattered ? "Scattered" : "one site each";
      },
      params);
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
    os << "  p" << i << " = " << n.name() << "(" << n.words() << ")";
    if (!n.inputs.empty()) {
      os << "(";
      for (size_t k = 0; k < n.inputs.size(); ++k) os << (k ? ", " : "") << "p" << n.inputs[k];
      os << ")";
    }
    os << "   " << n.type.str() << ", " << n.dist.tuples() << " tuples, " << n.where();
    if (n.moves()) {
      // A sparse product's result moves its filled rows alone (ops/shuffle.cpp).
      const bool filled = n.kind() == IaNode::Kind::Shuffle && nodes[static_cast<size_t>(n.inputs[0])].dist.filled_rows;
      os << ", moves " << n.predicted_floats << " floats" << (filled ? " of filled rows" : "") << " (paper cost " << std::setprecision(6)
         << n.paper_cost << ")";
    }
    os << "\n";
  }
  os << "  predicted: " << predicted_floats() << " floats moved between " << nsites << " sites, " << std::setprecision(4) << flops() / 1e9
     << " GFLOP\n";
  return os.str();
}

}  // namespace tra::physical
