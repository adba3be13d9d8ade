#pragma once
// Rounding bounds the tests compare with: every tolerance comes from the
// problem (Higham, Accuracy and Stability of Numerical Algorithms, §3.1).
// A sum of K terms computed in any order errs by at most γ_K Σ|terms|, with
// γ_K = K u / (1 - K u) ≈ K · eps / 2; the engine and a reference, or two
// plans that sum in different orders, each err by that, so they differ by at
// most K · eps · Σ|terms|, and the tests allow twice that.
#include <cfloat>
#include <cstdint>

namespace tra::testing {

// Two results of one sum of K terms whose absolute values add up to
// `abs_sum`, computed in any two orders.
// `eps`: the element type's (FLT_EPSILON for float sums).
inline double sum_tolerance(double k, double abs_sum, double eps = DBL_EPSILON) { return 2.0 * k * eps * abs_sum; }

// The same for a K-long dot product of values bounded by |x| <= X and
// |y| <= Y (Σ|terms| <= K X Y).
inline double dot_tolerance(std::int64_t k, double x, double y) { return sum_tolerance(static_cast<double>(k), static_cast<double>(k) * x * y); }

// The same for a sum of K terms each bounded by X (Σ|terms| <= K X).
inline double reorder_tolerance(std::int64_t k, double x) { return dot_tolerance(k, x, 1.0); }

// A sum folded as a tree `depth` levels deep, each group adding up to
// `width` values in a row (kernels/tree_fold.hpp), against the exact sum:
// each level's additions err by at most (width - 1) · eps of the values they
// add.
// `eps`: the element type's (FLT_EPSILON for float sums).
inline double tree_sum_tolerance(int depth, int width, double abs_sum, double eps = DBL_EPSILON) { return depth * (width - 1) * eps * abs_sum; }

}  // namespace tra::testing
