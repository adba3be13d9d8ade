// Calibration files: a save/load round trip, defaults for missing rates, and
// every kind of mistake reported as "FILE:LINE:COLUMN: what was expected".
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "tra/common/error.hpp"
#include "tra/common/timer.hpp"
#include "tra/physical/calibration.hpp"

using tra::physical::load_rates;
using tra::physical::Rates;
using tra::physical::save_rates;

namespace {

namespace fs = std::filesystem;

// A fresh folder per test, removed afterwards.
class TraCalibration : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tra-calibration-test-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) const {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }

  // The message of the UserError that loading `text` raises.
  std::string error_of(const std::string& text) const {
    const std::string path = write("bad.yaml", text);
    try {
      load_rates(path);
    } catch (const tra::UserError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no error for:\n" << text;
    return "";
  }

  std::string at(int line, int column) const {
    return (dir_ / "bad.yaml").string() + ":" + std::to_string(line) + ":" + std::to_string(column) + ": ";
  }

  fs::path dir_;
};

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

void expect_same_rates(const Rates& a, const Rates& b) {
  EXPECT_EQ(a.gemm_flops, b.gemm_flops);
  EXPECT_EQ(a.gemm_flops_float32, b.gemm_flops_float32);
  EXPECT_EQ(a.loop_flops, b.loop_flops);
  EXPECT_EQ(a.memory_bytes, b.memory_bytes);
  EXPECT_EQ(a.sparse_bytes, b.sparse_bytes);
  EXPECT_EQ(a.shuffle_bytes, b.shuffle_bytes);
  EXPECT_EQ(a.bcast_bytes, b.bcast_bytes);
  EXPECT_EQ(a.generate_floats, b.generate_floats);
  EXPECT_EQ(a.generate_normal_floats, b.generate_normal_floats);
  EXPECT_EQ(a.hdf5_read_bytes, b.hdf5_read_bytes);
  EXPECT_EQ(a.latency, b.latency);
  EXPECT_EQ(a.call_seconds, b.call_seconds);
  EXPECT_EQ(a.operator_seconds, b.operator_seconds);
  EXPECT_EQ(a.open_seconds, b.open_seconds);
}

}  // namespace

TEST_F(TraCalibration, SaveLoadRoundTrip) {
  Rates r;
  r.gemm_flops = 6.1e10;
  r.gemm_flops_float32 = 1.25e11;
  r.loop_flops = 1.0 / 3.0 * 1e9;  // no short decimal form: must still read back exactly
  r.memory_bytes = 1.25e10;
  r.shuffle_bytes = 2.5e9;
  r.bcast_bytes = 1.75e9;
  r.generate_floats = 123456789;
  r.generate_normal_floats = 2.5e7;
  r.hdf5_read_bytes = 3.2e9;
  r.latency = 4.2e-6;
  r.call_seconds = 4.8e-7;
  r.operator_seconds = 1.1e-6;
  r.open_seconds = 2.2e-4;
  r.origin = "tra-calibrate, 2025-01-31 14:05, 2 ranks, testhost";
  const std::string path = (dir_ / "rates.yaml").string();
  save_rates(r, path);

  const Rates back = load_rates(path);
  expect_same_rates(back, r);
  EXPECT_EQ(back.origin, path);

  std::ifstream in(path);
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, "# tra-calibrate, 2025-01-31 14:05, 2 ranks, testhost");
  // Written under a temporary name and renamed: nothing else is left behind.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);

  // Saving over an existing file replaces it.
  r.gemm_flops = 7e10;
  save_rates(r, path);
  EXPECT_EQ(load_rates(path).gemm_flops, 7e10);
}

TEST_F(TraCalibration, MissingRatesKeepDefaults) {
  const std::string path = write("some.yaml", "# hand-written\nrates:\n  gemm_flops: 1.5e11\n  latency: 3e-6\n");
  const Rates r = load_rates(path);
  EXPECT_EQ(r.gemm_flops, 1.5e11);
  EXPECT_EQ(r.latency, 3e-6);
  Rates expected;
  expected.gemm_flops = 1.5e11;
  expected.latency = 3e-6;
  expect_same_rates(r, expected);
  EXPECT_EQ(r.origin, path);

  // An empty 'rates' mapping is the defaults.
  expect_same_rates(load_rates(write("empty.yaml", "rates: {}\n")), Rates{});
}

TEST_F(TraCalibration, UnknownRate) {
  const std::string e = error_of("# tra-calibrate\nrates:\n  gemm_flops: 6e10\n  gemm_flop: 6e10\n");
  EXPECT_TRUE(starts_with(e, at(4, 3) + "unknown rate 'gemm_flop'")) << e;
  EXPECT_NE(e.find("expected one of: gemm_flops, gemm_flops_float32, loop_flops"), std::string::npos) << e;
}

TEST_F(TraCalibration, UnknownTopLevelKey) {
  const std::string e = error_of("rates:\n  latency: 1e-5\noptimizer: greedy\n");
  EXPECT_TRUE(starts_with(e, at(3, 1) + "unknown key 'optimizer'")) << e;
}

TEST_F(TraCalibration, NegativeOrZeroRate) {
  std::string e = error_of("rates:\n  gemm_flops: 6e10\n  latency: -2e-5\n");
  EXPECT_TRUE(starts_with(e, at(3, 12) + "rate 'latency' must be a positive number")) << e;
  e = error_of("rates:\n  bcast_bytes: 0\n");
  EXPECT_TRUE(starts_with(e, at(2, 16) + "rate 'bcast_bytes' must be a positive number")) << e;
  // A fixed cost may be none at all, never below it.
  e = error_of("rates:\n  open_seconds: -1e-4\n");
  EXPECT_TRUE(starts_with(e, at(2, 17) + "rate 'open_seconds' must be a number of 0 or more")) << e;
  const Rates zero = load_rates(write("zero.yaml", "rates:\n  call_seconds: 0\n  operator_seconds: 0\n  open_seconds: 2e-4\n"));
  EXPECT_EQ(zero.call_seconds, 0);
  EXPECT_EQ(zero.operator_seconds, 0);
  EXPECT_EQ(zero.open_seconds, 2e-4);
}

TEST_F(TraCalibration, NotANumber) {
  std::string e = error_of("rates:\n  loop_flops: fast\n");
  EXPECT_TRUE(starts_with(e, at(2, 15) + "rate 'loop_flops' must be a positive number")) << e;
  EXPECT_NE(e.find("found 'fast'"), std::string::npos) << e;
  e = error_of("rates:\n  loop_flops: 1.5e9x\n");
  EXPECT_TRUE(starts_with(e, at(2, 15))) << e;
  e = error_of("rates:\n  loop_flops: .inf\n");
  EXPECT_TRUE(starts_with(e, at(2, 15))) << e;
  e = error_of("rates:\n  loop_flops: [1, 2]\n");
  EXPECT_TRUE(starts_with(e, at(2, 15))) << e;
  e = error_of("rates:\n  hdf5_read_bytes:\n");  // no value: the key is named
  EXPECT_TRUE(starts_with(e, at(2, 3) + "rate 'hdf5_read_bytes' must be a positive number")) << e;
  EXPECT_NE(e.find("found nothing"), std::string::npos) << e;
}

TEST_F(TraCalibration, NotACalibrationFile) {
  std::string e = error_of("tensors: []\n");  // a deck, say
  EXPECT_TRUE(starts_with(e, at(1, 1) + "unknown key 'tensors'")) << e;
  e = error_of("just text\n");
  EXPECT_TRUE(starts_with(e, at(1, 1))) << e;
  e = error_of("rates: [1, 2]\n");
  EXPECT_TRUE(starts_with(e, at(1, 8))) << e;
  e = error_of("rates:\n  gemm_flops: [1\n");
  EXPECT_TRUE(starts_with(e, (dir_ / "bad.yaml").string() + ":")) << e;
  EXPECT_NE(e.find("YAML syntax error"), std::string::npos) << e;
}

TEST_F(TraCalibration, MissingFile) {
  const std::string path = (dir_ / "nowhere.yaml").string();
  try {
    load_rates(path);
    ADD_FAILURE() << "no error for a missing file";
  } catch (const tra::UserError& e) {
    EXPECT_TRUE(starts_with(e.what(), path + ": cannot read")) << e.what();
  }
}

TEST_F(TraCalibration, SaveIntoMissingFolder) { EXPECT_THROW(save_rates(Rates{}, (dir_ / "no" / "such" / "rates.yaml").string()), tra::UserError); }
