#include "tra/kernels/elementwise.hpp"

#include <algorithm>
#include <type_traits>

namespace tra::kernels {

namespace {

template <class Space>
void run(const char* name, const einsum::ScalarProgram& prog, const ChunkData& x, const ChunkData& y, const ChunkData& z) {
  const Index n = static_cast<Index>(z.extent(0));
  if constexpr (std::is_same_v<typename Space::memory_space, Kokkos::HostSpace>) {
    constexpr Index kBlock = einsum::ScalarProgram::kBlock;
    const Scalar* xp = x.data();
    const Scalar* yp = y.extent(0) ? y.data() : nullptr;
    Scalar* zp = z.data();
    Kokkos::parallel_for(name, Kokkos::RangePolicy<Space>(0, (n + kBlock - 1) / kBlock), [=](const Index blk) {
      const Index s = blk * kBlock;
      prog.eval_block(xp + s, yp ? yp + s : nullptr, zp + s, static_cast<int>(std::min(kBlock, n - s)));
    });
  } else {
    const bool two = y.extent(0) != 0;
    Kokkos::parallel_for(name, Kokkos::RangePolicy<Space>(0, n), KOKKOS_LAMBDA(const Index i) {
      z(i) = prog.eval(x(i), two ? y(i) : Scalar(0));
    });
  }
}

}  // namespace

void eval_elements(const char* name, const einsum::ScalarProgram& prog, const ChunkData& x, const ChunkData& y, const ChunkData& z) {
  run<ExecSpace>(name, prog, x, y, z);
}

}  // namespace tra::kernels
