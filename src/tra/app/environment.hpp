#pragma once
// The environment variables that change how tra-run and tra-calibrate run
// (docs/deck.md#environment-variables): each rank reads its own at start,
// before any work, and a bad value on any rank stops every rank with one
// message, even where mpirun passed it to only some of them.
#include "tra/comm/chunk_transport.hpp"

namespace tra::app {

// TRA_GPU_AWARE_MPI (comm/chunk_transport.hpp) and TRA_ELEMENT_PROGRAMS
// (kernels/element_evaluators.hpp; ranks that read different valid values
// still compute the same bits). Collective; returns how chunks reach MPI.
comm::ChunkTransport agree_on_environment(const comm::Communicator& c);

}  // namespace tra::app
