// One broadcast (or shuffle) of a relation serves every consumer that needs
// it so (TRA §6.3: the data-parallel plans' reuse of one broadcast). The
// join strategies place each join's inputs on their own, so two joins that
// read the same weights on every site each broadcast them; the second copy
// moves the same floats again. Merging them changes no relation, only how
// often it moves; the merged result is held until its last consumer, which
// the memory estimate sees.
#include "tra/physical/plan_edit.hpp"
#include "tra/physical/rules/rule.hpp"

namespace tra::physical {
namespace {

using Kind = IaNode::Kind;

// Bcast(R) ≡ an earlier Bcast(R); Shuf_D(R) ≡ an earlier Shuf_D(R) on the same
// grid. Only one some root needs: a node a search's rewrite replaced is left
// in its plan, and its derived fields are no longer kept up to date.
bool share_exchange(IaPlan& p, int at) {
  const IaNode& n = p.node(at);
  if ((n.kind() != Kind::Bcast && n.kind() != Kind::Shuffle) || n.inputs.size() != 1) return false;
  for (int j = 0; j < at; ++j) {
    const IaNode& m = p.node(j);
    if (m.kind() != n.kind() || m.inputs != n.inputs || !(m.params == n.params) || !needed(p, j)) continue;
    redirect(p, at, j);
    return true;
  }
  return false;
}

// A copy of R on every site other than `besides`: a Bcast of R, or, for a
// Scan, a Scan of the same tensor on the same chunks read on every site
// (scan-all's broadcast); -1 if none.
int broadcast_of(const IaPlan& p, int r, int besides) {
  const IaNode& scan = p.node(r);
  const bool read = scan.kind() == Kind::Scan && scan.scan().source;
  for (int j = 0; j < static_cast<int>(p.nodes.size()); ++j) {
    const IaNode& m = p.node(j);
    if (j == besides) continue;
    if (m.kind() == Kind::Bcast && m.inputs == std::vector<int>{r} && needed(p, j)) return j;
    if (read && m.kind() == Kind::Scan && m.dist.everywhere && m.scan().source && m.scan().source->name == scan.scan().source->name &&
        m.out_type == scan.out_type && needed(p, j))
      return j;
  }
  return -1;
}

// Bcast(L(R)) ≡ L(Bcast(R)) where L is a chain of local maps and
// aggregations over one input (after a Bcast every site holds all of R, so
// every group is whole on every site), applied where R is broadcast already:
// L then runs on that copy, and the second broadcast goes. A data-parallel
// update reads the weights cut into row blocks, while the forward pass
// broadcasts them whole: the blocks are cut from the broadcast copy.
bool broadcast_below(IaPlan& p, int at) {
  if (p.node(at).kind() != Kind::Bcast) return false;
  std::vector<int> chain;  // L's operators, the Bcast's input first
  for (int r = p.node(at).inputs[0];;) {
    const IaNode& m = p.node(r);
    if ((m.kind() != Kind::LocalMap && m.kind() != Kind::LocalAgg) || m.inputs.size() != 1 || m.scattered) return false;
    chain.push_back(r);
    r = m.inputs[0];
    const int shared = broadcast_of(p, r, at);
    if (shared < 0) continue;
    int below = shared;
    for (auto op = chain.rbegin(); op != chain.rend(); ++op) {
      IaNode copy = p.node(*op);
      copy.inputs = {below};
      below = add_node(p, std::move(copy));
    }
    redirect(p, at, below);
    return true;
  }
}

}  // namespace

const std::vector<Rule>& shared_exchange_rules() {
  // Both match beyond their inputs: they look for a twin exchange of the
  // same input anywhere in the plan.
  static const std::vector<Rule> rules = {
      {"share-exchange",
       "one Bcast (or Shuf on the same sites) of a relation for all its consumers, not one each",
       single(share_exchange),
       1,
       {Kind::Bcast, Kind::Shuffle},
       true},
      {"broadcast-below",
       "a relation cut or summed from one that is broadcast already: cut or sum the broadcast copy on every site, not broadcast again",
       single(broadcast_below),
       1,
       {Kind::Bcast},
       true},
  };
  return rules;
}

}  // namespace tra::physical
