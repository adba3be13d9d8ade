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

EinSum make_sum_einsum(const TensorRef& output, std::vector<TensorRef> inputs, const ScalarProgram& join, const SourceLoc& at) {
  EinSum e;
  e.loc = at;
  e.output = output;
  e.output.loc = at;
  for (auto& in : inputs) in.loc = at;
  e.inputs = std::move(inputs);
  auto has = [](const Labels& ls, const Label& l) { return std::find(ls.begin(), ls.end(), l) != ls.end(); };
  for (const auto& in : e.inputs)
    for (const auto& l : in.labels)
      if (!has(e.output.labels, l) && !has(e.agg_labels, l)) e.agg_labels.push_back(l);
  e.agg = e.agg_labels.empty() ? AggOp::None : AggOp::Sum;
  e.join = join;
  e.text = e.str();
  return e;
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
