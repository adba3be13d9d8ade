// Sparse blocks read from HDF5 coordinate lists: each rank's blocks hold
// exactly the entries of the lists that fall in them (in any order in the
// file, rebased to the block), and bad lists are refused with their places:
// an entry outside the tensor, two at one place, lists of different lengths,
// float coordinates.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <unistd.h>

#include <array>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "tra/comm/communicator.hpp"
#include "tra/common/error.hpp"
#include "tra/io/hdf5/coordinates.hpp"

namespace tra::io::hdf5 {
namespace {

struct Lists {
  std::vector<long long> rows, cols;
  std::vector<double> values;
};

// Rank 0 writes `lists` as /r, /c, /v (and /fc: the columns as floats), and
// /short: one entry fewer, to a file of its own.
std::string write_file(const comm::Communicator& c, const Lists& l, const std::string& tag) {
  const std::string name = c.broadcast("/tmp/tra_test_coordinates_" + tag + "_" + std::to_string(::getpid()) + ".h5");
  if (c.rank() == 0) {
    const hid_t f = H5Fcreate(name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const auto put = [&](const char* path, hid_t stored, hid_t memory, const void* data, hsize_t n) {
      const hid_t space = H5Screate_simple(1, &n, nullptr);
      const hid_t d = H5Dcreate2(f, path, stored, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      H5Dwrite(d, memory, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
      H5Dclose(d), H5Sclose(space);
    };
    const hsize_t n = l.rows.size();
    put("r", H5T_STD_I64LE, H5T_NATIVE_LLONG, l.rows.data(), n);
    put("c", H5T_STD_I32LE, H5T_NATIVE_LLONG, l.cols.data(), n);
    put("v", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, l.values.data(), n);
    const std::vector<double> float_cols(l.cols.begin(), l.cols.end());
    put("fc", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, float_cols.data(), n);
    put("short", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, l.values.data(), n - 1);
    H5Fclose(f);
  }
  c.barrier();
  return name;
}

// A 6 x 8 tensor with 2 x 4 blocks (frontier 3 x 2), entries out of order.
Lists some_entries() {
  Lists l;
  const std::vector<std::array<long long, 2>> at = {{5, 7}, {0, 0}, {3, 2}, {0, 5}, {2, 3}, {4, 4}, {1, 1}, {3, 6}, {5, 0}};
  for (size_t i = 0; i < at.size(); ++i) {
    l.rows.push_back(at[i][0]);
    l.cols.push_back(at[i][1]);
    l.values.push_back(0.5 + static_cast<double>(i));
  }
  return l;
}

std::string refusal(const CoordinateLists& src, const Shape& shape = {6, 8}) {
  try {
    read_sparse_blocks(src, shape, {2, 4}, {{0, 0}, {1, 0}});
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(Hdf5Coordinates, EachBlockHoldsTheEntriesThatFallInIt) {
  comm::Communicator c;
  const Lists l = some_entries();
  const std::string file = write_file(c, l, "good");
  const CoordinateLists src{file, "/r", "/c", "/v"};
  EXPECT_EQ(coordinate_count(src), 9);
  // Rank r reads the blocks of row r of the frontier (and rank 0 also row 2, when 2 ranks).
  std::vector<Key> mine;
  for (Index i = c.rank(); i < 3; i += c.size())
    for (Index j = 0; j < 2; ++j) mine.push_back({i, j});
  for (DType t : {DType::Float64, DType::Float32}) {
    const std::vector<SparseBlock> blocks = read_sparse_blocks(src, {6, 8}, {2, 4}, mine, t);
    ASSERT_EQ(blocks.size(), mine.size());
    for (size_t b = 0; b < mine.size(); ++b) {
      std::map<std::pair<Index, Index>, double> want;
      for (size_t i = 0; i < l.rows.size(); ++i)
        if (l.rows[i] / 2 == mine[b][0] && l.cols[i] / 4 == mine[b][1]) want[{l.rows[i] % 2, l.cols[i] % 4}] = l.values[i];
      std::map<std::pair<Index, Index>, double> got;
      for (const SparseEntry& e : blocks[b].entries()) got[{e.row, e.col}] = e.value;
      EXPECT_EQ(got, want) << "block " << to_string(mine[b]);
      EXPECT_EQ(blocks[b].dtype(), t);
      EXPECT_EQ(blocks[b].rows(), 2);
      EXPECT_EQ(blocks[b].cols(), 4);
    }
  }
  c.barrier();
  if (c.rank() == 0) std::remove(file.c_str());
}

TEST(Hdf5Coordinates, BadListsAreRefusedWithTheirPlaces) {
  comm::Communicator c;
  Lists outside = some_entries();
  outside.cols[4] = 8;  // (2, 8) in a 6 x 8 tensor
  const std::string far = write_file(c, outside, "outside");
  EXPECT_EQ(refusal({far, "/r", "/c", "/v"}), "entry 4 of the coordinate lists of '" + far + "' is at (2, 8), outside the tensor's [6, 8]");
  Lists twice = some_entries();
  twice.rows.push_back(3), twice.cols.push_back(2), twice.values.push_back(9.0);  // entry 9 again at (3, 2), as entry 2
  const std::string dup = write_file(c, twice, "twice");
  EXPECT_EQ(refusal({dup, "/r", "/c", "/v"}),
            "entries 2 and 9 of the coordinate lists of '" + dup +
                "' are both at (3, 2); a sparse tensor holds one entry per place (sum duplicates before writing them)");
  // ... found only by a rank that reads that block: not by one reading block (0, 1) alone.
  EXPECT_NO_THROW(read_sparse_blocks({dup, "/r", "/c", "/v"}, {6, 8}, {2, 4}, {{0, 1}}));
  EXPECT_EQ(refusal({dup, "/r", "/c", "/short"}), "the coordinate lists of '" + dup + "' differ in length: /r 10, /c 10, /short 9");
  EXPECT_EQ(refusal({dup, "/r", "/fc", "/v"}), "dataset '/fc' of '" + dup + "' (the columns) holds floats; coordinates are integers");
  EXPECT_EQ(refusal({dup, "/r", "/nope", "/v"}), "no dataset '/nope' in '" + dup + "' (the columns)");
  c.barrier();
  if (c.rank() == 0) std::remove(far.c_str()), std::remove(dup.c_str());
}

// An index list /c (one entry per row: entry i at (i, c[i]), value 1) read
// in batches of 4 rows: batch k holds entries 4k ... 4k + 3, rebased to row
// 0, and nothing else of the list; a column outside the tensor is refused
// with its place, and so are a batch past the list's end and an index
// stored as floats.
TEST(Hdf5Coordinates, AnIndexListIsItsOneHotRowsAndReadsOnlyItsBatch) {
  comm::Communicator c;
  const Lists l = some_entries();  // /c: 9 columns in 0 ... 7
  const std::string file = write_file(c, l, "index");
  const CoordinateLists index{file, "", "/c", ""};
  ASSERT_TRUE(index.index_list());
  EXPECT_EQ(coordinate_count(index), 9);
  for (Index first : {0, 4}) {
    const std::vector<SparseBlock> blocks = read_sparse_blocks(index, {4, 8}, {2, 4}, {{0, 0}, {0, 1}, {1, 0}, {1, 1}}, DType::Float64, first);
    std::map<std::pair<Index, Index>, double> got, want;
    for (Index r = 0; r < 4; ++r) want[{r, l.cols[static_cast<size_t>(first + r)]}] = 1.0;
    const std::vector<Key> keys = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};
    for (size_t b = 0; b < keys.size(); ++b)
      for (const SparseEntry& e : blocks[b].entries()) got[{keys[b][0] * 2 + e.row, keys[b][1] * 4 + e.col}] = e.value;
    EXPECT_EQ(got, want) << "the batch from row " << first;
  }
  const std::string refused = [&] {
    try {
      read_sparse_blocks(index, {4, 6}, {2, 3}, {{0, 0}}, DType::Float64, 4);  // entries 4 ... 7: columns 3, 4, 1, 6
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string();
  }();
  EXPECT_EQ(refused, "entry 7 of the index '/c' of '" + file + "' is 6, outside the tensor's 6 columns (0 to 5)");
  // A batch past the list's end (a file shortened after the deck was read): refused, not read as empty rows.
  const std::string short_list = [&] {
    try {
      read_sparse_blocks(index, {4, 8}, {2, 4}, {{0, 0}}, DType::Float64, 8);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string();
  }();
  EXPECT_EQ(short_list,
            "the index '/c' of '" + file + "' holds 9 entries, but the tensor reads entries 8 to 11 (was the file changed since the deck was read?)");
  EXPECT_EQ(refusal({file, "", "/fc", ""}), "dataset '/fc' of '" + file + "' (the index) holds floats; an index holds integers");
  c.barrier();
  if (c.rank() == 0) std::remove(file.c_str());
}

}  // namespace
}  // namespace tra::io::hdf5
