#pragma once
// Parser of EinSum statements, in two spellings:
//
//   C[i,k] = sum_j A[i,j] * B[j,k]          explicit labels, ⊕ written as sum_/max_/min_
//   D[i,k] = max_j abs(X[i,j] - Y[j,k])     any scalar expression as ⊗
//   E[i,j] = exp(X[i,j] - M[i])             no aggregation: element-wise join
//   C = einsum("ij,jk->ik", A, B)           numpy form (⊗ = *, ⊕ = sum)
//
// Labels absent from the output are aggregated; with no sum_/max_/min_ prefix
// they are summed (Einstein's convention). An output label that no input has
// (a broadcast) is rejected. Errors point at the offending column.
//
//   P[b,i,j] = softmax_j(S[b,i,j])          a macro: four statements (EinSum §3)
//
// softmax normalises over one label (softmax_j names it; softmax(...) takes the
// input's last label) and expands into
//
//   P.max[b,i]   = max_j S[b,i,j]
//   P.exp[b,i,j] = exp(S[b,i,j] - P.max[b,i])
//   P.sum[b,i]   = sum_j P.exp[b,i,j]
//   P[b,i,j]     = P.exp[b,i,j] / P.sum[b,i]
//
// The intermediates' names hold a '.', which no name written in a deck can, so
// they never collide with the user's tensors.
#include <string>
#include <vector>

#include "tra/einsum/statement.hpp"

namespace tra::einsum {

// `where` is the location of the statement's first character.
// A softmax here is an error (it is several statements): use parse_statement.
EinSum parse_einsum(const std::string& text, const SourceLoc& where);

// One statement of a deck's graph: an EinSum statement (one element), or the
// statements a macro (softmax) expands into, in order. Every expanded statement
// is located at the macro; its references to the input and the output at the
// places they are written, its references to the intermediates at `softmax`.
std::vector<EinSum> parse_statement(const std::string& text, const SourceLoc& where);

// A scalar function of x, such as "relu(x)", for element-wise transforms.
ScalarProgram parse_scalar_function(const std::string& text, const SourceLoc& where);

}  // namespace tra::einsum
