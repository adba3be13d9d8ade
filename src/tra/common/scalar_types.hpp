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

// Scalar is the float64 element type (ChunkData's); a float32 chunk holds
// ElementData<float> beside it (core/chunk.hpp), chosen at run time by the
// relation's DType, not by changing Scalar.
static_assert(std::is_same_v<Scalar, double>, "Scalar names the float64 element type; float32 is a DType (common/dtype.hpp)");

inline MPI_Datatype mpi_scalar() { return ElementTypes<Scalar>::mpi(); }
inline hid_t hdf5_scalar() { return ElementTypes<Scalar>::hdf5(); }

}  // namespace tra
