// The plan search is phase-correct (issue: a rule applied too early blocked
// the best plan): for every example deck at 2, 4 and 8 ranks, the plan chosen
// with everything enabled is estimated no slower than the plan chosen with any
// one rule, strategy family or placement rule switched off, or with any
// strategy family forced. Each of those searches explores a subset of the
// full search's plans, so a full search that ends higher was closed off by
// one of its own early steps.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <list>
#include <set>
#include <sstream>

#include "tra/app/plan_deck.hpp"
#include "tra/io/deck/deck_reader.hpp"

namespace tra::app {
namespace {

std::vector<std::string> example_decks() {
  std::vector<std::string> decks;
  for (const auto& e : std::filesystem::directory_iterator(TRA_INPUTS_DIR))
    if (e.path().extension() == ".yaml") decks.push_back(e.path().string());
  std::sort(decks.begin(), decks.end());
  return decks;
}

// The variations of the options, each a search of no more plans than the full one.
std::vector<std::pair<std::string, physical::OptimizerOptions>> restricted_searches() {
  std::vector<std::pair<std::string, physical::OptimizerOptions>> out;
  const std::vector<std::string> phases = physical::optimizer_phase_names();
  for (const std::string& name : physical::rule_and_strategy_names()) {
    if (std::find(phases.begin(), phases.end(), name) != phases.end()) continue;  // a phase is no rule
    physical::OptimizerOptions o;
    o.disabled.insert(name);
    out.emplace_back("--disable " + name, o);
  }
  for (const char* family : {"bmm", "cmm", "rmm", "2d", "mixed"}) {
    physical::OptimizerOptions o;
    o.strategy = family;
    out.emplace_back(std::string("--strategy ") + family, o);
  }
  return out;
}

// Cheaper by the objective that chose it: between plans of one labeling the
// optimizer's (the estimate, then the floats moved), between labelings
// plan_deck's (the estimate; within 1%, the floats moved or read again). (A
// plan with fewer operators at the same estimate and traffic is no cheaper:
// R2-5's first phase may be left where it adds nothing.)
bool cheaper(const PlannedDeck& a, const PlannedDeck& b) {
  LabelingCandidate x = chosen_candidate(a);
  const LabelingCandidate y = chosen_candidate(b);
  x.cost.operators = y.cost.operators;
  if (a.lowering.d == b.lowering.d) return x.cost.better_than(y.cost);
  return preferred(x, y);
}

// Known gaps of the greedy search, each "deck ranks variation": a test that
// fails on any other case, and on one of these once it is fixed (then take it
// off the list). Six are in the training decks, whose backward and update
// graphs (65-120 operators) are the largest in inputs/: their joins are
// settled one at a time, and a restricted search that takes another path
// there ends lower: by 0.2-0.7% on ffnn_gradients at 4 ranks and 0.2-4.1% on
// speech_ffnn at 8 ranks. (The LLaMA block's gradients and logistic_adam had
// six more, 0.3-14%: a restricted search found the step computed whole on
// every rank, many join-by-join moves from the split plans; the optimizer's
// "everywhere" phase now tries that plan itself.) One forward deck has two
// since inputs are read and groups sent on spread faces (core/placement.hpp):
// nn_wide on 4 ranks ends 1.5% lower without mixed (proj's BMM, cheaper only
// once dist's RMM is chosen again for it: a move of two joins at once, which
// the search, one join at a time, does not make) and 0.3% without RMM. Issue
// 14 (planning a training step) owns the training decks' gaps; issue 27 the
// search's one-join-at-a-time moves. The two sparse decks (issue 30) have
// seven, 0.1-10%, since a sparse tensor is read on every site: with the
// sparse side free to sit anywhere the labelings' plans come within a few
// percent of each other, and a restricted search that takes another path
// through a labeling's joins (sparse_gcn_layer at 4 ranks: the hidden
// label split alone, nothing moved but the loss) ends below the full
// search's pick (Z and Z.grad re-shuffled between the node blocks).
// transe.yaml (issue 30), whose four lookups read their index lists on
// every site, has six, 3-20%: at 8 ranks --disable replicate ends at
// 0.588 ms moving 43,395 floats, the full search at 0.738 ms moving 62,325
// (its plan has 107 operators, the restricted one 87); at 2 ranks --disable
// R2-4 ends at 0.715 ms moving 14,481 floats, 9% below the full search's
// 0.784 ms moving none. Not yet explained: issue 27 owns them.
const std::set<std::string> kKnownGaps = {
    "ffnn_gradients.yaml 4 --disable BMM",
    "ffnn_gradients.yaml 4 --disable R2-4",
    "nn_wide.yaml 4 --disable RMM",
    "nn_wide.yaml 4 --disable mixed",
    "speech_ffnn.yaml 8 --disable R2-5",
    "speech_ffnn.yaml 8 --disable mixed",
    "speech_ffnn.yaml 8 --disable scan-all",
    "speech_ffnn.yaml 8 --disable scan-face",
    "gcn.yaml 8 --disable scan-part",
    "gcn.yaml 8 --disable CMM",
    "sparse_gcn_layer.yaml 2 --disable scan-part",
    "sparse_gcn_layer.yaml 2 --disable R2-7",
    "sparse_gcn_layer.yaml 2 --disable CMM",
    "sparse_gcn_layer.yaml 2 --strategy bmm",
    "sparse_gcn_layer.yaml 4 --disable R2-4",
    "transe.yaml 2 --disable R2-4",
    "transe.yaml 8 --disable CMM",
    "transe.yaml 8 --disable 2D",
    "transe.yaml 8 --disable broadcast",
    "transe.yaml 8 --disable replicate",
    "transe.yaml 8 --strategy bmm",
};

TEST(PlanProperty, FullSearchIsNeverBeatenByARestrictedOne) {
  const auto variations = restricted_searches();
  std::ostringstream failures;
  std::set<std::string> gaps_seen;
  int checked = 0;
  for (const std::string& path : example_decks()) {
    const model::Workflow wf = io::read_deck(path);
    for (int ranks : {2, 4, 8}) {
      const PlannedDeck full = plan_deck(wf, ranks, {});
      for (const auto& [what, options] : variations) {
        const PlannedDeck restricted = plan_deck(wf, ranks, options);
        ++checked;
        if (!cheaper(restricted, full)) continue;
        const std::string deck = std::filesystem::path(path).filename().string();
        const std::string gap = deck + " " + std::to_string(ranks) + " " + what;
        if (kKnownGaps.count(gap)) {
          gaps_seen.insert(gap);
          continue;
        }
        failures << "  " << deck << " at " << ranks << " ranks: " << what << " " << restricted.optimized.cost.str() << " < full search "
                 << full.optimized.cost.str() << "\n";
      }
    }
  }
  EXPECT_GT(checked, 0);
  for (const auto& gap : kKnownGaps) EXPECT_TRUE(gaps_seen.count(gap)) << "fixed, take it off kKnownGaps: " << gap;
  EXPECT_TRUE(failures.str().empty()) << "restricted searches that found cheaper plans:\n" << failures.str();
}

}  // namespace
}  // namespace tra::app
