#pragma once
// The kernel K of EinDecomp §4.3 (equation 5): given one chunk of each input, it
// computes the chunk of the output over the output labels, applying ⊗ to joined
// elements and ⊕ over the labels aggregated inside the chunk.
//
// Contractions (⊗ = c * x * y for a constant c, ⊕ = sum, no label private to
// one input and absent from the output) permute to batched GEMM and call
// KokkosBlas::gemm with alpha = c; everything else
// runs a Kokkos parallel loop over output elements.
//
// A product with one sparse input (a 2-D block of a sparse relation,
// core/sparse_block.hpp) runs as the sparse product instead
// (kernels/sparse_product.hpp): Out[v,h] = Σ_u A[v,u]·H[u,h], and with A's
// first label summed, Aᵀ·G (the gradient through such a product).
#include <map>
#include <string>

#include "tra/core/chunk.hpp"
#include "tra/einsum/statement.hpp"

namespace tra::kernels {

class EinSumKernel {
 public:
  // `extent` gives each label's extent inside one chunk. `sparse_input`
  // (0 or 1; -1: none) names an input whose chunks are sparse blocks of
  // `stored_per_call` entries on average (for flops()); the statement must
  // then be one sparse_product_fits accepts.
  EinSumKernel(const einsum::EinSum& st, const std::map<einsum::Label, Index>& extent, int sparse_input = -1, double stored_per_call = 0);
  // Whether `st` can run with input `sparse_input` sparse: two 2-D inputs
  // multiplied (⊗ = x * y) and summed over one label they share, which is
  // one of the sparse input's two, into a 2-D output of the two labels
  // left. Else false, and *why says what does not fit.
  static bool sparse_product_fits(const einsum::EinSum& st, int sparse_input, std::string* why = nullptr);

  Chunk apply(const Chunk& x, const Chunk* y) const;
  Shape x_shape() const { return shape_of(x_labels_); }
  Shape y_shape() const { return shape_of(y_labels_); }
  Shape z_shape() const { return shape_of(z_labels_); }
  double flops() const;  // per call
  bool uses_gemm() const { return gemm_; }
  bool sparse() const { return sparse_input_ >= 0; }
  int sparse_input() const { return sparse_input_; }
  // A sparse product whose result's rows are the block's rows (or, read
  // transposed, its columns): zero outside those holding an entry, which
  // apply() records in the result (Chunk::row_support).
  bool rows_follow_block() const { return sparse() && z_labels_ == sparse_out_order_; }
  bool sparse_transposed() const { return sparse_transposed_; }
  // The dense operand's columns in a sparse product: the label it keeps.
  Index sparse_columns() const { return extent_.at(sparse_dense_order_.at(1)); }
  // Two inputs, both over the output's labels in the output's order, nothing
  // aggregated: ⊗ applied to aligned elements, whatever the chunks' shape.
  bool elementwise() const { return inputs_ == 2 && aligned(); }
  const einsum::ScalarProgram& join_program() const { return join_; }  // ⊗
  // A GEMM whose output needs no final permutation can add its product into
  // an existing chunk (beta = 1): z += x ⊗ y summed. A join that feeds a sum
  // aggregation then accumulates each group in place (exec/join_aggregate).
  // Set at construction: the cost model asks it of every join per plan tried.
  bool adds_into() const { return adds_into_; }
  void apply_add(const Chunk& x, const Chunk& y, Chunk& z) const;
  std::string name() const;

 private:
  Shape shape_of(const einsum::Labels& ls) const;
  // Every input over the output's labels in its order, nothing aggregated:
  // input and output elements line up one to one.
  bool aligned() const { return agg_labels_.empty() && x_labels_ == z_labels_ && (inputs_ == 1 || y_labels_ == z_labels_); }
  Chunk apply_generic(const Chunk& x, const Chunk* y) const;
  Chunk apply_gemm(const Chunk& x, const Chunk& y) const;
  // The sparse product, adding into z (beta 1) or overwriting it (beta 0).
  void sparse_product(const Chunk& x, const Chunk& y, Chunk& z, double beta) const;
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
  // Sparse mode: which input is sparse (-1: none), whether the product reads
  // the block transposed (its first label is the summed one), and the dense
  // operand's and the result's label orders the product works in
  // ([summed, dense kept] and [sparse kept, dense kept]).
  int sparse_input_ = -1;
  bool sparse_transposed_ = false;
  double stored_per_call_ = 0;
  einsum::Labels sparse_dense_order_, sparse_out_order_;
  bool adds_into_ = false;
};

}  // namespace tra::kernels
