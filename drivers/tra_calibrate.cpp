// tra-calibrate: measure the machine rates that tra-run's cost model turns into
// time estimates (docs/calibration.md), and write them to a YAML file.
//
// Run it under mpirun with the rank count tra-run will use: the per-site rates
// include the contention of all ranks working at once.
//
// Exit status: 0 ok, 2 user error (printed once, by rank 0), 1 internal error.
#include <mpi.h>
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>

#include <cstdio>
#include <iostream>

#include "tra/app/environment.hpp"
#include "tra/app/guarded_main.hpp"
#include "tra/app/measure_rates.hpp"
#include "tra/common/build_info.hpp"
#include "tra/common/error.hpp"
#include "tra/common/log.hpp"
#include "tra/common/timer.hpp"
#include "tra/io/hdf5/handle.hpp"
#include "tra/io/hdf5/writer.hpp"
#include "tra/io/mpi_io_layer.hpp"
#include "tra/kernels/sparse_product.hpp"
#include "tra/physical/calibration.hpp"

namespace {

// Runs `f` on rank 0 only. A UserError there is raised on every rank, so that
// all ranks stop alike; only rank 0's text is printed.
template <class F>
void on_rank0(const tra::comm::Communicator& c, F&& f) {
  std::string message;
  if (c.rank() == 0) {
    try {
      f();
    } catch (const tra::UserError& e) {
      message = e.what();
    }
  }
  int failed = message.empty() ? 0 : 1;
  TRA_MPI_CHECK(MPI_Bcast(&failed, 1, MPI_INT, 0, c.get()));
  if (failed) throw tra::UserError(message);
}

void print_table(const tra::physical::Rates& r, int ranks, double seconds, const std::string& file) {
  const bool moved = ranks > 1;  // else the network rates are the defaults
  struct Row {
    const char* name;
    double value;
    const char* unit;
    bool measured;
  };
  const Row rows[] = {
      {"gemm_flops", r.gemm_flops, "flop/s per site, KokkosBlas::gemm, n = 1024", true},
      {"gemm_flops_float32", r.gemm_flops_float32, "flop/s per site, KokkosBlas::gemm on floats, n = 1024", true},
      {"memory_bytes", r.memory_bytes, "bytes/s per site a GEMM reads and writes beside its flops", true},
      {"loop_flops", r.loop_flops, "flop/s per site, Kokkos loop (x * 2 + 1)", true},
      {"sparse_bytes", r.sparse_bytes, "bytes/s per site a sparse product reads of its dense operand", tra::kernels::sparse_product_built()},
      {"shuffle_bytes", r.shuffle_bytes, "bytes/s a site sends, MPI_Alltoallv", moved},
      {"bcast_bytes", r.bcast_bytes, "bytes/s a site receives, MPI_Allgatherv", moved},
      {"generate_floats", r.generate_floats, "floats/s per site, uniform() generator", true},
      {"generate_normal_floats", r.generate_normal_floats, "floats/s per site, normal() generator", true},
      {"hdf5_read_bytes", r.hdf5_read_bytes, "bytes/s per site, HDF5 read", true},
      {"latency", r.latency, "seconds per collective call", true},
      {"call_seconds", r.call_seconds, "seconds per kernel call on a chunk, beside its work", true},
      {"operator_seconds", r.operator_seconds, "seconds per operator that calls kernels, beside its calls", true},
      {"open_seconds", r.open_seconds, "seconds per HDF5 file a Scan opens", true},
  };
  std::printf("tra-calibrate: measured on %d rank%s in %.1f s\n", ranks, ranks == 1 ? "" : "s", seconds);
  for (const Row& row : rows)
    std::printf("  %-22s %10.3g   %s%s\n", row.name, row.value, row.unit, row.measured ? "" : " (default, not measured here)");
  std::printf("tra-calibrate: wrote %s; use it with: tra-run --calibration %s DECK\n", file.c_str(), file.c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  tra::io::prefer_mpi_io_without_helper_files();  // tra-run's MPI-IO layer: its reads and opens are the ones measured
  // Under Slurm both streams go to one file: whole lines, so that a progress
  // line on stderr never lands inside a report line on stdout.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  tra::Log::rank = rank;

  std::string output = "tra-calibration.yaml";
  CLI::App app{"tra-calibrate: measure this machine's rates (GEMM, loops, MPI, generators, HDF5) for tra-run's cost model"};
  app.add_option("-o,--output", output, "the calibration file to write (default: tra-calibration.yaml)");
  app.set_version_flag("--version", tra::version_line("tra-calibrate"), "print the version and the git commit, and exit");
  if (const int code = tra::app::parse_command_line(app, argc, argv, rank); code >= 0) return code;

  const int status = tra::app::run_guarded("tra-calibrate", argc, argv, rank, [&] {
    tra::comm::Communicator comm(MPI_COMM_WORLD);
    tra::app::agree_on_environment(comm);  // a bad TRA_GPU_AWARE_MPI or TRA_ELEMENT_PROGRAMS is refused before anything is measured
    // Before a few seconds of measuring, not after.
    on_rank0(comm, [&] { tra::io::hdf5::check_writable(output); });
    tra::Stopwatch sw;
    const tra::physical::Rates rates = tra::app::measure_rates(comm);
    const double seconds = sw.seconds();
    on_rank0(comm, [&] {
      tra::physical::save_rates(rates, output);
      print_table(rates, comm.size(), seconds, output);
    });
  });
  MPI_Finalize();
  return status;
}
