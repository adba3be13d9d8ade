#include "tra/io/temporary_name.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

namespace tra::io {

std::string unique_suffix() {
  static int count = 0;
  const auto ns = std::chrono::steady_clock::now().time_since_epoch().count() ^ std::chrono::system_clock::now().time_since_epoch().count();
  char text[64];
  std::snprintf(text, sizeof text, "%ld-%llx-%d", static_cast<long>(getpid()), static_cast<unsigned long long>(ns), count++);
  return text;
}

std::string temporary_name(const std::string& path, const std::string& suffix) {
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  return (dir / (".tra.tmp-" + suffix)).string();
}

}  // namespace tra::io
