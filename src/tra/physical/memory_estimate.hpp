#pragma once
// How much memory a plan needs per rank (issue: a per-rank memory estimate
// for every plan, and no plan chosen over the limit). The executor's order
// is replayed (every Scan first, then the other operators in plan order) with
// each node's result held on the sites its distribution names until its
// last consumer has run (or for good, for the plan's roots), and the bytes
// each site holds are summed at every step. Chunks an operator hands on
// without a copy (a Shuffle's tuples that stay, a filter's survivors) are
// counted once; a Bcast's result is all new (comm/exchange.cpp), its input
// held until its own last consumer. A Shuffle's send buffer (the tuples a
// site sends, packed) counts while it runs. The peak counts these: not a
// kernel's scratch (a GEMM's permuted operand), the process itself, or the
// freed memory the allocator keeps for reuse (common/allocation.hpp); the
// measured peak (tra-run's "peak memory per rank") is that much higher
// (docs/performance.md: 25% at ogbn-products' size).
#include <cstdint>
#include <string>
#include <vector>

#include "tra/physical/ia_plan.hpp"

namespace tra::physical {

struct MemoryEstimate {
  std::int64_t peak_bytes = 0;  // the largest site's
  int peak_site = 0;
  int peak_node = -1;  // the operator running when it is reached
  std::vector<std::int64_t> site_peak_bytes;  // each site's own peak
};

MemoryEstimate estimate_memory(const IaPlan& plan);

// "1.5 GiB", "320 MiB": bytes in the largest binary unit under which they are >= 1.
std::string bytes_text(std::int64_t bytes);

}  // namespace tra::physical
