#include "tra/physical/plan_dot.hpp"

#include <map>
#include <sstream>
#include <vector>

namespace tra::physical {
namespace {

// A string inside a Graphviz "..." label.
std::string quoted(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

// Reads, moves and computes look different at a glance.
const char* style_of(Role role) {
  switch (role) {
    case Role::Read:
      return "shape=cylinder, style=filled, fillcolor=\"#e8f0fe\"";
    case Role::Move:
      return "shape=box, style=\"filled,rounded\", fillcolor=\"#fde7e7\"";
    case Role::Compute:
      return "shape=box, style=filled, fillcolor=\"#f4f4f4\"";
  }
  return "";
}

std::string label_of(const IaNode& n, int i) {
  std::ostringstream os;
  os << "p" << i << " " << n.name() << "\n"
     << (n.words().empty() ? "" : n.words() + "\n") << n.type.str() << ", " << n.dist.tuples() << " tuples, " << n.where();
  if (n.moves()) os << "\nmoves " << n.predicted_floats << " floats";
  return os.str();
}

}  // namespace

std::string plan_dot(const IaPlan& plan, const std::string& title) {
  std::ostringstream os;
  os << "digraph ia_plan {\n"
     << "  label=\""
     << quoted(title + "\npredicted: " + std::to_string(plan.predicted_floats()) + " floats moved between " + std::to_string(plan.nsites) + " sites")
     << "\";\n  labelloc=t;\n  rankdir=TB;\n  fontname=\"DejaVu Sans\";\n  node [fontname=\"DejaVu Sans\", fontsize=10];\n";
  // Operators grouped by the TRA node they implement (rules add some of
  // their own, outside any group).
  std::map<int, std::vector<int>> by_tra;
  for (size_t i = 0; i < plan.nodes.size(); ++i) by_tra[plan.nodes[i].tra_node].push_back(static_cast<int>(i));
  std::vector<bool> root(plan.nodes.size(), false);
  for (int r : plan.roots) root[static_cast<size_t>(r)] = true;
  for (const auto& [tra, members] : by_tra) {
    const bool boxed = tra >= 0;
    if (boxed) os << "  subgraph cluster_t" << tra << " {\n    label=\"t" << tra << "\";\n    style=dashed;\n    color=\"#999999\";\n";
    for (int i : members) {
      const IaNode& n = plan.node(i);
      os << (boxed ? "    " : "  ") << "p" << i << " [label=\"" << quoted(label_of(n, i)) << "\", " << style_of(n.role())
         << (root[static_cast<size_t>(i)] ? ", peripheries=2" : "") << "];\n";
    }
    if (boxed) os << "  }\n";
  }
  for (size_t i = 0; i < plan.nodes.size(); ++i)
    for (int in : plan.nodes[i].inputs) os << "  p" << in << " -> p" << i << ";\n";
  os << "}\n";
  return os.str();
}

}  // namespace tra::physical
