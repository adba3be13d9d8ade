#include "tra/kernels/blocks.hpp"

#include <type_traits>

#include "tra/common/error.hpp"
#include "tra/kernels/strided.hpp"

namespace tra::kernels {
namespace {

// Copy a block of `shape` from a (at offset_a) to c (at offset_c).
template <class T>
void copy_elements(const ElementData<T>& a, const Shape& a_shape, const Shape& offset_a, const ElementData<T>& c, const Shape& c_shape,
                   const Shape& offset_c, const Shape& shape) {
  TRA_ASSERT(shape.size() <= static_cast<size_t>(kMaxRank), "chunk rank " << shape.size() << " above " << kMaxRank);
  const Shape sa = row_major_strides(a_shape), sc = row_major_strides(c_shape);
  Walk w;
  w.rank = static_cast<int>(shape.size());
  Index base_a = 0, base_c = 0;
  for (int d = 0; d < w.rank; ++d) {
    w.extent[d] = shape[d];
    w.stride_a[d] = sa[d];
    w.stride_c[d] = sc[d];
    base_a += offset_a[d] * sa[d];
    base_c += offset_c[d] * sc[d];
  }
  for_each_position(
      "tra::copy_block", w, KOKKOS_LAMBDA(const Index oa, const Index oc) { c(base_c + oc) = a(base_a + oa); });
}

// copy_elements on chunks of one element type.
void copy_block(const Chunk& a, const Shape& offset_a, Chunk& c, const Shape& offset_c, const Shape& shape) {
  TRA_ASSERT(a.dtype == c.dtype, "copying a " << dtype_name(a.dtype) << " block into a " << dtype_name(c.dtype) << " chunk");
  with_elements(a, [&](const auto& from) {
    using T = typename std::decay_t<decltype(from)>::value_type;
    copy_elements<T>(from, a.shape, offset_a, c.elements<T>(), c.shape, offset_c, shape);
  });
}

template <class T>
void permute_elements(const ElementData<T>& a, const ElementData<T>& c, const Walk& w) {
  for_each_position(
      "tra::permute", w, KOKKOS_LAMBDA(const Index oa, const Index oc) { c(oc) = a(oa); });
}

template <class T>
void diagonal_elements(const ElementData<T>& a, const ElementData<T>& c, Index n) {
  Kokkos::parallel_for(
      "tra::diagonal", RangePolicy(0, n), KOKKOS_LAMBDA(const Index i) { c(i) = a(i * n + i); });
}

}  // namespace

Chunk extract_block(const Chunk& src, const Shape& offset, const Shape& shape) {
  for (size_t d = 0; d < shape.size(); ++d)
    TRA_ASSERT(offset[d] + shape[d] <= src.shape[d],
               "block " << shape_string(shape) << " at " << shape_string(offset) << " outside chunk " << shape_string(src.shape));
  Chunk out(shape, src.dtype);
  copy_block(src, offset, out, Shape(shape.size(), 0), shape);
  return out;
}

void insert_block(Chunk& dst, const Chunk& block, const Shape& offset) {
  for (size_t d = 0; d < block.shape.size(); ++d)
    TRA_ASSERT(offset[d] + block.shape[d] <= dst.shape[d],
               "block " << shape_string(block.shape) << " at " << shape_string(offset) << " outside chunk " << shape_string(dst.shape));
  copy_block(block, Shape(block.shape.size(), 0), dst, offset, block.shape);
}

Chunk permute(const Chunk& in, const std::vector<int>& perm) {
  const int r = static_cast<int>(in.shape.size());
  TRA_ASSERT(static_cast<int>(perm.size()) == r && r <= kMaxRank, "permutation of rank " << perm.size());
  Shape out_shape(static_cast<size_t>(r));
  for (int d = 0; d < r; ++d) out_shape[d] = in.shape[perm[d]];
  const Shape s_in = row_major_strides(in.shape), s_out = row_major_strides(out_shape);
  Walk w;
  w.rank = r;
  for (int d = 0; d < r; ++d) {
    w.extent[d] = out_shape[d];
    w.stride_a[d] = s_in[perm[d]];
    w.stride_c[d] = s_out[d];
  }
  Chunk out = Chunk::uninitialized(out_shape, in.dtype);
  with_elements(in, [&](const auto& a) {
    using T = typename std::decay_t<decltype(a)>::value_type;
    permute_elements<T>(a, out.elements<T>(), w);
  });
  return out;
}

Chunk diagonal(const Chunk& in) {
  TRA_ASSERT(in.shape.size() == 2 && in.shape[0] == in.shape[1], "diag of a chunk of shape " << shape_string(in.shape));
  const Index n = in.shape[0];
  Chunk out(Shape{n}, in.dtype);
  with_elements(in, [&](const auto& a) {
    using T = typename std::decay_t<decltype(a)>::value_type;
    diagonal_elements<T>(a, out.elements<T>(), n);
  });
  return out;
}

}  // namespace tra::kernels
