// The plan search is phase-correct (issue: a rule applied too early blocked
// the best plan): for every example deck at 2, 4 and 8 ranks, the plan chosen
// with everything enabled is estimated no slower than the plan chosen with any
// one rule, strategy family or placement rule switched off, or with any
// strategy family forced. Each of those searches explores a subset of the
// full search's plans, so a full search that ends higher was closed off by
// one of its own early steps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
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
// off the list). The test prints each one's restricted estimate as a share of
// the full search's.
//
// Since the strategies' trials from the second pass on are settled with
// share-exchange (search/rule_search.hpp, TrialSettle), the full search's
// plan is estimated no slower than before on all 90 deck and rank cases and
// faster on 17 of them (0.4-32%: transe at 8 ranks 0.738 -> 0.503 ms,
// sparse_gcn_layer at 4 ranks 0.652 -> 0.594 ms). That closed 14 of the 21
// gaps listed before; the restricted searches gained the same sharing, and
// in 17 cases one of them now ends lower than the full search, all but one
// (nn_wide) in the training decks. Each is a path the greedy search, which
// settles one join at a time and keeps a change only when the whole plan
// gets cheaper, does not take: a restricted search's first pass leaves a join
// in a plan that costs a little more there (nnmf at 4 ranks without mixed:
// 0.3575 ms after the first pass against the full search's 0.3556 ms), from
// which the later passes reach a lower plan (0.2913 ms) that no single-join
// move from the full search's plan reaches. A second start of the strategy
// phases (the first pass settled with sharing too), kept when cheaper,
// closed only one more and doubled the planning time; a move of two joins at
// once is what they need, and issue 27 owns them. Between 0.3% (nn_wide at 4
// ranks without RMM) and 19% (nnmf at 8 ranks without mixed) of the estimate.
//
// Since loops are charged what their functions and copies cost
// (ScalarProgram::flops_per_eval, a cut's and an assembly's copies), two of
// gcn's at 8 ranks closed and six opened: gcn at 4 ranks without R2-4
// (0.2%) and transe at 8 ranks under five restrictions (6-7%: the full
// search's plan has 96 operators, theirs 79-88).
//
// Since a host build charges the VM's fixed costs (a kernel call, an
// operator, a file's opening: physical/calibration.hpp) and R2-5 merges a
// two-phase aggregation back, gcn at 4 ranks without 2D and nn_wide at 4
// ranks without RMM closed and six opened, all one path the greedy search
// does not take to a plan with one to seven operators fewer: attention at 8
// ranks without BMM, ffnn_gradients at 2 and nn_wide at 4 ranks without
// scan-all or broadcast (0.1-0.7% of the estimate), transe at 8 ranks
// without R2-5 or mixed (1.4%).
//
// Two moves of several joins were tried and not kept (2026-12). One made
// every reader of a shared relation take it broadcast together: it closed
// none. The other, a phase after strategies-again, took each family the
// plan uses out of its joins (each moved to its cheapest plan of another
// family, its neighbours settled again as strategies-again settles them)
// and kept the plan when cheaper: it closed 14 of the 32 gaps (nnmf at 4
// and 8 ranks, 0.747 -> 0.686 and 0.707 -> 0.660 ms; transe at 8 ranks,
// 1.463 -> 1.400 ms, the restricted searches' 1.402), opened 10 more
// (speech_ffnn at 2 ranks, nn_wide and nn_large at 4: 0.3-1.1%, the
// restricted searches doing the same move from other plans), changed no
// plan at perf/train's and perf/graph's sizes, and cost 1.8x the planning
// time (this test 9.5 -> 17.5 minutes; transe at 8 ranks 1.8 -> 4.5 s).
// The search's trials must be cheaper first: each costs the plan's length
// (docs/performance.md, "Where planning time goes").
//
// Since the search remembers rewrites that were no cheaper (Held::verdicts,
// made to change no plan), the same 32 gaps at the same ratios, and this
// test takes 254-286 s instead of 421-451 s.
const std::set<std::string> kKnownGaps = {
    "attention.yaml 8 --disable BMM",
    "ffnn_gradients.yaml 2 --disable scan-all",
    "nn_wide.yaml 4 --disable scan-all",
    "nn_wide.yaml 4 --disable broadcast",
    "transe.yaml 8 --disable R2-5",
    "transe.yaml 8 --disable mixed",
    "ffnn_gradients.yaml 8 --disable scan-all",
    "ffnn_gradients.yaml 8 --disable RMM",
    "ffnn_gradients.yaml 8 --disable broadcast",
    "gcn.yaml 2 --disable R2-4",
    "gcn.yaml 2 --disable CMM",
    "gcn.yaml 2 --strategy bmm",
    "gcn.yaml 4 --disable R2-4",
    "gcn.yaml 4 --disable mixed",
    "gcn.yaml 4 --disable replicate",
    "gcn.yaml 8 --disable replicate",
    "nn_wide.yaml 4 --disable mixed",
    "nn_wide.yaml 4 --strategy bmm",
    "nnmf.yaml 4 --disable mixed",
    "nnmf.yaml 8 --disable mixed",
    "speech_ffnn.yaml 8 --disable R2-5",
    "speech_ffnn.yaml 8 --disable scan-face",
    "transe.yaml 2 --disable R2-4",
    "transe.yaml 2 --disable CMM",
    "transe.yaml 2 --strategy bmm",
    "transe.yaml 2 --strategy 2d",
    "transe.yaml 4 --disable mixed",
    "transe.yaml 8 --disable CMM",
    "transe.yaml 8 --disable RMM",
    "transe.yaml 8 --disable 2D",
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
          std::printf("known gap %-45s %.4f of the full search's estimate\n", gap.c_str(),
                      restricted.optimized.cost.seconds / full.optimized.cost.seconds);
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
