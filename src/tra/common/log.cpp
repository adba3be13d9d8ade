#include "tra/common/log.hpp"

namespace tra {
int Log::rank = 0;
bool Log::verbose = false;
}  // namespace tra
