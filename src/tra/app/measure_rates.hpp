#pragma once
// tra-calibrate's micro-benchmarks: the machine rates the cost model's time
// estimate uses (physical/calibration.hpp keeps them, reads and writes the
// file). They run the engine's own kernels, generators, HDF5 reader and
// collectives, so they live above all of them.
#include "tra/comm/communicator.hpp"
#include "tra/physical/calibration.hpp"

namespace tra::app {

// Measures every rate on the ranks of `c` (collective; about a second). Each
// rate is the slowest rank's; with one rank the two network rates keep their
// defaults. Writes and removes a temporary HDF5 file in the current folder.
physical::Rates measure_rates(const comm::Communicator& c);

}  // namespace tra::app
