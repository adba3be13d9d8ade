#pragma once
// Small reads of a whole file by one process, without MPI-IO: a training
// checkpoint's attributes and tensors, which every rank reads in full (they
// are the parameters and optimizer state a run resumes from). Failures are
// UserErrors naming the file and what was looked for.
#include <optional>
#include <string>
#include <vector>

#include "tra/common/scalar_types.hpp"
#include "tra/core/key.hpp"

namespace tra::io::hdf5 {

class WholeFile {
 public:
  // Throws UserError when `path` is missing or not HDF5.
  explicit WholeFile(const std::string& path);
  ~WholeFile();
  WholeFile(const WholeFile&) = delete;
  WholeFile& operator=(const WholeFile&) = delete;

  // The file's string attribute `name`; none when it has no such attribute.
  std::optional<std::string> attribute(const std::string& name) const;
  bool has_dataset(const std::string& dataset) const;
  Shape shape(const std::string& dataset) const;
  // Row-major values, converted to Scalar.
  std::vector<Scalar> values(const std::string& dataset) const;

 private:
  std::string path_;
  long long id_;  // hid_t
};

}  // namespace tra::io::hdf5
