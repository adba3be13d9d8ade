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

bool IaNode::same_operator(const IaNode& o) const {
  if (kind != o.kind || inputs != o.inputs || tra_node != o.tra_node || !(out_type == o.out_type)) return false;
  switch (kind) {
    case Kind::Scan:
      return source.has_value() == o.source.has_value() && (!source || source->same_data(*o.source)) && placement.same_as(o.placement) &&
             site_grid == o.site_grid;
    case Kind::Bcast: return true;
    case Kind::Shuffle: return placement.same_as(o.placement) && site_grid == o.site_grid;
    case Kind::LocalJoin:
      return keys_left == o.keys_left && keys_right == o.keys_right && join == o.join && out_key == o.out_key && call_flops == o.call_flops &&
             gemm == o.gemm && has_base == o.has_base && base_keys_left == o.base_keys_left && base_keys_right == o.base_keys_right &&
             base_out_key == o.base_out_key;
    case Kind::LocalAgg:
      return group_by == o.group_by && agg == o.agg && agg_decomposable == o.agg_decomposable && call_flops == o.call_flops;
    case Kind::LocalFilter: return predicate == o.predicate;
    case Kind::LocalMap:
      return key_map == o.key_map && array_map == o.array_map && expand == o.expand && arity == o.arity && replica == o.replica &&
             call_flops == o.call_flops;
  }
  return false;
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

}  // namespace

std::string IaNode::parameters() const {
  std::ostringstream os;
  os << name() << " " << list(inputs) << " t" << tra_node << " " << out_type.str();
  switch (kind) {
    case Kind::Scan:
      os << " " << (source ? source->name + " " + source_text(*source) : "?") << " on " << placement.str() << " grid " << shape_string(site_grid);
      break;
    case Kind::Bcast: break;
    case Kind::Shuffle: os << " " << placement.str() << " grid " << shape_string(site_grid); break;
    case Kind::LocalJoin:
      os << " keys " << list(keys_left) << "=" << list(keys_right) << " kernel " << (join ? join->call.text() : "?") << (join && join->zip ? " zipped" : "")
         << (join && !join->then.identity() ? " then " + join->then.text() : "") << " out " << key_text(out_key);
      if (has_base) os << " base " << list(base_keys_left) << "=" << list(base_keys_right) << " out " << key_text(base_out_key);
      break;
    case Kind::LocalAgg: os << " by " << list(group_by) << " " << agg.text() << (agg_decomposable ? " decomposable" : ""); break;
    case Kind::LocalFilter: os << " " << predicate.text(); break;
    case Kind::LocalMap:
      if (expand) os << " " << expansion_text(*expand) << " x" << arity << (replica ? " replica" : "");
      else os << " " << key_text(key_map) << ", " << (array_map.identity() ? "idOp" : array_map.text());
      break;
  }
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
    if (agg.kind != IaNode::Kind::LocalAgg || agg.agg.fold() == einsum::AggOp::None) continue;
    const int j = agg.inputs.at(0);
    if (plan.node(j).kind == IaNode::Kind::LocalJoin && consumers[static_cast<size_t>(j)] == 1) out[static_cast<size_t>(j)] = a;
  }
  return out;
}

std::vector<int> streamed_into(const IaPlan& plan) {
  std::vector<int> all(plan.nodes.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  return streamed_into(plan, all);
}

bool folds_in_gemm(const IaPlan& plan, int j, int agg) {
  return agg >= 0 && plan.node(agg).agg.fold() == einsum::AggOp::Sum && plan.node(j).join->adds_into();
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
