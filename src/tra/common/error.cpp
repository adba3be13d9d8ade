#include "tra/common/error.hpp"

#include <mpi.h>

namespace tra {

std::string SourceLoc::str() const {
  std::ostringstream os;
  os << (file.empty() ? "<input>" : file);
  if (line > 0) os << ':' << line << ':' << column;
  return os.str();
}

UserError::UserError(const SourceLoc& where, const std::string& what) : std::runtime_error(where.str() + ": " + what) {}

void fail_assert(const char* cond, const char* file, int line, const std::string& msg) {
  std::ostringstream os;
  os << "internal error at " << file << ':' << line << ": " << msg << " (failed: " << cond << ')';
  throw InternalError(os.str());
}

void fail_mpi(int code, const char* call, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  std::ostringstream os;
  os << "MPI call " << call << " failed at " << file << ':' << line << ": " << std::string(text, static_cast<size_t>(len));
  throw InternalError(os.str());
}

void fail_h5(const char* call, const char* file, int line) {
  std::ostringstream os;
  os << "HDF5 call " << call << " failed at " << file << ':' << line;
  throw InternalError(os.str());
}

}  // namespace tra
