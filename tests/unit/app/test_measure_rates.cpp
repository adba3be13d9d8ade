// tra-calibrate's measurements, checked only for sane values (their numbers
// depend on the machine), and that what they measured saves and loads back.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "tra/app/measure_rates.hpp"
#include "tra/common/timer.hpp"

namespace {

namespace fs = std::filesystem;

// Collective over every rank of the test run; a couple of seconds.
TEST(MeasureRates, MeasuredRatesAreSaneAndReadBack) {
  tra::comm::Communicator c(MPI_COMM_WORLD);
  tra::Stopwatch sw;
  const tra::physical::Rates r = tra::app::measure_rates(c);
  const double seconds = sw.seconds();
  for (double v : {r.gemm_flops, r.loop_flops, r.shuffle_bytes, r.bcast_bytes, r.generate_floats, r.hdf5_read_bytes, r.latency}) {
    EXPECT_TRUE(std::isfinite(v));
    EXPECT_GT(v, 0);
  }
  EXPECT_EQ(r.origin.rfind("tra-calibrate, ", 0), 0u) << r.origin;
  EXPECT_LT(seconds, 10) << "measure_rates should take a few seconds";
  // Its temporary HDF5 file is gone.
  for (const auto& entry : fs::directory_iterator(fs::current_path()))
    EXPECT_EQ(entry.path().filename().string().rfind(".tra-calibrate-", 0), std::string::npos) << entry.path();
  // What it measured saves and loads back exactly.
  const fs::path dir = fs::temp_directory_path() / ("tra-measure-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "measured.yaml").string();
  tra::physical::save_rates(r, path);
  const tra::physical::Rates back = tra::physical::load_rates(path);
  EXPECT_EQ(back.gemm_flops, r.gemm_flops);
  EXPECT_EQ(back.loop_flops, r.loop_flops);
  EXPECT_EQ(back.shuffle_bytes, r.shuffle_bytes);
  EXPECT_EQ(back.bcast_bytes, r.bcast_bytes);
  EXPECT_EQ(back.generate_floats, r.generate_floats);
  EXPECT_EQ(back.hdf5_read_bytes, r.hdf5_read_bytes);
  EXPECT_EQ(back.latency, r.latency);
  fs::remove_all(dir);
}

}  // namespace
