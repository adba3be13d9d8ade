#pragma once
// Where a run's files go, decided and checked before anything is computed:
// each output's resolved path (relative ones under --output-dir), its folder
// writable and roomy enough, no two outputs on one dataset of one file
// however the file is spelled, and no output, training log, checkpoint or
// --report over a file the run reads (an HDF5 input, the deck) or over
// another file it writes.
#include <string>
#include <utility>
#include <vector>

#include "tra/model/workflow.hpp"
#include "tra/physical/ia_plan.hpp"

namespace tra::app {

struct PlannedOutput {
  const model::OutputDecl* decl;
  std::string path;  // resolved; one spelling per file
  int ia_node;
  double bytes = 0;  // the dataset's
  model::OutputStorage storage;  // the deck's, with gzip's chunks filled in (the plan's chunk shape)
};

// `file` under `output_dir` when relative, lexically normal.
std::string resolve_output(const std::string& file, const std::string& output_dir);

// wf.outputs[i], written from IA node nodes[i]; UserError at the output's
// place for the first problem.
std::vector<PlannedOutput> plan_outputs(const model::Workflow& wf, const physical::IaPlan& ia, const std::vector<int>& nodes,
                                        const std::string& output_dir);

// A file a run writes besides its outputs: the training log, the
// checkpoint, --report.
struct OtherFile {
  std::string what;  // "the training log", "--report"
  std::string path;  // resolved; "" for none
  SourceLoc where;  // where the deck names it; unknown for an option (`what` names it)
};

// Each writable, none over a file the run reads, an output or each other;
// UserError at the file's place otherwise.
void check_other_files(const model::Workflow& wf, const std::vector<PlannedOutput>& outputs, const std::vector<OtherFile>& files);

}  // namespace tra::app
