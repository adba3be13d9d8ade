#include "tra/exec/executor.hpp"

#include <type_traits>
#include <variant>

#include "tra/comm/agreement.hpp"
#include "tra/comm/exchange.hpp"
#include "tra/common/error.hpp"
#include "tra/common/timer.hpp"
#include "tra/exec/bound_kernels.hpp"
#include "tra/exec/exchange_plan.hpp"
#include "tra/exec/join_aggregate.hpp"
#include "tra/exec/loop_carry.hpp"
#include "tra/exec/operator_progress.hpp"
#include "tra/io/generators.hpp"
#include "tra/io/hdf5/coordinates.hpp"
#include "tra/io/hdf5/reader.hpp"
#include "tra/kernels/einsum_kernel.hpp"

namespace tra::exec {

using physical::IaNode;

Executor::Executor(const physical::IaPlan& plan, const comm::Communicator& c, std::set<int> keep, bool barrier_each)
    : plan_(plan), comm_(c), keep_(std::move(keep)), barrier_each_(barrier_each), results_(plan.nodes.size()), stats_(plan.nodes.size()),
      streamed_into_(physical::streamed_into(plan)), last_use_(plan.nodes.size(), -1), broadcast_counts_(plan.nodes.size()),
      shuffle_counts_(plan.nodes.size()) {
  // A result the caller keeps is wanted whole: its join is not streamed.
  for (int k : keep_)
    if (plan_.node(k).kind() == IaNode::Kind::LocalJoin) streamed_into_[static_cast<size_t>(k)] = -1;
  for (size_t i = 0; i < plan_.nodes.size(); ++i)
    for (int j : plan_.nodes[i].inputs) last_use_[static_cast<size_t>(j)] = static_cast<int>(i);
  for (size_t i = 0; i < plan_.nodes.size(); ++i) {
    const IaNode& n = plan_.nodes[i];
    if (n.kind() == IaNode::Kind::Bcast && c.size() > 1) broadcast_counts_[i] = broadcast_counts(plan_, n);
    if (n.kind() == IaNode::Kind::Shuffle && c.size() > 1 && !plan_.node(n.inputs[0]).dist.everywhere)
      shuffle_counts_[i] = shuffle_counts(plan_, n, c.rank());
  }
  start_ = start_kernels(plan_, c);  // before the operators run and are timed
}

int Executor::overwritable_input(size_t at) const {
  const IaNode& n = plan_.nodes[at];
  if (!n.join().kernel.elementwise() || n.inputs[0] == n.inputs[1]) return -1;
  const std::vector<int>* keys[2] = {&n.join().keys_left, &n.join().keys_right};
  for (int side = 0; side < 2; ++side) {
    const int in = n.inputs[static_cast<size_t>(side)];
    const IaNode& other = plan_.node(n.inputs[static_cast<size_t>(1 - side)]);
    const bool once = static_cast<int>(keys[1 - side]->size()) == other.type.key_arity();
    if (once && last_use_[static_cast<size_t>(in)] == static_cast<int>(at) && !keep_.count(in) &&
        plan_.node(in).type.chunk_shape == n.type.chunk_shape)
      return side;
  }
  return -1;
}

const std::vector<Tuple>& Executor::result(int node) const { return results_.at(static_cast<size_t>(node)); }

std::vector<Tuple> Executor::scan(int node, bool& held) const {
  const IaNode& n = plan_.node(node);
  std::vector<Key> mine;
  for (const auto& [k, site] : n.dist.at)
    if (n.dist.everywhere || site == comm_.rank()) mine.push_back(k);
  const model::TensorDecl& t = *n.scan().source;
  if (auto given = inputs_.find(t.name); given != inputs_.end()) {
    held = true;
    std::vector<Tuple> out;
    for (const Key& k : mine) out.push_back({k, slice(*given->second, n.type.chunk_shape, k, n.type.dtype)});
    return out;
  }
  // Data the cache keeps (never a parameter: its later values come from the
  // loop, and its first read must not be shared, as it is updated in place).
  const bool data = input_cache_ && input_cache_->keeps(node);
  const auto origin = origins_.find(t.name);
  const Shape at = origin != origins_.end() ? origin->second : Shape{};
  if (data)
    if (const std::vector<Tuple>* kept = input_cache_->find(node, at)) {
      held = true;
      return *kept;
    }
  if (auto h = std::get_if<model::Hdf5Source>(&t.source)) {
    try {
      std::vector<Tuple> read = io::hdf5::read_chunks(comm_, *h, n.type.chunk_shape, mine, at, n.type.dtype);
      if (data) input_cache_->keep(node, at, read);
      return read;
    } catch (const UserError& e) {
      throw UserError(t.loc, "tensor '" + t.name + "': " + e.what());  // where the deck names the source
    }
  }
  if (auto s = std::get_if<model::SparseSource>(&t.source)) {
    try {
      const std::vector<SparseBlock> blocks = io::hdf5::read_sparse_blocks({s->file, s->rows, s->cols, s->values}, t.shape, n.type.chunk_shape, mine,
                                                                           n.type.dtype, at.empty() ? 0 : at[0]);
      std::vector<Tuple> out;
      for (size_t i = 0; i < mine.size(); ++i) out.push_back({mine[i], Chunk::of_block(std::make_shared<const SparseBlock>(blocks[i]))});
      if (data) input_cache_->keep(node, at, out);
      return out;
    } catch (const UserError& e) {
      throw UserError(t.loc, "tensor '" + t.name + "': " + e.what());  // where the deck names the source
    }
  }
  const auto& g = std::get<model::Generator>(t.source);
  std::vector<Tuple> out;
  for (const Key& k : mine) out.push_back({k, io::generate_chunk(g, t.shape, n.type.chunk_shape, k, n.type.dtype)});
  return out;
}

const std::vector<Tuple>& Executor::input(size_t at, size_t k) const { return results_[static_cast<size_t>(plan_.nodes[at].inputs.at(k))]; }

template <>
std::vector<Tuple> Executor::step(const physical::ScanParams&, size_t at, Index&) {
  stats_[at].held = true;
  if (auto given = scan_tuples_.find(static_cast<int>(at)); given != scan_tuples_.end()) return std::move(given->second);
  return scan(static_cast<int>(at), stats_[at].held = false);
}

template <>
std::vector<Tuple> Executor::step(const physical::BcastParams&, size_t at, Index& moved) {
  const IaNode& n = plan_.nodes[at];
  comm::Moved m;
  auto out = comm::broadcast(comm_, input(at), n.type.key_arity(), n.type.chunk_shape, n.type.dtype, m, &broadcast_counts_[at]);
  moved = m.floats;
  return out;
}

template <>
std::vector<Tuple> Executor::step(const physical::ShuffleParams& p, size_t at, Index& moved) {
  const IaNode& n = plan_.nodes[at];
  const int s = comm_.size();
  auto site = [&](const Key& k) { return p.placement.site_of(k, p.site_grid, s); };
  if (plan_.node(n.inputs[0]).dist.everywhere) {
    // Every site holds every tuple: each keeps its own, nothing moves.
    std::vector<Tuple> out;
    for (const Tuple& t : input(at))
      if (site(t.key) == comm_.rank()) out.push_back(t);
    return out;
  }
  comm::Moved m;
  // A sparse product's result the plan counted by its filled rows sends those alone.
  const auto shuffle = plan_.node(n.inputs[0]).dist.filled_rows ? comm::shuffle_filled_rows : comm::shuffle;
  auto out = shuffle(comm_, input(at), n.type.key_arity(), n.type.chunk_shape, n.type.dtype, site, m, &shuffle_counts_[at]);
  moved = m.floats;
  return out;
}

template <>
std::vector<Tuple> Executor::step(const physical::JoinParams& p, size_t at, Index&) {
  const IaNode& n = plan_.nodes[at];
  const int agg = streamed_into_[at];
  const std::string label = "p" + std::to_string(at) + " " + n.name();
  if (agg >= 0) return join_aggregate(input(at, 0), input(at, 1), n, plan_.node(agg), label);
  const int over = overwritable_input(at);
  const auto fn = over < 0 ? join_fn(p.kernel) : join_fn_over(p.kernel, over);
  std::vector<local::JoinMatch> matches = local::join_matches(input(at, 0), input(at, 1), p.keys_left, p.keys_right);
  OperatorProgress progress(label, matches.size());
  std::vector<Tuple> out;
  out.reserve(matches.size());
  for (local::JoinMatch& m : matches) {
    progress.tick();
    out.push_back({p.out_key.identity() ? std::move(m.key) : p.out_key(m.key), fn(m.left->chunk, m.right->chunk)});
  }
  return out;
}

template <>
std::vector<Tuple> Executor::step(const physical::AggParams& p, size_t at, Index&) {
  const size_t joined = static_cast<size_t>(plan_.nodes[at].inputs[0]);
  // Its join already aggregated (join_aggregate): take the tuples over.
  if (streamed_into_[joined] == static_cast<int>(at)) return std::move(results_[joined]);
  return local::aggregate(input(at), p.group_by, agg_fn(p.kernel));
}

template <>
std::vector<Tuple> Executor::step(const physical::FilterParams& p, size_t at, Index&) {
  std::vector<Tuple> out;
  for (const Tuple& t : input(at))
    if (p.predicate.test(t.key)) out.push_back(t);
  return out;
}

template <>
std::vector<Tuple> Executor::step(const physical::MapParams& p, size_t at, Index&) {
  std::vector<Tuple> out;
  for (const Tuple& t : input(at)) {
    if (p.expand)
      for (Tuple& o : expand(*p.expand, t)) out.push_back(std::move(o));
    else out.push_back({p.key_map(t.key), apply(p.array_map, t.chunk)});
  }
  return out;
}

template <>
std::vector<Tuple> Executor::step(const physical::CarryParams& p, size_t at, Index& moved) {
  const IaNode& n = plan_.nodes[at];
  const IaNode& next = plan_.node(n.inputs[0]);
  if (p.regrid) {  // each chunk to the sites inference sent it to (physical::regrid_sites)
    std::map<Key, std::set<int>> sites;
    for (const auto& [k, site] : n.dist.at) sites[k].insert(site);
    return regrid(comm_, input(at), next, sites, moved);
  }
  auto out = carry(comm_, input(at), next, plan_.node(p.scans.at(0)), moved);
  TRA_ASSERT(out, "p" << at << " carries " << p.tensor << " chunk for chunk to a Scan on other chunks");
  return std::move(*out);
}

std::vector<Tuple> Executor::execute(size_t at, Index& moved) {
  return std::visit([&](const auto& p) { return step(p, at, moved); }, plan_.nodes[at].params);
}

void Executor::run(const std::function<void(int node)>& before_node) {
  for (std::vector<Tuple>& r : results_) r.clear();
  stats_.assign(plan_.nodes.size(), NodeRun{});
  // Per node, this rank's seconds and floats sent; reduced over the ranks at
  // the end, so that the ranks meet only where the plan moves data (or after
  // every operator, when asked to).
  std::vector<double> seconds(plan_.nodes.size(), 0);
  std::vector<long long> moved(plan_.nodes.size(), 0);
  // A device runs an operator's kernels after the host has issued them.
  // Waiting for them after each operator (Kokkos::fence) would keep the host
  // from issuing the next operator's while they run, so that is done only
  // where each operator's own time is asked for (--explain=analyze:
  // barrier_each_), and on a host, where kernels end before they return.
  // Elsewhere an operator's seconds are the host's time to issue it and to
  // wait where it must (a copy to the host, an exchange); the device is
  // waited for once at the end, in the last operator's time, so the total
  // is the operators' wall time.
  const bool wait_each = barrier_each_ || std::is_same_v<MemSpace, Kokkos::HostSpace>;
  size_t last_run = 0;
  auto run_node = [&](size_t i) {
    const IaNode& n = plan_.nodes[i];
    // A read whose tuples nobody consumes (its consumer reads a replicated
    // copy instead) is skipped.
    if (n.kind() == IaNode::Kind::Scan && last_use_[i] < 0 && !keep_.count(static_cast<int>(i))) return;
    if (before_node) before_node(static_cast<int>(i));
    Stopwatch sw;
    Index sent = 0;
    results_[i] = execute(i, sent);
    if (wait_each) Kokkos::fence();
    seconds[i] = sw.seconds();
    last_run = i;
    moved[i] = sent;
    if (barrier_each_) comm_.barrier();
    stats_[i].streamed_into = streamed_into_[i];
    for (int j : n.inputs)
      if (last_use_[static_cast<size_t>(j)] == static_cast<int>(i) && !keep_.count(j)) results_[static_cast<size_t>(j)].clear();
  };
  // Every input is read first (Scans have no inputs, so the order stays
  // topological), and the ranks meet once before the operators: their time
  // then holds no wait for another rank's reading.
  // A read that fails on one rank (its chunk of a file is corrupt) fails
  // on all: the agreement is the meeting. The failing rank still runs the
  // other Scans, whose files every rank opens and closes together.
  std::string failure;
  for (size_t i = 0; i < plan_.nodes.size(); ++i) {
    if (plan_.nodes[i].kind() != IaNode::Kind::Scan) continue;
    try {
      run_node(i);
    } catch (const UserError& e) {
      if (failure.empty()) failure = e.what();
      if (barrier_each_) comm_.barrier();  // the one run_node did not reach
    }
  }
  comm::agree_on(comm_, failure);
  for (size_t i = 0; i < plan_.nodes.size(); ++i)
    if (plan_.nodes[i].kind() != IaNode::Kind::Scan) run_node(i);
  if (!wait_each) {
    Stopwatch sw;
    Kokkos::fence();
    seconds[last_run] += sw.seconds();
  }
  std::vector<double> totals{0, 0};
  for (size_t i = 0; i < plan_.nodes.size(); ++i) totals[plan_.nodes[i].kind() == IaNode::Kind::Scan ? 0 : 1] += seconds[i];
  comm_.max(totals);
  totals_ = {totals[0], totals[1]};
  comm_.max(seconds);
  comm_.sum(moved);
  for (size_t i = 0; i < plan_.nodes.size(); ++i) {
    stats_[i].seconds = seconds[i];
    stats_[i].floats_moved = moved[i];
  }
  inputs_.clear();
  scan_tuples_.clear();
}

}  // namespace tra::exec
