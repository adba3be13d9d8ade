#include "tra/physical/optimizer.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "tra/common/text.hpp"
#include "tra/common/timer.hpp"
#include "tra/physical/infer.hpp"
#include "tra/physical/plan_edit.hpp"
#include "tra/physical/rules/join_strategies.hpp"
#include "tra/physical/rules/rule.hpp"

namespace tra::physical {
namespace {

const char* const kFamilies[] = {"BMM", "CMM", "RMM", "2D", "mixed", "broadcast", "co-partition", "replicate"};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string where_text(const IaNode& n) {
  const std::string d = shorten(n.detail, 48);
  return n.name() + "(" + d + ")";
}

// What an edit of a plan in place may change besides the nodes it appends: a
// rule changes the parameters of the node it rewrites and the inputs, roots
// and results of others, never a distribution (which the snapshot leaves out,
// as it is large). A join strategy changes the join's parameters and inputs
// and the inputs of the aggregation after it, the same kinds of fields.
struct Snapshot {
  size_t size;
  int at;
  IaNode node;  // parameters of node `at`, without its distribution
  std::vector<int> inputs;  // every node's inputs, one after another (two per node at most)
  std::vector<bool> stale;
  std::vector<int> roots, tra_to_ia;

  Snapshot(IaPlan& p, int at_) : size(p.nodes.size()), at(at_), roots(p.roots), tra_to_ia(p.tra_to_ia) {
    Distribution keep = std::move(p.node(at).dist);
    node = p.node(at);
    p.node(at).dist = std::move(keep);
    inputs.reserve(3 * p.nodes.size());
    stale.reserve(p.nodes.size());
    for (const auto& n : p.nodes) {
      inputs.push_back(static_cast<int>(n.inputs.size()));
      inputs.insert(inputs.end(), n.inputs.begin(), n.inputs.end());
      stale.push_back(n.stale);
    }
  }
  // Node i's inputs as they were.
  bool same_inputs(const IaPlan& p, size_t i, size_t& pos) const {
    const int n = inputs[pos++];
    const bool same = static_cast<int>(p.nodes[i].inputs.size()) == n && std::equal(inputs.begin() + static_cast<long>(pos), inputs.begin() + static_cast<long>(pos) + n, p.nodes[i].inputs.begin());
    pos += static_cast<size_t>(n);
    return same;
  }
  void restore(IaPlan& p) const {
    p.nodes.resize(size);
    Distribution keep = std::move(p.node(at).dist);
    p.node(at) = node;
    p.node(at).dist = std::move(keep);
    size_t pos = 0;
    for (size_t i = 0; i < size; ++i) {
      const int n = inputs[pos++];
      p.nodes[i].inputs.assign(inputs.begin() + static_cast<long>(pos), inputs.begin() + static_cast<long>(pos) + n);
      pos += static_cast<size_t>(n);
      p.nodes[i].stale = stale[i];
    }
    p.roots = roots;
    p.tra_to_ia = tra_to_ia;
  }
  // After the edit: the edited node and every node whose inputs changed need
  // inferring again (appended ones are stale already).
  void mark_rewritten(IaPlan& rewritten) const {
    rewritten.node(at).stale = true;
    size_t pos = 0;
    for (size_t i = 0; i < size; ++i)
      if (!same_inputs(rewritten, i, pos)) rewritten.nodes[i].stale = true;
  }
};

// Every variant of every rule has a bit in Held::no_match (all_rules() order).
int first_slot(const Rule* rule) {
  int slot = 0;
  for (const Rule* r : all_rules()) {
    if (r == rule) return slot;
    slot += r->variants;
  }
  throw std::logic_error("optimizer: unknown rule " + rule->name);
}

// The bits of the rules never tried at an operator of kind `k`.
uint64_t rules_not_at(IaNode::Kind k) {
  using Kind = IaNode::Kind;
  static const std::map<Kind, uint64_t> bits = [] {
    std::map<Kind, uint64_t> b;
    for (Kind kind : {Kind::Scan, Kind::Bcast, Kind::Shuffle, Kind::LocalJoin, Kind::LocalAgg, Kind::LocalFilter, Kind::LocalMap})
      for (const Rule* r : all_rules())
        if (std::find(r->at_kinds.begin(), r->at_kinds.end(), kind) == r->at_kinds.end())
          for (int v = 0; v < r->variants; ++v) b[kind] |= uint64_t{1} << (first_slot(r) + v);
    return b;
  }();
  auto it = bits.find(k);
  return it == bits.end() ? 0 : it->second;
}

class Trial;

// A plan the search holds, and its cost. While rules are tried on it the plan
// is kept loose: a rewrite appends its nodes and leaves the nodes it replaced
// where they are, and `order` lists the nodes the roots need, inputs first,
// as normalize() would order them; the search and the cost follow `order`, so
// they see exactly the normalized plan. (Normalizing moves every node after
// the first one a rewrite touches, which in a long plan costs far more than
// the rewrite; tidy() does it once a search or a join's strategies are done.)
//
// It also holds what the search learnt: at which nodes which rules found
// nothing to rewrite. Whether a rule applies at a node depends only on that
// node, its inputs and their inputs (their parameters and inferred fields),
// so a rule that did not apply at a node will not apply there until one of
// those changes. A search that settles a plan differing from a settled one
// near one join then tries the rules near that join only, not at every node
// of a long plan again. A rewrite that applied but was not kept is tried again
// every time (its verdict depends on the whole plan), exactly as if nothing
// were remembered. The rules never tried at a node's kind count as not
// applying from the start.
struct Held {
  IaPlan plan;
  PlanCost cost;
  std::vector<int> order;          // the nodes the roots need, in normalized order
  std::vector<uint64_t> no_match;  // per node: bit slot(rule, variant) set = the rule does not apply here

  Held(IaPlan normalized, PlanCost c) : plan(std::move(normalized)), cost(std::move(c)), order(plan.nodes.size()), no_match(plan.nodes.size(), 0) {
    std::iota(order.begin(), order.end(), 0);
    for (size_t i = 0; i < plan.nodes.size(); ++i) no_match[i] = rules_not_at(plan.nodes[i].kind);
  }

  // After trial `t` was kept: what was learnt is forgotten for the nodes
  // inferred again and the nodes one or two levels above them.
  void edited(const Trial& t);

  // The plan normalized (dead nodes dropped, nodes in `order`), with what was
  // learnt about its nodes.
  void tidy() {
    const std::vector<int> moved = reorder(plan, order);
    std::vector<uint64_t> kept(plan.nodes.size(), 0);
    for (size_t i = 0; i < moved.size(); ++i)
      if (moved[i] >= 0) kept[static_cast<size_t>(moved[i])] = no_match[i];
    no_match = std::move(kept);
    std::iota(order.begin(), order.end(), 0);
  }
};

// An edit of the held plan made in place (a rule's rewrite, a join strategy)
// that can be taken back, so that no candidate needs a copy of the plan.
class Trial {
 public:
  // Before the edit at node `at`.
  Trial(Held& h, int at) : h_(&h), before_(h.plan, at) {}

  // After the edit: the nodes the roots need now, in order, and what changed
  // inferred again.
  void infer() {
    IaPlan& p = h_->plan;
    before_.mark_rewritten(p);
    order_before_ = std::move(h_->order);
    // Ranked as normalize() would see them: the nodes in their places in the
    // order, then the appended ones. The others are dead and stay so.
    std::vector<int> rank(p.nodes.size(), std::numeric_limits<int>::max());
    for (size_t k = 0; k < order_before_.size(); ++k) rank[static_cast<size_t>(order_before_[k])] = static_cast<int>(k);
    for (size_t i = before_.size; i < p.nodes.size(); ++i) rank[i] = static_cast<int>(order_before_.size() + (i - before_.size));
    h_->order = topological_order(p, rank);
    redone_ = infer_stale(p, h_->order, &overwritten_);
  }
  const IaNode& edited_node() const { return before_.node; }  // as it was
  const std::vector<int>& redone() const { return redone_; }  // the nodes inferred again

  // The plan exactly as it was before the edit; edits made after this one
  // must have been taken back first.
  void undo() {
    for (auto it = overwritten_.rbegin(); it != overwritten_.rend(); ++it) h_->plan.nodes[static_cast<size_t>(it->first)] = std::move(it->second);
    before_.restore(h_->plan);
    h_->order = std::move(order_before_);
  }

 private:
  Held* h_;
  Snapshot before_;
  std::vector<int> order_before_;
  std::vector<int> redone_;
  std::vector<std::pair<int, IaNode>> overwritten_;  // nodes as they were before inferring them again
};

void Held::edited(const Trial& t) {
  no_match.resize(plan.nodes.size(), 0);  // appended nodes: nothing learnt yet
  constexpr int kFar = 3;
  std::vector<int> levels_above(plan.nodes.size(), kFar);  // how far above a node inferred again
  for (int i : t.redone()) levels_above[static_cast<size_t>(i)] = 0;
  for (int i : order) {  // inputs first
    auto& level = levels_above[static_cast<size_t>(i)];
    for (int j : plan.node(i).inputs) level = std::min(level, levels_above[static_cast<size_t>(j)] + 1);
    if (level < kFar) no_match[static_cast<size_t>(i)] = rules_not_at(plan.node(i).kind);
  }
}

class Search {
 public:
  explicit Search(const OptimizerOptions& o) : opt_(o) {
    for (const Rule* r : all_rules())
      if (!opt_.disabled.count(r->name)) rules_.push_back({r, first_slot(r)});
    const Rule* last = all_rules().back();
    if (first_slot(last) + last->variants > 64) throw std::logic_error("optimizer: more than 64 rule variants to remember");
  }

  PlanCost cost(const IaPlan& p) const { return cost_of(p, opt_.rates); }
  PlanCost cost(const Held& h) const { return cost_of(h.plan, opt_.rates, h.order); }

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
              std::vector<Trial>* kept = nullptr) const {
    IaPlan& p = h.plan;
    for (int step = 0; step < 1000; ++step) {
      bool improved = false;
      auto stop = [&] { return restart && improved; };
      for (const auto& [r, first_slot] : rules_) {
        if (stop()) break;
        if (only && !only->count(r->name)) continue;
        // `pos`: the place in the (normalized) order, as an index in the
        // normalized plan; a kept rewrite changes the node found there.
        // Rules are not tried at operators of other kinds (Held::no_match).
        for (int pos = 0; pos < static_cast<int>(h.order.size()) && !stop(); ++pos) {
          for (int v = 0; v < r->variants && !stop(); ++v) {
            const int at = h.order[static_cast<size_t>(pos)];
            const uint64_t bit = uint64_t{1} << (first_slot + v);
            if (h.no_match[static_cast<size_t>(at)] & bit) continue;
            Trial t(h, at);
            if (!r->apply(p, at, v)) {  // the plan is untouched
              if (!reads_deep(*r)) h.no_match[static_cast<size_t>(at)] |= bit;
              continue;
            }
            t.infer();
            if (!invalid_reason(p, h.order).empty()) {
              t.undo();
              continue;
            }
            const PlanCost cc = cost(h);
            if (!cc.better_than(h.cost)) {
              t.undo();
              continue;
            }
            if (log) log->push_back({r->name, where_text(t.edited_node()), h.cost.seconds, cc.seconds});
            h.cost = cc;
            h.edited(t);
            if (kept) kept->push_back(std::move(t));
            improved = true;
          }
        }
      }
      if (!improved) break;
    }
  }

  bool family_allowed(const JoinStrategy& s, bool has_aggregation) const {
    if (opt_.disabled.count(s.family)) return false;
    if (opt_.strategy == "auto" || !has_aggregation) return true;
    return lower(s.family) == lower(opt_.strategy);
  }

 private:
  // R2-6 looks through any chain of Bcasts and Shuffles below a join, deeper
  // than Held remembers; it is never taken as not applying. (It is tried among
  // the join strategies, not in the searches here.)
  static bool reads_deep(const Rule& r) { return r.name == "R2-6"; }

  struct Tried {
    const Rule* rule;
    int first_slot;  // its variants' bits in Held::no_match
  };
  const OptimizerOptions& opt_;
  std::vector<Tried> rules_;
};

// The plan `h` (normalized) with join strategy `s` at join `j`, settled with
// the placement rules; returns why the strategy gives an invalid plan, or
// nothing. The edits are appended to `edits`, if given, to be taken back.
std::string apply_strategy(const Search& search, Held& h, int j, const JoinStrategy& s, std::vector<Trial>* edits) {
  Trial t(h, j);
  apply_join_strategy(h.plan, j, s);
  t.infer();
  h.edited(t);
  if (edits) edits->push_back(std::move(t));
  // Aggregations downstream left partial by the move get their shuffles
  // back, one level of the plan at a time (a regrouped aggregation may move
  // the groups of the next).
  for (size_t round = 0; round < h.plan.nodes.size(); ++round) {
    Trial r(h, j);
    if (regroup_partial_aggregations(h.plan, h.order).empty()) break;
    r.infer();
    h.edited(r);
    if (edits) edits->push_back(std::move(r));
  }
  const std::string invalid = invalid_reason(h.plan, h.order);
  if (!invalid.empty()) return invalid;
  h.cost = search.cost(h);
  // A strategy changes movement and placement only: the rules that settle
  // those are enough (the kernel compositions are done).
  static const std::set<std::string> placement{"R2-1", "R2-2", "R2-3", "R2-4", "R2-5", "R2-7", "scan-part", "scan-all"};
  search.settle(h, &placement, nullptr, false, edits);
  return "";
}

int join_of(const IaPlan& p, int tra_node) {
  for (size_t i = 0; i < p.nodes.size(); ++i)
    if (p.nodes[i].kind == IaNode::Kind::LocalJoin && p.nodes[i].tra_node == tra_node) return static_cast<int>(i);
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

bool is_aggregating(const std::string& family) {
  return family == "BMM" || family == "CMM" || family == "RMM" || family == "2D" || family == "mixed";
}

}  // namespace

std::vector<std::string> rule_and_strategy_names() {
  std::vector<std::string> names;
  for (const Rule* r : all_rules()) names.push_back(r->name);
  for (const char* f : kFamilies) names.push_back(f);
  return names;
}

Optimized optimize(const IaPlan& initial, const OptimizerOptions& options) {
  Stopwatch sw;
  Search search(options);
  Optimized out;
  out.initial = initial;
  normalize(out.initial);
  infer(out.initial);
  out.initial_cost = search.cost(out.initial);

  // The simple rules first; R2-6's three forms of a join are among the join
  // strategies tried next, with the costs of all of them side by side.
  static const std::set<std::string> simple = [] {
    std::set<std::string> s;
    for (const Rule* r : all_rules())
      if (r->name != "R2-6") s.insert(r->name);
    return s;
  }();
  Held best(out.initial, out.initial_cost);
  search.settle(best, &simple, &out.applied);
  best.tidy();

  // Join by join, every placement strategy.
  std::vector<int> joins;
  for (const auto& n : best.plan.nodes)
    if (n.kind == IaNode::Kind::LocalJoin && std::find(joins.begin(), joins.end(), n.tra_node) == joins.end()) joins.push_back(n.tra_node);
  std::map<int, std::string> chosen;
  std::map<int, std::vector<Alternative>> considered;
  std::map<int, std::string> unforced;  // joins the forced family has no plan for, and why
  for (int pass = 0; pass < 2; ++pass) {
    for (int t : joins) {
      const int j = join_of(best.plan, t);
      if (j < 0) continue;
      std::vector<JoinStrategy> all = join_strategies(best.plan, j);
      const bool aggregating = !all.empty() && is_aggregating(all.front().family);
      std::vector<JoinStrategy> allowed;
      for (const auto& s : all)
        if (search.family_allowed(s, aggregating)) allowed.push_back(s);
      if (allowed.empty()) {
        if (pass == 0) {
          // Said, not silent: the user forced a family this join has no plan of.
          std::set<std::string> families;
          for (const auto& s : all) families.insert(s.family);
          std::string have;
          for (const auto& f : families) have += (have.empty() ? "" : ", ") + f;
          unforced[t] = "--strategy " + options.strategy + ": t" + std::to_string(t) + " (" + shorten(best.plan.node(j).detail, 60) +
                        ") has no " + options.strategy + " plan (" + forced_family_missing(options.strategy) + "; it has " + have + ")";
        }
        for (const auto& s : all)
          if (!options.disabled.count(s.family)) allowed.push_back(s);
      }
      std::vector<Alternative> alts;
      // Every strategy is tried on `best` and taken back; the winner is
      // applied again at the end (the search is deterministic).
      const JoinStrategy* winner = nullptr;
      PlanCost round_cost = best.cost;
      bool forced = options.strategy != "auto" && aggregating;
      bool have = false;
      for (const auto& s : allowed) {
        Alternative a;
        a.tra_node = t;
        a.statement = best.plan.node(j).detail;
        a.strategy = s.name();
        const PlanCost cost_before = best.cost;
        const std::vector<uint64_t> known_before = best.no_match;
        std::vector<Trial> edits;
        a.invalid = apply_strategy(search, best, j, s, &edits);
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
      if (winner) {
        apply_strategy(search, best, j, *winner, nullptr);
        best.tidy();
        if (best.cost.better_than(round_cost) || round_cost.better_than(best.cost))
          throw std::logic_error("optimizer: strategy " + winner->name() + " costs differently when applied again");
      }
      // Shown: the last pass, whose costs are in the context of the final
      // choices, unless every alternative there was invalid (the joins after
      // this one now rely on its placement); then the first pass.
      bool any_valid = false;
      for (const auto& a : alts) any_valid |= a.invalid.empty();
      if (pass == 0 || any_valid) considered[t] = std::move(alts);
    }
  }
  for (auto& [t, alts] : considered)
    for (auto& a : alts) {
      a.chosen = chosen.count(t) && chosen[t] == a.strategy;
      out.alternatives.push_back(std::move(a));
    }
  for (const auto& [t, why] : unforced) out.notes.push_back(why + "; it runs " + (chosen.count(t) ? chosen[t] : "as compiled") + ", the cheapest");
  out.chosen = std::move(best.plan);
  out.cost = best.cost;
  out.seconds = sw.seconds();
  return out;
}



std::string explain(const Optimized& o) {
  std::ostringstream os;
  os << "== IA plan before optimization (TRA paper Table 1): " << o.initial_cost.str() << "\n" << o.initial.str();
  os << "== rules applied (each lowered the estimated cost)\n";
  if (o.applied.empty()) os << "  none\n";
  for (const auto& a : o.applied) {
    char line[512];
    std::snprintf(line, sizeof line, "  %-9s at %-56s est %.4g s -> %.4g s\n", a.rule.c_str(), a.where.c_str(), a.seconds_before, a.seconds_after);
    os << line;
  }
  os << "== join strategies considered (cost of the whole plan with each)\n";
  int last = -2;
  for (const auto& a : o.alternatives) {
    if (a.tra_node != last) {
      os << "  t" << a.tra_node << ": " << a.statement << "\n";
      last = a.tra_node;
    }
    os << (a.chosen ? "   * " : "     ");
    char line[512];
    if (a.invalid.empty()) std::snprintf(line, sizeof line, "%-36s %s\n", a.strategy.c_str(), a.cost.str().c_str());
    else std::snprintf(line, sizeof line, "%-36s not valid here: %s\n", a.strategy.c_str(), a.invalid.c_str());
    os << line;
  }
  for (const auto& n : o.notes) os << "  note: " << n << "\n";
  char line[256];
  std::snprintf(line, sizeof line, "== chosen IA plan (optimized in %.3f s): ", o.seconds);
  os << line << o.cost.str() << "\n" << o.chosen.str();
  return os.str();
}

}  // namespace tra::physical
