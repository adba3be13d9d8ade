#include "tra/exec/operator_progress.hpp"

#include <cstdio>

#include "tra/common/log.hpp"

namespace tra::exec {

void OperatorProgress::tick() {
  const size_t done = done_++;
  if (Log::rank != 0) return;
  const double t = clock_.seconds();
  if (t < next_) return;
  next_ = t + every_;
  char line[64];
  std::snprintf(line, sizeof line, ", %.1f s", t);
  Log::progress("  " + label_ + ": " + std::to_string(done) + " of " + std::to_string(total_) + " kernel calls on rank 0" + line);
}

}  // namespace tra::exec
