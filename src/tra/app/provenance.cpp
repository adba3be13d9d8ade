#include "tra/app/provenance.hpp"

#include <unistd.h>

#include <ctime>

namespace tra::app {

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return text;
}

std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof(name) - 1) == 0 ? name : "unknown";
}

std::map<std::string, std::string> provenance(const model::Workflow& wf, const RunFacts& facts, const RunTexts& texts) {
  std::string params, overrides;  // "NAME=VALUE" per line, as params: ended up after --set; each --set per line
  for (const auto& p : wf.params) params += p.name + "=" + p.value + "\n";
  for (const auto& o : wf.overrides) overrides += o + "\n";
  return {{"tra_deck", wf.deck_text},
          {"tra_deck_path", wf.deck_path},
          {"tra_params", params},
          {"tra_overrides", overrides},
          {"tra_tra_plan", texts.tra_plan},
          {"tra_ia_plan", texts.ia_plan},
          {"tra_ranks", std::to_string(facts.ranks)},
          {"tra_version", facts.version},
          {"tra_command_line", facts.command_line},
          {"tra_date", facts.date},
          {"tra_host", facts.host},
          {"tra_report", texts.report},
          {"tra_report_json", texts.report_json}};
}

}  // namespace tra::app
