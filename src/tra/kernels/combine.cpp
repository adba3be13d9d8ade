#include "tra/kernels/combine.hpp"

#include "tra/common/error.hpp"
#include "tra/kernels/elementwise.hpp"

namespace tra::kernels {

void combine_into(einsum::AggOp op, Chunk& acc, const Chunk& x) {
  TRA_ASSERT(acc.shape == x.shape, "combining chunks " << shape_string(acc.shape) << " and " << shape_string(x.shape));
  auto a = acc.data;
  auto b = x.data;
  Kokkos::parallel_for(
      "tra::combine", RangePolicy(0, acc.size()), KOKKOS_LAMBDA(const Index i) { a(i) = einsum::agg_combine(op, a(i), b(i)); });
}

Chunk clone(const Chunk& c) {
  Chunk out(c.shape);
  Kokkos::deep_copy(out.data, c.data);
  return out;
}

Chunk map_elements(const einsum::ScalarProgram& f, const Chunk& in) {
  Chunk out = Chunk::uninitialized(in.shape);
  eval_elements("tra::map_elements", f, in.data, ChunkData(), out.data);
  return out;
}

Chunk zip_elements(const einsum::ScalarProgram& f, const Chunk& x, const Chunk& y) {
  TRA_ASSERT(x.shape == y.shape, "elementwise op on chunks " << shape_string(x.shape) << " and " << shape_string(y.shape));
  Chunk out = Chunk::uninitialized(x.shape);
  eval_elements("tra::zip_elements", f, x.data, y.data, out.data);
  return out;
}

}  // namespace tra::kernels
