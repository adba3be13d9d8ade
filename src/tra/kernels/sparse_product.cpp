#include "tra/kernels/sparse_product.hpp"

// spmv instantiates KokkosSparse's transposed functor beside the plain one,
// and GCC's maybe-uninitialized analysis trips inside the library's header
// there (a member the functor sets before use); the warning is the header's,
// for this whole file, whose code is a thin call.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

// Kokkos Kernels may be installed without its sparse component (the CUDA
// stack of ../shared/gpu builds BLAS alone): then the sparse product is not
// built, and says so where it is called.
#if __has_include(<KokkosSparse_spmv.hpp>)
#define TRA_HAVE_KOKKOS_SPARSE 1
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>
#else
#define TRA_HAVE_KOKKOS_SPARSE 0
#endif

#include "tra/common/error.hpp"

namespace tra::kernels {

bool sparse_product_built() { return TRA_HAVE_KOKKOS_SPARSE; }

#if TRA_HAVE_KOKKOS_SPARSE
namespace {

template <class T>
void product_into(const Csr& a, const Chunk& x, T beta, Chunk& out) {
  using Device = Kokkos::Device<ExecSpace, MemSpace>;
  using Matrix = KokkosSparse::CrsMatrix<T, int, Device, void, int>;
  using Dense = Kokkos::View<T**, Kokkos::LayoutRight, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using ConstDense = Kokkos::View<const T**, Kokkos::LayoutRight, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const Matrix m("sparse-block", static_cast<int>(a.rows), static_cast<int>(a.cols), static_cast<int>(a.values.size()), a.values.elements<T>(),
                 a.row_start, a.columns);
  const ConstDense in(x.elements<T>().data(), static_cast<size_t>(x.shape[0]), static_cast<size_t>(x.shape[1]));
  const Dense result(out.elements<T>().data(), static_cast<size_t>(out.shape[0]), static_cast<size_t>(out.shape[1]));
  KokkosSparse::spmv("N", T(1), m, in, beta, result);
}

}  // namespace
#endif

void sparse_product_into(const SparseBlock& a, bool transposed, const Chunk& x, double beta, Chunk& out) {
  const Csr& op = transposed ? a.by_column : a.by_row;
  TRA_ASSERT(x.rank() == 2 && out.rank() == 2 && x.shape[0] == op.cols && out.shape[0] == op.rows && out.shape[1] == x.shape[1],
             "a sparse product of " << op.rows << " x " << op.cols << " by " << shape_string(x.shape) << " into " << shape_string(out.shape));
  TRA_ASSERT(x.dtype == a.dtype() && out.dtype == a.dtype(), "a sparse product of mixed element types");
#if TRA_HAVE_KOKKOS_SPARSE
  if (a.dtype() == DType::Float32) product_into<float>(op, x, static_cast<float>(beta), out);
  else product_into<double>(op, x, beta, out);
#else
  static_cast<void>(beta);
  throw UserError(
      "this build's Kokkos Kernels has no sparse component (KokkosSparse), which sparse tensors need: "
      "build Kokkos Kernels with -DKokkosKernels_ENABLE_COMPONENT_SPARSE=ON (docs/gpu.md)");
#endif
}

Chunk sparse_product(const SparseBlock& a, bool transposed, const Chunk& x) {
  Chunk out(Shape{transposed ? a.cols() : a.rows(), x.shape.at(1)}, a.dtype());
  sparse_product_into(a, transposed, x, 0.0, out);
  return out;
}

}  // namespace tra::kernels
