#include "tra/physical/search/rule_search.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "tra/common/text.hpp"
#include "tra/physical/infer.hpp"

namespace tra::physical {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string where_text(const IaNode& n) {
  const std::string d = shorten(n.words(), 48);
  return n.name() + "(" + d + ")";
}

// Seconds to the digits that tell two close estimates apart.
std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.12g s", s);
  return text;
}

// Under checking_verdicts: a remembered verdict that the rewrite tried again
// contradicts, which means it read a node the verdict did not list.
[[noreturn]] void verdict_broken(const Rule& r, int at, const std::string& why) {
  throw InternalError("optimizer: " + r.name + " at p" + std::to_string(at) + " was remembered as no cheaper, but " + why +
                      " (search/held_plan.hpp, Held::verdicts)");
}

}  // namespace

void Search::settle(Held& h, const std::set<std::string>* only, std::vector<AppliedRule>* log, bool restart, std::vector<Trial>* kept) const {
  IaPlan& p = h.plan;
  for (int step = 0; step < 1000; ++step) {
    bool improved = false;
    auto stop = [&] { return restart && improved; };
    for (const auto& [r, first_slot, index] : rules_) {
      if (stop()) break;
      if (only && !only->count(r->name)) continue;
      // `pos`: the place in the (normalized) order, as an index in the
      // normalized plan; a kept rewrite changes the node found there.
      // Rules are not tried at operators of other kinds (Held::no_match).
      for (int pos = 0; pos < static_cast<int>(h.order.size()) && !stop(); ++pos) {
        for (int v = 0; v < r->variants && !stop(); ++v) {
          const int at = h.order[static_cast<size_t>(pos)];
          const int slot = first_slot + v;
          const uint64_t bit = uint64_t{1} << slot;
          if (h.no_match[static_cast<size_t>(at)] & bit) continue;
          // A rewrite found no cheaper by a clear margin, with nothing it
          // read changed since, is no cheaper now (Held::verdicts).
          const bool remembered = !reads_deep(*r);
          const Verdict* known = nullptr;
          if (remembered)
            if (auto it = h.verdicts.find(Held::verdict_key(at, slot)); it != h.verdicts.end() && h.still_no_cheaper(it->second)) {
              if (!checking_verdicts()) continue;
              known = &it->second;
            }
          Trial t(h, at);
          if (!r->apply(p, at, v)) {  // the plan is untouched
            if (known) verdict_broken(*r, at, "it no longer applies");
            if (remembered) h.no_match[static_cast<size_t>(at)] |= bit;
            continue;
          }
          t.infer();
          if (!invalid_reason(p, h.order).empty()) {
            if (known) verdict_broken(*r, at, "it now makes an invalid plan");
            t.undo();
            continue;
          }
          const PlanCost cc = cost(h);
          if (known && std::abs(cc.seconds - h.cost.seconds - known->seconds) > 1e-9 * std::max(cc.seconds, h.cost.seconds))
            verdict_broken(*r, at,
                           "it raises the estimate by " + seconds_text(cc.seconds - h.cost.seconds) + ", not the " + seconds_text(known->seconds) +
                               " remembered");
          if (!cc.better_than(h.cost)) {
            if (remembered && cc.seconds > h.cost.seconds) h.remember_no_cheaper(t, slot, cc.seconds - h.cost.seconds, opt_.carried);
            t.undo();
            continue;
          }
          if (log) log->push_back({r->name, where_text(t.edited_node()), h.cost.seconds, cc.seconds});
          h.cost = cc;
          h.edited(t);
          if (h.record) h.record->push_back({PlanStep::Rule, at, index, v});
          if (kept) kept->push_back(std::move(t));
          improved = true;
        }
      }
    }
    if (!improved) break;
  }
}

bool Search::family_allowed(const JoinStrategy& s, bool has_aggregation) const {
  if (opt_.disabled.count(s.family)) return false;
  if (opt_.strategy == "auto" || !has_aggregation) return true;
  return lower(s.family) == lower(opt_.strategy);
}

const std::set<std::string>& placement_rules() {
  static const std::set<std::string> names{"R2-1", "R2-2", "R2-3", "R2-4", "R2-5", "R2-7", "scan-part", "scan-all", "scan-face"};
  return names;
}

namespace {

// An edit at node `at`, made in place and kept (appended to `edits`, if
// given, to be taken back).
template <class Edit>
void edit(Held& h, int at, std::vector<Trial>* edits, Edit&& e) {
  Trial t(h, at);
  e();
  t.infer();
  h.edited(t);
  if (edits) edits->push_back(std::move(t));
}

// Aggregations downstream left partial by a move get their shuffles back,
// one level of the plan at a time (a regrouped aggregation may move the
// groups of the next). Most moves leave none: found first, before a Trial's
// snapshot.
void regroup_partials(Held& h, int at, std::vector<Trial>* edits) {
  for (size_t round = 0; round < h.plan.nodes.size(); ++round) {
    const std::vector<int> partial = partial_aggregations(h.plan, h.order);
    if (partial.empty()) break;
    edit(h, at, edits, [&] { regroup(h.plan, partial); });
  }
}

// The first join other than `j` whose inputs are not co-located, or -1.
int parted_join(const Held& h, int j) {
  for (int i : h.order)
    if (i != j && h.plan.node(i).kind() == IaNode::Kind::LocalJoin && !h.plan.node(i).invalid.empty()) return i;
  return -1;
}

}  // namespace

std::string place_join(Held& h, int j, const JoinStrategy& s, std::vector<Trial>* edits) {
  edit(h, j, edits, [&] { apply_join_strategy(h.plan, j, s); });
  regroup_partials(h, j, edits);
  // A join downstream that relied on where its inputs were (R2-4 and R2-7
  // dropped its shuffles) may find them apart now: it is brought back
  // together by the strategy that shuffles both sides on its matched
  // dimensions (R2-6's Table-1 form) from where they are now, and the
  // placement rules settle it below. One join per trial: a strategy that
  // parts more is invalid, as before (repairing every one made the LLaMA
  // gradients plan 2-3x longer; one gave the same plans for the FFNN steps
  // on 8 ranks, 3.6-6.5% sooner than with none).
  if (const int apart = parted_join(h, j); apart >= 0) {
    const JoinStrategy together = matched_dims_strategy(h.plan, apart);
    edit(h, apart, edits, [&] { apply_join_strategy(h.plan, apart, together); });
    regroup_partials(h, apart, edits);
  }
  return invalid_reason(h.plan, h.order);
}

void replay_rule(Held& h, int at, const Rule& rule, int variant) {
  if (at < 0 || static_cast<size_t>(at) >= h.plan.nodes.size() || variant < 0 || variant >= rule.variants)
    throw InternalError("optimizer: replaying " + rule.name + " at p" + std::to_string(at) + " (variant " + std::to_string(variant) +
                        "): no such place");
  Trial t(h, at);
  if (!rule.apply(h.plan, at, variant))
    throw InternalError("optimizer: replaying " + rule.name + " at p" + std::to_string(at) + ": it does not apply");
  t.infer();
  h.edited(t);
}

std::string apply_strategy(const Search& search, Held& h, int j, const JoinStrategy& s, std::vector<Trial>* edits, TrialSettle settle) {
  if (const std::string invalid = place_join(h, j, s, edits); !invalid.empty()) return invalid;
  h.cost = search.cost(h);
  // (The kernel compositions are done.)
  static const std::set<std::string> placement_and_sharing = [] {
    std::set<std::string> names = placement_rules();
    names.insert("share-exchange");
    return names;
  }();
  search.settle(h, settle == TrialSettle::placement ? &placement_rules() : &placement_and_sharing, nullptr, false, edits);
  return "";
}

}  // namespace tra::physical
