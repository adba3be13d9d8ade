// The ranks share the labelings' check (app/plan_deck.hpp): each optimizes
// its share of the labelings and they exchange the candidates' costs; the
// ranks that did not optimize the winner make its plan from its steps. Every
// example deck must plan exactly as one process that checks every labeling
// itself plans it: the same labeling, the same IA plan and parameters, and
// the same candidates with the same costs, on every rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "tra/app/plan_deck.hpp"
#include "tra/io/deck/deck_reader.hpp"

namespace tra::app {
namespace {

namespace fs = std::filesystem;

std::string planned_text(const PlannedDeck& p) {
  std::string d;
  for (const auto& [tensor, parts] : p.lowering.d) {
    d += tensor + "{";
    for (const auto& [label, n] : parts) d += label + ":" + std::to_string(n) + " ";
    d += "} ";
  }
  // What --explain shows of the search, but its times.
  std::string search;
  for (const auto& ph : p.optimized.phases)
    search += ph.name + " " + std::to_string(ph.changes) + " " + ph.before.str() + " -> " + ph.after.str() + "\n";
  for (const auto& a : p.optimized.applied) search += a.rule + " at " + a.where + "\n";
  for (const auto& a : p.optimized.alternatives) search += a.strategy + (a.chosen ? " *" : "") + " " + a.cost.str() + " " + a.invalid + "\n";
  for (const auto& n : p.optimized.notes) search += n + "\n";
  return "labeling " + d + "\npartitioner " + p.lowering.decomposition.partitioner + "\n" + candidates_text(p) + p.optimized.cost.str() + "\n" +
         p.optimized.chosen.str() + "\n" + p.optimized.chosen.parameters() + "\n" + search;
}

TEST(PlanDeckTeam, EveryDeckPlansAsOneProcessCheckingEveryLabeling) {
  comm::Communicator team;
  std::vector<fs::path> decks;
  for (const auto& e : fs::directory_iterator(TRA_INPUTS_DIR))
    if (e.path().extension() == ".yaml") decks.push_back(e.path());
  std::sort(decks.begin(), decks.end());
  int checked = 0, replayed = 0;
  for (const fs::path& deck : decks) {
    const model::Workflow wf = io::read_deck(deck.string());
    const PlannedDeck alone = plan_deck(wf, team.size(), {});
    const PlannedDeck shared = plan_deck(wf, team.size(), {}, &team);
    EXPECT_EQ(planned_text(shared), planned_text(alone)) << deck;
    // A rank that did not optimize the winner made its plan from the
    // winner's steps, and that gave the plan searched.
    EXPECT_NE(shared.made, PlannedDeck::Made::SearchedAfterReplay) << deck;
    checked += !alone.candidates.empty();
    replayed += shared.made == PlannedDeck::Made::Replayed;
  }
  // The check ran on decks at all (it needs the eindecomp partitioner and a
  // statement it may label): at one rank every labeling is the same.
  if (team.size() > 1) EXPECT_GT(checked, 5);
  if (team.size() > 1) EXPECT_GT(team.sum(replayed), 5);
}

}  // namespace
}  // namespace tra::app
