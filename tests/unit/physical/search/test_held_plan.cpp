// The in-place edits of the search (search/held_plan.hpp): a Trial's undo
// leaves the plan exactly as it was, which its Snapshot promises only if an
// edit changes no other node's parameters. Under set_checking_undo every
// trial keeps a copy of the parameters and its undo compares them. And the
// verdicts the held plan remembers (a rewrite no cheaper while what it read
// is unchanged) hold when the rewrite is tried again.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tra/app/plan_deck.hpp"
#include "tra/common/error.hpp"
#include "tra/io/deck/deck_reader.hpp"
#include "tra/physical/search/held_plan.hpp"
#include "tra/physical/search/rule_search.hpp"

namespace tra::physical {
namespace {

struct CheckingUndo {
  CheckingUndo() { set_checking_undo(true); }
  ~CheckingUndo() { set_checking_undo(false); }
};

struct CheckingVerdicts {
  CheckingVerdicts() { set_checking_verdicts(true); }
  ~CheckingVerdicts() { set_checking_verdicts(false); }
};

// Every rule's rewrite and every join strategy tried on decks with many
// joins (training graphs, a chain, attention), at 8 ranks (every family,
// RMM's grids among them): each undo
// restores every parameter of every node.
TEST(HeldPlan, EveryTriedEditIsUndoneExactly) {
  CheckingUndo on;
  for (const char* deck : {"speech_ffnn.yaml", "llama_block_gradients.yaml", "chain_square.yaml", "attention.yaml", "nnmf.yaml"}) {
    const model::Workflow wf = io::read_deck(std::string(TRA_INPUTS_DIR) + "/" + deck);
    SCOPED_TRACE(deck);
    EXPECT_NO_THROW(app::plan_deck(wf, 8, {}));
  }
}

// The check itself: an edit at one node that also changes another node's
// parameters is not taken back by the undo, and the check says which.
TEST(HeldPlan, AnEditBeyondItsNodeIsCaught) {
  CheckingUndo on;
  const model::Workflow wf = io::read_deck(std::string(TRA_INPUTS_DIR) + "/matmul.yaml");
  const app::PlannedDeck planned = app::plan_deck(wf, 2, {});
  Held h(planned.optimized.chosen, planned.optimized.cost);
  ASSERT_GE(h.plan.nodes.size(), 2u);
  {
    Trial t(h, 0);
    t.undo();  // nothing edited: nothing to say
  }
  Trial t(h, 0);
  h.plan.nodes[1].tra_node += 100;  // edited behind the snapshot's back
  try {
    t.undo();
    FAIL() << "the undo did not notice p1 changed";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("changed p1"), std::string::npos) << e.what();
  }
}

// A remembered verdict (Held::verdicts) stands for a trial the search does
// not make: under set_checking_verdicts each is made anyway, and must apply,
// stay valid and raise the estimate by what was remembered. On every example
// deck at 2, 4 and 8 ranks, no verdict is contradicted. (Run once under every
// restricted search of the property test too, 2026-12-07: none.)
TEST(HeldPlan, RememberedVerdictsHoldWhenTriedAgain) {
  CheckingVerdicts on;
  for (const auto& e : std::filesystem::directory_iterator(TRA_INPUTS_DIR)) {
    if (e.path().extension() != ".yaml") continue;
    const std::string deck = e.path().filename().string();
    const model::Workflow wf = io::read_deck(e.path().string());
    for (int ranks : {2, 4, 8}) {
      SCOPED_TRACE(std::string(deck) + " at " + std::to_string(ranks) + " ranks");
      EXPECT_NO_THROW(app::plan_deck(wf, ranks, {}));
    }
  }
}

// A verdict stands while every node it read keeps its version, and only
// for a rise clearly above the estimates' tie.
TEST(HeldPlan, AVerdictStandsWhileWhatItReadIsUnchanged) {
  const model::Workflow wf = io::read_deck(std::string(TRA_INPUTS_DIR) + "/matmul.yaml");
  const app::PlannedDeck planned = app::plan_deck(wf, 2, {});
  Held h(planned.optimized.chosen, planned.optimized.cost);
  ASSERT_GE(h.plan.nodes.size(), 2u);
  Verdict v;
  v.read = {{0, h.version[0]}, {1, h.version[1]}};
  v.seconds = 1e-3 * h.cost.seconds;
  EXPECT_TRUE(h.still_no_cheaper(v));
  v.seconds = 1e-6 * h.cost.seconds;  // within ten times the tie: tried again
  EXPECT_FALSE(h.still_no_cheaper(v));
  v.seconds = 1e-3 * h.cost.seconds;
  ++h.version[1];  // p1 changed since
  EXPECT_FALSE(h.still_no_cheaper(v));
}

// The check itself: verdicts planted at every node for every rule, read
// from nothing, are each tried under set_checking_verdicts, and the first
// one the plan contradicts is said.
TEST(HeldPlan, AWrongVerdictIsCaught) {
  CheckingVerdicts on;
  const model::Workflow wf = io::read_deck(std::string(TRA_INPUTS_DIR) + "/matmul.yaml");
  const app::PlannedDeck planned = app::plan_deck(wf, 2, {});
  Held h(planned.optimized.initial, planned.optimized.initial_cost);
  Verdict planted;
  planted.seconds = 1.0;
  for (size_t i = 0; i < h.plan.nodes.size(); ++i)
    for (int slot = 0; slot < 64; ++slot) h.verdicts[Held::verdict_key(static_cast<int>(i), slot)] = planted;
  const OptimizerOptions options;
  try {
    Search(options).settle(h, &placement_rules(), nullptr);
    FAIL() << "no planted verdict was contradicted";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("was remembered as no cheaper, but"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tra::physical
