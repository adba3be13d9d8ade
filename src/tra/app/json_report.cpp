#include "tra/app/json_report.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "tra/app/report.hpp"

namespace tra::app {
namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    switch (ch) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20) {
          char esc[8];
          std::snprintf(esc, sizeof esc, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(ch)));
          out += esc;
        } else {
          out += ch;  // UTF-8 (Σ, ⋈) passes as it is
        }
    }
  }
  return out + "\"";
}

std::string number(double x) {
  if (!std::isfinite(x)) return "null";
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", x);
  return text;
}

}  // namespace

std::string json_report(const PlannedDeck& planned, const std::vector<exec::NodeRun>& runs, const exec::RunTotals& totals, const RunFacts& facts,
                        const std::vector<IterationTimes>& iterations) {
  const physical::IaPlan& plan = planned.optimized.chosen;
  std::ostringstream os;
  os << "{\n  \"version\": " << quoted(facts.version) << ",\n  \"command_line\": " << quoted(facts.command_line)
     << ",\n  \"date\": " << quoted(facts.date) << ",\n  \"host\": " << quoted(facts.host) << ",\n  \"ranks\": " << facts.ranks << ",\n";
  os << "  \"plan\": {\"partitioner\": " << quoted(planned.lowering.decomposition.partitioner)
     << ", \"estimated_seconds\": " << number(planned.optimized.cost.seconds) << ", \"predicted_floats\": " << planned.optimized.cost.floats_moved
     << ", \"operators\": " << plan.nodes.size() << ", \"estimated_peak_bytes\": " << planned.memory.peak_bytes
     << ", \"carried_floats\": " << planned.carried_floats << ",\n    \"labelings\": [";
  for (size_t i = 0; i < planned.candidates.size(); ++i) {
    const LabelingCandidate& c = planned.candidates[i];
    os << (i ? ",\n      " : "\n      ") << "{\"partitioner\": " << quoted(c.partitioner) << ", \"chosen\": " << (c.chosen ? "true" : "false")
       << ", \"estimated_seconds\": " << number(c.seconds()) << ", \"floats\": " << c.floats() << ", \"peak_bytes\": " << c.peak_bytes << "}";
  }
  os << "]},\n  \"operators\": [";
  double gflop = 0;
  Index predicted = 0, moved = 0;
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    const physical::IaNode& n = plan.nodes[i];
    const exec::NodeRun& r = runs[i];
    const double g = run_flops(plan, runs, i) / 1e9;  // as the text report rates it
    gflop += g;
    predicted += n.predicted_floats;
    moved += r.floats_moved;
    const std::vector<double>& estimated = planned.optimized.cost.node_seconds;
    os << (i ? ",\n    " : "\n    ") << "{\"node\": \"p" << i << "\", \"kind\": " << quoted(n.name()) << ", \"seconds\": " << number(r.seconds)
       << ", \"predicted_seconds\": " << number(i < estimated.size() ? estimated[i] : 0) << ", \"held\": " << (r.held ? "true" : "false")
       << ", \"streamed_into\": " << (r.streamed_into >= 0 ? "\"p" + std::to_string(r.streamed_into) + "\"" : std::string("null"))
       << ", \"predicted_floats\": " << n.predicted_floats << ", \"moved_floats\": " << r.floats_moved << ", \"gflop\": " << number(g)
       << ", \"gflops\": " << number(r.seconds > 0 ? g / r.seconds : 0) << ", \"detail\": " << quoted(n.words()) << "}";
  }
  os << "]";
  // A training run's totals are the whole run's; the operators above, and
  // per_iteration's "last", are its last iteration.
  double reading = totals.reading, operators = totals.operators, run_gflop = gflop;
  Index run_predicted = predicted, run_moved = moved;
  if (!iterations.empty()) {
    const IterationSummary s = summarize(iterations);
    const auto times = [&](const IterationTimes& t) {
      return "{\"wall_seconds\": " + number(t.wall) + ", \"reading_seconds\": " + number(t.reading) +
             ", \"operator_seconds\": " + number(t.operators) + ", \"gflop\": " + number(gflop) + ", \"moved_floats\": " + std::to_string(t.moved) +
             "}";
    };
    os << ",\n  \"operators_scope\": \"last iteration\",\n  \"per_iteration\": {\"median\": " << times(s.median)
       << ",\n    \"last\": " << times(s.last) << "}";
    reading = s.sum.reading;
    operators = s.sum.operators;
    run_gflop = gflop * static_cast<double>(s.count);
    run_predicted = predicted * s.count;
    run_moved = s.sum.moved;
  }
  os << ",\n  \"totals\": {\"wall_seconds\": " << number(facts.wall_seconds) << ", \"reading_seconds\": " << number(reading)
     << ", \"operator_seconds\": " << number(operators) << ", \"planning_seconds\": " << number(facts.planning_seconds)
     << ", \"total_seconds\": " << number(facts.total_seconds) << ", \"start_seconds\": " << number(facts.start_seconds)
     << (facts.writing_seconds >= 0 ? ", \"writing_seconds\": " + number(facts.writing_seconds) : std::string())
     << ", \"gflop\": " << number(run_gflop) << ", \"gflops\": " << number(operators > 0 ? run_gflop / operators : 0)
     << ", \"predicted_floats\": " << run_predicted << ", \"moved_floats\": " << run_moved
     << ", \"peak_resident_bytes\": " << facts.peak_resident_bytes << ", \"iterations\": " << facts.iterations
     << ", \"iterations_run\": " << static_cast<Index>(iterations.size()) << "}\n}\n";
  return os.str();
}

}  // namespace tra::app
