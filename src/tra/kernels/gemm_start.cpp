#include "tra/kernels/gemm_start.hpp"

#include <KokkosBlas3_gemm.hpp>

#include "tra/common/kokkos_types.hpp"

namespace tra::kernels {

namespace {

// One small GEMM of element type T in every transposition.
template <class T>
void start_gemms() {
  using Matrix = Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>;
  const size_t n = 64;  // the size of a small deck's GEMM, so its kernels are among those loaded
  const Matrix a("gemm start", n, n), c("gemm start", n, n);
  for (const char* ta : {"N", "T"})
    for (const char* tb : {"N", "T"}) KokkosBlas::gemm(ta, tb, T(1), a, a, T(0), c);
  Kokkos::fence();
}

}  // namespace

void start_gemm_library(DType dtype) {
  static bool started[2] = {false, false};
  bool& done = started[dtype == DType::Float32 ? 1 : 0];
  if (done) return;
  done = true;
  if (dtype == DType::Float32) start_gemms<float>();
  else start_gemms<double>();
}

}  // namespace tra::kernels
