// The initial placement of an input is part of the plan (issue: "how they sit
// on the ranks when read"): a Scan can read its tuples straight onto the sites
// a Shuffle or Bcast right after it would send them to. Nothing crosses the
// network then, but a replicated read reads every tuple on every site, which
// the cost model charges at the generator or HDF5 rate.
#include "tra/physical/plan_edit.hpp"
#include "tra/physical/rules/rule.hpp"

namespace tra::physical {
namespace {

using Kind = IaNode::Kind;

bool read_in_place(IaPlan& p, int at, Kind movement, Placement where, const std::string& how) {
  const IaNode& n = p.node(at);
  if (n.kind != movement || p.node(n.inputs[0]).kind != Kind::Scan) return false;
  IaNode scan = p.node(n.inputs[0]);
  scan.placement = std::move(where);
  scan.site_grid = n.site_grid;
  scan.detail = scan.source ? scan.detail.substr(0, scan.detail.find(',')) + ", " + how : scan.detail;
  const int ns = add_node(p, std::move(scan));
  redirect(p, at, ns);
  return true;
}

// Shuf(d)(Scan(R)) ≡ Scan(R) read on Part<d>.
bool scan_part(IaPlan& p, int at) {
  const Placement where = p.node(at).placement;
  return read_in_place(p, at, Kind::Shuffle, where, "read on " + where.str());
}

// Bcast(Scan(R)) ≡ Scan(R) read on every site.
bool scan_all(IaPlan& p, int at) { return read_in_place(p, at, Kind::Bcast, Placement::all(), "read on every site"); }

}  // namespace

const std::vector<Rule>& scan_placement_rules() {
  static const std::vector<Rule> rules = {
      {"scan-part", "read an input on the sites a shuffle right after it would send it to", single(scan_part), 1, {IaNode::Kind::Shuffle}},
      {"scan-all", "read an input on every site instead of reading and broadcasting it", single(scan_all), 1, {IaNode::Kind::Bcast}},
  };
  return rules;
}

std::vector<const Rule*> all_rules() {
  std::vector<const Rule*> out;
  for (const auto* family : {&repartition_rules(), &kernel_composition_rules(), &scan_placement_rules()})
    for (const Rule& r : *family) out.push_back(&r);
  return out;
}

}  // namespace tra::physical
