#include "tra/model/workflow.hpp"

#include <iterator>
#include <set>

#include <sstream>

namespace tra::model {

std::string Generator::str() const {
  std::ostringstream os;
  switch (kind) {
    case Kind::Uniform:
      os << "uniform(" << a << ", " << b << ", " << seed << ")";
      break;
    case Kind::Normal:
      os << "normal(" << a << ", " << b << ", " << seed << ")";
      break;
    case Kind::Zeros:
      os << "zeros";
      break;
    case Kind::Ones:
      os << "ones";
      break;
    case Kind::Identity:
      os << "identity";
      break;
    case Kind::Arange:
      os << "arange(" << a << ", " << b << ")";
      break;
  }
  return os.str();
}

std::string TraStatement::str() const {
  std::ostringstream os;
  os << output << " = ";
  switch (op) {
    case Op::Filter:
      os << "Filter(" << expr << ")(" << input << ")";
      break;
    case Op::ReKey:
      os << "ReKey(" << expr << ")(" << input << ")";
      break;
    case Op::Transform:
      os << "Transform(" << expr << ")(" << input << ")";
      break;
    case Op::Tile:
      os << "Tile(" << dim << ", " << size << ")(" << input << ")";
      break;
    case Op::Concat:
      os << "Concat(" << key_dim << ", " << dim << ")(" << input << ")";
      break;
  }
  return os.str();
}

Shape TensorDecl::source_shape() const {
  Shape s = shape;
  if (batch) s[static_cast<size_t>(batch->dim)] = batch->rows;
  return s;
}

const TensorDecl* Workflow::find_tensor(const std::string& name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

namespace {

using Partitioner = RunOptions::Partitioner;

// The one table of the partitioners' names.
constexpr std::pair<Partitioner, const char*> kPartitioners[] = {
    {Partitioner::EinDecomp, "eindecomp"},          {Partitioner::Sqrt, "sqrt"},     {Partitioner::DataParallel, "data-parallel"},
    {Partitioner::ModelParallel, "model-parallel"}, {Partitioner::Manual, "manual"},
};

}  // namespace

const char* method_name(TrainSettings::Method m) {
  switch (m) {
    case TrainSettings::Method::LocalSgd:
      return "local_sgd";
    case TrainSettings::Method::Ist:
      return "ist";
    default:
      return "synchronous";
  }
}

const char* partitioner_name(Partitioner k) {
  for (const auto& [kind, name] : kPartitioners)
    if (kind == k) return name;
  return "?";
}

std::optional<Partitioner> partitioner_named(const std::string& name) {
  for (const auto& [kind, known] : kPartitioners)
    if (name == known) return kind;
  return std::nullopt;
}

std::string partitioner_names() {
  std::string s;
  const size_t n = std::size(kPartitioners);
  for (size_t i = 0; i < n; ++i) s += std::string(i == 0 ? "" : i + 1 == n ? " or " : ", ") + kPartitioners[i].second;
  return s;
}

const std::string& statement_output(const Statement& s) {
  if (auto e = std::get_if<einsum::EinSum>(&s)) return e->output.name;
  return std::get<TraStatement>(s).output;
}

std::vector<std::string> statement_inputs(const Statement& s) {
  std::vector<std::string> names;
  if (auto e = std::get_if<einsum::EinSum>(&s))
    for (const auto& in : e->inputs) names.push_back(in.name);
  else names.push_back(std::get<TraStatement>(s).input);
  return names;
}

std::vector<std::string> graph_sinks(const Workflow& wf) {
  std::set<std::string> read;
  for (const auto& s : wf.graph)
    for (auto& name : statement_inputs(s)) read.insert(std::move(name));
  std::vector<std::string> sinks;
  for (const auto& s : wf.graph)
    if (!read.count(statement_output(s))) sinks.push_back(statement_output(s));
  return sinks;
}

double OutputStorage::stored_bytes(const Shape& shape) const {
  double elements = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    const Index c = chunks.empty() ? shape[i] : chunks[i];
    elements *= static_cast<double>((shape[i] + c - 1) / c * c);
  }
  return elements * (float32 ? 4.0 : 8.0);
}

std::vector<std::pair<SourceLoc, std::string>> unused(const Workflow& wf) {
  std::set<std::string> used;
  for (const auto& s : wf.graph)
    for (auto& name : statement_inputs(s)) used.insert(std::move(name));
  for (const auto& o : wf.outputs) used.insert(o.tensor);
  if (wf.train) used.insert(wf.train->loss);
  std::vector<std::pair<SourceLoc, std::string>> out;
  for (const auto& p : wf.params)
    if (!p.used) out.emplace_back(p.loc, "parameter '" + p.name + "' is declared in params: but no value of the deck refers to it ($" + p.name + ")");
  for (const auto& t : wf.tensors)
    if (!used.count(t.name)) out.emplace_back(t.loc, "tensor '" + t.name + "' is declared but no statement, output or train: uses it");
  if (!wf.outputs.empty())
    for (const auto& s : wf.graph)
      if (!used.count(statement_output(s)))
        out.emplace_back(statement_loc(s), "'" + statement_output(s) + "' is computed but nothing reads or writes it, so it is not computed");
  return out;
}

const SourceLoc& statement_loc(const Statement& s) {
  if (auto e = std::get_if<einsum::EinSum>(&s)) return e->loc;
  return std::get<TraStatement>(s).loc;
}

}  // namespace tra::model
