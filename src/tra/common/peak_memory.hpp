#pragma once
// The process's peak resident memory so far (getrusage's ru_maxrss): what a
// run needed on its rank, reported beside the plan's figures and compared
// with other tools' in perf/train.
#include <cstdint>

namespace tra {

std::int64_t peak_resident_bytes();

}  // namespace tra
