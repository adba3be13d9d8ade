// A search's kept edits make its plan again (physical::replay), and its
// record (physical/search_record.hpp) reads back as it was written: what a
// rank that did not optimize the winning labeling is sent and builds on.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>

#include "tra/common/error.hpp"
#include "tra/io/deck/deck_reader.hpp"
#include "tra/logical/lower.hpp"
#include "tra/physical/compile.hpp"
#include "tra/physical/search_record.hpp"

namespace tra::physical {
namespace {

IaPlan compiled(const char* deck, int ranks) {
  const model::Workflow wf = io::read_deck(std::string(TRA_INPUTS_DIR) + "/" + deck);
  return compile(logical::lower(wf, ranks).plan, ranks);
}

// Decks with many joins and rules kept, at rank counts where every phase
// keeps something (chain_square at 8 ranks: RMM's grids), and one where
// every exchange costs a second, so that the plan on every site wins.
TEST(SearchRecord, TheStepsKeptMakeTheSamePlan) {
  OptimizerOptions slow_network;
  slow_network.rates.latency = 1.0;
  const OptimizerOptions usual;
  std::set<int> kinds;
  for (const auto& [deck, ranks, options] : {std::tuple{"attention.yaml", 4, &usual},
                                             {"chain_square.yaml", 8, &usual},
                                             {"nn_wide.yaml", 4, &usual},
                                             {"reductions.yaml", 2, &usual},
                                             {"matmul.yaml", 2, &slow_network}}) {
    SCOPED_TRACE(std::string(deck) + " at " + std::to_string(ranks));
    const IaPlan initial = compiled(deck, ranks);
    const Optimized searched = optimize(initial, *options);
    ASSERT_FALSE(searched.steps.empty());
    const Optimized again = replay(initial, *options, searched.steps);
    EXPECT_EQ(again.chosen.parameters(), searched.chosen.parameters());
    EXPECT_EQ(again.chosen.str(), searched.chosen.str());
    EXPECT_EQ(again.cost.str(), searched.cost.str());
    EXPECT_EQ(again.cost.seconds, searched.cost.seconds);  // to the last bit: the same terms summed in the same order
    for (const PlanStep& s : searched.steps) kinds.insert(s.kind);
  }
  EXPECT_EQ(kinds, (std::set<int>{PlanStep::Rule, PlanStep::Join, PlanStep::Tidy, PlanStep::Everywhere}));
}

TEST(SearchRecord, ReadsBackAsWritten) {
  const Optimized searched = optimize(compiled("attention.yaml", 4), {});
  const std::string text = search_record(searched);
  Optimized read;
  read_search_record(text, read);
  EXPECT_EQ(read.steps, searched.steps);
  ASSERT_EQ(read.phases.size(), searched.phases.size());
  EXPECT_EQ(read.phases[1].name, searched.phases[1].name);
  EXPECT_EQ(read.phases[1].after.seconds, searched.phases[1].after.seconds);
  EXPECT_EQ(read.phases[1].after.node_seconds, searched.phases[1].after.node_seconds);
  ASSERT_EQ(read.alternatives.size(), searched.alternatives.size());
  EXPECT_EQ(read.alternatives.back().statement, searched.alternatives.back().statement);
  EXPECT_EQ(read.seconds, searched.seconds);
  EXPECT_EQ(search_record(read), text);
}

TEST(SearchRecord, ARecordCutShortOrAStepThatDoesNotApplyIsAnInternalError) {
  const IaPlan initial = compiled("attention.yaml", 4);
  const Optimized searched = optimize(initial, {});
  const std::string text = search_record(searched);
  Optimized read;
  EXPECT_THROW(read_search_record(text.substr(0, text.size() / 2), read), InternalError);
  std::vector<PlanStep> steps = searched.steps;
  steps.insert(steps.begin(), PlanStep{PlanStep::Join, 0, 0, 0});  // p0 is a Scan
  EXPECT_THROW(replay(initial, {}, steps), InternalError);
  steps.front() = PlanStep{PlanStep::Rule, 1 << 20, 0, 0};
  EXPECT_THROW(replay(initial, {}, steps), InternalError);
}

}  // namespace
}  // namespace tra::physical
