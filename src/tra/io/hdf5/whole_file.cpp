#include "tra/io/hdf5/whole_file.hpp"

#include <filesystem>

#include "tra/common/error.hpp"
#include "tra/io/hdf5/handle.hpp"

namespace tra::io::hdf5 {

WholeFile::WholeFile(const std::string& path) : path_(path), id_(H5I_INVALID_HID) {
  // A symlink loop or a name too long is the user's to fix, said in words.
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) throw UserError("'" + path + "': " + ec.message());
  if (!std::filesystem::exists(status)) throw UserError("'" + path + "' does not exist");
  if (std::filesystem::is_directory(status)) throw UserError("'" + path + "' is a folder, not an HDF5 file");
  if (H5Fis_hdf5(path.c_str()) <= 0) throw UserError("'" + path + "' is not an HDF5 file");
  id_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (id_ < 0) throw UserError("cannot open HDF5 file '" + path + "'");
}

WholeFile::~WholeFile() {
  if (id_ >= 0) H5Fclose(static_cast<hid_t>(id_));
}

std::optional<std::string> WholeFile::attribute(const std::string& name) const {
  const hid_t f = static_cast<hid_t>(id_);
  if (H5Aexists(f, name.c_str()) <= 0) return std::nullopt;
  Attribute a(H5Aopen(f, name.c_str(), H5P_DEFAULT));
  Datatype ty(H5Aget_type(a.get()));
  if (!a.valid() || H5Tget_class(ty.get()) != H5T_STRING || H5Tis_variable_str(ty.get()) > 0)
    throw UserError("'" + path_ + "': attribute " + name + " is not a fixed-length string");
  std::string value(H5Tget_size(ty.get()), '\0');
  if (H5Aread(a.get(), ty.get(), value.data()) < 0) throw UserError("'" + path_ + "': cannot read attribute " + name);
  value.resize(value.find('\0') == std::string::npos ? value.size() : value.find('\0'));
  return value;
}

bool WholeFile::has_dataset(const std::string& dataset) const {
  const hid_t f = static_cast<hid_t>(id_);
  return H5Lexists(f, dataset.c_str(), H5P_DEFAULT) > 0 && H5Oexists_by_name(f, dataset.c_str(), H5P_DEFAULT) > 0;
}

Shape WholeFile::shape(const std::string& dataset) const {
  Dataset d(H5Dopen2(static_cast<hid_t>(id_), dataset.c_str(), H5P_DEFAULT));
  if (!d.valid()) throw UserError("'" + path_ + "': no dataset " + dataset);
  Dataspace sp(H5Dget_space(d.get()));
  const int rank = H5Sget_simple_extent_ndims(sp.get());
  std::vector<hsize_t> dims(static_cast<size_t>(std::max(rank, 0)));
  if (rank > 0) H5Sget_simple_extent_dims(sp.get(), dims.data(), nullptr);
  return Shape(dims.begin(), dims.end());
}

std::vector<Scalar> WholeFile::values(const std::string& dataset) const {
  Dataset d(H5Dopen2(static_cast<hid_t>(id_), dataset.c_str(), H5P_DEFAULT));
  if (!d.valid()) throw UserError("'" + path_ + "': no dataset " + dataset);
  std::vector<Scalar> out(static_cast<size_t>(volume(shape(dataset))));
  if (H5Dread(d.get(), hdf5_scalar(), H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
    throw UserError("'" + path_ + "': cannot read dataset " + dataset);
  return out;
}

}  // namespace tra::io::hdf5
