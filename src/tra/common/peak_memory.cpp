#include "tra/common/peak_memory.hpp"

#include <sys/resource.h>

namespace tra {

std::int64_t peak_resident_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<std::int64_t>(u.ru_maxrss) * 1024;  // Linux reports KiB
}

}  // namespace tra
