# Finds every dependency and exposes them as the interface targets tra::kokkos,
# tra::mpi, tra::hdf5, tra::yaml and tra::cli.
#
# Kokkos comes in two shapes:
#  * an upstream install (e.g. a CUDA build on a cluster) exporting Kokkos::kokkos
#    and Kokkos::kokkoskernels with their include directories;
#  * Debian's Trilinos build, whose imported targets (trilinos_kokkoscore,
#    trilinos_kokkoskernels) carry no include directories and whose Kokkos::kokkos
#    points at a directory that does not exist. There the headers live in
#    <prefix>/include/trilinos and we attach them ourselves.

find_package(MPI REQUIRED COMPONENTS C CXX)

set(HDF5_PREFER_PARALLEL TRUE)
find_package(HDF5 REQUIRED COMPONENTS C)
if(NOT HDF5_IS_PARALLEL)
  message(FATAL_ERROR "TRA needs a parallel (MPI) HDF5; on Debian install libhdf5-openmpi-dev")
endif()

find_package(Kokkos REQUIRED)
find_package(KokkosKernels REQUIRED)

add_library(tra_kokkos INTERFACE)
add_library(tra::kokkos ALIAS tra_kokkos)
if(TARGET Kokkos::kokkoskernels)
  message(STATUS "TRA: upstream Kokkos ${Kokkos_VERSION} with Kokkos::kokkoskernels")
  target_link_libraries(tra_kokkos INTERFACE Kokkos::kokkoskernels Kokkos::kokkos)
elseif(TARGET trilinos_kokkoskernels)
  find_path(TRA_KOKKOS_INCLUDE_DIR Kokkos_Core.hpp
            PATH_SUFFIXES trilinos
            HINTS /usr/include
            DOC "Directory holding Kokkos_Core.hpp of the Trilinos build")
  if(NOT TRA_KOKKOS_INCLUDE_DIR)
    message(FATAL_ERROR "Trilinos Kokkos found but Kokkos_Core.hpp is not; install libtrilinos-kokkos-dev")
  endif()
  message(STATUS "TRA: Trilinos Kokkos, headers in ${TRA_KOKKOS_INCLUDE_DIR}")
  target_include_directories(tra_kokkos SYSTEM INTERFACE "${TRA_KOKKOS_INCLUDE_DIR}")
  target_link_libraries(tra_kokkos INTERFACE trilinos_kokkoskernels trilinos_kokkoscontainers
                                             trilinos_kokkoscore)
else()
  message(FATAL_ERROR "Kokkos Kernels found, but neither Kokkos::kokkoskernels nor trilinos_kokkoskernels is defined")
endif()

add_library(tra_hdf5 INTERFACE)
add_library(tra::hdf5 ALIAS tra_hdf5)
target_include_directories(tra_hdf5 SYSTEM INTERFACE ${HDF5_C_INCLUDE_DIRS} ${HDF5_INCLUDE_DIRS})
target_link_libraries(tra_hdf5 INTERFACE ${HDF5_C_LIBRARIES} ${HDF5_LIBRARIES})
target_compile_definitions(tra_hdf5 INTERFACE ${HDF5_C_DEFINITIONS} ${HDF5_DEFINITIONS})

find_package(yaml-cpp REQUIRED)
add_library(tra_yaml INTERFACE)
add_library(tra::yaml ALIAS tra_yaml)
if(TARGET yaml-cpp::yaml-cpp)
  target_link_libraries(tra_yaml INTERFACE yaml-cpp::yaml-cpp)
else()
  target_include_directories(tra_yaml SYSTEM INTERFACE ${YAML_CPP_INCLUDE_DIR})
  target_link_libraries(tra_yaml INTERFACE ${YAML_CPP_LIBRARIES})
endif()

# CLI11 is header-only; Debian ships it without a CMake package of its own in
# some releases, so fall back to the header.
find_package(CLI11 CONFIG QUIET)
add_library(tra_cli INTERFACE)
add_library(tra::cli ALIAS tra_cli)
if(TARGET CLI11::CLI11)
  target_link_libraries(tra_cli INTERFACE CLI11::CLI11)
else()
  find_path(TRA_CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
  target_include_directories(tra_cli SYSTEM INTERFACE "${TRA_CLI11_INCLUDE_DIR}")
endif()
