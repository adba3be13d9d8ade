#include "tra/app/report.hpp"

#include <cstdio>
#include <sstream>

namespace tra::app {

std::string format_report(const physical::IaPlan& plan, const std::vector<exec::NodeRun>& runs, double execute_seconds) {
  std::ostringstream os;
  char line[512];
  std::snprintf(line, sizeof line, "%-5s %-6s %10s %14s %14s %10s  %s\n", "node", "op", "seconds", "pred. floats", "moved floats", "GFLOP/s",
                "detail");
  os << line;
  Index predicted = 0, measured = 0;
  double flops = 0;
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    const auto& n = plan.nodes[i];
    const auto& r = runs[i];
    const bool moves = n.kind == physical::IaNode::Kind::Bcast || n.kind == physical::IaNode::Kind::Shuffle;
    predicted += n.predicted_floats;
    measured += r.floats_moved;
    flops += n.flops;
    std::string detail = n.detail.size() > 60 ? n.detail.substr(0, 57) + "..." : n.detail;
    char rate[32] = "";
    if (n.flops > 0 && r.seconds > 0) std::snprintf(rate, sizeof rate, "%.2f", n.flops / r.seconds / 1e9);
    std::snprintf(line, sizeof line, "p%-4zu %-6s %10.4f %14s %14s %10s  %s\n", i, n.name().c_str(), r.seconds,
                  moves ? std::to_string(n.predicted_floats).c_str() : "", moves ? std::to_string(r.floats_moved).c_str() : "", rate,
                  detail.c_str());
    os << line;
  }
  std::snprintf(line, sizeof line, "floats moved: predicted %lld, measured %lld%s\n", static_cast<long long>(predicted),
                static_cast<long long>(measured), predicted == measured ? " (equal)" : " (DIFFERENT)");
  os << line;
  const double gflop = flops / 1e9;
  std::snprintf(line, sizeof line, "tra-run: execute %.4f s, %.3f GFLOP, %.2f GFLOP/s, %lld floats moved\n", execute_seconds, gflop,
                execute_seconds > 0 ? gflop / execute_seconds : 0.0, static_cast<long long>(measured));
  os << line;
  return os.str();
}

}  // namespace tra::app
