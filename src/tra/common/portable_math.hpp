#pragma once
// log and cos that give the same bits on every backend. The C library's
// and CUDA's own are each within an ulp or two of the true value, but not
// of each other, so `normal(mean, stddev, seed)` would make other inputs on
// a GPU than on a CPU. These use only +, −, ×, ÷ and bit operations, each
// rounded once (IEEE 754, round to nearest; the build turns contraction
// into fused multiply-adds off, src/CMakeLists.txt), in a fixed order, so
// every backend computes the same value. docs/deck.md gives the formulas;
// tests/regression/check_generators.py is an independent Python version.
//
// Accuracy (measured against the C library over their domains): within 2
// ulp. Domain: the generators' arguments — portable_log takes positive
// normal numbers, portable_cos takes [0, 2π].
#include <cstdint>
#include <cstring>

#include "tra/common/kokkos_types.hpp"

namespace tra {

namespace portable_math_detail {

KOKKOS_INLINE_FUNCTION std::uint64_t bits_of(double x) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint64_t>(__double_as_longlong(x));
#else
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
#endif
}

KOKKOS_INLINE_FUNCTION double double_of(std::uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(b));
#else
  double x;
  std::memcpy(&x, &b, sizeof x);
  return x;
#endif
}

// p = c[0], then p = p·x + c[i] for i = 1 .. n−1: Horner's rule in a fixed order.
KOKKOS_INLINE_FUNCTION double horner(const double* c, int n, double x) {
  double p = c[0];
  for (int i = 1; i < n; ++i) p = p * x + c[i];
  return p;
}

}  // namespace portable_math_detail

// ln x = k ln 2 + ln m, x = m 2^k with m in [√½, √2); ln m = 2 atanh(s)
// with s = (m − 1)/(m + 1), |s| ≤ 0.172, summed as 2s Σ_{n=0..10} s^2n/(2n+1)
// (Horner, from n = 10; the next term is below 2^-56 of the sum). ln 2 is
// split into a 32-bit head, whose multiples by k are exact, and its tail.
KOKKOS_INLINE_FUNCTION double portable_log(double x) {
  using namespace portable_math_detail;
  const std::uint64_t b = bits_of(x);
  int k = static_cast<int>((b >> 52) & 0x7ff) - 1023;
  double m = double_of((b & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL);  // [1, 2)
  if (m > 0x1.6a09e667f3bcdp+0) {  // √2
    m = m * 0.5;
    k = k + 1;
  }
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = s * s;
  // 1/21, 1/19, ..., 1/3: the doubles nearest to them
  constexpr double kAtanh[] = {0x1.8618618618618p-5, 0x1.af286bca1af28p-5, 0x1.e1e1e1e1e1e1ep-5, 0x1.1111111111111p-4, 0x1.3b13b13b13b14p-4,
                               0x1.745d1745d1746p-4, 0x1.c71c71c71c71cp-4, 0x1.2492492492492p-3, 0x1.999999999999ap-3, 0x1.5555555555555p-2};
  const double p = horner(kAtanh, 10, s2);
  const double ln_m = (s + s) + (s + s) * (s2 * p);  // 2s (1 + s² p)
  const double kd = static_cast<double>(k);
  return kd * 0x1.62e42fee00000p-1 + (kd * 0x1.a39ef35793c76p-33 + ln_m);  // k (ln2_hi + ln2_lo) + ln m
}

// cos x = ±cos r or ±sin r with r = x − n π/2, n the nearest quadrant
// (|r| ≤ π/4; π/2 split into a 32-bit head, exact times n ≤ 4, and its
// tail); cos r and sin r by their Taylor series to r^20 and r^21 (Horner in
// r²; the next terms are below 2^-60).
KOKKOS_INLINE_FUNCTION double portable_cos(double x) {
  using portable_math_detail::horner;
  const int n = static_cast<int>(x * 0x1.45f306dc9c883p-1 + 0.5);  // x · 2/π, to the nearest
  const double nd = static_cast<double>(n);
  const double r = (x - nd * 0x1.921fb54400000p+0) - nd * 0x1.0b4611a626331p-34;
  const double r2 = r * r;
  if ((n & 1) == 0) {
    // cos r = 1 + r² (−1/2! + r² (1/4! + r² (−1/6! + ... + r² (1/20!)))): from 1/20! down
    constexpr double kCos[] = {0x1.e542ba4020225p-62,  -0x1.6827863b97d97p-53, 0x1.ae7f3e733b81fp-45,  -0x1.93974a8c07c9dp-37, 0x1.1eed8eff8d898p-29,
                               -0x1.27e4fb7789f5cp-22, 0x1.a01a01a01a01ap-16,  -0x1.6c16c16c16c17p-10, 0x1.5555555555555p-5,   -0.5};
    const double cos_r = 1.0 + r2 * horner(kCos, 10, r2);
    return (n & 2) == 0 ? cos_r : -cos_r;  // n = 0, 4: cos r; n = 2: −cos r
  }
  // sin r = r + r r² (−1/3! + r² (1/5! + ... + r² (1/21!))): from 1/21! down
  constexpr double kSin[] = {0x1.71b8ef6dcf572p-66,  -0x1.2f49b46814157p-57, 0x1.952c77030ad4ap-49,  -0x1.ae7f3e733b81fp-41, 0x1.6124613a86d09p-33,
                             -0x1.ae64567f544e4p-26, 0x1.71de3a556c734p-19,  -0x1.a01a01a01a01ap-13, 0x1.1111111111111p-7,   -0x1.5555555555555p-3};
  const double sin_r = r + r * (r2 * horner(kSin, 10, r2));
  return (n & 2) == 0 ? -sin_r : sin_r;  // n = 1: cos(π/2 + r) = −sin r; n = 3: sin r
}

}  // namespace tra
