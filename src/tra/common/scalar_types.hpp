#pragma once
// The one place that maps the chunk element type (Scalar, kokkos_types.hpp)
// to the element types of MPI and HDF5, so that a chunk sent, received,
// written or read is always read back as what it is.
#include <hdf5.h>
#include <mpi.h>

#include <type_traits>

#include "tra/common/kokkos_types.hpp"

namespace tra {

template <class T>
struct ElementTypes;

template <>
struct ElementTypes<double> {
  static MPI_Datatype mpi() { return MPI_DOUBLE; }
  static hid_t hdf5() { return H5T_NATIVE_DOUBLE; }
};

template <>
struct ElementTypes<float> {
  static MPI_Datatype mpi() { return MPI_FLOAT; }
  static hid_t hdf5() { return H5T_NATIVE_FLOAT; }
};

// Until float chunks are carried through (generators, kernels' tolerances and
// the tests' references all assume double), a float Scalar does not build.
static_assert(std::is_same_v<Scalar, double>, "TRA computes in double; float chunks are not supported yet");

inline MPI_Datatype mpi_scalar() { return ElementTypes<Scalar>::mpi(); }
inline hid_t hdf5_scalar() { return ElementTypes<Scalar>::hdf5(); }

}  // namespace tra
