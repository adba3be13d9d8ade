#include "tra/io/hdf5/handle.hpp"

namespace tra::io::hdf5 {

void silence_errors() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

}  // namespace tra::io::hdf5
