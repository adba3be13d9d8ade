#include "tra/io/hdf5/dataset_digest.hpp"

#include <algorithm>
#include <vector>

#include "tra/common/digest.hpp"
#include "tra/common/error.hpp"
#include "tra/common/scalar_types.hpp"
#include "tra/common/split_mix64.hpp"
#include "tra/io/hdf5/handle.hpp"

namespace tra::io::hdf5 {
namespace {

constexpr hsize_t kWhole = hsize_t{1} << 20;  // elements read whole up to this many
constexpr hsize_t kBlocks = 64;  // else this many runs ...
constexpr hsize_t kRun = 64;  // ... of this many elements along the last dimension

// A larger dataset's sample: kBlocks runs of up to kRun neighbours along the
// last dimension, at SplitMix64 positions in the flattened dataset (the same
// on every rank), selected together. A run lies in one or two HDF5 chunks,
// so a compressed dataset decompresses at most 2 * kBlocks chunks here.
void select_sample(hid_t space, const std::vector<hsize_t>& dims, hsize_t elements) {
  const size_t rank = dims.size();
  const hsize_t run = std::min(kRun, dims[rank - 1]);
  SplitMix64 rng{0x5EED};
  for (hsize_t i = 0; i < kBlocks; ++i) {
    hsize_t flat = rng.next() % elements;
    std::vector<hsize_t> start(rank), count(rank, 1);
    for (size_t d = rank; d-- > 0;) {
      start[d] = flat % dims[d];
      flat /= dims[d];
    }
    start[rank - 1] = std::min(start[rank - 1], dims[rank - 1] - run);
    count[rank - 1] = run;
    H5Sselect_hyperslab(space, i == 0 ? H5S_SELECT_SET : H5S_SELECT_OR, start.data(), nullptr, count.data(), nullptr);
  }
}

// The digest of `dataset` of `file`, which tensor `t` reads.
std::string digest_of(const model::TensorDecl& t, const std::string& file, const std::string& dataset) {
  const auto fail = [&](const std::string& what) -> std::string {
    const std::string why = hdf5_reason();
    throw UserError(t.loc, "tensor '" + t.name + "': cannot read dataset '" + dataset + "' of '" + file + "' (" + what + ")" +
                               (why.empty() ? std::string() : ": " + why));
  };
  File f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!f.valid()) fail("opening it");
  Dataset d(H5Dopen2(f.get(), dataset.c_str(), H5P_DEFAULT));
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
    select_sample(space.get(), dims, elements);
    const hssize_t selected = H5Sget_select_npoints(space.get());
    if (selected <= 0) fail("selecting a sample");
    const hsize_t n = static_cast<hsize_t>(selected);
    Dataspace memory(H5Screate_simple(1, &n, nullptr));
    values.resize(static_cast<size_t>(n));
    if (H5Dread(d.get(), hdf5_scalar(), memory.get(), space.get(), H5P_DEFAULT, values.data()) < 0) fail("a sample of its values");
  }
  digest.add(values.data(), values.size() * sizeof(Scalar));
  return digest.hex();
}

}  // namespace

std::string dataset_digest(const model::TensorDecl& t, const model::Hdf5Source& src) { return digest_of(t, src.file, src.dataset); }

std::string coordinate_digest(const model::TensorDecl& t, const model::SparseSource& src) {
  Digest digest;
  for (const std::string* list : {&src.rows, &src.cols, &src.values})
    if (!list->empty()) digest.add(digest_of(t, src.file, *list));  // an index list gives only cols
  return digest.hex();
}

}  // namespace tra::io::hdf5
