#include "tra/exec/join_aggregate.hpp"

#include <algorithm>
#include <unordered_map>

#include "tra/common/error.hpp"
#include "tra/core/chunk_pool.hpp"
#include "tra/exec/bound_kernels.hpp"
#include "tra/kernels/combine.hpp"

namespace tra::exec {

std::vector<Tuple> join_aggregate(const std::vector<Tuple>& left, const std::vector<Tuple>& right, const physical::IaNode& join,
                                  const physical::IaNode& agg, const std::string& label) {
  const einsum::AggOp fold = agg.agg().kernel.fold();
  TRA_ASSERT(fold != einsum::AggOp::None, "join_aggregate: " << agg.words() << " does not fold element-wise");
  std::vector<local::JoinMatch> matches = local::join_matches(left, right, join.join().keys_left, join.join().keys_right);
  if (!join.join().out_key.identity()) {
    for (auto& m : matches) m.key = join.join().out_key(m.key);
    std::stable_sort(matches.begin(), matches.end(), [](const local::JoinMatch& a, const local::JoinMatch& b) { return a.key < b.key; });
  }
  const physical::JoinKernel& kernel = join.join().kernel;
  const bool add_in_gemm = fold == einsum::AggOp::Sum && kernel.adds_into();
  std::vector<Tuple> out;
  std::unordered_map<Key, size_t, KeyHash> group_of;
  OperatorProgress progress(label, matches.size());
  for (const auto& m : matches) {
    progress.tick();
    Key g = project(m.key, agg.agg().group_by);
    auto [it, first] = group_of.try_emplace(std::move(g), out.size());
    if (first) {
      // The first member becomes the accumulator; a kernel's result is
      // normally held by nobody else, and is copied if it is.
      Chunk c = apply(kernel, m.left->chunk, m.right->chunk);
      out.push_back({it->first, chunk_references(c) > 1 ? kernels::clone(c) : std::move(c)});
      continue;
    }
    Chunk& acc = out[it->second].chunk;
    if (add_in_gemm) apply_add(kernel, m.left->chunk, m.right->chunk, acc);
    else kernels::combine_into(fold, acc, apply(kernel, m.left->chunk, m.right->chunk));
  }
  if (!agg.agg().kernel.finish.identity())
    for (Tuple& t : out) t.chunk = apply(agg.agg().kernel.finish, t.chunk);
  std::sort(out.begin(), out.end(), [](const Tuple& a, const Tuple& b) { return a.key < b.key; });
  return out;
}

}  // namespace tra::exec
