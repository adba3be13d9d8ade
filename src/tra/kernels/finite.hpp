#pragma once
// Whether a chunk holds only finite numbers: a training run checks every
// updated parameter and optimizer state with it after each step, where the
// chunk lives (on a GPU, on the device: one reduction, one number back).
#include "tra/core/chunk.hpp"

namespace tra::kernels {

// The number of NaN and ±Inf elements of `c`.
Index nonfinite_count(const Chunk& c);

}  // namespace tra::kernels
