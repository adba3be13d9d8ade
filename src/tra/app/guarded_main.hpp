#pragma once
// The drivers' shared ending: Kokkos up, the body run, and every error mapped
// to the exit status the drivers promise: 0 ok, 2 user error (printed once, by
// rank 0), 1 internal error (printed by the rank that hit it; all ranks are
// stopped, so nothing hangs).
#include <mpi.h>
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>

#include <functional>
#include <iostream>
#include <string>

#include "tra/common/error.hpp"
#include "tra/io/hdf5/handle.hpp"

namespace tra::app {

// Parses the command line; on a bad option or --help, rank 0 prints and every
// rank gets the exit status to return (0 for --help, 2 for a bad option),
// after MPI_Finalize. Returns -1 when the drivers should go on.
inline int parse_command_line(CLI::App& app, int argc, char** argv, int rank) {
  try {
    app.parse(argc, argv);
    return -1;
  } catch (const CLI::ParseError& e) {
    const int code = rank == 0 ? app.exit(e) : e.get_exit_code();
    MPI_Finalize();
    return code == 0 ? 0 : 2;
  }
}

inline int run_guarded(const std::string& program, int& argc, char** argv, int rank, const std::function<void()>& body) {
  int status = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    io::hdf5::silence_errors();
    try {
      body();
    } catch (const UserError& e) {
      if (rank == 0) std::cerr << program << ": error: " << e.what() << std::endl;
      status = 2;
    } catch (const std::exception& e) {
      std::cerr << program << ": internal error on rank " << rank << ": " << e.what() << std::endl;
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  return status;
}

}  // namespace tra::app
