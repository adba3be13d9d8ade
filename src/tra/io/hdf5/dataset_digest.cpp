#include "tra/io/hdf5/dataset_digest.hpp"

#include <algorithm>
#include <vector>

#include "tra/common/digest.hpp"
#include "tra/common/error.hpp"
#include "tra/common/scalar_types.hpp"
#include "tra/io/hdf5/handle.hpp"

namespace tra::io::hdf5 {
namespace {

constexpr hsize_t kWhole = hsize_t{1} << 20;  // elements read whole up to this many
constexpr hsize_t kSamples = 4096;

// The sampled elements' coordinates, row after row: SplitMix64 positions
// in the flattened dataset, sorted so that HDF5 reads them in file order.
std::vector<hsize_t> sample_points(const std::vector<hsize_t>& dims, hsize_t elements) {
  std::vector<hsize_t> flat;
  std::uint64_t state = 0x5EED;
  for (hsize_t i = 0; i < kSamples; ++i) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    flat.push_back((z ^ (z >> 31)) % elements);
  }
  std::sort(flat.begin(), flat.end());
  std::vector<hsize_t> coords;
  for (hsize_t f : flat) {
    std::vector<hsize_t> at(dims.size());
    for (size_t d = dims.size(); d-- > 0;) {
      at[d] = f % dims[d];
      f /= dims[d];
    }
    coords.insert(coords.end(), at.begin(), at.end());
  }
  return coords;
}

}  // namespace

std::string dataset_digest(const model::TensorDecl& t, const model::Hdf5Source& src) {
  const auto fail = [&](const std::string& what) -> std::string {
    const std::string why = hdf5_reason();
    throw UserError(t.loc, "tensor '" + t.name + "': cannot read dataset '" + src.dataset + "' of '" + src.file + "' (" + what + ")" +
                               (why.empty() ? std::string() : ": " + why));
  };
  File f(H5Fopen(src.file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!f.valid()) fail("opening it");
  Dataset d(H5Dopen2(f.get(), src.dataset.c_str(), H5P_DEFAULT));
  if (!d.valid()) fail("opening the dataset");
  Dataspace space(H5Dget_space(d.get()));
  const int rank = space.valid() ? H5Sget_simple_extent_ndims(space.get()) : -1;
  if (rank < 1) fail("its extents");
  std::vector<hsize_t> dims(static_cast<size_t>(rank));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  hsize_t elements = 1;
  for (hsize_t e : dims) elements *= e;
  Digest digest;
  digest.add(dims.data(), dims.size() * sizeof(hsize_t));
  std::vector<Scalar> values;
  if (elements <= kWhole) {
    values.resize(static_cast<size_t>(elements));
    if (H5Dread(d.get(), hdf5_scalar(), H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0) fail("its values");
  } else {
    const std::vector<hsize_t> coords = sample_points(dims, elements);
    if (H5Sselect_elements(space.get(), H5S_SELECT_SET, kSamples, coords.data()) < 0) fail("selecting a sample");
    const hsize_t n = kSamples;
    Dataspace memory(H5Screate_simple(1, &n, nullptr));
    values.resize(kSamples);
    if (H5Dread(d.get(), hdf5_scalar(), memory.get(), space.get(), H5P_DEFAULT, values.data()) < 0) fail("a sample of its values");
  }
  digest.add(values.data(), values.size() * sizeof(Scalar));
  return digest.hex();
}

}  // namespace tra::io::hdf5
