#include "tra/app/report.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "tra/common/text.hpp"

namespace tra::app {

namespace {

// The operator's detail, cut to `width`, and for a join streamed into its
// aggregation (exec/join_aggregate.hpp) which node ran the other's work.
std::string run_detail(const physical::IaPlan& plan, const std::vector<exec::NodeRun>& runs, size_t i, size_t width) {
  std::string d = shorten(plan.nodes[i].words(), width);
  if (runs[i].streamed_into >= 0) return d + " (+ p" + std::to_string(runs[i].streamed_into) + " streamed)";
  for (int j : plan.nodes[i].inputs)
    if (runs[static_cast<size_t>(j)].streamed_into == static_cast<int>(i)) return d + " (in p" + std::to_string(j) + ")";
  return d;
}

}  // namespace

// Flops the operator's measured time covers: a streamed join's include its
// aggregation's, which then has none of its own.
double run_flops(const physical::IaPlan& plan, const std::vector<exec::NodeRun>& runs, size_t i) {
  const auto& r = runs[i];
  if (r.streamed_into >= 0) return plan.nodes[i].flops + plan.node(r.streamed_into).flops;
  for (int j : plan.nodes[i].inputs)
    if (runs[static_cast<size_t>(j)].streamed_into == static_cast<int>(i)) return 0;
  return plan.nodes[i].flops;
}

IterationSummary summarize(const std::vector<IterationTimes>& iterations) {
  IterationSummary s;
  s.count = static_cast<Index>(iterations.size());
  if (iterations.empty()) return s;
  s.last = iterations.back();
  for (const auto& t : iterations) {
    s.sum.wall += t.wall;
    s.sum.reading += t.reading;
    s.sum.operators += t.operators;
    s.sum.moved += t.moved;
  }
  // Each time's own median (of an even count, the mean of the middle two).
  const auto median = [&](double IterationTimes::*field) {
    std::vector<double> v;
    for (const auto& t : iterations) v.push_back(t.*field);
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  };
  s.median = {median(&IterationTimes::wall), median(&IterationTimes::reading), median(&IterationTimes::operators), s.last.moved};
  return s;
}

std::string format_report(const physical::IaPlan& plan, const std::vector<exec::NodeRun>& runs, const exec::RunTotals& totals, double wall_seconds,
                          const std::vector<IterationTimes>& iterations) {
  std::ostringstream os;
  char line[512];
  const bool training = !iterations.empty();
  if (training) os << "per IA operator, the last of " << iterations.size() << " iteration(s) run:\n";
  std::snprintf(line, sizeof line, "%-5s %-6s %10s %14s %14s %10s  %s\n", "node", "op", "seconds", "pred. floats", "moved floats", "GFLOP/s",
                "detail");
  os << line;
  Index predicted = 0, measured = 0;
  double flops = 0;
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    const auto& n = plan.nodes[i];
    const auto& r = runs[i];
    const bool moves = n.kind() == physical::IaNode::Kind::Bcast || n.kind() == physical::IaNode::Kind::Shuffle;
    predicted += n.predicted_floats;
    measured += r.floats_moved;
    flops += n.flops;
    const std::string detail = run_detail(plan, runs, i, 60);
    const double run_gflop = run_flops(plan, runs, i) / 1e9;
    char rate[32] = "";
    if (run_gflop > 0 && r.seconds > 0) std::snprintf(rate, sizeof rate, "%.2f", run_gflop / r.seconds);
    std::snprintf(line, sizeof line, "p%-4zu %s %10.4f %14s %14s %10s  %s\n", i, pad_right(n.name(), 6).c_str(), r.seconds,
                  moves ? std::to_string(n.predicted_floats).c_str() : "", moves ? std::to_string(r.floats_moved).c_str() : "", rate, detail.c_str());
    os << line;
  }
  std::snprintf(line, sizeof line, "floats moved%s: predicted %lld, measured %lld%s\n", training ? " in the last iteration" : "",
                static_cast<long long>(predicted), static_cast<long long>(measured), predicted == measured ? " (equal)" : " (DIFFERENT)");
  os << line;
  const double gflop = flops / 1e9;
  if (training) {
    // Two scopes, each labelled: an iteration's (median and last), and the
    // whole run's sums, on which the summary line reports.
    const IterationSummary s = summarize(iterations);
    std::snprintf(
        line, sizeof line,
        "per iteration: median wall %.4f s (reading inputs %.4f s, operators %.4f s); last wall %.4f s (reading inputs %.4f s, operators %.4f s)\n",
        s.median.wall, s.median.reading, s.median.operators, s.last.wall, s.last.reading, s.last.operators);
    os << line;
    std::snprintf(line, sizeof line, "whole run, %lld iteration(s): wall %.4f s: reading inputs %.4f s, operators %.4f s\n",
                  static_cast<long long>(s.count), wall_seconds, s.sum.reading, s.sum.operators);
    os << line;
    const double run_gflop = gflop * static_cast<double>(s.count);
    std::snprintf(line, sizeof line, "tra-run: execute %.4f s, %.3f GFLOP, %.2f GFLOP/s, %lld floats moved (the whole run)\n", s.sum.operators,
                  run_gflop, s.sum.operators > 0 ? run_gflop / s.sum.operators : 0.0, static_cast<long long>(s.sum.moved));
    os << line;
    return os.str();
  }
  // Operator time without the reads of inputs (generation or HDF5), which
  // the summary line reports apart: it is what a baseline that starts from
  // data in memory is compared with.
  const double read_seconds = totals.reading, op_seconds = totals.operators;
  std::snprintf(line, sizeof line, "wall %.4f s: reading inputs %.4f s, operators %.4f s\n", wall_seconds, read_seconds, op_seconds);
  os << line;
  std::snprintf(line, sizeof line, "tra-run: execute %.4f s, %.3f GFLOP, %.2f GFLOP/s, %lld floats moved\n", op_seconds, gflop,
                op_seconds > 0 ? gflop / op_seconds : 0.0, static_cast<long long>(measured));
  os << line;
  return os.str();
}

std::string format_analyze(const physical::IaPlan& plan, const physical::PlanCost& predicted, const std::vector<exec::NodeRun>& runs) {
  std::ostringstream os;
  char line[512];
  os << "== explain analyze: predicted against measured, per operator\n";
  std::snprintf(line, sizeof line, "%-5s %-6s %14s %14s %11s %11s  %s\n", "node", "op", "pred. floats", "moved floats", "pred. s", "measured s",
                "detail");
  os << line;
  double measured_seconds = 0, predicted_seconds = 0;
  Index measured_floats = 0;
  int held = 0;
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    const auto& n = plan.nodes[i];
    const auto& r = runs[i];
    measured_seconds += r.seconds;
    measured_floats += r.floats_moved;
    // A Scan that read nothing (a carried tensor, a kept batch) is predicted
    // to cost what it did: the plan's estimate is a first iteration's read.
    const double pred = r.held ? 0.0 : predicted.node_seconds[i];
    predicted_seconds += pred;
    held += r.held;
    const std::string detail = run_detail(plan, runs, i, 50) + (r.held ? " (held: nothing read)" : "");
    std::snprintf(line, sizeof line, "p%-4zu %s %14s %14s %11.6f %11.6f  %s\n", i, pad_right(n.name(), 6).c_str(),
                  n.moves() ? std::to_string(n.predicted_floats).c_str() : "", n.moves() ? std::to_string(r.floats_moved).c_str() : "", pred,
                  r.seconds, detail.c_str());
    os << line;
  }
  std::snprintf(
      line, sizeof line, "total: predicted %lld floats, %.4f s; measured %lld floats, %.4f s%s%s\n", static_cast<long long>(predicted.floats_moved),
      predicted_seconds, static_cast<long long>(measured_floats), measured_seconds,
      predicted.floats_moved == measured_floats ? " (floats equal)" : " (floats DIFFERENT)",
      held ? ("; " + std::to_string(held) + " Scan(s) held from an earlier iteration read nothing, and their predicted reads are left out").c_str()
           : "");
  os << line;
  return os.str();
}

}  // namespace tra::app
