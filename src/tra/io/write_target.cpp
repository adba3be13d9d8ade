#include "tra/io/write_target.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "tra/common/error.hpp"

namespace tra::io {
namespace {

// What a non-regular file is, in words.
std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

[[noreturn]] void refuse(const std::string& what, const std::string& path, const std::string& why) {
  throw UserError(what + " " + path + ": " + why);
}

}  // namespace

std::string write_target(const std::string& path, const std::string& what) {
  struct stat own {};
  // Nothing there yet, or the way there fails (a folder missing or looping,
  // a name too long: lstat does not follow the last part, so the fault is a
  // folder's): nothing to replace, and the folder checks
  // (hdf5::check_writable) say what is wrong.
  if (lstat(path.c_str(), &own) != 0) return path;
  if (S_ISREG(own.st_mode)) return path;
  const std::string rule = "; results are written under a temporary name and renamed into place, which would replace it. Give a regular file's name";
  if (!S_ISLNK(own.st_mode)) refuse(what, path, "is " + kind_of(own.st_mode) + rule);
  struct stat target {};
  if (stat(path.c_str(), &target) != 0)
    refuse(what, path,
           errno == ENOENT ? "is a symbolic link to a missing file"
                           : std::string("is a symbolic link that cannot be followed: ") + std::strerror(errno));
  if (!S_ISREG(target.st_mode)) refuse(what, path, "is a symbolic link to " + kind_of(target.st_mode) + rule);
  std::error_code ec;
  const std::filesystem::path resolved = std::filesystem::canonical(path, ec);
  if (ec) refuse(what, path, "is a symbolic link that cannot be resolved: " + ec.message());
  return resolved.string();
}

}  // namespace tra::io
