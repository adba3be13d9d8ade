// Where a shuffle sends its groups is part of the plan. A join strategy sends
// the groups of an aggregation after the join to a face of its processor grid,
// where one partial result of each group already is (join_strategies.cpp);
// on a 2x2 grid that is 2 of 4 sites, and the groups beyond the grid's first
// round are dealt over the other 2 (core/placement.hpp, spread). Where the
// face keeps few groups, spreading them over every site by the default grid
// may still finish sooner, though it moves more floats: the cost model
// decides, in the optimizer's last phase (optimizer.cpp, "placement").
#include "tra/physical/rules/rule.hpp"

namespace tra::physical {
namespace {

using Kind = IaNode::Kind;

// Shuf(d) on a given grid ≡ Shuf(d) on the default grid for its extents.
bool shuffle_spread(IaPlan& p, int at) {
  const IaNode& sh = p.node(at);
  if (sh.kind() != Kind::Shuffle || sh.placement().kind != Placement::Kind::Part) return false;
  const Placement spread{Placement::Kind::Part, sh.placement().dims, {}, {}, {}, {}};
  if (sh.placement().same_sites(spread, sh.site_grid(), sh.site_grid(), p.nsites)) return false;
  // Edited in place: a shuffle's placement is a parameter, and the trial
  // that applied the rule takes the node back if the plan is not cheaper.
  p.node(at).placement() = spread;
  return true;
}

}  // namespace

const std::vector<Rule>& shuffle_placement_rules() {
  static const std::vector<Rule> rules = {
      {"shuffle-spread",
       "send a shuffle's groups over every site (the default grid), not over a face of a join's grid",
       single(shuffle_spread),
       1,
       {IaNode::Kind::Shuffle}},
  };
  return rules;
}

}  // namespace tra::physical
