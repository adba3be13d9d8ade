#include "tra/app/report.hpp"

#include <cstdio>
#include <sstream>

namespace tra::app {

std::string format_report(const physical::IaPlan& plan, const std::vector<exec::NodeRun>& runs, double wall_seconds) {
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
  // Operator time without the reads of inputs (generation or HDF5), which
  // the summary line reports apart: it is what a baseline that starts from
  // data in memory is compared with.
  double read_seconds = 0, op_seconds = 0;
  for (size_t i = 0; i < plan.nodes.size(); ++i)
    (plan.nodes[i].kind == physical::IaNode::Kind::Scan ? read_seconds : op_seconds) += runs[i].seconds;
  std::snprintf(line, sizeof line, "wall %.4f s: reading inputs %.4f s, operators %.4f s\n", wall_seconds, read_seconds, op_seconds);
  os << line;
  const double gflop = flops / 1e9;
  std::snprintf(line, sizeof line, "tra-run: execute %.4f s, %.3f GFLOP, %.2f GFLOP/s, %lld floats moved\n", op_seconds, gflop,
                op_seconds > 0 ? gflop / op_seconds : 0.0, static_cast<long long>(measured));
  os << line;
  return os.str();
}

}  // namespace tra::app
