// The in-place edits of the search (search/held_plan.hpp): a Trial's undo
// leaves the plan exactly as it was, which its Snapshot promises only if an
// edit changes no other node's parameters. Under set_checking_undo every
// trial keeps a copy of the parameters and its undo compares them.
#include <gtest/gtest.h>

#include <string>

#include "tra/app/plan_deck.hpp"
#include "tra/common/error.hpp"
#include "tra/io/deck/deck_reader.hpp"
#include "tra/physical/search/held_plan.hpp"

namespace tra::physical {
namespace {

struct CheckingUndo {
  CheckingUndo() { set_checking_undo(true); }
  ~CheckingUndo() { set_checking_undo(false); }
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

}  // namespace
}  // namespace tra::physical
