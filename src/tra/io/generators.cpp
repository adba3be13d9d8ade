#include "tra/io/generators.hpp"

#include "tra/common/error.hpp"
#include "tra/common/kokkos_math.hpp"
#include "tra/common/portable_math.hpp"
#include "tra/kernels/strided.hpp"

namespace tra::io {
namespace {

// splitmix64: a bijective mix of a 64-bit counter.
KOKKOS_INLINE_FUNCTION std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A uniform double in (0, 1) from (seed, counter).
KOKKOS_INLINE_FUNCTION double unit(std::uint64_t seed, std::uint64_t counter) {
  const std::uint64_t h = mix(mix(seed) ^ counter);
  return (static_cast<double>(h >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

// The chunk's elements as T: each computed in double, then rounded to T
// once (so a float32 run's inputs are the float64 run's, rounded).
template <class T>
void generate_into(const ElementData<T>& v, const Generator& g, const kernels::Walk& w, Index base, const kernels::Walk& offsets) {
  const auto kind = g.kind;
  const double a = g.a, b = g.b;
  const std::uint64_t seed = g.seed;
  Kokkos::parallel_for(
      "tra::generate", RangePolicy(0, w.count()), KOKKOS_LAMBDA(const Index p) {
        Index global, unused_b, unused_c;
        w.offsets(p, global, unused_b, unused_c);
        global += base;
        const auto n = static_cast<std::uint64_t>(global);
        double x = 0;
        switch (kind) {
          case Generator::Kind::Uniform:
            x = a + (b - a) * unit(seed, n);
            break;
          case Generator::Kind::Normal: {
            // Box-Muller on two independent uniforms of this element.
            const double u1 = unit(seed, 2 * n), u2 = unit(seed, 2 * n + 1);
            // log and cos of their own, the same bits on every backend (sqrt is
            // correctly rounded everywhere).
            x = a + b * kmath::sqrt(-2.0 * portable_log(u1)) * portable_cos(6.283185307179586 * u2);
            break;
          }
          case Generator::Kind::Zeros:
            x = 0;
            break;
          case Generator::Kind::Ones:
            x = 1;
            break;
          case Generator::Kind::Identity: {
            // Recover each index of the element from p and compare.
            Index q = p, first = -1;
            bool diag = true;
            for (int d = w.rank - 1; d >= 0; --d) {
              const Index i = q % w.extent[d] + offsets.extent[d];
              q /= w.extent[d];
              if (first < 0) first = i;
              else diag = diag && (i == first);
            }
            x = diag ? 1 : 0;
            break;
          }
          case Generator::Kind::Arange:
            x = a + b * static_cast<double>(global);
            break;
        }
        v(p) = to_element<T>(x);
      });
}

}  // namespace

Chunk generate_chunk(const Generator& g, const Shape& shape, const Shape& chunk_shape, const Key& key, DType dtype) {
  const int rank = static_cast<int>(shape.size());
  TRA_ASSERT(rank <= kernels::kMaxRank, "tensor rank " << rank);
  // Walk the chunk's elements; stride_a gives the tensor-wide row-major position.
  const Shape tensor_strides = kernels::row_major_strides(shape);
  kernels::Walk w;
  w.rank = rank;
  Index base = 0;
  for (int d = 0; d < rank; ++d) {
    w.extent[d] = chunk_shape[d];
    w.stride_a[d] = tensor_strides[d];
    base += key[d] * chunk_shape[d] * tensor_strides[d];
  }
  // For identity: the element is on the diagonal when every index is equal;
  // the chunk's offsets in the tensor, per dimension (in a Walk's extents:
  // a fixed array a kernel captures by value).
  kernels::Walk offsets;
  for (int d = 0; d < rank; ++d) offsets.extent[d] = key[d] * chunk_shape[d];
  Chunk out = Chunk::uninitialized(chunk_shape, dtype);
  if (dtype == DType::Float32) generate_into<float>(out.data_f32, g, w, base, offsets);
  else generate_into<double>(out.data, g, w, base, offsets);
  return out;
}

}  // namespace tra::io
