// Every example deck plans as it did: at 1, 2, 4 and 8 ranks, the IA plan as
// compiled and as chosen prints exactly (EXPLAIN text and every parameter)
// as the texts kept in tests/unit/app/plans/, made with the built-in rates.
// A refactoring of the planner must leave them alone; a change meant to
// choose other plans rewrites them (TRA_UPDATE_PLANS=1 when running this
// test writes the new texts, to be read in the diff and committed with it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tra/app/plan_deck.hpp"
#include "tra/io/deck/deck_reader.hpp"

namespace tra::app {
namespace {

namespace fs = std::filesystem;

const fs::path kPlans = fs::path(TRA_TESTS_DIR) / "unit" / "app" / "plans";

std::vector<fs::path> example_decks() {
  std::vector<fs::path> decks;
  for (const auto& e : fs::directory_iterator(TRA_INPUTS_DIR))
    if (e.path().extension() == ".yaml") decks.push_back(e.path());
  std::sort(decks.begin(), decks.end());
  return decks;
}

std::string plans_text(const model::Workflow& wf) {
  std::ostringstream text;
  for (int ranks : {1, 2, 4, 8}) {
    const PlannedDeck p = plan_deck(wf, ranks, {});
    text << "==== " << ranks << " rank(s); labeling:";
    for (const auto& [tensor, parts] : p.lowering.d) {
      text << " " << tensor << "{";
      for (const auto& [label, n] : parts) text << label << ":" << n << " ";
      text << "}";
    }
    text << "\n== compiled\n"
         << p.optimized.initial.str() << "\n== chosen\n"
         << p.optimized.chosen.str() << "\n== parameters\n"
         << p.optimized.chosen.parameters() << "\n";
  }
  // HDF5 sources name their files by absolute path: the checkout's own
  // folder is not part of a plan.
  std::string out = text.str();
  const std::string inputs = TRA_INPUTS_DIR;
  for (size_t at = out.find(inputs); at != std::string::npos; at = out.find(inputs, at)) out.replace(at, inputs.size(), "<inputs>");
  return out;
}

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(PlanGolden, EveryDeckPlansAsItsKeptText) {
  const char* update = std::getenv("TRA_UPDATE_PLANS");
  const bool write = update && std::string(update) == "1";
  int compared = 0;
  for (const fs::path& deck : example_decks()) {
    const std::string now = plans_text(io::read_deck(deck.string()));
    const fs::path kept = kPlans / (deck.stem().string() + ".txt");
    if (write) {
      std::ofstream(kept) << now;
      continue;
    }
    ASSERT_TRUE(fs::exists(kept)) << kept << " is missing (TRA_UPDATE_PLANS=1 writes it)";
    const std::string before = read(kept);
    ++compared;
    if (before == now) continue;
    // The first line that differs, with its neighbours.
    std::istringstream a(before), b(now);
    std::string la, lb;
    int line = 0;
    while (std::getline(a, la) && std::getline(b, lb) && la == lb) ++line;
    ADD_FAILURE() << deck.filename() << " plans otherwise than " << kept << " (line " << line + 1 << "):\n  kept: " << la << "\n  now:  " << lb;
  }
  if (!write) EXPECT_EQ(compared, static_cast<int>(example_decks().size()));
}

}  // namespace
}  // namespace tra::app
