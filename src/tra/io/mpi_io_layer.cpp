#include "tra/io/mpi_io_layer.hpp"

#include <cstdlib>

namespace tra::io {

void prefer_mpi_io_without_helper_files() {
  // Every io component but OMPIO: ROMIO, whatever its version's name.
  setenv("OMPI_MCA_io", "^ompio", /*overwrite=*/0);
}

}  // namespace tra::io
