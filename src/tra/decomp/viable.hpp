#pragma once
// Enough parallel work (EinDecomp §6, §8.1): the partitioning vectors d of a
// statement that decompose it into exactly p kernel calls.
//
// With p = 2^N and every d[l] a power of two, the viable d's are the ways of
// placing N "balls" (doublings) into the D labels of the statement — labels
// shared by the two inputs are one bucket, since d has one entry per label —
// so there are (N+D-1)! / (N! (D-1)!) of them (§8.1; 3003 for N = 10, D = 6).
// Here a label may take only as many doublings as its bound allows: lowering
// cuts a label's range into equal chunks, so d[l] must divide the bound.
#include <vector>

#include "tra/decomp/graph.hpp"

namespace tra::decomp {

bool is_power_of_two(Index n);
Index round_up_to_power_of_two(Index n);  // 1 for n <= 1

// N(ℓX, ℓY, d) = ∏ d[ℓX ⊙ ℓY] (§6): the number of tuples the join produces,
// i.e. of kernel calls — the product over the statement's distinct labels.
Index kernel_calls(const Vertex& v, const Partitioning& d);

// Every power-of-two d with kernel_calls(v, d) == p and bound % d == 0 for
// every label, in a fixed order (lexicographic in the exponents, the first
// label varying slowest). Empty when the bounds cannot be split p ways, or p is
// not a power of two.
std::vector<Partitioning> viable(const Vertex& v, Index p);

// viable(v, q) for the largest power of two q <= p that has any (q = 1 always
// has d = [1, ..., 1]): a statement whose bounds cannot give p kernel calls
// (an odd extent, a small tensor) gets as many as they allow.
std::vector<Partitioning> viable_at_most(const Vertex& v, Index p);

}  // namespace tra::decomp
