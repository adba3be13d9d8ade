#pragma once
// The searches the optimizer's phases are made of: settling a held plan with
// the rules (greedy descent to a fixed point) and trying one join strategy on
// it. Internal to the optimizer (optimizer.hpp).
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "tra/common/error.hpp"
#include "tra/physical/carry_plan.hpp"
#include "tra/physical/optimizer.hpp"
#include "tra/physical/rules/join_strategies.hpp"
#include "tra/physical/search/held_plan.hpp"

namespace tra::physical {

class Search {
 public:
  explicit Search(const OptimizerOptions& o) : opt_(o) {
    const std::vector<const Rule*> all = all_rules();
    for (size_t i = 0; i < all.size(); ++i) {
      const Rule* r = all[i];
      if (!opt_.disabled.count(r->name)) rules_.push_back({r, first_slot(r), static_cast<int>(i)});
    }
    const Rule* last = all_rules().back();
    if (first_slot(last) + last->variants > 64) throw InternalError("optimizer: more than 64 rule variants to remember");
  }

  // A training step's candidates with the Carry operators they would end with.
  PlanCost cost(const IaPlan& p) const {
    PlanCost c = cost_of(p, opt_.rates);
    add_carry_costs(c, p, live_nodes(p), opt_.carried, opt_.rates);
    return c;
  }
  PlanCost cost(const Held& h) const {
    PlanCost c = cost_of(h.plan, opt_.rates, h.order);
    add_carry_costs(c, h.plan, h.order, opt_.carried, opt_.rates);
    return c;
  }

  // Greedy descent to a fixed point: rules in order, each at every operator of
  // its kind; the first rewrite that lowers the cost is kept and the search
  // starts over (so rules earlier in the order always get the first chance,
  // which gives the paper's sequences). Every kept step lowers (time, floats,
  // operators), so it ends. `only` restricts the rules tried. Without
  // `restart` a kept rewrite does not restart the search: the pass goes on
  // and passes repeat until one keeps nothing (cheaper, same fixed point kind).
  // Rules `h` knows not to apply at a node are not tried there (Held). The
  // rewrites kept are appended to `kept`, if given, to be taken back later.
  void settle(Held& h, const std::set<std::string>* only, std::vector<AppliedRule>* log, bool restart = true,
              std::vector<Trial>* kept = nullptr) const;

  // Whether strategy s may be tried at a join (with an aggregation after
  // it, or not) under the options' disabled families and forced strategy.
  bool family_allowed(const JoinStrategy& s, bool has_aggregation) const;

 private:
  // Rules whose match depends on more than a node, its inputs and theirs,
  // which is all Held remembers (Rule::matches_beyond_inputs); they are
  // never taken as not applying. R2-6
  // looks through any chain of Bcasts and Shuffles below a join (it is tried
  // among the join strategies, not in the searches here); share-exchange and
  // broadcast-below look for a twin exchange of the same input anywhere in
  // the plan, which another edit may make or unmake.
  static bool reads_deep(const Rule& r) { return r.matches_beyond_inputs; }

  struct Tried {
    const Rule* rule;
    int first_slot;  // its variants' bits in Held::no_match
    int index;  // in all_rules(), as a PlanStep names it
  };
  const OptimizerOptions& opt_;
  std::vector<Tried> rules_;
};

// The rules that settle movement and placement (R2-1 … R2-5, R2-7, the scan
// rules): a join strategy changes only those, so they settle it (with
// share-exchange too from the second pass on: TrialSettle below).
const std::set<std::string>& placement_rules();

// How a join strategy's trial is settled: with the placement rules alone,
// or with share-exchange too, so that a strategy that moves a relation as
// another join already does is costed with one exchange for both. Sharing
// is for the passes after the first, when every join holds its chosen
// strategy: in the first, the joins after the one tried still hold their
// Table-1 exchanges, and sharing with those led the early joins to plans
// that fit a placement the later joins then leave (share-exchange in the
// rules phase closed off better plans the same way).
enum class TrialSettle { placement, placement_and_sharing };

// The plan `h` (normalized) with join strategy `s` at join `j`, settled as
// `settle` says; returns why the strategy gives an invalid plan, or
// nothing. The edits are appended to `edits`, if given, to be taken back.
std::string apply_strategy(const Search& search, Held& h, int j, const JoinStrategy& s, std::vector<Trial>* edits, TrialSettle settle);

// Its first part: the strategy applied at the join, the aggregations it left
// partial regrouped and a join it parted brought together again, before
// anything is settled (a replayed PlanStep::Join).
std::string place_join(Held& h, int j, const JoinStrategy& s, std::vector<Trial>* edits);

// Rule `rule`'s `variant` at node `at`, kept (a replayed PlanStep::Rule); an
// InternalError if it does not apply.
void replay_rule(Held& h, int at, const Rule& rule, int variant);

}  // namespace tra::physical
