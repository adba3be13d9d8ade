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

// A rule tried in place and undone: only a rewrite is copied.
struct Snapshot {
  size_t size;
  int at;
  IaNode node;
  std::vector<std::vector<int>> inputs;
  std::vector<int> roots, tra_to_ia;

  Snapshot(const IaPlan& p, int at_) : size(p.nodes.size()), at(at_), node(p.node(at_)), roots(p.roots), tra_to_ia(p.tra_to_ia) {
    inputs.reserve(p.nodes.size());
    for (const auto& n : p.nodes) inputs.push_back(n.inputs);
  }
  void restore(IaPlan& p) const {
    p.nodes.resize(size);
    p.node(at) = node;
    for (size_t i = 0; i < size; ++i) p.nodes[i].inputs = inputs[i];
    p.roots = roots;
    p.tra_to_ia = tra_to_ia;
  }
};

class Search {
 public:
  explicit Search(const OptimizerOptions& o) : opt_(o) {
    for (const Rule* r : all_rules())
      if (!opt_.disabled.count(r->name)) rules_.push_back(r);
  }

  PlanCost cost(const IaPlan& p) const { return cost_of(p, opt_.rates); }

  // Greedy descent to a fixed point: the first rewrite that lowers the cost is
  // kept, and the search starts over. Every kept step lowers (time, floats,
  // operators), so it ends.
  IaPlan settle(IaPlan p, PlanCost& c, bool with_join_variants, std::vector<AppliedRule>* log) const {
    for (int step = 0; step < 500; ++step) {
      bool improved = false;
      for (const Rule* r : rules_) {
        if (!with_join_variants && r->name == "R2-6") continue;
        for (int at = 0; at < static_cast<int>(p.nodes.size()) && !improved; ++at) {
          for (int v = 0; v < r->variants && !improved; ++v) {
            const Snapshot snap(p, at);
            const std::string where = where_text(p.node(at));
            if (!r->apply(p, at, v)) continue;
            IaPlan cand = p;
            snap.restore(p);
            normalize(cand);
            infer(cand);
            if (!invalid_reason(cand).empty()) continue;
            const PlanCost cc = cost(cand);
            if (!cc.better_than(c)) continue;
            if (log) log->push_back({r->name, where, c.seconds, cc.seconds});
            p = std::move(cand);
            c = cc;
            improved = true;
          }
        }
        if (improved) break;
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
  IaPlan best = search.settle(out.initial, best_cost, false, &out.applied);

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
        apply_join_strategy(cand, j, s);
        normalize(cand);
        infer(cand);
        Alternative a;
        a.tra_node = t;
        a.statement = best.node(j).detail;
        a.strategy = s.name();
        a.invalid = invalid_reason(cand);
        if (a.invalid.empty()) {
          a.cost = search.cost(cand);
          cand = search.settle(std::move(cand), a.cost, false, nullptr);
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
      considered[t] = std::move(alts);  // the last pass: costs in the context of the final choices
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
