#include "tra/io/hdf5/coordinates.hpp"

#include <algorithm>
#include <filesystem>
#include <unordered_map>

#include "tra/common/error.hpp"
#include "tra/io/hdf5/handle.hpp"

namespace tra::io::hdf5 {

namespace {

// Entries read per piece: 24 MiB of buffers, whatever the lists' length.
constexpr hsize_t kPiece = hsize_t{1} << 20;

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

// The three lists, checked against each other.
struct Lists {
  List rows, cols, values;
};

Lists open_lists(const File& f, const CoordinateLists& src) {
  Lists l{open_list(f, src, src.rows, "rows"), open_list(f, src, src.cols, "columns"), open_list(f, src, src.values, "values")};
  for (const auto& [list, path, role] : {std::tuple{&l.rows, &src.rows, "rows"}, std::tuple{&l.cols, &src.cols, "columns"}})
    if (!list->integers) throw UserError("dataset '" + *path + "' of '" + src.file + "' (the " + role + ") holds floats; coordinates are integers");
  if (l.cols.length != l.rows.length || l.values.length != l.rows.length)
    throw UserError("the coordinate lists of '" + src.file + "' differ in length: " + src.rows + " " + std::to_string(l.rows.length) + ", " +
                    src.cols + " " + std::to_string(l.cols.length) + ", " + src.values + " " + std::to_string(l.values.length));
  return l;
}

// Entries [from, from + n) of `list` into `out`, as T.
template <typename T>
void read_piece(const List& list, hid_t type, hsize_t from, hsize_t n, std::vector<T>& out, const CoordinateLists& src, const std::string& path) {
  out.resize(n);
  const Dataspace file_space(H5Dget_space(list.d.get()));
  const Dataspace mem_space(H5Screate_simple(1, &n, nullptr));
  H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &from, nullptr, &n, nullptr);
  if (H5Dread(list.d.get(), type, mem_space.get(), file_space.get(), H5P_DEFAULT, out.data()) < 0) {
    const std::string why = hdf5_reason();
    throw UserError("cannot read dataset '" + path + "' of '" + src.file + "' at entry " + std::to_string(from) + ": " +
                    (why.empty() ? "HDF5 could not read it" : why));
  }
}

}  // namespace

Index coordinate_count(const CoordinateLists& src) {
  const File f = open_file(src.file);
  return static_cast<Index>(open_lists(f, src).rows.length);
}

std::vector<SparseBlock> read_sparse_blocks(const CoordinateLists& src, const Shape& tensor_shape, const Shape& block, const std::vector<Key>& keys,
                                            DType dtype) {
  TRA_ASSERT(tensor_shape.size() == 2 && block.size() == 2 && tensor_shape[0] % block[0] == 0 && tensor_shape[1] % block[1] == 0,
             "sparse blocks of " << shape_string(block) << " for a tensor of " << shape_string(tensor_shape));
  const Index block_cols = tensor_shape[1] / block[1];
  std::unordered_map<Index, size_t> slot;  // linearized block key -> index in keys
  for (size_t i = 0; i < keys.size(); ++i) slot[keys[i][0] * block_cols + keys[i][1]] = i;
  // Each block's entries, with their places in the lists (for a duplicate's message).
  std::vector<std::vector<SparseEntry>> entries(keys.size());
  std::vector<std::vector<hsize_t>> places(keys.size());
  const File f = open_file(src.file);
  const Lists lists = open_lists(f, src);
  std::vector<long long> rows, cols;
  std::vector<double> values;
  for (hsize_t from = 0; from < lists.rows.length; from += kPiece) {
    const hsize_t n = std::min(kPiece, lists.rows.length - from);
    read_piece(lists.rows, H5T_NATIVE_LLONG, from, n, rows, src, src.rows);
    read_piece(lists.cols, H5T_NATIVE_LLONG, from, n, cols, src, src.cols);
    read_piece(lists.values, H5T_NATIVE_DOUBLE, from, n, values, src, src.values);
    for (hsize_t i = 0; i < n; ++i) {
      const long long r = rows[i], c = cols[i];
      if (r < 0 || r >= tensor_shape[0] || c < 0 || c >= tensor_shape[1])
        throw UserError("entry " + std::to_string(from + i) + " of the coordinate lists of '" + src.file + "' is at (" + std::to_string(r) + ", " +
                        std::to_string(c) + "), outside the tensor's " + shape_string(tensor_shape));
      const auto it = slot.find((r / block[0]) * block_cols + c / block[1]);
      if (it == slot.end()) continue;
      entries[it->second].push_back({r % block[0], c % block[1], values[i]});
      places[it->second].push_back(from + i);
    }
  }
  std::vector<SparseBlock> out;
  out.reserve(keys.size());
  for (size_t b = 0; b < keys.size(); ++b) {
    // Ordered by place in the block, then by place in the lists: a duplicate is a neighbour.
    std::vector<size_t> order(entries[b].size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    const auto& e = entries[b];
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
      return e[x].row != e[y].row ? e[x].row < e[y].row : e[x].col != e[y].col ? e[x].col < e[y].col : x < y;
    });
    for (size_t i = 1; i < order.size(); ++i)
      if (e[order[i]].row == e[order[i - 1]].row && e[order[i]].col == e[order[i - 1]].col)
        throw UserError("entries " + std::to_string(places[b][order[i - 1]]) + " and " + std::to_string(places[b][order[i]]) +
                        " of the coordinate lists of '" + src.file + "' are both at (" + std::to_string(keys[b][0] * block[0] + e[order[i]].row) +
                        ", " + std::to_string(keys[b][1] * block[1] + e[order[i]].col) +
                        "); a sparse tensor holds one entry per place (sum duplicates before writing them)");
    out.push_back(SparseBlock::from_entries(block[0], block[1], std::move(entries[b]), dtype));
  }
  return out;
}

}  // namespace tra::io::hdf5
