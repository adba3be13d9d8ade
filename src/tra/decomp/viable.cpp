#include "tra/decomp/viable.hpp"

#include <algorithm>

namespace tra::decomp {
namespace {

// How many times n can be halved: the largest e with 2^e dividing n.
int twos_in(Index n) {
  int e = 0;
  while (n > 0 && n % 2 == 0) {
    n /= 2;
    ++e;
  }
  return e;
}

int log2_exact(Index p) {
  int n = 0;
  while ((Index{1} << n) < p) ++n;
  return n;
}

// Places `left` doublings into labels at..end, each label at most cap[l].
void place(const std::vector<int>& cap, size_t at, int left, Partitioning& d, std::vector<Partitioning>& out) {
  if (at + 1 == cap.size()) {
    if (left <= cap[at]) {
      d[at] = Index{1} << left;
      out.push_back(d);
    }
    return;
  }
  for (int e = std::min(left, cap[at]); e >= 0; --e) {
    d[at] = Index{1} << e;
    place(cap, at + 1, left - e, d, out);
  }
}

}  // namespace

bool is_power_of_two(Index n) { return n > 0 && (n & (n - 1)) == 0; }

Index round_up_to_power_of_two(Index n) {
  Index p = 1;
  while (p < n) p *= 2;
  return p;
}

Index kernel_calls(const Vertex& v, const Partitioning& d) {
  Index n = 1;
  for (size_t l = 0; l < v.labels.size(); ++l) n *= d[l];
  return n;
}

std::vector<Partitioning> viable(const Vertex& v, Index p) {
  std::vector<Partitioning> out;
  if (!is_power_of_two(p)) return out;
  if (v.labels.empty()) {
    if (p == 1) out.push_back({});
    return out;
  }
  std::vector<int> cap;
  for (Index b : v.bound) cap.push_back(twos_in(b));
  Partitioning d(v.labels.size(), 1);
  place(cap, 0, log2_exact(p), d, out);
  return out;
}

std::vector<Partitioning> viable_at_most(const Vertex& v, Index p) {
  for (Index q = is_power_of_two(p) ? p : round_up_to_power_of_two(p) / 2; q >= 1; q /= 2) {
    auto ds = viable(v, q);
    if (!ds.empty()) return ds;
  }
  return {Partitioning(v.labels.size(), 1)};
}

}  // namespace tra::decomp
