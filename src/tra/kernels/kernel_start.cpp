#include "tra/kernels/kernel_start.hpp"

#include <KokkosBlas3_gemm.hpp>

#include <set>
#include <string>
#include <tuple>

#include "tra/common/kokkos_types.hpp"
#include "tra/core/sparse_block.hpp"
#include "tra/kernels/blocks.hpp"
#include "tra/kernels/combine.hpp"
#include "tra/kernels/element_evaluators.hpp"
#include "tra/kernels/elementwise.hpp"
#include "tra/kernels/finite.hpp"
#include "tra/kernels/sparse_product.hpp"
#include "tra/kernels/tree_fold.hpp"

namespace tra::kernels {

namespace {

// Whether the start `what` is still to run for `dtype` (and `width`, where
// it depends on one) in this process: true the first time it is asked.
bool first_time(const char* what, DType dtype, Index width = 0) {
  static std::set<std::tuple<std::string, DType, Index>> started;
  return started.insert({what, dtype, width}).second;
}

// One small GEMM of element type T in every transposition.
template <class T>
void start_gemms() {
  using Matrix = Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>;
  const size_t n = 64;  // the size of a small deck's GEMM, so its kernels are among those loaded
  const Matrix a("gemm start", n, n), c("gemm start", n, n);
  for (const char* ta : {"N", "T"})
    for (const char* tb : {"N", "T"}) KokkosBlas::gemm(ta, tb, T(1), a, a, T(0), c);
}

// A program with every operation of the scalar language, each once: the
// first element loop of a process that calls exp (or log, tanh, pow...)
// took 0.1-0.15 ms on the VM where the next took 0.01 ms, the math
// library's functions being looked up and paged in on their first call.
einsum::ScalarProgram every_operation() {
  using einsum::Op;
  einsum::ScalarProgram p;
  auto put = [&p](Op op) { p.ops[p.size++] = op; };
  put(Op::In0);
  for (Op unary : {Op::Neg, Op::Exp, Op::Log, Op::Sqrt, Op::Relu, Op::Abs, Op::Sq, Op::Tanh, Op::Sigmoid, Op::Step, Op::Sign, Op::Softplus})
    put(unary);
  for (Op binary : {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Max, Op::Min, Op::Eq, Op::Pow}) {
    put(binary == Op::Pow ? Op::Const : Op::In1);  // (p.imm: 0)
    put(binary);
  }
  return p;
}

// The element loops of kernels/elementwise.hpp, each form once on `every`
// (the interpreter's program of every operation, or a compiled form's):
// aligned, broadcasting, and two reductions (the aggregation is an
// argument, not a form of its own): one long enough to use every level of
// the device's form (a level per kFoldWidth values), one of outputs along a
// row of an input read by columns (a bias gradient's form on a host).
template <class T>
void start_element_loops(const einsum::ScalarProgram& every) {
  const Index n = kFoldWidth + 1;
  const ElementData<T> x("tra::start x", static_cast<size_t>(n * n)), z("tra::start z", static_cast<size_t>(n * n)), none;
  eval_elements<T>("tra::start", every, x, x, z);
  Walk along, one, inner, row, column;  // `one`, of rank 0, walks a single output
  along.rank = inner.rank = row.rank = column.rank = 1;
  along.extent[0] = inner.extent[0] = row.extent[0] = column.extent[0] = n;
  along.stride_a[0] = along.stride_b[0] = along.stride_c[0] = inner.stride_a[0] = inner.stride_b[0] = 1;
  row.stride_a[0] = row.stride_b[0] = row.stride_c[0] = 1;
  column.stride_a[0] = column.stride_b[0] = n;
  eval_walk<T>("tra::start", every, along, x, x, z);
  eval_reduce<T>("tra::start", every, einsum::AggOp::Sum, one, inner, x, x, z);
  eval_reduce<T>("tra::start", every, einsum::AggOp::Sum, row, column, x, x, z);
}

// The chunk kernels of kernels/blocks.hpp, combine.hpp and finite.hpp.
void start_chunk_kernels(DType dtype) {
  Chunk square(Shape{2, 2}, dtype);
  insert_block(square, extract_block(square, {1, 1}, {1, 1}), {0, 0});
  const Chunk turned = permute(square, {1, 0});
  combine_into(einsum::AggOp::Sum, square, turned);
  static_cast<void>(nonfinite_count(clone(square)) + diagonal(square).size());
}

}  // namespace

void start_gemm_library(DType dtype) {
  if (!first_time("gemm", dtype)) return;
  if (dtype == DType::Float32) start_gemms<float>();
  else start_gemms<double>();
  Kokkos::fence();
}

void start_sparse_library(DType dtype, Index columns) {
  if (!sparse_product_built() || !first_time("sparse", dtype, columns)) return;
  const SparseBlock a = SparseBlock::from_entries(2, 2, {{0, 0, 1.0}, {1, 1, 1.0}}, dtype);
  const Chunk x(Shape{2, columns}, dtype);
  for (const bool transposed : {false, true}) static_cast<void>(sparse_product(a, transposed, x));
  Kokkos::fence();
}

void start_loop_kernels(DType dtype) {
  if (!first_time("loops", dtype)) return;
  if (dtype == DType::Float32) start_element_loops<float>(every_operation());
  else start_element_loops<double>(every_operation());
  start_chunk_kernels(dtype);
  Kokkos::fence();
}

void start_element_program(const einsum::ScalarProgram& p, DType dtype) {
  const char* form = compiled_forms_enabled() ? einsum::compiled_form(p) : nullptr;
  if (!form || !first_time(form, dtype)) return;
  if (dtype == DType::Float32) start_element_loops<float>(p);
  else start_element_loops<double>(p);
  Kokkos::fence();
}

}  // namespace tra::kernels
