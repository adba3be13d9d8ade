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
  const std::vector<int> touched = t.touched(links);
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
  std::vector<std::pair<int, uint64_t>> before;
  before.reserve(touched.size());
  const size_t count = version.size();
  version.resize(plan.nodes.size(), 0);
  for (int i : touched) {
    before.emplace_back(i, version[static_cast<size_t>(i)]);
    version[static_cast<size_t>(i)] = ++last_version;
  }
  t.keep_versions(std::move(before), count);
}

void Held::tidy() {
  const std::vector<int> moved = reorder(plan, order);
  std::vector<uint64_t> kept(plan.nodes.size(), 0), versions(plan.nodes.size(), 0);
  for (size_t i = 0; i < moved.size(); ++i)
    if (moved[i] >= 0) {
      kept[static_cast<size_t>(moved[i])] = no_match[i];
      versions[static_cast<size_t>(moved[i])] = i < version.size() ? version[i] : ++last_version;
    }
  no_match = std::move(kept);
  version = std::move(versions);
  // The verdicts of the nodes kept, renumbered; one that read a node dropped
  // is forgotten.
  std::unordered_map<uint64_t, Verdict> renumbered;
  auto place = [&](int i) { return static_cast<size_t>(i) < moved.size() ? moved[static_cast<size_t>(i)] : -1; };
  for (auto& [key, v] : verdicts) {
    const int at = place(static_cast<int>(key / 64));
    bool whole = at >= 0;
    for (auto& [i, ver] : v.read) whole = whole && (i = place(i)) >= 0;
    if (whole) renumbered.emplace(verdict_key(at, static_cast<int>(key % 64)), std::move(v));
  }
  verdicts = std::move(renumbered);
  std::iota(order.begin(), order.end(), 0);
  links = Links(plan);
  if (record) record->push_back({PlanStep::Tidy});
}

bool Held::still_no_cheaper(const Verdict& v) const {
  for (const auto& [i, ver] : v.read)
    if (static_cast<size_t>(i) >= version.size() || version[static_cast<size_t>(i)] != ver) return false;
  // Ten times the estimates' tie: a total summed in another order, or
  // another total's part in a million, cannot make such a rise a tie.
  constexpr double kClearRise = 1e-5;
  return v.seconds > kClearRise * std::max(cost.seconds, cost.seconds + v.seconds);
}

namespace {

// Whether node i is one X's carry is costed from: X.next (a root at X's
// place, before the edit or after it) or a Scan of X.
bool carry_reads(const IaPlan& plan, const Links& before, const std::string& x, int root, int i) {
  const IaNode& n = plan.node(i);
  if (n.kind() == IaNode::Kind::Scan && n.scan().source && n.scan().source->name == x) return true;
  return plan.roots.at(static_cast<size_t>(root)) == i || before.roots.at(static_cast<size_t>(root)) == i;
}

}  // namespace

void Held::remember_no_cheaper(const Trial& t, int slot, double seconds, const CarriedRoots& carried) {
  Verdict v;
  v.seconds = seconds;
  std::vector<int> read = t.touched(links);
  const size_t touched = read.size();
  for (const auto& carry : carried) {
    // (Named, not bound: a lambda capturing a structured binding is C++20, and nvcc says so.)
    const std::string& x = carry.first;
    const int root = carry.second;
    if (std::none_of(read.begin(), read.begin() + static_cast<long>(touched), [&](int i) { return carry_reads(plan, links, x, root, i); })) continue;
    const CarriedRoots one{{x, root}};  // X's carry alone: the others' costs read none of what the trial touched
    for (const std::vector<int>* live : std::initializer_list<const std::vector<int>*>{&order, &t.order_before()}) {
      const std::vector<int> inputs = carry_cost_inputs(plan, *live, one);
      read.insert(read.end(), inputs.begin(), inputs.end());
    }
  }
  // And what the rule's match read: the inputs of the edited node's inputs.
  const auto at = static_cast<size_t>(t.at());
  for (int k = links.first[at]; k < links.first[at + 1]; ++k) {
    const auto in = static_cast<size_t>(links.inputs[static_cast<size_t>(k)]);
    read.insert(read.end(), links.inputs.begin() + links.first[in], links.inputs.begin() + links.first[in + 1]);
  }
  for (int i : read)
    if (static_cast<size_t>(i) < t.size_before()) v.read.emplace_back(i, version[static_cast<size_t>(i)]);
  verdicts[verdict_key(t.at(), slot)] = std::move(v);
}

std::vector<int> Trial::touched(const Links& old_links) const {
  const IaPlan& p = h_->plan;
  std::vector<char> seen(p.nodes.size(), 0);
  std::vector<int> out;
  auto add = [&](int i) {
    if (!seen[static_cast<size_t>(i)]) {
      seen[static_cast<size_t>(i)] = 1;
      out.push_back(i);
    }
  };
  add(before_.at);
  for (int i : changed_) add(i);
  for (int i : redone_) add(i);
  for (size_t i = before_.size; i < p.nodes.size(); ++i) add(static_cast<int>(i));
  std::vector<char> needed(p.nodes.size(), 0);  // bit 1: before the edit, bit 2: after
  for (int i : order_before_) needed[static_cast<size_t>(i)] |= 1;
  for (int i : h_->order) needed[static_cast<size_t>(i)] |= 2;
  for (size_t i = 0; i < needed.size(); ++i)
    if (needed[i] == 1 || needed[i] == 2) add(static_cast<int>(i));
  const size_t direct = out.size();
  for (size_t k = 0; k < direct; ++k) {
    const auto i = static_cast<size_t>(out[k]);
    for (int j : p.nodes[i].inputs) add(j);
    if (i < before_.size)
      for (int j = old_links.first[i]; j < old_links.first[i + 1]; ++j) add(old_links.inputs[static_cast<size_t>(j)]);
  }
  return out;
}

namespace {
bool g_checking_undo = false;
bool g_checking_verdicts = false;
}  // namespace

bool checking_undo() { return g_checking_undo; }
void set_checking_undo(bool on) { g_checking_undo = on; }
bool checking_verdicts() { return g_checking_verdicts; }
void set_checking_verdicts(bool on) { g_checking_verdicts = on; }

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
