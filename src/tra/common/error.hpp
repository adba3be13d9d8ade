#pragma once
// Error kinds of TRA.
//
//  * UserError: the user's deck, data or options are wrong. It carries where
//    (file:line:column, or the offending option) and what was expected. The
//    driver prints it once, on rank 0, and exits with status 2.
//  * InternalError: an invariant of TRA itself broke (TRA_ASSERT). Exit 1.
//
// MPI and HDF5 return codes are always checked through TRA_MPI_CHECK and
// TRA_H5_CHECK, which turn a code into text naming the call that failed.
#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tra {

// A place in a user's file: 1-based line and column as editors show them.
struct SourceLoc {
  SourceLoc() = default;
  // (two arguments at least: a plain string never turns into a place)
  SourceLoc(std::string file_, int line_, int column_ = 0, std::vector<int> offsets_ = {})
      : file(std::move(file_)), line(line_), column(column_), offsets(std::move(offsets_)) {}
  std::string file;
  int line = 0;
  int column = 0;
  // For a value whose text differs from what the deck shows ($n replaced
  // by its value): per character of the text, its offset in the deck from
  // `column` (one past the last for the end). Empty: the texts are alike.
  std::vector<int> offsets;
  bool known() const { return line > 0; }
  std::string str() const;  // "deck.yaml:3:7" or "deck.yaml" when the line is unknown
  // `chars` characters into the value's text.
  SourceLoc shifted(int chars) const {
    if (offsets.empty() || chars < 0) return SourceLoc(file, line, column + chars);
    return SourceLoc(file, line, column + offsets[std::min(static_cast<size_t>(chars), offsets.size() - 1)]);
  }
};

class UserError : public std::runtime_error {
 public:
  UserError(const SourceLoc& where, const std::string& what);
  explicit UserError(const std::string& what) : std::runtime_error(what) {}
};

class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void fail_assert(const char* cond, const char* file, int line, const std::string& msg);
[[noreturn]] void fail_mpi(int code, const char* call, const char* file, int line);
[[noreturn]] void fail_h5(const char* call, const char* file, int line);

}  // namespace tra

#define TRA_ASSERT(cond, msg)                                              \
  do {                                                                     \
    if (!(cond)) {                                                         \
      std::ostringstream tra_assert_os_;                                   \
      tra_assert_os_ << msg;                                               \
      ::tra::fail_assert(#cond, __FILE__, __LINE__, tra_assert_os_.str()); \
    }                                                                      \
  } while (0)

#define TRA_MPI_CHECK(call)                                                                  \
  do {                                                                                       \
    int tra_mpi_rc_ = (call);                                                                \
    if (tra_mpi_rc_ != MPI_SUCCESS) ::tra::fail_mpi(tra_mpi_rc_, #call, __FILE__, __LINE__); \
  } while (0)

// HDF5 calls return a negative value (herr_t or hid_t) on failure.
#define TRA_H5_CHECK(call)                                         \
  ([&]() {                                                         \
    auto tra_h5_rc_ = (call);                                      \
    if (tra_h5_rc_ < 0) ::tra::fail_h5(#call, __FILE__, __LINE__); \
    return tra_h5_rc_;                                             \
  }())
