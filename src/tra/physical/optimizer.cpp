#include "tra/physical/optimizer.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <sstream>

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

// A rule tried in place and undone: only a successful rewrite is copied.
// Rules change the parameters of the node they rewrite and the inputs, roots
// and results of others, never a distribution, so the snapshot leaves the
// (large) distributions out.
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
  // In `rewritten` (a copy taken after the rule ran): the rewritten node and
  // every node whose inputs changed need inferring again (new ones are stale).
  void mark_rewritten(IaPlan& rewritten) const {
    rewritten.node(at).stale = true;
    size_t pos = 0;
    for (size_t i = 0; i < size; ++i)
      if (!same_inputs(rewritten, i, pos)) rewritten.nodes[i].stale = true;
  }
};

class Search {
 public:
  explicit Search(const OptimizerOptions& o) : opt_(o) {
    for (const Rule* r : all_rules())
      if (!opt_.disabled.count(r->name)) rules_.push_back(r);
  }

  PlanCost cost(const IaPlan& p) const { return cost_of(p, opt_.rates); }

  // Greedy descent to a fixed point: rules in order, each at every operator of
  // its kind; the first rewrite that lowers the cost is kept and the search
  // starts over (so rules earlier in the order always get the first chance,
  // which gives the paper's sequences). Every kept step lowers (time, floats,
  // operators), so it ends. `only` restricts the rules tried. Without
  // `restart` a kept rewrite does not restart the search: the pass goes on
  // and passes repeat until one keeps nothing (cheaper, same fixed point kind).
  IaPlan settle(IaPlan p, PlanCost& c, const std::set<std::string>* only, std::vector<AppliedRule>* log, bool restart = true) const {
    for (int step = 0; step < 1000; ++step) {
      bool improved = false;
      auto stop = [&] { return restart && improved; };
      for (const Rule* r : rules_) {
        if (stop()) break;
        if (only && !only->count(r->name)) continue;
        for (int at = 0; at < static_cast<int>(p.nodes.size()) && !stop(); ++at) {
          if (std::find(r->at_kinds.begin(), r->at_kinds.end(), p.node(at).kind) == r->at_kinds.end()) continue;
          for (int v = 0; v < r->variants && !stop(); ++v) {
            const Snapshot snap(p, at);
            if (!r->apply(p, at, v)) continue;
            IaPlan cand = p;
            snap.restore(p);
            snap.mark_rewritten(cand);
            normalize(cand);
            infer_stale(cand);
            if (!invalid_reason(cand).empty()) continue;
            const PlanCost cc = cost(cand);
            if (!cc.better_than(c)) continue;
            if (log) log->push_back({r->name, where_text(snap.node), c.seconds, cc.seconds});
            p = std::move(cand);
            c = cc;
            improved = true;
          }
        }
      }
      if (!improved) break;
    }
    return p;
  }

  bool family_allowed(const JoinStrategy& s, bool has_aggregation) const {
    if (opt_.disabled.count(s.family)) return false;
    if (opt_.strategy == "auto" || !has_aggregation) return true;
    return lower(s.family) == lower(opt_.strategy);
  }

 private:
  const OptimizerOptions& opt_;
  std::vector<const Rule*> rules_;
};

int join_of(const IaPlan& p, int tra_node) {
  for (size_t i = 0; i < p.nodes.size(); ++i)
    if (p.nodes[i].kind == IaNode::Kind::LocalJoin && p.nodes[i].tra_node == tra_node) return static_cast<int>(i);
  return -1;
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

  PlanCost best_cost = out.initial_cost;
  // The simple rules first; R2-6's three forms of a join are among the join
  // strategies tried next, with the costs of all of them side by side.
  static const std::set<std::string> simple = [] {
    std::set<std::string> s;
    for (const Rule* r : all_rules())
      if (r->name != "R2-6") s.insert(r->name);
    return s;
  }();
  IaPlan best = search.settle(out.initial, best_cost, &simple, &out.applied);

  // Join by join, every placement strategy.
  std::vector<int> joins;
  for (const auto& n : best.nodes)
    if (n.kind == IaNode::Kind::LocalJoin && std::find(joins.begin(), joins.end(), n.tra_node) == joins.end()) joins.push_back(n.tra_node);
  std::map<int, std::string> chosen;
  std::map<int, std::vector<Alternative>> considered;
  for (int pass = 0; pass < 2; ++pass) {
    for (int t : joins) {
      const int j = join_of(best, t);
      if (j < 0) continue;
      std::vector<JoinStrategy> all = join_strategies(best, j);
      const bool aggregating = !all.empty() && is_aggregating(all.front().family);
      std::vector<JoinStrategy> allowed;
      for (const auto& s : all)
        if (search.family_allowed(s, aggregating)) allowed.push_back(s);
      if (allowed.empty()) {
        if (pass == 0) out.notes.push_back("t" + std::to_string(t) + ": no " + options.strategy + " strategy applies; chosen automatically");
        for (const auto& s : all)
          if (!options.disabled.count(s.family)) allowed.push_back(s);
      }
      std::vector<Alternative> alts;
      IaPlan round_best = best;
      PlanCost round_cost = best_cost;
      bool forced = options.strategy != "auto" && aggregating;
      bool have = false;
      for (const auto& s : allowed) {
        IaPlan cand = best;
        const Snapshot before(cand, j);
        apply_join_strategy(cand, j, s);
        before.mark_rewritten(cand);
        normalize(cand);
        infer_stale(cand);
        Alternative a;
        a.tra_node = t;
        a.statement = best.node(j).detail;
        a.strategy = s.name();
        a.invalid = invalid_reason(cand);
        if (a.invalid.empty()) {
          a.cost = search.cost(cand);
          // A strategy changes movement and placement only: the rules that
          // settle those are enough (the kernel compositions are done).
          static const std::set<std::string> placement{"R2-1", "R2-2", "R2-3", "R2-4", "R2-5", "R2-7", "scan-part", "scan-all"};
          cand = search.settle(std::move(cand), a.cost, &placement, nullptr, false);
          // Under a forced family the cheapest of that family wins even if the
          // plan before was cheaper.
          if ((forced && !have) || a.cost.better_than(round_cost)) {
            round_best = std::move(cand);
            round_cost = a.cost;
            chosen[t] = a.strategy;
            have = true;
          } else if (!chosen.count(t) && !round_cost.better_than(a.cost)) {
            chosen[t] = a.strategy;  // no better than the plan already held, which is this one
          }
        }
        alts.push_back(std::move(a));
      }
      best = std::move(round_best);
      best_cost = round_cost;
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
  out.chosen = std::move(best);
  out.cost = best_cost;
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
