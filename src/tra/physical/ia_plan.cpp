#include "tra/physical/ia_plan.hpp"

#include <iomanip>
#include <sstream>

namespace tra::physical {

std::string IaNode::name() const {
  switch (kind()) {
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

double IaNode::call_flops() const {
  switch (kind()) {
    case Kind::LocalJoin: return join().call_flops;
    case Kind::LocalAgg: return agg().call_flops;
    case Kind::LocalMap: return map().call_flops;
    default: return 0;
  }
}

bool operator==(const ScanParams& a, const ScanParams& b) {
  return a.source.has_value() == b.source.has_value() && (!a.source || a.source->same_data(*b.source)) && a.placement.same_as(b.placement) &&
         a.site_grid == b.site_grid;
}
bool operator==(const BcastParams&, const BcastParams&) { return true; }
bool operator==(const ShuffleParams& a, const ShuffleParams& b) { return a.placement.same_as(b.placement) && a.site_grid == b.site_grid; }
bool operator==(const JoinParams& a, const JoinParams& b) {
  return a.keys_left == b.keys_left && a.keys_right == b.keys_right && a.kernel == b.kernel && a.call_flops == b.call_flops && a.gemm == b.gemm &&
         a.out_key == b.out_key && a.has_base == b.has_base && a.base_keys_left == b.base_keys_left && a.base_keys_right == b.base_keys_right &&
         a.base_out_key == b.base_out_key;
}
bool operator==(const AggParams& a, const AggParams& b) {
  return a.group_by == b.group_by && a.kernel == b.kernel && a.call_flops == b.call_flops && a.decomposable == b.decomposable;
}
bool operator==(const FilterParams& a, const FilterParams& b) { return a.predicate == b.predicate; }
bool operator==(const MapParams& a, const MapParams& b) {
  return a.key_map == b.key_map && a.array_map == b.array_map && a.call_flops == b.call_flops && a.expand == b.expand && a.arity == b.arity &&
         a.replica == b.replica;
}

bool IaNode::same_operator(const IaNode& o) const {
  return inputs == o.inputs && tra_node == o.tra_node && out_type == o.out_type && params == o.params;
}

namespace {

std::string list(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return "<" + s + ">";
}

std::string expansion_text(const Expansion& e) {
  if (const auto* r = std::get_if<Retile>(&e)) return "retile split " + shape_string(r->split) + " group " + shape_string(r->group) + " piece " + shape_string(r->piece);
  if (const auto* t = std::get_if<TileKeys>(&e)) return "tile dim " + std::to_string(t->dim) + " size " + std::to_string(t->size) + " pieces " + std::to_string(t->pieces);
  if (const auto* c = std::get_if<Replicate>(&e)) return "replicate " + shape_string(c->coords);
  const Spread& s = std::get<Spread>(e);
  return "spread " + shape_string(s.coords) + " below " + shape_string(s.extents) + " from " + std::to_string(s.first);
}

std::string source_text(const model::TensorDecl& t) {
  std::string s = shape_string(t.shape) + (t.chunk ? " chunk " + shape_string(*t.chunk) : "") + " from ";
  if (const auto* g = std::get_if<model::Generator>(&t.source)) return s + g->str();
  const auto& h = std::get<model::Hdf5Source>(t.source);
  return s + h.file + ":" + h.dataset;
}

std::string key_text(const KeyFn& f) { return f.identity() ? "idOp" : f.text(); }

// Per kind, its parameters in words.
std::string params_text(const ScanParams& x) {
  return " " + (x.source ? x.source->name + " " + source_text(*x.source) : std::string("?")) + " on " + x.placement.str() + " grid " + shape_string(x.site_grid);
}
std::string params_text(const BcastParams&) { return ""; }
std::string params_text(const ShuffleParams& x) { return " " + x.placement.str() + " grid " + shape_string(x.site_grid); }
std::string params_text(const JoinParams& x) {
  std::string s = " keys " + list(x.keys_left) + "=" + list(x.keys_right) + " kernel " + (x.kernel.call.kernel ? x.kernel.call.text() : "?") +
                  (x.kernel.zip ? " zipped" : "") + (x.kernel.then.identity() ? "" : " then " + x.kernel.then.text()) + " out " + key_text(x.out_key) +
                  (x.gemm ? " gemm" : "");
  if (x.has_base) s += " base " + list(x.base_keys_left) + "=" + list(x.base_keys_right) + " out " + key_text(x.base_out_key);
  return s;
}
std::string params_text(const AggParams& x) { return " by " + list(x.group_by) + " " + x.kernel.text() + (x.decomposable ? " decomposable" : ""); }
std::string params_text(const FilterParams& x) { return " " + x.predicate.text(); }
std::string params_text(const MapParams& x) {
  if (x.expand) return " " + expansion_text(*x.expand) + " x" + std::to_string(x.arity) + (x.replica ? " replica" : "");
  return " " + key_text(x.key_map) + ", " + (x.array_map.identity() ? "idOp" : x.array_map.text());
}

}  // namespace

std::string IaNode::parameters() const {
  std::ostringstream os;
  os << name() << " " << list(inputs) << " t" << tra_node << " " << out_type.str();
  if (call_flops() != 0) os << " " << call_flops() << " flops/call";
  os << std::visit([](const auto& x) { return params_text(x); }, params);
  return os.str();
}

std::string IaPlan::parameters() const {
  std::ostringstream os;
  os << nsites << " sites, roots " << list(roots) << ", results " << list(tra_to_ia) << "\n";
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
    if (n.kind() == IaNode::Kind::Scan || n.kind() == IaNode::Kind::Shuffle) where = n.placement().str();
    os << "   " << n.type.str() << ", " << n.dist.tuples() << " tuples, " << where;
    if (n.moves()) os << ", moves " << n.predicted_floats << " floats (paper cost " << std::setprecision(6) << n.paper_cost << ")";
    os << "\n";
  }
  os << "  predicted: " << predicted_floats() << " floats moved between " << nsites << " sites, " << std::setprecision(4)
     << flops() / 1e9 << " GFLOP\n";
  return os.str();
}

}  // namespace tra::physical
