#pragma once
// The whole pipeline for one deck, stage by stage (design.md):
//   deck → Workflow → TRA plan (EinSum lowering) → IA plan → execution → HDF5
// Every stage is a plain function of the previous stage's result; this file
// only strings them together, prints what the user asked to see, and reports.
#include <string>
#include <vector>

#include "tra/comm/communicator.hpp"
#include "tra/core/key.hpp"

namespace tra::app {

struct RunOptions {
  std::string deck;
  enum class Explain { None, Plan, Analyze, Dot } explain = Explain::None;  // Dot: the chosen IA plan for Graphviz, then stop
  std::vector<std::string> disable;  // --disable: rule names or strategy families, added to the deck's
  std::string strategy;              // --strategy: overrides the deck's run: optimizer: strategy
  std::string calibration;           // --calibration: overrides the deck's file
  std::string partitioner;           // --partitioner: overrides the deck's run: partitioner:
  Index overdecomposition = 0;       // --overdecomposition: overrides the deck's (0: keep)
  bool dry_run = false;
  bool verbose = false;
  std::string output_dir;  // relative output files land here ("" = current folder)
  std::string resume;      // --resume: a training checkpoint to continue from ("" = start afresh)
  std::string command_line;  // as typed, every option included: recorded in each output file
  std::string report;        // --report: the run report as JSON, written here ("" = none)
  std::vector<std::string> set;  // --set PATH=VALUE: deck values replaced (io/deck/deck_overrides.hpp)
};

// argv as one line a shell would read back (arguments quoted where needed).
std::string command_line(int argc, char** argv);

// Throws UserError for the user's mistakes (same on every rank).
void run_deck(const RunOptions& opt, const comm::Communicator& c);

}  // namespace tra::app
