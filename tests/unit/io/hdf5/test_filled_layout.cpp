// A sparse tensor's filled lines counted from its coordinate lists: for every
// grid of power-of-two cuts dividing it, each block's rows and columns
// holding an entry, against a count by sets of (row, column) places.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <unistd.h>

#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tra/io/hdf5/filled_layout.hpp"

namespace tra::io::hdf5 {
namespace {

// /r and /c of a file of its own.
std::string write_lists(const std::vector<long long>& rows, const std::vector<long long>& cols) {
  const std::string name = "/tmp/tra_test_filled_layout_" + std::to_string(::getpid()) + ".h5";
  const hid_t f = H5Fcreate(name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const auto put = [&](const char* path, const std::vector<long long>& data) {
    const hsize_t n = data.size();
    const hid_t space = H5Screate_simple(1, &n, nullptr);
    const hid_t d = H5Dcreate2(f, path, H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data());
    H5Dclose(d), H5Sclose(space);
  };
  put("r", rows);
  put("c", cols);
  const std::vector<long long> ones(rows.size(), 1);
  put("v", ones);
  H5Fclose(f);
  return name;
}

TEST(FilledLayout, EachBlockCountsTheRowsAndColumnsHoldingAnEntry) {
  // 64 rows (cut 1 to 64 ways) by 48 columns (1 to 16 ways: 48 = 16 x 3),
  // entries skewed towards low rows, one twice, one outside the tensor.
  const Shape shape{64, 48};
  std::mt19937_64 rng(7);
  std::vector<long long> rows, cols;
  for (int i = 0; i < 300; ++i) {
    rows.push_back(static_cast<long long>(rng() % 64) * static_cast<long long>(rng() % 64) / 64);
    cols.push_back(static_cast<long long>(rng() % 48));
  }
  rows.push_back(rows[0]), cols.push_back(cols[0]);
  rows.push_back(70), cols.push_back(3);
  const std::string file = write_lists(rows, cols);
  const FilledLayout layout = filled_layout({file, "/r", "/c", "/v"}, shape);
  std::remove(file.c_str());

  int grids = 0;
  for (Index a = 1; a <= 64; a *= 2)
    for (Index b = 1; b <= 16; b *= 2) {
      const FilledByBlock* blocks = layout.find({a, b});
      ASSERT_NE(blocks, nullptr) << a << " x " << b;
      ++grids;
      const Index br = 64 / a, bc = 48 / b;
      for (Index i = 0; i < a; ++i)
        for (Index j = 0; j < b; ++j) {
          std::set<long long> filled_rows, filled_cols;
          for (size_t e = 0; e + 1 < rows.size(); ++e)
            if (rows[e] / br == i && cols[e] / bc == j) filled_rows.insert(rows[e]), filled_cols.insert(cols[e]);
          const FilledLines& got = blocks->at({i, j});
          EXPECT_EQ(got.rows, static_cast<Index>(filled_rows.size())) << "block " << i << "," << j << " of " << a << " x " << b;
          EXPECT_EQ(got.cols, static_cast<Index>(filled_cols.size())) << "block " << i << "," << j << " of " << a << " x " << b;
        }
    }
  EXPECT_EQ(grids, 7 * 5);
  EXPECT_EQ(layout.by_grid.size(), 7u * 5u);  // and no grid that does not divide the tensor
  EXPECT_EQ(layout.find({1, 32}), nullptr);
}

}  // namespace
}  // namespace tra::io::hdf5
