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

// Bcast(R) ≡ an earlier Bcast(R); Shuf_D(R) ≡ an earlier Shuf_D(R) on the same grid.
bool share_exchange(IaPlan& p, int at) {
  const IaNode& n = p.node(at);
  if ((n.kind() != Kind::Bcast && n.kind() != Kind::Shuffle) || n.inputs.size() != 1) return false;
  for (int j = 0; j < at; ++j) {
    const IaNode& m = p.node(j);
    if (m.kind() != n.kind() || m.inputs != n.inputs || !(m.params == n.params)) continue;
    redirect(p, at, j);
    return true;
  }
  return false;
}

}  // namespace

const std::vector<Rule>& shared_exchange_rules() {
  static const std::vector<Rule> rules = {
      {"share-exchange", "one Bcast (or Shuf on the same sites) of a relation for all its consumers, not one each", single(share_exchange), 1,
       {Kind::Bcast, Kind::Shuffle}},
  };
  return rules;
}

}  // namespace tra::physical
