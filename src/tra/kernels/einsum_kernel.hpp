#pragma once
// The kernel K of EinDecomp §4.3 (equation 5): given one chunk of each input, it
// computes the chunk of the output over the output labels, applying ⊗ to joined
// elements and ⊕ over the labels aggregated inside the chunk.
//
// Contractions (⊗ = c * x * y for a constant c, ⊕ = sum, no label private to
// one input and absent from the output) permute to batched GEMM and call
// KokkosBlas::gemm with alpha = c; everything else
// runs a Kokkos parallel loop over output elements.
#include <map>
#include <string>

#include "tra/core/chunk.hpp"
#include "tra/einsum/statement.hpp"

namespace tra::kernels {

// Starts the BLAS library behind KokkosBlas::gemm where starting it costs
// time: on a GPU, cuBLAS creates its handle and loads its kernels on the first
// GEMM (43 ms measured on an H200, more than the whole of a small deck's work).
// An executor whose plan has a GEMM calls this while it is bound, so the cost
// falls before its operators run, once per process. Nothing on a host.
void start_gemm_library();

class EinSumKernel {
 public:
  // `extent` gives each label's extent inside one chunk.
  EinSumKernel(const einsum::EinSum& st, const std::map<einsum::Label, Index>& extent);

  Chunk apply(const Chunk& x, const Chunk* y) const;
  Shape x_shape() const { return shape_of(x_labels_); }
  Shape y_shape() const { return shape_of(y_labels_); }
  Shape z_shape() const { return shape_of(z_labels_); }
  double flops() const;  // per call
  bool uses_gemm() const { return gemm_; }
  // Two inputs, both over the output's labels in the output's order, nothing
  // aggregated: ⊗ applied to aligned elements, whatever the chunks' shape.
  bool elementwise() const { return inputs_ == 2 && aligned(); }
  const einsum::ScalarProgram& join_program() const { return join_; }  // ⊗
  // A GEMM whose output needs no final permutation can add its product into
  // an existing chunk (beta = 1): z += x ⊗ y summed. A join that feeds a sum
  // aggregation then accumulates each group in place (exec/join_aggregate).
  bool adds_into() const;
  void apply_add(const Chunk& x, const Chunk& y, Chunk& z) const;
  std::string name() const;

 private:
  Shape shape_of(const einsum::Labels& ls) const;
  // Every input over the output's labels in its order, nothing aggregated:
  // input and output elements line up one to one.
  bool aligned() const { return agg_labels_.empty() && x_labels_ == z_labels_ && (inputs_ == 1 || y_labels_ == z_labels_); }
  Chunk apply_generic(const Chunk& x, const Chunk* y) const;
  Chunk apply_gemm(const Chunk& x, const Chunk& y) const;
  void gemm(const Chunk& x, const Chunk& y, Chunk& z, double beta) const;  // z in [batch, rows, cols]

  einsum::Labels x_labels_, y_labels_, z_labels_, agg_labels_;
  std::map<einsum::Label, Index> extent_;
  einsum::AggOp agg_;
  einsum::ScalarProgram join_;
  int inputs_;
  bool gemm_ = false;
  double alpha_ = 1;  // ⊗ = alpha * x * y (a scaled product still runs as GEMM; rounded to float for float chunks)
  // GEMM plan: the label groups and, per operand, the order to permute to.
  // rows_ come from the first GEMM operand, cols_ from the second.
  einsum::Labels batch_, rows_, cols_, contracted_;
  // The first GEMM operand is y: z is [batch, (y's labels), (x's labels)],
  // computed as y·x rather than as x·y and then transposed.
  bool operands_swapped_ = false;
};

}  // namespace tra::kernels
