// One GoogleTest main for every suite, serial or MPI (the kokkos-comm habit):
// MPI and Kokkos are initialised once, every rank runs every test, only rank 0
// prints GoogleTest's output, and a failure on any rank fails the run on all.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include "tra/io/hdf5/handle.hpp"
#include "tra/physical/verify.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int failed = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    tra::io::hdf5::silence_errors();
    tra::physical::set_verifying(true);  // every plan the tests optimize is checked after each phase
    ::testing::InitGoogleTest(&argc, argv);
    if (rank != 0) {
      auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
      delete listeners.Release(listeners.default_result_printer());
    }
    failed = RUN_ALL_TESTS();
    if (failed && rank != 0) std::fprintf(stderr, "rank %d: tests failed\n", rank);
  }
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}
