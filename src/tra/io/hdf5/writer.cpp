#include "tra/io/hdf5/writer.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "tra/common/error.hpp"
#include "tra/common/scalar_types.hpp"
#include "tra/io/hdf5/handle.hpp"

namespace tra::io::hdf5 {
namespace {

void write_string_attribute(hid_t obj, const std::string& name, const std::string& value) {
  Datatype ty(TRA_H5_COLLECTIVE(H5Tcopy(H5T_C_S1)));
  TRA_H5_COLLECTIVE(H5Tset_size(ty.get(), value.empty() ? 1 : value.size()));
  TRA_H5_COLLECTIVE(H5Tset_strpad(ty.get(), H5T_STR_NULLTERM));
  TRA_H5_COLLECTIVE(H5Tset_cset(ty.get(), H5T_CSET_UTF8));  // plans hold Σ, ⋈, λ
  Dataspace sp(TRA_H5_COLLECTIVE(H5Screate(H5S_SCALAR)));
  Attribute a(TRA_H5_COLLECTIVE(H5Acreate2(obj, name.c_str(), ty.get(), sp.get(), H5P_DEFAULT, H5P_DEFAULT)));
  TRA_H5_COLLECTIVE(H5Awrite(a.get(), ty.get(), value.empty() ? "" : value.c_str()));
}

void write_dataset(hid_t file, const DatasetData& ds) {
  const int rank = static_cast<int>(ds.tensor_shape.size());
  std::vector<hsize_t> dims(ds.tensor_shape.begin(), ds.tensor_shape.end());
  // A rank-0 tensor (a scalar, e.g. a full sum) is a scalar dataspace.
  Dataspace file_space(TRA_H5_COLLECTIVE(rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, dims.data(), nullptr)));
  PropList lcpl(TRA_H5_COLLECTIVE(H5Pcreate(H5P_LINK_CREATE)));
  TRA_H5_COLLECTIVE(H5Pset_create_intermediate_group(lcpl.get(), 1));
  Dataset d(TRA_H5_COLLECTIVE(H5Dcreate2(file, ds.dataset.c_str(), hdf5_scalar(), file_space.get(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT)));
  for (const Tuple& t : ds.local) {
    std::vector<hsize_t> start(static_cast<size_t>(rank)), count(static_cast<size_t>(rank));
    for (int i = 0; i < rank; ++i) {
      count[i] = static_cast<hsize_t>(t.chunk.shape[i]);
      start[i] = static_cast<hsize_t>(t.key[i] * t.chunk.shape[i]);
    }
    Dataspace mem(TRA_H5_COLLECTIVE(rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, count.data(), nullptr)));
    if (rank == 0) TRA_H5_COLLECTIVE(H5Sselect_all(file_space.get()));
    else TRA_H5_COLLECTIVE(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr));
    const std::vector<Scalar> host = t.chunk.to_host();
    TRA_H5_COLLECTIVE(H5Dwrite(d.get(), hdf5_scalar(), mem.get(), file_space.get(), H5P_DEFAULT, host.data()));
  }
}

}  // namespace

void check_writable(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir)) throw UserError("output folder '" + dir.string() + "' (for " + path + ") does not exist");
  if (access(dir.c_str(), W_OK) != 0) throw UserError("output folder '" + dir.string() + "' (for " + path + ") is not writable");
  if (fs::is_directory(path)) throw UserError("output path '" + path + "' is a folder");
}

void write_file(const comm::Communicator& c, const FileData& f) {
  // One temporary name for all ranks, chosen by rank 0.
  long long tag = c.rank() == 0 ? static_cast<long long>(getpid()) : 0;
  TRA_MPI_CHECK(MPI_Bcast(&tag, 1, MPI_LONG_LONG, 0, c.get()));
  const std::string tmp = f.path + ".tmp-" + std::to_string(tag);
  bool ok = false;
  try {
    {
      PropList fapl(TRA_H5_COLLECTIVE(H5Pcreate(H5P_FILE_ACCESS)));
      TRA_H5_COLLECTIVE(H5Pset_fapl_mpio(fapl.get(), c.get(), MPI_INFO_NULL));
      File file(TRA_H5_COLLECTIVE(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get())));
      for (const auto& ds : f.datasets) write_dataset(file.get(), ds);
      for (const auto& [name, value] : f.attributes) write_string_attribute(file.get(), name, value);
    }  // closed collectively here
    ok = true;
  } catch (...) {
    if (c.rank() == 0) std::remove(tmp.c_str());
    throw;
  }
  // Rank 0 renames; every rank learns the outcome, so all fail or none does.
  int rc = 0;
  c.barrier();
  if (ok && c.rank() == 0) {
    rc = std::rename(tmp.c_str(), f.path.c_str());
    if (rc != 0) std::remove(tmp.c_str());
  }
  TRA_MPI_CHECK(MPI_Bcast(&rc, 1, MPI_INT, 0, c.get()));
  if (rc != 0) throw UserError("cannot rename '" + tmp + "' to '" + f.path + "'");
}

}  // namespace tra::io::hdf5
