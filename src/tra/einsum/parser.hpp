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
#include <string>

#include "tra/einsum/statement.hpp"

namespace tra::einsum {

// `where` is the location of the statement's first character.
EinSum parse_einsum(const std::string& text, const SourceLoc& where);

// A scalar function of x, such as "relu(x)", for element-wise transforms.
ScalarProgram parse_scalar_function(const std::string& text, const SourceLoc& where);

}  // namespace tra::einsum
