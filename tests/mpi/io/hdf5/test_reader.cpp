// Chunks read from HDF5 as float32: a float64 dataset's values rounded to
// float once, an integer dataset's exactly, each chunk where its key says;
// as float64, every bit of the file's doubles. An integer the run's type
// cannot hold exactly is refused, naming where it is.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "tra/comm/communicator.hpp"
#include "tra/common/error.hpp"
#include "tra/io/hdf5/reader.hpp"

namespace tra::io::hdf5 {
namespace {

// Rank 0 writes a 4 x 6 float64 dataset /x (value 0.1 + row + col / 8), an
// int32 dataset /n (value 1000 * row + col), and int64 /big, all 0 but
// -(2^24) at [0, 1], 2^24 + 1 at [2, 4] and 2^53 + 1 at [3, 5], and float64
// /huge, all 1 but 1e39 at [3, 2], to a file of its own.
std::string write_file(const comm::Communicator& c) {
  const std::string path = "/tmp/tra_test_reader_" + std::to_string(::getpid()) + ".h5";
  std::string name = c.broadcast(path);
  if (c.rank() == 0) {
    const hid_t f = H5Fcreate(name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hsize_t dims[2] = {4, 6};
    const hid_t space = H5Screate_simple(2, dims, nullptr);
    std::vector<double> x(24);
    std::vector<int> n(24);
    for (int r = 0; r < 4; ++r)
      for (int k = 0; k < 6; ++k) x[static_cast<size_t>(r * 6 + k)] = 0.1 + r + k / 8.0, n[static_cast<size_t>(r * 6 + k)] = 1000 * r + k;
    const hid_t dx = H5Dcreate2(f, "x", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(dx, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x.data());
    const hid_t dn = H5Dcreate2(f, "n", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(dn, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, n.data());
    std::vector<long long> big(24, 0);
    big[1] = -(1LL << 24), big[2 * 6 + 4] = (1LL << 24) + 1, big[3 * 6 + 5] = (1LL << 53) + 1;
    const hid_t db = H5Dcreate2(f, "big", H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(db, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, big.data());
    std::vector<double> huge(24, 1.0);
    huge[3 * 6 + 2] = 1e39;
    const hid_t dh = H5Dcreate2(f, "huge", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(dh, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, huge.data());
    H5Dclose(dx), H5Dclose(dn), H5Dclose(db), H5Dclose(dh), H5Sclose(space), H5Fclose(f);
  }
  c.barrier();
  return name;
}

TEST(Hdf5Reader, ChunksReadAsFloat32AreTheFileValuesRoundedOnce) {
  comm::Communicator c;
  const std::string file = write_file(c);
  const std::vector<Key> keys = {{0, 1}, {1, 0}};  // 2 x 3 chunks: rows 0-1 cols 3-5, rows 2-3 cols 0-2
  for (DType t : {DType::Float64, DType::Float32}) {
    const std::vector<Tuple> x = read_chunks(c, model::Hdf5Source{file, "x", {}}, {2, 3}, keys, {}, t);
    const std::vector<Tuple> n = read_chunks(c, model::Hdf5Source{file, "n", {}}, {2, 3}, keys, {}, t);
    ASSERT_EQ(x.size(), 2u);
    for (size_t i = 0; i < keys.size(); ++i) {
      EXPECT_EQ(x[i].chunk.dtype, t);
      const std::vector<double> xv = x[i].chunk.to_host(), nv = n[i].chunk.to_host();
      for (Index r = 0; r < 2; ++r)
        for (Index k = 0; k < 3; ++k) {
          const Index row = keys[i][0] * 2 + r, col = keys[i][1] * 3 + k;
          const double want = 0.1 + static_cast<double>(row) + static_cast<double>(col) / 8.0;
          EXPECT_EQ(xv[static_cast<size_t>(r * 3 + k)], t == DType::Float32 ? static_cast<double>(static_cast<float>(want)) : want);
          EXPECT_EQ(nv[static_cast<size_t>(r * 3 + k)], static_cast<double>(1000 * row + col));
        }
    }
  }
  c.barrier();
  if (c.rank() == 0) std::remove(file.c_str());
}

// The message of the read of `dataset`'s chunk `key` (2 x 3 chunks) in `t`, "" when it reads.
std::string refusal(const comm::Communicator& c, const std::string& file, const Key& key, DType t, const std::string& dataset = "big") {
  try {
    read_chunks(c, model::Hdf5Source{file, dataset, {}}, {2, 3}, {key}, {}, t);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(Hdf5Reader, AValueTheTypeCannotHoldIsRefusedWithItsPlace) {
  comm::Communicator c;
  const std::string file = write_file(c);
  // -(2^24) is a float: read exactly.
  const std::vector<Tuple> small = read_chunks(c, model::Hdf5Source{file, "big", {}}, {2, 3}, {{0, 0}}, {}, DType::Float32);
  EXPECT_EQ(small.at(0).chunk.to_host().at(1), -16777216.0);
  EXPECT_EQ(refusal(c, file, {0, 0}, DType::Float32), "");
  EXPECT_EQ(refusal(c, file, {1, 1}, DType::Float32),
            "dataset 'big' of '" + file +
                "' holds the integer 16777217 at [2, 4], which float32 cannot hold exactly (integers are exact up to 2^24 = 16777216); store the "
                "data as floats, or run in float64");
  EXPECT_EQ(refusal(c, file, {1, 1}, DType::Float64),
            "dataset 'big' of '" + file +
                "' holds the integer 9007199254740993 at [3, 5], which float64 cannot hold exactly (integers are exact up to 2^53 = "
                "9007199254740992); store the data as floats");
  // A float beyond float32's range would be an infinity: refused in float32, read in float64.
  EXPECT_EQ(refusal(c, file, {1, 0}, DType::Float32, "huge"),
            "dataset 'huge' of '" + file +
                "' holds 1e+39 at [3, 2], beyond float32's range (3.4e38): it would be an infinity; scale the data, or run in float64");
  EXPECT_EQ(refusal(c, file, {1, 0}, DType::Float64, "huge"), "");
  c.barrier();
  if (c.rank() == 0) std::remove(file.c_str());
}

}  // namespace
}  // namespace tra::io::hdf5
