#include "tra/app/plan_deck.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <variant>

#include "tra/autodiff/gradients.hpp"
#include "tra/autodiff/updates.hpp"
#include "tra/common/error.hpp"
#include "tra/decomp/partitioners.hpp"
#include "tra/physical/carry_plan.hpp"
#include "tra/physical/compile.hpp"
#include "tra/physical/search_record.hpp"

namespace tra::app {
namespace {

using Partitioner = model::RunOptions::Partitioner;

// Each X.next of a training step (the loss carries nothing).
std::map<std::string, PlannedDeck::Carried> carried_tensors(const std::map<std::string, int>& iteration_nodes) {
  std::map<std::string, PlannedDeck::Carried> out;
  for (const auto& [name, node] : iteration_nodes)
    if (const std::string x = autodiff::carried_by(name); !x.empty()) out[x].next = node;
  return out;
}

// The chosen plan with the Carry operators the search costed it with
// (physical/carry_plan.hpp): a training step's estimate is an iteration's.
// The Scans of each X are those its Carry operators feed.
void add_carries(PlannedDeck& p, const physical::OptimizerOptions& options) {
  if (options.carried.empty()) return;
  const physical::IaPlan& ia = p.optimized.chosen;
  for (auto& [x, carries] : physical::add_carries(p.optimized.chosen, options.carried)) {
    PlannedDeck::Carried& c = p.carried[x];
    for (int id : carries) {
      p.carried_floats += ia.node(id).predicted_floats;
      c.scans.insert(c.scans.end(), ia.node(id).carry().scans.begin(), ia.node(id).carry().scans.end());
    }
    c.carries = std::move(carries);
  }
  p.optimized.cost = physical::cost_of(p.optimized.chosen, options.rates);
}

// The lowered deck optimized, for the outputs the deck writes; given the
// search record of another rank's optimization of the same labeling
// (physical/search_record.hpp), its plan made again from its steps instead.

PlannedDeck optimized(logical::Lowering low, const model::Workflow& wf, int nranks, physical::OptimizerOptions options,
                      physical::SparseBlocks sparse = physical::SparseBlocks::Everywhere, const std::string* searched = nullptr) {
  physical::IaPlan table1 = physical::compile(low.plan, nranks, sparse);
  // Only what is written out is needed; the optimizer drops the rest. A
  // deck that writes nothing computes its graph's results.
  table1.roots.clear();
  if (wf.outputs.empty())
    for (const std::string& sink : model::graph_sinks(wf)) table1.roots.push_back(table1.tra_to_ia[static_cast<size_t>(low.tensor_node.at(sink))]);
  // A training run writes a loop-carried tensor (a parameter, an
  // optimizer's state W.momentum, W.exp_avg ...) as the last update left it,
  // as the checkpoint holds it: X.next, not the X the last iteration read.
  const bool updating = wf.train && wf.train->optimizer;
  auto written = [&](const std::string& t) { return updating && low.tensor_node.count(autodiff::next_name(t)) ? autodiff::next_name(t) : t; };
  for (const auto& o : wf.outputs) {
    const int tra_node = low.tensor_node.at(written(o.tensor));
    const auto& node = low.plan.nodes[static_cast<size_t>(tra_node)];
    if (!node.type.standard() || node.keys.size() != static_cast<size_t>(node.type.tuples()))
      throw UserError(o.loc, "'" + o.tensor + "' is a tensor relation (" + node.type.str() +
                                 ") that is not a whole tensor in standard form; concat or rekey it before writing");
    table1.roots.push_back(table1.tra_to_ia[static_cast<size_t>(tra_node)]);
  }
  // And every iteration reads the loss and each loop-carried tensor's update.
  std::vector<std::string> carried;
  if (updating) {
    carried.push_back(wf.train->loss);
    for (const auto& s : wf.graph) {
      const std::string& out = model::statement_output(s);
      if (!autodiff::carried_by(out).empty()) carried.push_back(out);
    }
    for (const auto& name : carried) {
      if (const std::string x = autodiff::carried_by(name); !x.empty()) options.carried[x] = static_cast<int>(table1.roots.size());
      table1.roots.push_back(table1.tra_to_ia[static_cast<size_t>(low.tensor_node.at(name))]);
    }
  }
  PlannedDeck p;
  p.optimized = searched ? physical::replay_search(table1, options, *searched) : physical::optimize(table1, options);
  p.output_nodes = p.optimized.chosen.roots;
  for (size_t i = 0; i < carried.size(); ++i) p.iteration_nodes[carried[i]] = p.output_nodes[p.output_nodes.size() - carried.size() + i];
  p.carried = carried_tensors(p.iteration_nodes);
  add_carries(p, options);
  p.memory = physical::estimate_memory(p.optimized.chosen);
  p.lowering = std::move(low);
  return p;
}

// EinSum statements whose d the partitioner picks (not set in the deck).
std::size_t free_statements(const model::Workflow& wf) {
  std::size_t n = 0;
  for (const auto& s : wf.graph)
    if (std::holds_alternative<einsum::EinSum>(s) && !wf.run.partitioning.count(model::statement_output(s))) ++n;
  return n;
}

// Floats read beyond one copy of each input: a Scan that reads its tensor
// whole on every site (the optimizer's scan-all, a broadcast avoided) reads it
// nsites - 1 extra times. On a cluster those copies come over the network
// from the file system as a broadcast's would from a rank, and generated data
// is computed that many times. A loop-carried tensor is read so only before
// the first iteration; the carry brings it after that (carried_floats).
Index replicated_reads(const physical::IaPlan& plan, const std::map<std::string, PlannedDeck::Carried>& carried) {
  std::vector<bool> live(plan.nodes.size(), false);
  std::vector<int> todo(plan.roots.begin(), plan.roots.end());
  Index extra = 0;
  while (!todo.empty()) {
    const int id = todo.back();
    todo.pop_back();
    if (live[static_cast<size_t>(id)]) continue;
    live[static_cast<size_t>(id)] = true;
    const physical::IaNode& n = plan.node(id);
    if (n.kind() == physical::IaNode::Kind::Scan && n.dist.everywhere && !(n.scan().source && carried.count(n.scan().source->name)))
      extra += static_cast<Index>(plan.nsites - 1) * n.dist.tuples() *
               (n.out_type.sparse() ? static_cast<Index>(n.out_type.stored) : volume(n.out_type.chunk_shape));
    for (int i : n.inputs) todo.push_back(i);
  }
  return extra;
}

LabelingCandidate candidate(const std::string& partitioner, const PlannedDeck& p) {
  LabelingCandidate c;
  c.partitioner = partitioner;
  c.cost = p.optimized.cost;
  c.replicated_reads = replicated_reads(p.optimized.chosen, p.carried);
  c.peak_bytes = p.memory.peak_bytes;
  c.carried_floats = p.carried_floats;
  return c;
}

// Estimates this close are ties: the time model (calibrated rates, the
// busiest site's share) is not finer than that. On the skewed chain EinDecomp's
// labeling moves a third of SQRT's floats and is estimated 0.03% slower.
constexpr double kSameTime = 0.01;

// plan_deck on a workflow whose gradients, if any, are in its graph.
PlannedDeck plan_labelings(const model::Workflow& wf, int nranks, const physical::OptimizerOptions& options, const comm::Communicator* team);

}  // namespace

// Between estimates within kSameTime, fewer floats moved or read again (on a
// cluster's network they cost more than on the machine the rates were
// measured on); plan_deck keeps the earlier of two alike, EinDecomp's first.
// The estimate, not the floats, decides first: two labelings that move the
// same floats may leave very different work on the busiest rank (an element
// loop run on the one rank that holds its input while the others wait), and a
// replicated read costs its reading time there.
bool preferred(const LabelingCandidate& a, const LabelingCandidate& b, std::int64_t memory_per_rank) {
  if (memory_per_rank > 0) {
    const bool a_fits = a.peak_bytes <= memory_per_rank, b_fits = b.peak_bytes <= memory_per_rank;
    if (a_fits != b_fits) return a_fits;
    if (!a_fits) return a.peak_bytes < b.peak_bytes;  // neither fits: the one that needs least
  }
  const double tie = kSameTime * std::max(a.seconds(), b.seconds());
  if (std::abs(a.seconds() - b.seconds()) > tie) return a.seconds() < b.seconds();
  if (a.floats() != b.floats()) return a.floats() < b.floats();
  return a.cost.better_than(b.cost);
}

LabelingCandidate chosen_candidate(const PlannedDeck& p) { return candidate("chosen", p); }

PlannedDeck plan_deck(const model::Workflow& deck, int nranks, const physical::OptimizerOptions& options, const comm::Communicator* team) {
  if (!deck.train) {
    PlannedDeck best = plan_labelings(deck, nranks, options, team);
    best.deck_statements = deck.graph.size();
    return best;
  }
  autodiff::Gradients g = autodiff::with_gradients(deck);
  if (deck.train->optimizer) autodiff::add_updates(g, *deck.train->optimizer);
  PlannedDeck best = plan_labelings(g.workflow, nranks, options, team);
  best.deck_statements = g.forward;
  return best;
}

std::string gradients_text(const PlannedDeck& p) {
  std::string out;
  for (std::size_t i = p.deck_statements; i < p.workflow.graph.size(); ++i)
    if (const auto* e = std::get_if<einsum::EinSum>(&p.workflow.graph[i])) out += "  " + e->text + "\n";
  return out;
}

namespace {

// What a rank sends of each labeling it optimized (the others' slots stay
// -inf, so that a max over the ranks gathers them): whether its optimization
// failed, and its candidate's numbers.
constexpr std::size_t kSlots = 9;

void put(std::vector<double>& v, std::size_t i, const LabelingCandidate* c) {
  double* s = &v[i * kSlots];
  s[0] = c ? 0 : 1;
  if (!c) return;
  s[1] = c->cost.seconds;
  s[2] = static_cast<double>(c->cost.floats_moved);
  s[3] = c->cost.paper_cost;
  s[4] = c->cost.flops;
  s[5] = c->cost.operators;
  s[6] = static_cast<double>(c->replicated_reads);
  s[7] = static_cast<double>(c->peak_bytes);
  s[8] = static_cast<double>(c->carried_floats);
}

bool failed(const std::vector<double>& v, std::size_t i) { return v[i * kSlots] != 0; }

void take(const std::vector<double>& v, std::size_t i, LabelingCandidate& c) {
  const double* s = &v[i * kSlots];
  c.cost.seconds = s[1];
  c.cost.floats_moved = static_cast<Index>(s[2]);
  c.cost.paper_cost = s[3];
  c.cost.flops = s[4];
  c.cost.operators = static_cast<int>(s[5]);
  c.replicated_reads = static_cast<Index>(s[6]);
  c.peak_bytes = static_cast<std::int64_t>(s[7]);
  c.carried_floats = static_cast<Index>(s[8]);
}

// Why EinDecomp's labeling alone is planned, or "" when the baselines'
// labelings are checked too.
std::string no_check_note(const model::Workflow& wf, const physical::OptimizerOptions& options) {
  const std::size_t free = free_statements(wf);
  if (wf.run.partitioner != Partitioner::EinDecomp || free == 0) return "-";
  if (options.disabled.count(kBaselineLabelings))
    return "not checked against the baselines' labelings (" + std::string(kBaselineLabelings) + " disabled)";
  if (free > kMaxCheckedStatements)
    return "not checked against the baselines' labelings (" + std::to_string(free) + " statements; the check runs up to " +
           std::to_string(kMaxCheckedStatements) + ")";
  return "";
}

// A labeling's plans: with its sparse relations read on every site and,
// where some is in more than one block, spread over the sites
// (physical/compile.hpp): a second candidate, named with kSpreadSuffix.
// With scan-all disabled, nothing is read on more than one site: only
// spread, every sparse relation.
constexpr const char* kSpreadSuffix = "+spread";

physical::SparseBlocks first_sparse_blocks(const physical::OptimizerOptions& options) {
  return options.disabled.count("scan-all") ? physical::SparseBlocks::ReadOnce : physical::SparseBlocks::Everywhere;
}

bool spread_variant(const logical::Lowering& low, const physical::OptimizerOptions& options) {
  return first_sparse_blocks(options) == physical::SparseBlocks::Everywhere && physical::has_spreadable_sparse(low.plan);
}

PlannedDeck plan_labelings(const model::Workflow& wf, int nranks, const physical::OptimizerOptions& options, const comm::Communicator* team) {
  if (const std::string note = no_check_note(wf, options); !note.empty()) {
    logical::Lowering low = logical::lower(wf, nranks);
    const bool spreadable = spread_variant(low, options);
    PlannedDeck best = optimized(low, wf, nranks, options, first_sparse_blocks(options));
    if (spreadable) {
      PlannedDeck spread = optimized(std::move(low), wf, nranks, options, physical::SparseBlocks::Spread);
      if (preferred(candidate("spread", spread), candidate("everywhere", best), options.memory_per_rank)) {
        best = std::move(spread);
        best.lowering.decomposition.partitioner += ", sparse blocks spread over the ranks";
      }
    }
    best.workflow = wf;
    if (note != "-") best.check_note = note;
    return best;
  }
  // The labelings: EinDecomp's, then the baselines', each either new or the
  // same d's as an earlier one; then the spread variants of the new ones.
  std::vector<logical::Lowering> lows{logical::lower(wf, nranks)};
  std::vector<physical::SparseBlocks> sparse{first_sparse_blocks(options)};
  std::vector<LabelingCandidate> candidates(1);
  candidates[0].partitioner = "eindecomp";
  for (Partitioner k : {Partitioner::ModelParallel, Partitioner::DataParallel, Partitioner::Sqrt}) {
    LabelingCandidate c;
    c.partitioner = decomp::partitioner_name(k);
    logical::Lowering low = logical::lower(wf, nranks, k);
    for (std::size_t i = 0; i < lows.size() && c.same_as.empty(); ++i)
      if (lows[i].d == low.d) c.same_as = candidates[i].partitioner;
    lows.push_back(std::move(low));
    sparse.push_back(first_sparse_blocks(options));
    candidates.push_back(std::move(c));
  }
  for (std::size_t i = 0, labelings = candidates.size(); i < labelings; ++i) {
    if (!candidates[i].same_as.empty() || !spread_variant(lows[i], options)) continue;
    LabelingCandidate c;
    c.partitioner = candidates[i].partitioner + kSpreadSuffix;
    lows.push_back(lows[i]);
    sparse.push_back(physical::SparseBlocks::Spread);
    candidates.push_back(std::move(c));
  }
  std::vector<std::size_t> distinct;  // the labelings to optimize
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (candidates[i].same_as.empty()) distinct.push_back(i);

  // Each rank optimizes its share of them (all of them without a team).
  const int rank = team ? team->rank() : 0, size = team ? team->size() : 1;
  std::map<std::size_t, PlannedDeck> planned;  // labeling -> its plan, on this rank
  std::vector<double> shared(kSlots * candidates.size(), -std::numeric_limits<double>::infinity());
  auto plan_one = [&](std::size_t i) -> PlannedDeck& {
    PlannedDeck& p = planned[i] = optimized(lows[i], wf, nranks, options, sparse[i]);
    p.workflow = wf;
    return p;
  };
  for (std::size_t j = 0; j < distinct.size(); ++j) {
    if (static_cast<int>(j % static_cast<std::size_t>(size)) != rank) continue;
    const std::size_t i = distinct[j];
    try {
      const LabelingCandidate c = candidate(candidates[i].partitioner, plan_one(i));
      put(shared, i, &c);
    } catch (...) {
      if (size == 1) throw;
      put(shared, i, nullptr);  // said below, on every rank alike
    }
  }
  if (size > 1) team->max(shared);
  for (std::size_t i : distinct) {
    // A labeling that failed on its rank fails here too: the same error on
    // every rank, as when each rank planned every labeling.
    if (failed(shared, i)) {
      plan_one(i);
      throw InternalError("planning the " + candidates[i].partitioner + " labeling failed on another rank only");
    }
    take(shared, i, candidates[i]);
  }

  // The winner, compared in the order the labelings came: the first of two alike.
  std::size_t chosen = 0;
  for (std::size_t i : distinct)
    if (i != 0 && preferred(candidates[i], candidates[chosen], options.memory_per_rank)) chosen = i;
  candidates[chosen].chosen = true;
  if (size > 1) {
    // The rank that optimized the winner sends what its search kept; the
    // others make its plan again from that, without searching (a replay
    // that came out otherwise, which the tests rule out, is searched).
    const int owner = static_cast<int>(static_cast<std::size_t>(std::find(distinct.begin(), distinct.end(), chosen) - distinct.begin()) %
                                       static_cast<std::size_t>(size));
    const std::string record = team->broadcast(rank == owner ? physical::search_record(planned.at(chosen).optimized) : std::string(), owner);
    if (!planned.count(chosen)) {
      try {
        PlannedDeck& p = planned[chosen] = optimized(lows[chosen], wf, nranks, options, sparse[chosen], &record);
        p.workflow = wf;
        p.made = PlannedDeck::Made::Replayed;
        const LabelingCandidate again = candidate(candidates[chosen].partitioner, p);
        if (again.cost.seconds != candidates[chosen].cost.seconds || again.floats() != candidates[chosen].floats() ||
            again.peak_bytes != candidates[chosen].peak_bytes)
          plan_one(chosen).made = PlannedDeck::Made::SearchedAfterReplay;
      } catch (const std::exception&) {  // on this rank alone: searched here, so that every rank goes on alike
        plan_one(chosen).made = PlannedDeck::Made::SearchedAfterReplay;
      }
    }
  }
  if (!planned.count(chosen)) plan_one(chosen);
  PlannedDeck best = std::move(planned[chosen]);
  if (chosen != 0) {
    std::string whose = candidates[chosen].partitioner;
    const bool spread = sparse[chosen] == physical::SparseBlocks::Spread;
    if (spread) whose.resize(whose.size() - std::string(kSpreadSuffix).size());
    best.lowering.decomposition.partitioner = "eindecomp, with " + (whose == "eindecomp" ? "its own" : whose + "'s") + " d's" +
                                              (spread ? " and sparse blocks spread over the ranks" : "") +
                                              " (their IA plan is cheaper; see the check below)";
  }
  best.candidates = std::move(candidates);
  return best;
}

}  // namespace

std::string candidates_text(const PlannedDeck& p) {
  std::ostringstream os;
  if (!p.check_note.empty()) os << "  " << p.check_note << "\n";
  if (p.candidates.empty()) return os.str();
  os << "  labelings checked by their optimized IA plans (within the memory per rank, the lowest estimated time; within 1%, fewest floats;"
        " then the first):\n";
  for (const auto& c : p.candidates) {
    os << "   " << (c.chosen ? "* " : "  ") << c.partitioner << std::string(c.partitioner.size() < 15 ? 15 - c.partitioner.size() : 0, ' ') << " ";
    if (!c.same_as.empty()) os << "the same d's as " << c.same_as << "\n";
    else
      os << c.floats() << " floats: " << c.cost.floats_moved - c.carried_floats << " moved + " << c.replicated_reads << " read again"
         << (c.carried_floats ? " + " + std::to_string(c.carried_floats) + " carried between iterations" : std::string()) << "; " << c.cost.str()
         << "; peak " << physical::bytes_text(c.peak_bytes) << " per rank\n";
  }
  return os.str();
}

void drop_partitioning(model::Workflow& wf) {
  wf.run.partitioning.clear();
  wf.run.partitioning_loc.clear();
  wf.run.default_given = false;
  wf.run.partitioner = model::RunOptions::Partitioner::EinDecomp;
}

}  // namespace tra::app
