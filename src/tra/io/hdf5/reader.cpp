#include "tra/io/hdf5/reader.hpp"

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "tra/common/error.hpp"
#include "tra/io/hdf5/dataset_extents.hpp"
#include "tra/io/hdf5/handle.hpp"

namespace tra::io::hdf5 {

namespace {

// "[3, 5]": the dataset position of element `flat` of a chunk read at `start`.
std::string position(const std::vector<hsize_t>& start, const std::vector<hsize_t>& count, size_t flat) {
  std::vector<hsize_t> at(start.size());
  for (size_t i = start.size(); i-- > 0;) {
    at[i] = start[i] + flat % count[i];
    flat /= count[i];
  }
  std::string text;
  for (size_t i = 0; i < at.size(); ++i) text += (i ? ", " : "") + std::to_string(at[i]);
  return "[" + text + "]";
}

// An integer dataset's values (read as 64-bit integers) as doubles, each
// exact in `dtype`: every integer of magnitude up to 2^53 is a double, up to
// 2^24 a float; beyond, HDF5's conversion would round it without a word,
// so such a value is refused.
template <typename Int>
void exact_integers(const std::vector<Int>& in, std::vector<double>& out, DType dtype, const Hdf5Source& src, const std::vector<hsize_t>& start,
                    const std::vector<hsize_t>& count) {
  const int bits = dtype == DType::Float32 ? 24 : 53;
  const std::uint64_t limit = std::uint64_t{1} << bits;
  for (size_t i = 0; i < in.size(); ++i) {
    const Int v = in[i];
    std::uint64_t magnitude = static_cast<std::uint64_t>(v);
    if constexpr (std::is_signed_v<Int>)
      if (v < 0) magnitude = std::uint64_t{0} - static_cast<std::uint64_t>(v);
    if (magnitude > limit)
      throw UserError("dataset '" + src.dataset + "' of '" + src.file + "' holds the integer " + std::to_string(v) + " at " +
                      position(start, count, i) + ", which " + dtype_name(dtype) + " cannot hold exactly (integers are exact up to 2^" +
                      std::to_string(bits) + " = " + std::to_string(limit) + "); store the data as floats" +
                      (dtype == DType::Float32 ? ", or run in float64" : ""));
    out[i] = static_cast<double>(v);
  }
}

// A float dataset's values in float32: a finite value beyond float's range
// would turn into an infinity, so it is refused as an integer too large is.
void check_float_range(const std::vector<double>& values, const Hdf5Source& src, const std::vector<hsize_t>& start,
                       const std::vector<hsize_t>& count) {
  for (size_t i = 0; i < values.size(); ++i)
    if (std::isfinite(values[i]) && std::isinf(to_float(values[i]))) {
      std::ostringstream v;
      v << values[i];
      throw UserError("dataset '" + src.dataset + "' of '" + src.file + "' holds " + v.str() + " at " + position(start, count, i) +
                      ", beyond float32's range (3.4e38): it would be an infinity; scale the data, or run in float64");
    }
}

}  // namespace

void validate_source(const TensorDecl& t, const Hdf5Source& src) {
  const std::string what = "tensor '" + t.name + "': ";
  const Shape have = dataset_extents(t, src);
  const Shape want = t.source_shape();
  const int rank = static_cast<int>(have.size());
  if (rank != static_cast<int>(want.size()))
    throw UserError(t.loc, what + "dataset '" + src.dataset + "' has rank " + std::to_string(rank) + " (shape " + shape_string(have) +
                               ") but the deck declares rank " + std::to_string(want.size()) + " (shape " + shape_string(want) + ")");
  if (!src.start.empty()) {
    // A selection: [start, start + shape) must lie inside the dataset.
    for (size_t i = 0; i < have.size(); ++i)
      if (want[i] > have[i] || src.start[i] > have[i] - want[i])  // (no sum: a start near 2^63 would wrap it)
        throw UserError(t.loc, what + "select start " + shape_string(src.start) + " with shape " + shape_string(want) + " reaches past dataset '" +
                                   src.dataset + "' of shape " + shape_string(have) + " (dimension " + std::to_string(i) + ")");
    return;
  }
  if (have != want)
    throw UserError(t.loc, what + "dataset '" + src.dataset + "' has shape " + shape_string(have) + " but the deck declares " + shape_string(want));
}

std::vector<Tuple> read_chunks(const comm::Communicator& c, const Hdf5Source& src, const Shape& chunk_shape, const std::vector<Key>& keys,
                               const Shape& origin, DType dtype) {
  PropList fapl(TRA_H5_COLLECTIVE(H5Pcreate(H5P_FILE_ACCESS)));
  TRA_H5_COLLECTIVE(H5Pset_fapl_mpio(fapl.get(), c.get(), MPI_INFO_NULL));
  // The file was checked when the run was planned; one that fails to open
  // now was changed since (replaced mid-run by a truncated copy, removed):
  // the user's data, not TRA's. The ranks compare how far they got: when
  // all failed alike they unwind alike (the caller agrees on the error);
  // when only some did (the file replaced between their opens), what they
  // hold open cannot be closed without the others, and all are stopped.
  std::string failure;
  const auto failed = [&](const std::string& what) {
    const std::string why = hdf5_reason();
    failure = "cannot " + what + " '" + src.file + "' (changed since the run began?)" + (why.empty() ? std::string() : ": " + why);
  };
  File f(H5Fopen(src.file.c_str(), H5F_ACC_RDONLY, fapl.get()));
  Dataset d;
  Dataspace file_space;
  if (!f.valid()) {
    failed("open HDF5 file");
  } else if (d = Dataset(H5Dopen2(f.get(), src.dataset.c_str(), H5P_DEFAULT)); !d.valid()) {
    failed("open dataset '" + src.dataset + "' of");
  } else if (file_space = Dataspace(H5Dget_space(d.get())); !file_space.valid()) {
    failed("read the extents of dataset '" + src.dataset + "' of");
  }
  std::vector<double> outcome{failure.empty() ? 0.0 : 1.0, failure.empty() ? -0.0 : -1.0};  // max failed, -(min failed)
  c.max(outcome);
  if (outcome[0] != -outcome[1]) abort_collective("H5Fopen/H5Dopen2 (the file opened on some ranks only)", __FILE__, __LINE__);
  if (!failure.empty()) throw UserError(failure);
  // A rank with nothing to read only takes part in the collective open and
  // close (the close when `f` goes out of scope); no buffer is made for it.
  if (keys.empty()) return {};
  const int rank = static_cast<int>(chunk_shape.size());
  std::vector<hsize_t> count(chunk_shape.begin(), chunk_shape.end());
  Dataspace mem_space(TRA_H5_COLLECTIVE(H5Screate_simple(rank, count.data(), nullptr)));
  std::vector<Tuple> out;
  std::vector<double> buffer(static_cast<size_t>(volume(chunk_shape)));
  // Integers are read as such and checked (exact_integers); floats as
  // doubles, rounded to float after for float32.
  const Datatype stored(H5Dget_type(d.get()));
  const bool integers = H5Tget_class(stored.get()) == H5T_INTEGER;
  const bool is_unsigned = integers && H5Tget_sign(stored.get()) == H5T_SGN_NONE;
  std::vector<long long> signed_values(integers && !is_unsigned ? buffer.size() : 0);
  std::vector<unsigned long long> unsigned_values(is_unsigned ? buffer.size() : 0);
  const hid_t in_memory = !integers ? H5T_NATIVE_DOUBLE : is_unsigned ? H5T_NATIVE_ULLONG : H5T_NATIVE_LLONG;
  void* const read_into = !integers     ? static_cast<void*>(buffer.data())
                          : is_unsigned ? static_cast<void*>(unsigned_values.data())
                                        : static_cast<void*>(signed_values.data());
  // Independent reads: ranks own different numbers of chunks. A read that
  // fails (a corrupted chunk, a checksum) is the user's data: reported with
  // the file and dataset once the file is closed (collectively, by every
  // rank, on the way out), and agreed with the other ranks by the caller.
  for (const Key& k : keys) {
    std::vector<hsize_t> start(static_cast<size_t>(rank));
    for (int i = 0; i < rank; ++i)
      start[i] = static_cast<hsize_t>((src.start.empty() ? 0 : src.start[i]) + (origin.empty() ? 0 : origin[i]) + k[i] * chunk_shape[i]);
    TRA_H5_COLLECTIVE(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr));
    if (H5Dread(d.get(), in_memory, mem_space.get(), file_space.get(), H5P_DEFAULT, read_into) < 0) {
      std::string at;
      for (int i = 0; i < rank; ++i) at += (i ? ", " : "") + std::to_string(start[i]);
      const std::string why = hdf5_reason();
      throw UserError("cannot read dataset '" + src.dataset + "' of '" + src.file + "' at [" + at +
                      "]: " + (why.empty() ? "HDF5 could not read it" : why));
    }
    if (is_unsigned) exact_integers(unsigned_values, buffer, dtype, src, start, count);
    else if (integers) exact_integers(signed_values, buffer, dtype, src, start, count);
    else if (dtype == DType::Float32) check_float_range(buffer, src, start, count);
    out.push_back({k, Chunk::from_host(chunk_shape, buffer, dtype)});
  }
  return out;
}

}  // namespace tra::io::hdf5
