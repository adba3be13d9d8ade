// The initial placement of an input is part of the plan (issue: "how they sit
// on the ranks when read"): a Scan can read its tuples straight onto the sites
// a Shuffle or Bcast right after it would send them to. Nothing crosses the
// network then, but a replicated read reads every tuple on every site, which
// the cost model charges at the generator or HDF5 rate.
#include "tra/core/processor_grid.hpp"
#include "tra/physical/plan_edit.hpp"
#include "tra/physical/rules/rule.hpp"

namespace tra::physical {
namespace {

using Kind = IaNode::Kind;

bool read_in_place(IaPlan& p, int at, Kind movement, Placement where) {
  const IaNode& n = p.node(at);
  if (n.kind() != movement || p.node(n.inputs[0]).kind() != Kind::Scan) return false;
  // Read where it is read already: the shuffle moves nothing, and a second
  // read of the same tuples on the same sites would only cost its time.
  const IaNode& in = p.node(n.inputs[0]);
  const Shape site_grid = n.kind() == Kind::Shuffle ? n.site_grid() : Shape{};
  if (in.placement().same_sites(where, in.site_grid(), site_grid, p.nsites)) {
    redirect(p, at, n.inputs[0]);
    return true;
  }
  IaNode scan = p.node(n.inputs[0]);
  scan.placement() = std::move(where);
  scan.site_grid() = site_grid;
  const int ns = add_node(p, std::move(scan));
  redirect(p, at, ns);
  return true;
}

// Shuf(d)(Scan(R)) ≡ Scan(R) read on Part<d>.
bool scan_part(IaPlan& p, int at) { return read_in_place(p, at, Kind::Shuffle, p.node(at).placement()); }

// Bcast(Scan(R)) ≡ Scan(R) read on every site.
bool scan_all(IaPlan& p, int at) { return read_in_place(p, at, Kind::Bcast, Placement::all()); }

// Shuf(P)(λreplica(Scan(R))) with R read on the face of P's grid: a join
// strategy replicates R over the dimensions of P it lacks, one copy per site
// coordinate along them, and shuffles the copies onto P's grid. Read on the
// face (R's own dimensions on the grid's sites and strides), spread over the
// lacking dimensions by each key's block index (core/placement.hpp), one copy
// of every tuple is already where it goes, and the sites above the face read
// too where R has more blocks than the face has sites; read
// by the default placement, most are not (2 row blocks of A on 4 sites sit on
// sites 0 and 1, and a 2x2 grid wants them on 0 and 2; A of an RMM on
// 2x2x2 moved 1.75 of its 2 copies, and 1 read on the spread face).
bool scan_face(IaPlan& p, int at) {
  const IaNode& sh = p.node(at);
  if (sh.kind() != Kind::Shuffle || sh.placement().kind != Placement::Kind::Part) return false;
  const int rep = sh.inputs[0];
  if (!p.node(rep).is_replica()) return false;
  const int scan = p.node(rep).inputs[0];
  if (p.node(scan).kind() != Kind::Scan) return false;
  const int arity = p.node(scan).type.key_arity();
  const ProcGrid grid = sh.placement().grid_for(sh.site_grid(), p.nsites);
  const std::vector<Index> strides = sh.placement().strides_for(grid);
  Placement face;
  for (size_t t = 0; t < sh.placement().dims.size(); ++t) {
    if (sh.placement().dims[t] >= arity) {  // a dimension the replication added
      face.spread.push_back({grid[t], strides[t]});
      continue;
    }
    face.dims.push_back(sh.placement().dims[t]);
    face.grid.push_back(grid[t]);
    face.strides.push_back(strides[t]);
  }
  if (face.dims.empty() || p.node(scan).placement().same_sites(face, p.node(scan).site_grid(), {}, p.nsites)) return false;
  IaNode read = p.node(scan);
  read.placement() = face;
  read.site_grid() = read.type.frontier;
  // Every reader of the input reads it there (an output that writes the
  // input too: one read, not two).
  const int ns = add_node(p, std::move(read));
  redirect(p, scan, ns);
  return true;
}

}  // namespace

const std::vector<Rule>& scan_placement_rules() {
  static const std::vector<Rule> rules = {
      {"scan-part", "read an input on the sites a shuffle right after it would send it to", single(scan_part), 1, {IaNode::Kind::Shuffle}},
      {"scan-all", "read an input on every site instead of reading and broadcasting it", single(scan_all), 1, {IaNode::Kind::Bcast}},
      {"scan-face",
       "read an input that a join strategy replicates on the face of its grid (one copy stays)",
       single(scan_face),
       1,
       {IaNode::Kind::Shuffle}},
  };
  return rules;
}

std::vector<const Rule*> all_rules() {
  std::vector<const Rule*> out;
  for (const auto* family :
       {&repartition_rules(), &kernel_composition_rules(), &scan_placement_rules(), &shuffle_placement_rules(), &shared_exchange_rules()})
    for (const Rule& r : *family) out.push_back(&r);
  return out;
}

}  // namespace tra::physical
