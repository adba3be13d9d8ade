#include "tra/einsum/statement.hpp"

#include <algorithm>
#include <sstream>

namespace tra::einsum {

Labels EinSum::all_labels() const {
  Labels all = output.labels;
  for (const auto& l : agg_labels)
    if (std::find(all.begin(), all.end(), l) == all.end()) all.push_back(l);
  return all;
}

static std::string ref_str(const TensorRef& r) {
  std::string s = r.name + "[";
  for (size_t i = 0; i < r.labels.size(); ++i) s += (i ? "," : "") + r.labels[i];
  return s + "]";
}

std::string EinSum::str() const {
  std::ostringstream os;
  os << ref_str(output) << " = ";
  if (agg != AggOp::None) {
    os << agg_name(agg) << "_{";
    for (size_t i = 0; i < agg_labels.size(); ++i) os << (i ? "," : "") << agg_labels[i];
    os << "} ";
  }
  os << join.str(inputs.empty() ? "x" : ref_str(inputs[0]), inputs.size() > 1 ? ref_str(inputs[1]) : "y");
  return os.str();
}

}  // namespace tra::einsum
