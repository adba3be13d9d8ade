#include <cstdio>
#include <sstream>

#include "tra/physical/optimizer.hpp"

namespace tra::physical {

std::string explain(const Optimized& o) {
  std::ostringstream os;
  os << "== IA plan before optimization (TRA paper Table 1): " << o.initial_cost.str() << "\n" << o.initial.str();
  os << "== optimizer phases (each timed; --disable NAME skips one)\n";
  for (const auto& ph : o.phases) {
    char line[512];
    if (ph.skipped) std::snprintf(line, sizeof line, "  %-17s skipped (disabled)\n", ph.name.c_str());
    else
      std::snprintf(line, sizeof line, "  %-17s %8.2f ms  %3d %-9s est %.4g s -> %.4g s  (%s)\n", ph.name.c_str(), ph.seconds * 1e3, ph.changes,
                    ph.name == "rules" || ph.name == "placement" ? "rewrites" : "changed", ph.before.seconds, ph.after.seconds, ph.what.c_str());
    os << line;
  }
  os << "== rules applied (each lowered the estimated cost)\n";
  if (o.applied.empty()) os << "  none\n";
  for (const auto& a : o.applied) {
    char line[512];
    std::snprintf(line, sizeof line, "  %-9s at %-56s est %.4g s -> %.4g s\n", a.rule.c_str(), a.where.c_str(), a.seconds_before, a.seconds_after);
    os << line;
  }
  os << "== join strategies considered (cost of the whole plan with each)\n";
  int last = -2;
  for (const auto& a : o.alternatives) {
    if (a.tra_node != last) {
      os << "  t" << a.tra_node << ": " << a.statement << "\n";
      last = a.tra_node;
    }
    os << (a.chosen ? "   * " : "     ");
    char line[512];
    if (a.invalid.empty()) std::snprintf(line, sizeof line, "%-36s %s\n", a.strategy.c_str(), a.cost.str().c_str());
    else std::snprintf(line, sizeof line, "%-36s not valid here: %s\n", a.strategy.c_str(), a.invalid.c_str());
    os << line;
  }
  for (const auto& n : o.notes) os << "  note: " << n << "\n";
  char line[256];
  std::snprintf(line, sizeof line, "== chosen IA plan (optimized in %.3f s): ", o.seconds);
  os << line << o.cost.str() << "\n" << o.chosen.str();
  return os.str();
}

}  // namespace tra::physical
