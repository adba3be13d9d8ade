// ΣL(groupBy, aggOp): each site reduces the groups of the tuples it holds.
#include <algorithm>
#include <variant>

#include "tra/physical/ops/ops.hpp"

namespace tra::physical {

bool operator==(const AggParams& a, const AggParams& b) {
  return a.group_by == b.group_by && a.kernel == b.kernel && a.call_flops == b.call_flops && a.decomposable == b.decomposable && a.phase == b.phase;
}

namespace ops {

void infer(AggParams& p, IaNode& n, const Context& c) {
  const IaNode& x = c.in(n);
  n.dist.everywhere = x.dist.everywhere;
  // The groups on each site (by key, then site) and their sizes.
  std::vector<std::pair<Key, int>> member;
  member.reserve(x.dist.at.size());
  for (const auto& [k, site] : x.dist.at) member.emplace_back(project(k, p.group_by), site);
  if (!std::is_sorted(member.begin(), member.end())) std::sort(member.begin(), member.end());  // often in order already
  std::vector<std::pair<std::pair<Key, int>, Index>> members;
  for (auto& m : member)
    if (!members.empty() && members.back().first == m) ++members.back().second;
    else members.emplace_back(std::move(m), 1);
  std::vector<Index> work(static_cast<size_t>(c.nsites), 0), calls(static_cast<size_t>(c.nsites), 0);
  const Index f = volume(n.out_type.chunk_shape);
  // A fold combines its members' elements, an operation each beyond the
  // first member; an assembly or a concatenation copies each element of the
  // result once (exec/bound_kernels.cpp, exec/local/tra_ops.cpp), but an
  // assembly keeps a lone piece that is already the whole chunk as it is.
  const bool folds = std::holds_alternative<AggKernel::Fold>(p.kernel.reduce);
  const bool keeps_whole = std::holds_alternative<AggKernel::Assemble>(p.kernel.reduce) && x.type.chunk_shape == n.out_type.chunk_shape;
  auto group_work = [&](Index count) { return folds ? (count - 1) * f : count == 1 && keeps_whole ? 0 : f; };
  n.dist.at.reserve(members.size());
  for (const auto& [g, count] : members) {
    n.dist.at.emplace_back(g.first, g.second);
    if (g.second >= 0) {
      work[static_cast<size_t>(g.second)] += group_work(count);
      calls[static_cast<size_t>(g.second)] += count;
    } else {
      for (auto& w : work) w += group_work(count);
      for (auto& k : calls) k += count;
    }
  }
  n.site_fold_flops = static_cast<double>(max_of(work));
  n.site_calls = max_of(calls);  // a call per member: the first kept or finished, the others folded in
  // A map composed into the aggregation (R1-4) runs once per group.
  for (const auto& [g, count] : members) {
    if (g.second >= 0) work[static_cast<size_t>(g.second)] += static_cast<Index>(p.call_flops);
    else
      for (auto& w : work) w += static_cast<Index>(p.call_flops);
  }
  for (Index w : work) n.flops += static_cast<double>(w);
  n.site_flops = static_cast<double>(max_of(work));
}

// The busiest site's loop work and its folds' calls; a fold its join's GEMM
// does (folds_in_gemm) costs no pass or call of its own, only a composed map
// is left.
double seconds(const AggParams&, const IaNode& n, const Rates& r, bool gemm_folds) {
  if (gemm_folds) return (n.site_flops - n.site_fold_flops) / r.loop_flops;
  return fixed_seconds(n, r) + n.site_flops / r.loop_flops;
}

namespace {
const char* phase_text(AggParams::Phase ph) { return ph == AggParams::Phase::Partial ? " partial" : ph == AggParams::Phase::Final ? " final" : ""; }
}  // namespace

std::string text(const AggParams& p) {
  return " by " + dims_list(p.group_by) + " " + p.kernel.text() + (p.decomposable ? " decomposable" : "") + phase_text(p.phase);
}

// "<0,2>, sum", "assemble [4, 4]", "exp∘<0>, sum (partial)".
std::string words(const AggParams& p, const IaNode&) {
  const std::string reduce = p.kernel.fold() != einsum::AggOp::None ? dims_list(p.group_by) + ", " + p.kernel.reduce_text() : p.kernel.reduce_text();
  const std::string s = p.kernel.finish.identity() ? reduce : p.kernel.finish.text() + "∘" + reduce;
  return p.phase == AggParams::Phase::Whole ? s : s + " (" + (phase_text(p.phase) + 1) + ")";
}

std::vector<std::int64_t> bytes_passed_through(const AggParams&, const IaNode&, const Context& c) {
  return std::vector<std::int64_t>(static_cast<size_t>(c.nsites), 0);  // its groups are folded into chunks of its own
}

std::string typing_problem(const AggParams& p, const IaNode& n, const Context& c) {
  return dims_below(p.group_by, c.in(n).type.key_arity()) ? "" : "a group-by dimension its input's keys lack";
}

}  // namespace ops
}  // namespace tra::physical
