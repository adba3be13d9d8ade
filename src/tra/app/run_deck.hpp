#pragma once
// The whole pipeline for one deck, stage by stage (design.md):
//   deck → Workflow → TRA plan (EinSum lowering) → IA plan → execution → HDF5
// Every stage is a plain function of the previous stage's result; this file
// only strings them together, prints what the user asked to see, and reports.
#include <string>
#include <utility>
#include <vector>

#include "tra/comm/communicator.hpp"
#include "tra/core/key.hpp"

namespace tra::app {

struct RunOptions {
  std::string deck;
  enum class Explain { None, Plan, Analyze, Dot } explain = Explain::None;  // Dot: the chosen IA plan for Graphviz, then stop
  std::vector<std::string> disable;  // --disable: rule names or strategy families, added to the deck's
  std::string calibration;  // --calibration: overrides the deck's file
  // The options that set one deck value each (kDeckValueOptions), as given:
  // (option, value) in order.
  std::vector<std::pair<std::string, std::string>> deck_values;
  bool dry_run = false;
  bool verbose = false;
  std::string output_dir;  // relative output files land here ("" = current folder)
  std::string resume;  // --resume: a training checkpoint to continue from ("" = start afresh)
  std::string command_line;  // as typed, every option included: recorded in each output file
  std::string report;  // --report: the run report as JSON, written here ("" = none)
  std::vector<std::string> set;  // --set PATH=VALUE: deck values replaced (io/deck/deck_overrides.hpp)
};

// Command-line options that each set one deck value: sugar for
// --set PATH=VALUE, applied after the --set options, read and checked by the
// deck reader as the deck's own value is, and named in its messages as
// written ("--partitioner sqrt: ...").
struct DeckValueOption {
  const char* option;  // "--partitioner"
  const char* path;  // "run/partitioner" (io/deck/deck_overrides.hpp)
};
inline constexpr DeckValueOption kDeckValueOptions[] = {
    {"--partitioner", "run/partitioner"},
    {"--overdecomposition", "run/overdecomposition"},
    {"--strategy", "run/optimizer/strategy"},
};

// The names --disable and --strategy take, from the optimizer's tables of
// rules, strategy families and phases ("a, b or c").
std::string disable_names();
std::string strategy_names();

// argv as one line a shell would read back (arguments quoted where needed).
std::string command_line(int argc, char** argv);

// Throws UserError for the user's mistakes (same on every rank).
void run_deck(const RunOptions& opt, const comm::Communicator& c);

}  // namespace tra::app
