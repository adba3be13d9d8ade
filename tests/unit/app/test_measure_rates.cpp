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
  for (double v : {r.gemm_flops, r.gemm_flops_float32, r.loop_flops, r.memory_bytes, r.sparse_bytes, r.shuffle_bytes, r.bcast_bytes,
                   r.generate_floats, r.generate_normal_floats, r.hdf5_read_bytes, r.latency}) {
    EXPECT_TRUE(std::isfinite(v));
    EXPECT_GT(v, 0);
  }
  EXPECT_EQ(r.origin.rfind("tra-calibrate, ", 0), 0u) << r.origin;
  // 3-4 s on the reference VM alone; the bound leaves room for a loaded CI machine.
  EXPECT_LT(seconds, 30) << "measure_rates should take seconds, not minutes";
  // Its temporary HDF5 file is gone.
  for (const auto& entry : fs::directory_iterator(fs::current_path()))
    EXPECT_EQ(entry.path().filename().string().rfind(".tra-calibrate-", 0), std::string::npos) << entry.path();
  // What it measured saves and loads back exactly.
  const fs::path dir = fs::temp_directory_path() / ("tra-measure-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "measured.yaml").string();
  tra::physical::save_rates(r, path);
  EXPECT_TRUE(tra::physical::same_rates(tra::physical::load_rates(path), r));
  fs::remove_all(dir);
}

}  // namespace
