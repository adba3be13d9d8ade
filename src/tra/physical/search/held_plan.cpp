#include "tra/physical/search/held_plan.hpp"
#include "tra/common/error.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace tra::physical {

int first_slot(const Rule* rule) {
  int slot = 0;
  for (const Rule* r : all_rules()) {
    if (r == rule) return slot;
    slot += r->variants;
  }
  throw InternalError("optimizer: unknown rule " + rule->name);
}

// The bits of the rules never tried at an operator of kind `k`.
uint64_t rules_not_at(IaNode::Kind k) {
  using Kind = IaNode::Kind;
  static const std::map<Kind, uint64_t> bits = [] {
    std::map<Kind, uint64_t> b;
    for (int k = 0; k < kIaKinds; ++k) {
      const Kind kind = static_cast<Kind>(k);
      for (const Rule* r : all_rules())
        if (std::find(r->at_kinds.begin(), r->at_kinds.end(), kind) == r->at_kinds.end())
          for (int v = 0; v < r->variants; ++v) b[kind] |= uint64_t{1} << (first_slot(r) + v);
    }
    return b;
  }();
  auto it = bits.find(k);
  return it == bits.end() ? 0 : it->second;
}

void Held::edited(Trial& t) {
  t.keep_links(std::move(links));
  links = Links(plan);
  no_match.resize(plan.nodes.size(), 0);  // appended nodes: nothing learnt yet
  constexpr int kFar = 3;
  std::vector<int> levels_above(plan.nodes.size(), kFar);  // how far above a node inferred again
  for (int i : t.redone()) levels_above[static_cast<size_t>(i)] = 0;
  for (int i : order) {  // inputs first
    auto& level = levels_above[static_cast<size_t>(i)];
    for (int j : plan.node(i).inputs) level = std::min(level, levels_above[static_cast<size_t>(j)] + 1);
    if (level < kFar) no_match[static_cast<size_t>(i)] = rules_not_at(plan.node(i).kind());
  }
}

namespace {
bool g_checking_undo = false;
}  // namespace

bool checking_undo() { return g_checking_undo; }
void set_checking_undo(bool on) { g_checking_undo = on; }

void Trial::keep_parameters() {
  kept_ = std::make_unique<std::vector<IaNode>>();
  kept_->reserve(h_->plan.nodes.size());
  for (IaNode& n : h_->plan.nodes) {
    Distribution keep = std::move(n.dist);  // large, and derived: not the edit's to change
    kept_->push_back(n);
    n.dist = std::move(keep);
  }
}

void Trial::check_undone() const {
  const IaPlan& p = h_->plan;
  if (p.nodes.size() != kept_->size())
    throw InternalError("optimizer: an undone edit at p" + std::to_string(before_.at) + " left " + std::to_string(p.nodes.size()) + " nodes, not " +
                        std::to_string(kept_->size()));
  for (size_t i = 0; i < p.nodes.size(); ++i)
    if (!p.nodes[i].same_operator((*kept_)[i]))
      throw InternalError("optimizer: an edit at p" + std::to_string(before_.at) + " changed p" + std::to_string(i) + " (" + p.nodes[i].parameters() +
                          "), which its undo does not restore: an edit in place may change the parameters of the node it is made at only "
                          "(search/held_plan.hpp, Snapshot)");
}

}  // namespace tra::physical
