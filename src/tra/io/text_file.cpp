#include "tra/io/text_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "tra/common/error.hpp"
#include "tra/io/temporary_name.hpp"
#include "tra/io/write_target.hpp"

namespace tra::io {

void write_text_file(const std::string& given, const std::string& text, const std::string& what) {
  const std::string path = write_target(given, what);  // through a link; never over a device or a FIFO
  const std::string tmp = temporary_name(path, unique_suffix());
  {
    errno = 0;
    std::ofstream out(tmp);
    if (!out)
      throw UserError(SourceLoc{path, 0, 0},
                      "cannot write " + what + (errno ? ": " + std::string(std::strerror(errno)) : std::string(" (does its folder exist?)")));
    out << text;
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      throw UserError(SourceLoc{path, 0, 0}, "cannot write " + what + " (disk full?)");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw UserError(SourceLoc{path, 0, 0}, "cannot rename '" + tmp + "' into place: " + ec.message());
  }
}

}  // namespace tra::io
