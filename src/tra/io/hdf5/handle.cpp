#include "tra/io/hdf5/handle.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>

namespace tra::io::hdf5 {

void silence_errors() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

std::string hdf5_reason() {
  std::string reason;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* e, void* out) -> herr_t {
        if (n == 0 && e->desc) *static_cast<std::string*>(out) = e->desc;
        return 0;
      },
      &reason);
  return reason;
}

void abort_collective(const char* call, const char* file, int line) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr, "tra-run: internal error on rank %d: HDF5 call %s failed at %s:%d during collective file access\n", rank, call, file, line);
  H5Eprint2(H5E_DEFAULT, stderr);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

}  // namespace tra::io::hdf5
