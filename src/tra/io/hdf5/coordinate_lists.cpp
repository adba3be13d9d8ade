#include "tra/io/hdf5/coordinate_lists.hpp"

#include <filesystem>
#include <tuple>

#include "tra/common/error.hpp"

namespace tra::io::hdf5 {

namespace {

File open_file(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) throw UserError("HDF5 file '" + path + "': " + ec.message());
  if (!std::filesystem::exists(status)) throw UserError("HDF5 file '" + path + "' does not exist");
  if (H5Fis_hdf5(path.c_str()) <= 0) throw UserError("'" + path + "' is not an HDF5 file");
  File f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!f.valid()) throw UserError("cannot open HDF5 file '" + path + "'");
  return f;
}

// A 1-D dataset of the lists, its length, and whether it holds integers.
struct List {
  Dataset d;
  hsize_t length = 0;
  bool integers = false;
};

List open_list(const File& f, const CoordinateLists& src, const std::string& path, const char* role) {
  const std::string what = "dataset '" + path + "' of '" + src.file + "' (the " + role + ")";
  if (H5Lexists(f.get(), path.c_str(), H5P_DEFAULT) <= 0 || H5Oexists_by_name(f.get(), path.c_str(), H5P_DEFAULT) <= 0)
    throw UserError("no dataset '" + path + "' in '" + src.file + "' (the " + role + ")");
  List l;
  l.d = Dataset(H5Dopen2(f.get(), path.c_str(), H5P_DEFAULT));
  if (!l.d.valid()) throw UserError(what + " is not a dataset");
  const Datatype ty(H5Dget_type(l.d.get()));
  const H5T_class_t cls = H5Tget_class(ty.get());
  if (cls != H5T_INTEGER && cls != H5T_FLOAT) throw UserError(what + " holds neither floats nor integers");
  l.integers = cls == H5T_INTEGER;
  const Dataspace sp(H5Dget_space(l.d.get()));
  if (H5Sget_simple_extent_ndims(sp.get()) != 1) throw UserError(what + " is not a 1-D list");
  H5Sget_simple_extent_dims(sp.get(), &l.length, nullptr);
  return l;
}

// Entries [from, from + n) of dataset `d` into `out`, as `type`.
template <typename T>
void read_piece(const Dataset& d, hid_t type, hsize_t from, hsize_t n, std::vector<T>& out, const CoordinateLists& src, const std::string& path) {
  out.resize(n);
  const Dataspace file_space(H5Dget_space(d.get()));
  const Dataspace mem_space(H5Screate_simple(1, &n, nullptr));
  H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &from, nullptr, &n, nullptr);
  if (H5Dread(d.get(), type, mem_space.get(), file_space.get(), H5P_DEFAULT, out.data()) < 0) {
    const std::string why = hdf5_reason();
    throw UserError("cannot read dataset '" + path + "' of '" + src.file + "' at entry " + std::to_string(from) + ": " +
                    (why.empty() ? "HDF5 could not read it" : why));
  }
}

}  // namespace

OpenCoordinateLists::OpenCoordinateLists(const CoordinateLists& src) : src_(src), file_(open_file(src.file)) {
  if (src.index_list()) {
    List index = open_list(file_, src, src.cols, "index");
    if (!index.integers) throw UserError("dataset '" + src.cols + "' of '" + src.file + "' (the index) holds floats; an index holds integers");
    length_ = index.length;
    cols_ = std::move(index.d);
    return;
  }
  List rows = open_list(file_, src, src.rows, "rows"), cols = open_list(file_, src, src.cols, "columns"),
       values = open_list(file_, src, src.values, "values");
  for (const auto& [list, path, role] : {std::tuple{&rows, &src.rows, "rows"}, std::tuple{&cols, &src.cols, "columns"}})
    if (!list->integers) throw UserError("dataset '" + *path + "' of '" + src.file + "' (the " + role + ") holds floats; coordinates are integers");
  if (cols.length != rows.length || values.length != rows.length)
    throw UserError("the coordinate lists of '" + src.file + "' differ in length: " + src.rows + " " + std::to_string(rows.length) + ", " + src.cols +
                    " " + std::to_string(cols.length) + ", " + src.values + " " + std::to_string(values.length));
  length_ = rows.length;
  rows_ = std::move(rows.d);
  cols_ = std::move(cols.d);
  values_ = std::move(values.d);
}

void OpenCoordinateLists::read_places(hsize_t from, hsize_t n, std::vector<long long>& rows, std::vector<long long>& cols) const {
  read_piece(cols_, H5T_NATIVE_LLONG, from, n, cols, src_, src_.cols);
  if (!src_.index_list()) {
    read_piece(rows_, H5T_NATIVE_LLONG, from, n, rows, src_, src_.rows);
    return;
  }
  rows.resize(n);
  for (hsize_t i = 0; i < n; ++i) rows[i] = static_cast<long long>(from + i);
}

void OpenCoordinateLists::read(hsize_t from, hsize_t n, std::vector<long long>& rows, std::vector<long long>& cols,
                               std::vector<double>& values) const {
  read_places(from, n, rows, cols);
  if (src_.index_list()) values.assign(n, 1.0);
  else read_piece(values_, H5T_NATIVE_DOUBLE, from, n, values, src_, src_.values);
}

Index coordinate_count(const CoordinateLists& src) { return static_cast<Index>(OpenCoordinateLists(src).length()); }

}  // namespace tra::io::hdf5
