// ⋈L(keysL, keysR, projOp): each site joins the tuples it holds of both inputs.
#include <algorithm>
#include <unordered_map>

#include "tra/core/key.hpp"
#include "tra/physical/ops/ops.hpp"

namespace tra::physical {

bool operator==(const JoinParams& a, const JoinParams& b) {
  return a.keys_left == b.keys_left && a.keys_right == b.keys_right && a.kernel == b.kernel && a.call_flops == b.call_flops && a.gemm == b.gemm &&
         a.out_key == b.out_key && a.has_base == b.has_base && a.base_keys_left == b.base_keys_left && a.base_keys_right == b.base_keys_right &&
         a.base_out_key == b.base_out_key;
}

namespace ops {
namespace {

// The output keys are those of the matching pairs of distinct keys, each as
// often (the general check, for inputs that hold a key more than once).
template <class OutKey>
bool joined_exactly_once(const IaNode& n, const IaNode& l, const IaNode& r, const OutKey& out_key) {
  const JoinParams& p = n.join();
  std::vector<Key> expected;
  {
    std::unordered_map<Key, std::vector<const Key*>, KeyHash> rby;
    for (const Key* k : distinct_keys(r.dist)) rby[project(*k, p.keys_right)].push_back(k);
    for (const Key* lk : distinct_keys(l.dist)) {
      auto m = rby.find(project(*lk, p.keys_left));
      if (m != rby.end())
        for (const Key* rk : m->second) expected.push_back(out_key(*lk, *rk));
    }
  }
  std::sort(expected.begin(), expected.end());
  const std::vector<const Key*> produced = sorted_keys(n.dist);
  return std::equal(expected.begin(), expected.end(), produced.begin(), produced.end(), [](const Key& e, const Key* k) { return e == *k; });
}

// A sparse product whose result rows are its block's (kernels::
// EinSumKernel::rows_follow_block), nothing applied after it, and a
// sparse input whose blocks' filled lines are known: that table, and
// whether the result's rows are the blocks' columns (A read transposed).
const FilledByBlock* filled_blocks(const JoinParams& p, const IaNode& sparse_in, bool& by_column) {
  const auto& k = p.kernel.call.kernel;
  if (!k || !k->rows_follow_block() || p.kernel.zip || !p.kernel.then.identity() || !sparse_in.type.filled) return nullptr;
  by_column = k->sparse_transposed();
  return sparse_in.type.filled.get();
}

}  // namespace

void infer(JoinParams& p, IaNode& n, const Context& c) {
  const IaNode& l = c.in(n, 0);
  const IaNode& r = c.in(n, 1);
  const int s = c.nsites;
  const std::vector<int> right_rest = complement(r.type.key_arity(), p.keys_right);
  auto out_key = [&](const Key& lk, const Key& rk) {
    Key k = lk;
    for (int d : right_rest) k.push_back(rk[static_cast<size_t>(d)]);
    return p.out_key(k);
  };
  // Right keys by (site, join-key projection); everywhere tuples are on
  // site -1, which is slot 0.
  std::vector<std::unordered_map<Key, std::vector<const Key*>, KeyHash>> right(static_cast<size_t>(s) + 1);
  for (const auto& [k, site] : r.dist.at)
    right[static_cast<size_t>((r.dist.everywhere ? kEverySite : site) + 1)][project(k, p.keys_right)].push_back(&k);
  n.dist.everywhere = l.dist.everywhere && r.dist.everywhere;
  // Each result tuple's filled rows, where known (Distribution::filled_rows).
  const int sparse = p.kernel.call.kernel ? p.kernel.call.kernel->sparse_input() : -1;
  bool by_column = false;
  const FilledByBlock* filled = sparse < 0 ? nullptr : filled_blocks(p, c.in(n, sparse), by_column);
  std::vector<Index> filled_rows;
  auto note_filled = [&](const Key& block) {
    if (!filled) return;
    const auto it = filled->find(block);
    if (it == filled->end()) filled = nullptr;  // keyed otherwise (a replica): not known
    else filled_rows.push_back(by_column ? it->second.cols : it->second.rows);
  };
  for (const auto& entry : l.dist.at) {  // (no structured binding: lambdas capture it only from C++20)
    const Key& lk = entry.first;
    const int lsite = entry.second;
    const Key joined = project(lk, p.keys_left);
    auto emit = [&](int rsite, int out_site) {
      const auto& at_site = right[static_cast<size_t>(rsite + 1)];
      auto m = at_site.find(joined);
      if (m == at_site.end()) return;
      for (const Key* rk : m->second) {
        n.dist.at.emplace_back(out_key(lk, *rk), out_site);
        note_filled(sparse == 0 ? lk : *rk);
      }
    };
    if (l.dist.everywhere && r.dist.everywhere) emit(kEverySite, kEverySite);
    else if (l.dist.everywhere)
      for (int site = 0; site < s; ++site) emit(site, site);
    else if (r.dist.everywhere) emit(kEverySite, lsite);
    else emit(lsite, lsite);
  }
  if (filled) n.dist.filled_rows = std::make_shared<const std::vector<Index>>(std::move(filled_rows));
  // Every pair of matching keys must meet exactly once.
  bool co_located;
  if (!l.scattered && !r.scattered) {
    // Each key of either input is held once (or once everywhere), so no
    // pair met twice: they all met if as many met as match.
    std::unordered_map<Key, Index, KeyHash> right_count;
    for (const auto& [k, site] : r.dist.at) ++right_count[project(k, p.keys_right)];
    Index matching = 0;
    for (const auto& [k, site] : l.dist.at) {
      auto m = right_count.find(project(k, p.keys_left));
      if (m != right_count.end()) matching += m->second;
    }
    co_located = matching == n.dist.tuples();
  } else {
    co_located = joined_exactly_once(n, l, r, out_key);
  }
  if (!co_located) n.invalid = "its inputs are not co-located: some matching pairs meet twice or never";
  n.flops = p.call_flops * static_cast<double>(n.dist.tuples()) * (n.dist.everywhere ? s : 1);
  n.site_calls = max_of(per_site(n.dist, s));
  n.site_flops = p.call_flops * static_cast<double>(n.site_calls);
  n.site_floats_in = n.site_calls * (volume(l.type.chunk_shape) + volume(r.type.chunk_shape) + volume(n.out_type.chunk_shape));
}

// The busiest site's kernel work, at the GEMM or the loop rate.
// (A GEMM call also reads its chunks and writes its result once: at the
// memory rate, besides its flops; the loop rate is measured on streamed data
// already.) A sparse product's 2 flops per stored entry and column each
// read an element of the dense operand: at the sparse rate.
double seconds(const JoinParams& p, const IaNode& n, const Rates& r, bool) {
  const double calls = fixed_seconds(n, r);
  if (p.kernel.call.kernel && p.kernel.call.kernel->sparse())
    return calls + n.site_flops / 2 * static_cast<double>(element_bytes(n.type.dtype)) / r.sparse_bytes;
  if (!p.gemm) return calls + n.site_flops / r.loop_flops;
  return calls + n.site_flops / gemm_flops(r, n.type.dtype) +
         static_cast<double>(n.site_floats_in) * static_cast<double>(element_bytes(n.type.dtype)) / r.memory_bytes;
}

std::string text(const JoinParams& p) {
  std::string s = " keys " + dims_list(p.keys_left) + "=" + dims_list(p.keys_right) + " kernel " +
                  (p.kernel.call.kernel ? p.kernel.call.text() : "?") + (p.kernel.zip ? " zipped" : "") +
                  (p.kernel.then.identity() ? "" : " then " + p.kernel.then.text()) + " out " + key_text(p.out_key) + (p.gemm ? " gemm" : "");
  if (p.has_base) s += " base " + dims_list(p.base_keys_left) + "=" + dims_list(p.base_keys_right) + " out " + key_text(p.base_out_key);
  return s;
}

// "gemm Z[b,h] = sum_{f} X[b,f] * W1[f,h]", with the maps R1-7 composed into
// it and the keys they map (a join strategy's own keys are not words: its
// replication's maps and shuffles say them).
std::string words(const JoinParams& p, const IaNode&) {
  if (!p.kernel.call.kernel) return "?";
  const std::string op = p.kernel.zip ? "elementwise " + p.kernel.call.kernel->join_program().str() + " of aligned chunks" : p.kernel.call.text();
  const std::string s = p.kernel.then.identity() ? op : p.kernel.then.text() + "∘" + op;
  const KeyFn& keys = p.has_base ? p.base_out_key : p.out_key;
  return keys.identity() ? s : s + ", keys " + keys.text();
}

std::vector<std::int64_t> bytes_passed_through(const JoinParams&, const IaNode&, const Context& c) {
  // Its chunks are its own. (An element-wise join may write over an
  // input's, exec/executor.hpp; the estimate does not count on it.)
  return std::vector<std::int64_t>(static_cast<size_t>(c.nsites), 0);
}

std::string typing_problem(const JoinParams& p, const IaNode& n, const Context& c) {
  if (p.keys_left.size() != p.keys_right.size()) return "join keys of different lengths";
  if (!dims_below(p.keys_left, c.in(n, 0).type.key_arity()) || !dims_below(p.keys_right, c.in(n, 1).type.key_arity()))
    return "a join key its input's keys lack";
  return "";
}

}  // namespace ops
}  // namespace tra::physical
