#include "tra/kernels/combine.hpp"

#include <type_traits>

#include "tra/common/error.hpp"
#include "tra/kernels/elementwise.hpp"

namespace tra::kernels {

namespace {

template <class T>
void combine_elements(einsum::AggOp op, const ElementData<T>& a, const ElementData<T>& b) {
  Kokkos::parallel_for(
      "tra::combine", RangePolicy(0, static_cast<Index>(a.extent(0))), KOKKOS_LAMBDA(const Index i) { a(i) = einsum::agg_combine(op, a(i), b(i)); });
}

// out := f(x, y) (y may be null), on chunks of x's element type.
void eval_into(const char* name, const einsum::ScalarProgram& f, const Chunk& x, const Chunk* y, const Chunk& out) {
  TRA_ASSERT((!y || y->dtype == x.dtype) && out.dtype == x.dtype, "an element-wise ⊗ on chunks of different element types");
  with_elements(x, [&](const auto& xe) {
    using T = typename std::decay_t<decltype(xe)>::value_type;
    eval_elements<T>(name, f, xe, elements_or_none<T>(y), out.elements<T>());
  });
}

}  // namespace

void combine_into(einsum::AggOp op, Chunk& acc, const Chunk& x) {
  TRA_ASSERT(acc.shape == x.shape, "combining chunks " << shape_string(acc.shape) << " and " << shape_string(x.shape));
  TRA_ASSERT(acc.dtype == x.dtype, "combining a " << dtype_name(acc.dtype) << " chunk with a " << dtype_name(x.dtype) << " one");
  with_elements(acc, [&](const auto& a) {
    using T = typename std::decay_t<decltype(a)>::value_type;
    combine_elements<T>(op, a, x.elements<T>());
  });
  acc.forget_row_support();  // written over: no longer one sparse product's
}

Chunk clone(const Chunk& c) {
  Chunk out = Chunk::uninitialized(c.shape, c.dtype);
  with_elements(c, [&](const auto& from) { Kokkos::deep_copy(out.elements<typename std::decay_t<decltype(from)>::value_type>(), from); });
  return out;
}

Chunk map_elements(const einsum::ScalarProgram& f, const Chunk& in) {
  Chunk out = Chunk::uninitialized(in.shape, in.dtype);
  eval_into("tra::map_elements", f, in, nullptr, out);
  return out;
}

Chunk zip_elements(const einsum::ScalarProgram& f, const Chunk& x, const Chunk& y) {
  TRA_ASSERT(x.shape == y.shape, "elementwise op on chunks " << shape_string(x.shape) << " and " << shape_string(y.shape));
  Chunk out = Chunk::uninitialized(x.shape, x.dtype);
  eval_into("tra::zip_elements", f, x, &y, out);
  return out;
}

void zip_elements_into(const einsum::ScalarProgram& f, const Chunk& x, const Chunk& y, const Chunk& out) {
  TRA_ASSERT(x.shape == y.shape && out.shape == x.shape, "elementwise op on chunks " << shape_string(x.shape) << " and " << shape_string(y.shape));
  eval_into("tra::join_over_input", f, x, &y, out);
}

}  // namespace tra::kernels
