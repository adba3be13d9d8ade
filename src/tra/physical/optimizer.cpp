#include "tra/physical/optimizer.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include "tra/common/error.hpp"
#include "tra/common/text.hpp"
#include "tra/common/timer.hpp"
#include "tra/physical/infer.hpp"
#include "tra/physical/memory_estimate.hpp"
#include "tra/physical/plan_edit.hpp"
#include "tra/physical/search/rule_search.hpp"
#include "tra/physical/verify.hpp"

namespace tra::physical {
namespace {

int join_of(const IaPlan& p, int tra_node) {
  for (size_t i = 0; i < p.nodes.size(); ++i)
    if (p.nodes[i].kind() == IaNode::Kind::LocalJoin && p.nodes[i].tra_node == tra_node) return static_cast<int>(i);
  return -1;
}

// Why a join can lack the plans of a family.
std::string forced_family_missing(const std::string& family) {
  if (family == "rmm") return "RMM partitions every label of the product, and some label has a single part";
  if (family == "2d") return "2D partitions both kept labels, and one of them has a single part or is missing";
  if (family == "mixed") return "mixed partitions a kept and a summed label of each input, and one of them has a single part";
  if (family == "cmm") return "CMM partitions the summed labels, and they have a single part";
  return "its labels have too few parts";
}

// What the phases share: the plan held, and what the join phases found.
struct SearchState {
  const OptimizerOptions& options;
  Search search;
  Held best;
  Optimized& out;
  std::vector<int> joins;  // TRA nodes of the joins, in plan order
  std::map<int, std::string> chosen;  // per join: the strategy in the plan
  std::map<int, std::vector<Alternative>> considered;
  std::map<int, std::string> unforced;  // joins the forced family has no plan for, and why
};

// The simple rules: all but R2-6, whose three forms of a join are among the
// join strategies (tried with the costs of all of them side by side), and
// shuffle-spread, share-exchange and broadcast-below, the placement phase's
// (share-exchange also settles the strategies' trials after the first pass).
const std::set<std::string>& simple_rule_names() {
  static const std::set<std::string> simple = [] {
    std::set<std::string> s;
    for (const Rule* r : all_rules())
      if (r->name != "R2-6" && r->name != "shuffle-spread" && r->name != "share-exchange" && r->name != "broadcast-below") s.insert(r->name);
    return s;
  }();
  return simple;
}

// Phase "rules": the simple rules to a fixed point.
int simple_rules(SearchState& st) {
  const size_t before = st.out.applied.size();
  st.search.settle(st.best, &simple_rule_names(), &st.out.applied);
  st.best.tidy();
  return static_cast<int>(st.out.applied.size() - before);
}

// Phases "strategies" and "strategies-again": join by join, every placement
// strategy is tried on the held plan and taken back; the winner is applied
// again (the search is deterministic). The second pass lets an early choice
// react to the later ones. With `only`, the joins in it alone. Returns the
// joins whose plan a strategy changed.
std::set<int> join_strategies_pass(SearchState& st, int pass, const std::set<int>* only = nullptr) {
  const OptimizerOptions& options = st.options;
  const Search& search = st.search;
  Held& best = st.best;
  auto& chosen = st.chosen;
  auto& considered = st.considered;
  auto& unforced = st.unforced;
  std::set<int> applied;  // joins whose plan a strategy changed
  for (int t : st.joins) {
    if (only && !only->count(t)) continue;
    const int j = join_of(best.plan, t);
    if (j < 0) continue;
    std::vector<JoinStrategy> all = join_strategies(best.plan, j);
    const bool aggregating = !all.empty() && is_aggregating(all.front().family);
    std::vector<JoinStrategy> allowed;
    std::vector<int> place_in_all;  // of each allowed strategy, as a PlanStep names it
    for (size_t k = 0; k < all.size(); ++k)
      if (search.family_allowed(all[k], aggregating)) {
        allowed.push_back(all[k]);
        place_in_all.push_back(static_cast<int>(k));
      }
    if (allowed.empty()) {
      if (pass == 0) {
        // Said, not silent: the user forced a family this join has no plan of.
        std::set<std::string> families;
        for (const auto& s : all) families.insert(s.family);
        std::string have;
        for (const auto& f : families) have += (have.empty() ? "" : ", ") + f;
        unforced[t] = "--strategy " + options.strategy + ": t" + std::to_string(t) + " (" + shorten(best.plan.node(j).words(), 60) + ") has no " +
                      options.strategy + " plan (" + forced_family_missing(options.strategy) + "; it has " + have + ")";
      }
      for (size_t k = 0; k < all.size(); ++k)
        if (!options.disabled.count(all[k].family)) {
          allowed.push_back(all[k]);
          place_in_all.push_back(static_cast<int>(k));
        }
    }
    std::vector<Alternative> alts;
    // Every strategy is tried on `best` and taken back; the winner is
    // applied again at the end (the search is deterministic).
    const JoinStrategy* winner = nullptr;
    PlanCost round_cost = best.cost;
    bool forced = options.strategy != "auto" && aggregating;
    bool have = false;
    const TrialSettle settle = pass == 0 ? TrialSettle::placement : TrialSettle::placement_and_sharing;
    std::vector<PlanStep>* const record = std::exchange(best.record, nullptr);  // trials are taken back: nothing to write down
    for (const auto& s : allowed) {
      Alternative a;
      a.tra_node = t;
      a.statement = best.plan.node(j).words();
      a.strategy = s.name();
      const PlanCost cost_before = best.cost;
      const std::vector<uint64_t> known_before = best.no_match;
      std::vector<Trial> edits;
      a.invalid = apply_strategy(search, best, j, s, &edits, settle);
      if (a.invalid.empty()) a.cost = best.cost;
      for (auto e = edits.rbegin(); e != edits.rend(); ++e) e->undo();
      best.cost = cost_before;
      best.no_match = known_before;
      if (a.invalid.empty()) {
        // Under a forced family the cheapest of that family wins even if the
        // plan before was cheaper.
        if ((forced && !have) || a.cost.better_than(round_cost)) {
          winner = &s;
          round_cost = a.cost;
          chosen[t] = a.strategy;
          have = true;
        } else if (!chosen.count(t) && !round_cost.better_than(a.cost)) {
          chosen[t] = a.strategy;  // no better than the plan already held, which is this one
        }
      }
      alts.push_back(std::move(a));
    }
    best.record = record;
    if (winner) {
      // (A forced family's winner may be the plan already held: no change.)
      if (round_cost.better_than(best.cost) || best.cost.better_than(round_cost)) applied.insert(t);
      if (best.record) best.record->push_back({PlanStep::Join, j, place_in_all[static_cast<size_t>(winner - allowed.data())]});
      apply_strategy(search, best, j, *winner, nullptr, settle);
      best.tidy();
      if (best.cost.better_than(round_cost) || round_cost.better_than(best.cost))
        throw InternalError("optimizer: strategy " + winner->name() + " costs differently when applied again");
    }
    // Shown: the last pass, whose costs are in the context of the final
    // choices, unless every alternative there was invalid (the joins after
    // this one now rely on its placement); then the first pass.
    bool any_valid = false;
    for (const auto& a : alts) any_valid |= a.invalid.empty();
    if (pass == 0 || any_valid) considered[t] = std::move(alts);
  }
  return applied;
}

// Phase "placement": where the groups of the chosen plan's shuffles go, with
// the join strategies settled. A join strategy sends an aggregation's groups
// to a face of its grid; spreading them over every site may finish sooner
// (shuffle-spread). Tried last, on the chosen plan only: inside each
// strategy's trial, its greedy settling took the spread first and closed off
// better plans of the same strategy.
int final_placement(SearchState& st) {
  static const std::set<std::string> placement = [] {
    std::set<std::string> s = placement_rules();
    s.insert("shuffle-spread");
    s.insert("share-exchange");  // the strategies may have placed one relation twice alike
    s.insert("broadcast-below");
    return s;
  }();
  const size_t before = st.out.applied.size();
  st.search.settle(st.best, &placement, &st.out.applied);
  st.best.tidy();
  return static_cast<int>(st.out.applied.size() - before);
}

// The joins reachable from join t through other operators (aggregations,
// maps, filters, movement, scans) in either direction: those whose inputs
// come from t or feed it, and those that share an input with it. A change
// of t's plan moves these inputs, so these are the joins whose best plan it
// can change.
std::set<int> neighbouring_joins(const IaPlan& p, int t) {
  const int j = join_of(p, t);
  std::set<int> out;
  if (j < 0) return out;
  const auto users = consumers(p);
  std::vector<int> todo{j};
  std::set<int> seen{j};
  auto visit = [&](int i) {
    if (!seen.insert(i).second) return;
    if (p.node(i).kind() == IaNode::Kind::LocalJoin) out.insert(p.node(i).tra_node);
    else todo.push_back(i);
  };
  while (!todo.empty()) {
    const int i = todo.back();
    todo.pop_back();
    for (int in : p.node(i).inputs) visit(in);
    for (int u : users[static_cast<size_t>(i)]) visit(u);
  }
  out.erase(t);
  return out;
}

// Phase "strategies-again": a second pass over every join, then passes over
// the neighbours of the joins the last pass changed (two more at most),
// since a change may be what makes a neighbour's better plan show (the
// square chain on 2 ranks: DE keeps D in place only once CDE keeps C in
// place, which CDE does only after DE moved). Only neighbours are tried
// again: a third pass over every join made attention plan 30-50% longer.
int strategies_again(SearchState& st) {
  std::set<int> changed = join_strategies_pass(st, 1);
  int count = static_cast<int>(changed.size());
  for (int round = 0; round < 2 && !changed.empty(); ++round) {
    std::set<int> next;
    for (int t : changed)
      for (int n : neighbouring_joins(st.best.plan, t)) next.insert(n);
    changed = join_strategies_pass(st, 2 + round, &next);
    count += static_cast<int>(changed.size());
  }
  return count;
}

// Phase "everywhere": the whole plan on every site. Every input read on
// every site and no Bcast or Shuffle left: each rank computes every result,
// and nothing moves but what a training step carries to the next iteration
// (nothing, when the next iteration reads it on every site too). For a step
// of microseconds (logistic regression's, the LLaMA block's gradients) the
// collectives' latency is the cost, and this plan is cheapest; but it is
// many join-by-join moves away from the split plans the strategies settle,
// so the search never reached it (a restricted search did, by another path).
// Made from the compiled plan, its kernels composed by the simple rules, and
// taken when it is cheaper and fits the memory per rank. Not tried where
// reading on every site is off (scan-all), a family is forced (a plan
// without join strategies is none of them), or there is one site.
// The compiled plan on every site, normalized and inferred.
IaPlan everywhere_plan(const IaPlan& initial) {
  IaPlan p = initial;
  for (IaNode& n : p.nodes) {
    if (n.kind() != IaNode::Kind::Scan) continue;
    n.placement() = Placement::all();
    n.site_grid() = {};
  }
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    const IaNode::Kind k = p.nodes[i].kind();
    if (k == IaNode::Kind::Bcast || k == IaNode::Kind::Shuffle) redirect(p, static_cast<int>(i), p.nodes[i].inputs[0]);
  }
  normalize(p);
  for (auto& n : p.nodes) n.stale = true;
  infer(p);
  return p;
}

int whole_plan_everywhere(SearchState& st) {
  if (st.out.initial.nsites == 1 || st.options.disabled.count("scan-all") || st.options.strategy != "auto") return 0;
  IaPlan p = everywhere_plan(st.out.initial);
  if (!invalid_reason(p).empty()) return 0;
  Held h(std::move(p), PlanCost{});
  std::vector<PlanStep> steps{{PlanStep::Everywhere}};
  h.record = &steps;
  h.cost = st.search.cost(h);
  st.search.settle(h, &simple_rule_names(), nullptr);
  h.tidy();
  if (!h.cost.better_than(st.best.cost)) return 0;
  if (st.options.memory_per_rank > 0 && estimate_memory(h.plan).peak_bytes > st.options.memory_per_rank) return 0;
  std::vector<PlanStep>* const record = st.best.record;
  st.best = std::move(h);
  st.best.record = record;
  if (record) record->insert(record->end(), steps.begin(), steps.end());
  return 1;
}

struct Phase {
  const char* name;  // as --disable and --explain name it
  const char* what;
  int (*run)(SearchState&);
};

const Phase kPhases[] = {
    {"rules", "simple rules (Table 2, R2-6 aside) to a fixed point", simple_rules},
    {"strategies", "join strategies, join by join", [](SearchState& st) { return static_cast<int>(join_strategies_pass(st, 0).size()); }},
    {"strategies-again", "join strategies again, in the context of the later choices", strategies_again},
    {"placement", "shuffles' groups spread over every site where that is sooner", final_placement},
    {"everywhere", "the whole plan on every site (every input read everywhere, nothing moved) where that is sooner", whole_plan_everywhere},
};

}  // namespace

std::vector<std::string> optimizer_phase_names() {
  std::vector<std::string> names;
  for (const Phase& p : kPhases) names.push_back(p.name);
  return names;
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> names{"auto"};
  for (const FamilyEntry& f : kFamilies)
    if (f.aggregating) {
      std::string s = f.name;
      for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      names.push_back(s);
    }
  return names;
}

std::vector<std::string> rule_and_strategy_names() {
  std::vector<std::string> names;
  for (const Rule* r : all_rules()) names.push_back(r->name);
  for (const FamilyEntry& f : kFamilies) names.push_back(f.name);
  for (const Phase& p : kPhases) names.push_back(p.name);
  return names;
}

Optimized optimize(const IaPlan& initial, const OptimizerOptions& options) {
  Stopwatch sw;
  Optimized out;
  out.initial = initial;
  normalize(out.initial);
  infer(out.initial);
  verify(out.initial, "compile");
  Search search(options);
  out.initial_cost = search.cost(out.initial);
  SearchState st{options, search, Held(out.initial, out.initial_cost), out, {}, {}, {}, {}};
  st.best.record = &out.steps;
  for (const auto& n : st.best.plan.nodes)
    if (n.kind() == IaNode::Kind::LocalJoin && std::find(st.joins.begin(), st.joins.end(), n.tra_node) == st.joins.end())
      st.joins.push_back(n.tra_node);
  for (const Phase& phase : kPhases) {
    PhaseReport r;
    r.name = phase.name;
    r.what = phase.what;
    r.before = st.best.cost;
    r.skipped = options.disabled.count(phase.name) > 0;
    Stopwatch timer;
    if (!r.skipped) r.changes = phase.run(st);
    r.seconds = timer.seconds();
    verify(st.best.plan, std::string("phase ") + phase.name);
    r.after = st.best.cost;
    out.phases.push_back(std::move(r));
  }
  for (auto& [t, alts] : st.considered)
    for (auto& a : alts) {
      a.chosen = st.chosen.count(t) && st.chosen[t] == a.strategy;
      out.alternatives.push_back(std::move(a));
    }
  for (const auto& [t, why] : st.unforced)
    out.notes.push_back(why + "; it runs " + (st.chosen.count(t) ? st.chosen[t] : "as compiled") + ", the cheapest");
  out.chosen = std::move(st.best.plan);
  out.cost = st.best.cost;
  out.seconds = sw.seconds();
  return out;
}

Optimized replay(const IaPlan& initial, const OptimizerOptions& options, const std::vector<PlanStep>& steps) {
  Stopwatch sw;
  Optimized out;
  out.initial = initial;
  normalize(out.initial);
  infer(out.initial);
  const Search search(options);
  out.initial_cost = search.cost(out.initial);
  const std::vector<const Rule*> rules = all_rules();
  Held best(out.initial, out.initial_cost);
  for (const PlanStep& s : steps) {
    switch (s.kind) {
      case PlanStep::Rule:
        replay_rule(best, s.a, *rules.at(static_cast<size_t>(s.b)), s.c);
        break;
      case PlanStep::Join:
        if (s.a < 0 || static_cast<size_t>(s.a) >= best.plan.nodes.size() || best.plan.node(s.a).kind() != IaNode::Kind::LocalJoin)
          throw InternalError("optimizer: replaying a join strategy at p" + std::to_string(s.a) + ", which is no join");
        if (const std::string invalid = place_join(best, s.a, join_strategies(best.plan, s.a).at(static_cast<size_t>(s.b)), nullptr);
            !invalid.empty())
          throw InternalError("optimizer: replaying a join strategy at p" + std::to_string(s.a) + ": " + invalid);
        break;
      case PlanStep::Tidy:
        best.tidy();
        break;
      case PlanStep::Everywhere:
        best = Held(everywhere_plan(out.initial), PlanCost{});
        break;
      default:
        throw InternalError("optimizer: a plan step of unknown kind " + std::to_string(s.kind));
    }
  }
  best.cost = search.cost(best);
  verify(best.plan, "replay");
  out.chosen = std::move(best.plan);
  out.cost = best.cost;
  out.steps = steps;
  out.seconds = sw.seconds();
  return out;
}

}  // namespace tra::physical
