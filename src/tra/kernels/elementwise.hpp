#pragma once
// The loop behind every element-wise kernel: z(i) = prog(x(i), y(i)) over the
// flat data of chunks of one shape. On a host execution space it runs the
// program a block of elements at a time (ScalarProgram::eval_block), which
// makes the interpreter's dispatch a per-block cost; on a device, one element
// per thread (ScalarProgram::eval).
#include "tra/common/kokkos_types.hpp"
#include "tra/core/index_vector.hpp"
#include "tra/einsum/scalar_program.hpp"

namespace tra::kernels {

// `y` may be an empty View for a program of one input.
void eval_elements(const char* name, const einsum::ScalarProgram& prog, const ChunkData& x, const ChunkData& y, const ChunkData& z);

}  // namespace tra::kernels
