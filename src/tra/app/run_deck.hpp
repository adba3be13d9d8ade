#pragma once
// The whole pipeline for one deck, stage by stage (design.md):
//   deck → Workflow → TRA plan (EinSum lowering) → IA plan → execution → HDF5
// Every stage is a plain function of the previous stage's result; this file
// only strings them together, prints what the user asked to see, and reports.
#include <string>

#include "tra/comm/communicator.hpp"

namespace tra::app {

struct RunOptions {
  std::string deck;
  bool explain = false;
  bool dry_run = false;
  bool verbose = false;
  std::string output_dir;  // relative output files land here ("" = current folder)
};

// Throws UserError for the user's mistakes (same on every rank).
void run_deck(const RunOptions& opt, const comm::Communicator& c);

}  // namespace tra::app
