#pragma once
// Ranks that share one GPU: a warning when they will take turns on it.
#include "tra/comm/communicator.hpp"

namespace tra::app {

// Without NVIDIA's MPS, the processes of ranks that share a GPU each have
// their own context, and the GPU runs one context at a time: on an H200,
// two ranks of perf/gpu/run's SGD steps took 1-3 ms per operator, 7-10x the
// time of one rank; under MPS 1.7-4x. Rank 0 warns, once, when two ranks
// of a node use one GPU (the same PCI bus id, however each numbers it) and
// no MPS control daemon's pipe is in $CUDA_MPS_PIPE_DIRECTORY (default
// /tmp/nvidia-mps; a daemon that died leaving it is not told apart).
// Collective; nothing on a host build.
void warn_if_ranks_share_a_gpu(const comm::Communicator& c);

}  // namespace tra::app
