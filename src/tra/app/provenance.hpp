#pragma once
// What every output file records about the run that made it, as string
// attributes on its root group (docs/deck.md lists them): the deck as
// written and as read (parameters, overrides), the plans, the version and
// Kokkos build, the command line, date, host and rank count, and the run
// report as text and JSON. The same for every file of a run.
#include <map>
#include <string>

#include "tra/app/json_report.hpp"
#include "tra/model/workflow.hpp"

namespace tra::app {

// When and where a run starts: UTC, ISO 8601 ("2026-11-23T22:30:00Z"), and
// this host's name.
std::string utc_now();
std::string host_name();

struct RunTexts {  // what the run printed, as it printed it
  std::string tra_plan, ia_plan, report, report_json;
};

std::map<std::string, std::string> provenance(const model::Workflow& wf, const RunFacts& facts, const RunTexts& texts);

}  // namespace tra::app
