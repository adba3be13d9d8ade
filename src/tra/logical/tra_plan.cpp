#include "tra/logical/tra_plan.hpp"

#include <sstream>

namespace tra::logical {

std::string TraNode::name() const {
  switch (kind) {
    case Kind::Input:
      return "Input";
    case Kind::Retile:
      return "Retile";
    case Kind::Join:
      return "Join";
    case Kind::Transform:
      return "Transform";
    case Kind::Aggregate:
      return "Aggregate";
    case Kind::Filter:
      return "Filter";
    case Kind::ReKey:
      return "ReKey";
    case Kind::Tile:
      return "Tile";
    case Kind::Concat:
      return "Concat";
  }
  return "?";
}

static std::string list(const std::vector<int>& v) {
  std::string s = "<";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + ">";
}

std::string TraNode::detail() const {
  std::ostringstream os;
  switch (kind) {
    case Kind::Input:
      os << tensor;
      break;
    case Kind::Retile:
      os << "grid " << shape_string(from_grid) << " -> " << shape_string(type.frontier);
      break;
    case Kind::Join:
      os << list(keys_left) << ", " << list(keys_right) << ", " << einsum->name();
      break;
    case Kind::Transform:
      if (array_kernel == ArrayKernel::Diag) os << "diag";
      else if (array_kernel == ArrayKernel::Scalar) os << scalar.str();
      else os << einsum->name();
      break;
    case Kind::Aggregate:
      os << list(group_by) << ", " << einsum::agg_name(agg);
      break;
    case Kind::Filter:
    case Kind::ReKey:
      os << key_fn->text();
      break;
    case Kind::Tile:
      os << dim << ", " << size;
      break;
    case Kind::Concat:
      os << key_dim << ", " << dim;
      break;
  }
  return os.str();
}

std::string TraPlan::str() const {
  std::ostringstream os;
  std::string last;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const TraNode& n = nodes[i];
    if (n.statement != last) {
      os << "  -- " << n.statement << "\n";
      last = n.statement;
    }
    os << "  t" << i << " = " << n.name() << "(" << n.detail() << ")";
    if (!n.inputs.empty()) {
      os << "(";
      for (size_t k = 0; k < n.inputs.size(); ++k) os << (k ? ", " : "") << "t" << n.inputs[k];
      os << ")";
    }
    os << "   " << n.type.str() << ", " << n.keys.size() << " tuples\n";
  }
  return os.str();
}

}  // namespace tra::logical
