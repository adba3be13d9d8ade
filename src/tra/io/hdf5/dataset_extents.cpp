#include "tra/io/hdf5/dataset_extents.hpp"

#include <algorithm>
#include <filesystem>

#include "tra/io/hdf5/handle.hpp"

namespace tra::io::hdf5 {

using model::Hdf5Source;
using model::TensorDecl;

namespace {

// Every filter of the dataset can be decoded here: a dataset compressed
// with a plugin this HDF5 lacks (Blosc, LZ4 ...) fails only when read.
void check_filters(hid_t dataset, const TensorDecl& t, const Hdf5Source& src) {
  PropList dcpl(H5Dget_create_plist(dataset));
  const int n = dcpl.valid() ? H5Pget_nfilters(dcpl.get()) : 0;
  for (int i = 0; i < n; ++i) {
    unsigned flags = 0;
    size_t nvalues = 0;
    char name[256] = {};
    const H5Z_filter_t id = H5Pget_filter2(dcpl.get(), static_cast<unsigned>(i), &flags, &nvalues, nullptr, sizeof(name), name, nullptr);
    if (id >= 0 && H5Zfilter_avail(id) <= 0)
      throw UserError(t.loc, "tensor '" + t.name + "': dataset '" + src.dataset + "' in '" + src.file + "' is compressed with filter " +
                                 std::to_string(id) + (name[0] ? " (" + std::string(name) + ")" : std::string()) +
                                 ", which this HDF5 library cannot decode; write it uncompressed or with gzip");
  }
}

}  // namespace

Shape dataset_extents(const TensorDecl& t, const Hdf5Source& src) {
  const std::string what = "tensor '" + t.name + "': ";
  std::error_code ec;
  const auto status = std::filesystem::status(src.file, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)
    throw UserError(t.loc, what + "HDF5 file '" + src.file + "': " + ec.message());  // a symlink loop, a name too long
  if (!std::filesystem::exists(status)) throw UserError(t.loc, what + "HDF5 file '" + src.file + "' does not exist");
  if (H5Fis_hdf5(src.file.c_str()) <= 0) throw UserError(t.loc, what + "'" + src.file + "' is not an HDF5 file");
  File f(H5Fopen(src.file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!f.valid()) throw UserError(t.loc, what + "cannot open HDF5 file '" + src.file + "'");
  if (H5Lexists(f.get(), src.dataset.c_str(), H5P_DEFAULT) <= 0 || H5Oexists_by_name(f.get(), src.dataset.c_str(), H5P_DEFAULT) <= 0)
    throw UserError(t.loc, what + "no dataset '" + src.dataset + "' in '" + src.file + "'");
  Dataset d(H5Dopen2(f.get(), src.dataset.c_str(), H5P_DEFAULT));
  if (!d.valid()) throw UserError(t.loc, what + "'" + src.dataset + "' in '" + src.file + "' is not a dataset");
  check_filters(d.get(), t, src);
  Datatype ty(H5Dget_type(d.get()));
  const H5T_class_t cls = H5Tget_class(ty.get());
  if (cls != H5T_FLOAT && cls != H5T_INTEGER) throw UserError(t.loc, what + "dataset '" + src.dataset + "' holds neither floats nor integers");
  Dataspace sp(H5Dget_space(d.get()));
  const int rank = H5Sget_simple_extent_ndims(sp.get());
  std::vector<hsize_t> dims(static_cast<size_t>(std::max(rank, 0)));
  if (rank > 0) H5Sget_simple_extent_dims(sp.get(), dims.data(), nullptr);
  if (rank == 0)
    throw UserError(t.loc, what + "dataset '" + src.dataset + "' in '" + src.file +
                               "' is a single value (a scalar dataspace); a tensor is read from "
                               "an array, so write it with shape [1]");
  if (std::find(dims.begin(), dims.end(), hsize_t{0}) != dims.end())
    throw UserError(t.loc, what + "dataset '" + src.dataset + "' in '" + src.file + "' is empty (shape " +
                               shape_string(Shape(dims.begin(), dims.end())) + "); a tensor needs at least one element");
  return Shape(dims.begin(), dims.end());
}

}  // namespace tra::io::hdf5
