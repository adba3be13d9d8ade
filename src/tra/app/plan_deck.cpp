#include "tra/app/plan_deck.hpp"

#include <sstream>
#include <variant>

#include "tra/common/error.hpp"
#include "tra/decomp/partitioners.hpp"
#include "tra/physical/compile.hpp"

namespace tra::app {
namespace {

using Partitioner = io::RunOptions::Partitioner;

// The deck lowered with one partitioner's d's and optimized.
struct Attempt {
  logical::Lowering lowering;
  physical::Optimized optimized;
  std::vector<int> output_nodes;
};

Attempt plan_with(const io::Workflow& wf, int nranks, Partitioner partitioner, const physical::OptimizerOptions& options) {
  Attempt a;
  a.lowering = logical::lower(wf, nranks, partitioner);
  physical::IaPlan table1 = physical::compile(a.lowering.plan, nranks);
  // Only what is written out is needed; the optimizer drops the rest.
  table1.roots.clear();
  for (const auto& o : wf.outputs) {
    const auto& node = a.lowering.plan.nodes[static_cast<size_t>(a.lowering.tensor_node.at(o.tensor))];
    if (!node.type.standard() || node.keys.size() != static_cast<size_t>(node.type.tuples()))
      throw UserError(o.loc, "'" + o.tensor + "' is a tensor relation (" + node.type.str() + ") that is not a whole tensor in standard form; concat or rekey it before writing");
    table1.roots.push_back(table1.tra_to_ia[static_cast<size_t>(a.lowering.tensor_node.at(o.tensor))]);
  }
  a.optimized = physical::optimize(table1, options);
  a.output_nodes = a.optimized.chosen.roots;
  return a;
}

// EinSum statements whose d the partitioner picks (not set in the deck).
std::size_t free_statements(const io::Workflow& wf) {
  std::size_t n = 0;
  for (const auto& s : wf.graph)
    if (std::holds_alternative<einsum::EinSum>(s) && !wf.run.partitioning.count(io::statement_output(s))) ++n;
  return n;
}

// Floats read beyond one copy of each input: a Scan that reads its tensor
// whole on every site (the optimizer's scan-all, a broadcast avoided) reads it
// nsites - 1 extra times. On a cluster those copies come over the network
// from the file system as a broadcast's would from a rank, and generated data
// is computed that many times.
Index replicated_reads(const physical::IaPlan& plan) {
  std::vector<bool> live(plan.nodes.size(), false);
  std::vector<int> todo(plan.roots.begin(), plan.roots.end());
  Index extra = 0;
  while (!todo.empty()) {
    const int id = todo.back();
    todo.pop_back();
    if (live[static_cast<size_t>(id)]) continue;
    live[static_cast<size_t>(id)] = true;
    const physical::IaNode& n = plan.node(id);
    if (n.kind == physical::IaNode::Kind::Scan && n.dist.everywhere)
      extra += static_cast<Index>(plan.nsites - 1) * n.dist.tuples() * volume(n.out_type.chunk_shape);
    for (int i : n.inputs) todo.push_back(i);
  }
  return extra;
}

LabelingCandidate candidate(const std::string& partitioner, const physical::Optimized& o) {
  LabelingCandidate c;
  c.partitioner = partitioner;
  c.cost = o.cost;
  c.replicated_reads = replicated_reads(o.chosen);
  return c;
}

// Strictly fewer floats moved or read again; ties keep the earlier, EinDecomp's
// first. (The time estimate is no tie-break: with the built-in rates it ranks
// SQRT's labeling of the square chain at 2 ranks first, and it runs 25% slower.)
bool better(const LabelingCandidate& a, const LabelingCandidate& b) { return a.floats() < b.floats(); }

}  // namespace

PlannedDeck plan_deck(const io::Workflow& wf, int nranks, const physical::OptimizerOptions& options) {
  PlannedDeck out;
  Attempt best = plan_with(wf, nranks, wf.run.partitioner, options);
  const std::size_t free = free_statements(wf);
  if (wf.run.partitioner != Partitioner::EinDecomp || free == 0) return {std::move(best.lowering), std::move(best.optimized), std::move(best.output_nodes), {}, ""};
  if (options.disabled.count(kBaselineLabelings)) out.check_note = "not checked against the baselines' labelings (" + std::string(kBaselineLabelings) + " disabled)";
  else if (free > kMaxCheckedStatements)
    out.check_note = "not checked against the baselines' labelings (" + std::to_string(free) + " statements; the check runs up to " +
                     std::to_string(kMaxCheckedStatements) + ")";
  if (!out.check_note.empty()) return {std::move(best.lowering), std::move(best.optimized), std::move(best.output_nodes), {}, out.check_note};

  out.candidates.push_back(candidate("eindecomp", best.optimized));
  out.candidates.back().chosen = true;
  std::vector<std::map<std::string, std::map<std::string, Index>>> seen{best.lowering.d};
  std::size_t chosen = 0;
  for (Partitioner k : {Partitioner::ModelParallel, Partitioner::DataParallel, Partitioner::Sqrt}) {
    Attempt a = plan_with(wf, nranks, k, options);
    LabelingCandidate c = candidate(decomp::partitioner_name(k), a.optimized);
    for (std::size_t i = 0; i < seen.size(); ++i)
      if (seen[i] == a.lowering.d) c.same_as = out.candidates[i].partitioner;
    seen.push_back(a.lowering.d);
    if (c.same_as.empty() && better(c, out.candidates[chosen])) {
      out.candidates[chosen].chosen = false;
      c.chosen = true;
      chosen = out.candidates.size();
      best = std::move(a);
      best.lowering.decomposition.partitioner = "eindecomp, with " + c.partitioner + "'s d's (their IA plan is cheaper; see the check below)";
    }
    out.candidates.push_back(std::move(c));
  }
  out.lowering = std::move(best.lowering);
  out.optimized = std::move(best.optimized);
  out.output_nodes = std::move(best.output_nodes);
  return out;
}

std::string candidates_text(const PlannedDeck& p) {
  std::ostringstream os;
  if (!p.check_note.empty()) os << "  " << p.check_note << "\n";
  if (p.candidates.empty()) return os.str();
  os << "  labelings checked by their optimized IA plans (fewest floats moved or read on more than one rank; ties keep the first):\n";
  for (const auto& c : p.candidates) {
    os << "   " << (c.chosen ? "* " : "  ") << c.partitioner;
    if (!c.same_as.empty()) os << std::string(c.partitioner.size() < 15 ? 15 - c.partitioner.size() : 0, ' ') << " the same d's as " << c.same_as << "\n";
    else
      os << std::string(c.partitioner.size() < 15 ? 15 - c.partitioner.size() : 0, ' ') << " " << c.floats() << " floats: " << c.cost.floats_moved << " moved + "
         << c.replicated_reads << " read again; " << c.cost.str() << "\n";
  }
  return os.str();
}

}  // namespace tra::app
