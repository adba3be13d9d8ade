#pragma once
// The loop behind every element-wise kernel: z(i) = prog(x(i), y(i)) over the
// flat data of chunks of one shape. On a host execution space it runs the
// program a block of elements at a time, on a device one element per thread.
// A program of a compiled form runs as that form's expression, any other
// interpreted (kernels/element_evaluators.hpp: on a host one operation over
// the whole block, ScalarProgram::eval_block, which makes the interpreter's
// dispatch a per-block cost). Each runs on elements of type T, double or
// float: every operation rounds to T.
#include "tra/common/kokkos_types.hpp"
#include "tra/core/index_vector.hpp"
#include "tra/einsum/scalar_program.hpp"
#include "tra/kernels/strided.hpp"

namespace tra::kernels {

// `y` may be an empty View for a program of one input.
template <class T>
void eval_elements(const char* name, const einsum::ScalarProgram& prog, const ElementData<T>& x, const ElementData<T>& y, const ElementData<T>& z);

// The same with broadcasting: z(p) = prog(x(a), y(b)) for every row-major
// position p of `walk`'s shape, a and b its offsets in x and y (walk.stride_c
// must be z's row-major strides). On a host the offsets are stepped like an
// odometer through each block instead of divided out per element.
template <class T>
void eval_walk(const char* name, const einsum::ScalarProgram& prog, const Walk& walk, const ElementData<T>& x, const ElementData<T>& y,
               const ElementData<T>& z);

// With an aggregation: z(p) = ⊕ over the positions q of `inner` of
// prog(x(a_p + a_q), y(b_p + b_q)), folded as the tree of
// kernels/tree_fold.hpp (groups of 32 consecutive q, each from the
// identity in order, then the groups' results the same way, level by level;
// 32 values or fewer: plainly in the order of q). The order is the same on
// every backend, so host and device results are equal bit for bit; a
// device folds each level's groups in parallel.
template <class T>
void eval_reduce(const char* name, const einsum::ScalarProgram& prog, einsum::AggOp agg, const Walk& out, const Walk& inner, const ElementData<T>& x,
                 const ElementData<T>& y, const ElementData<T>& z);

// The device's form of eval_reduce (one thread per output and group, a
// level at a time), run on this build's execution space: what a GPU
// runs, for the tests to compare with eval_reduce on a CPU.
template <class T>
void eval_reduce_device_form(const char* name, const einsum::ScalarProgram& prog, einsum::AggOp agg, const Walk& out, const Walk& inner,
                             const ElementData<T>& x, const ElementData<T>& y, const ElementData<T>& z);

}  // namespace tra::kernels
