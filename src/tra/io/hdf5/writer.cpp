#include "tra/io/hdf5/writer.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>

#include "tra/comm/agreement.hpp"
#include "tra/common/dtype.hpp"
#include "tra/common/error.hpp"
#include "tra/common/scalar_types.hpp"
#include "tra/io/hdf5/handle.hpp"
#include "tra/io/temp_file_guard.hpp"
#include "tra/io/temporary_name.hpp"
#include "tra/io/write_target.hpp"

namespace tra::io::hdf5 {
namespace {

// The first failure on this rank, in words, or "" (the writer goes on to the
// collective close either way, then the ranks agree on the outcome).
struct Failure {
  std::string text;
  // Whether `rc` (an HDF5 return) is fine; records `what` with the system's
  // reason when it is not and nothing failed before.
  bool ok(long long rc, const std::string& what) {
    if (rc >= 0) return true;
    // HDF5's reason, and the system's where the failed call set one (a
    // full disk); callers clear errno before each call they check.
    std::string reason = hdf5_reason();
    if (errno) reason += (reason.empty() ? "" : " (") + std::string(std::strerror(errno)) + (reason.empty() ? "" : ")");
    if (text.empty()) text = what + (reason.empty() ? std::string() : ": " + reason);
    return false;
  }
};

// Collective: every rank makes the same calls, also after a failure of its
// own (a rank that skipped one would hang the others in the close).
void write_string_attribute(hid_t obj, const std::string& name, const std::string& value, Failure& failed) {
  // The type and space are this rank's own objects, made alike on every
  // rank: a failure is the library's and stops all (TRA_H5_COLLECTIVE).
  Datatype ty(TRA_H5_COLLECTIVE(H5Tcopy(H5T_C_S1)));
  TRA_H5_COLLECTIVE(H5Tset_size(ty.get(), value.empty() ? 1 : value.size()));
  TRA_H5_COLLECTIVE(H5Tset_strpad(ty.get(), H5T_STR_NULLTERM));
  TRA_H5_COLLECTIVE(H5Tset_cset(ty.get(), H5T_CSET_UTF8));  // plans hold Σ, ⋈, λ
  Dataspace sp(TRA_H5_COLLECTIVE(H5Screate(H5S_SCALAR)));
  errno = 0;
  Attribute a(H5Acreate2(obj, name.c_str(), ty.get(), sp.get(), H5P_DEFAULT, H5P_DEFAULT));
  const std::string what = "cannot write attribute " + name;
  if (failed.ok(a.get(), what)) failed.ok(H5Awrite(a.get(), ty.get(), value.empty() ? "" : value.c_str()), what);
}

// The dataset's creation properties: chunked layout and deflate when asked.
// Made on every rank alike before the collective create; a failure here is
// the library's, not the user's, and stops every rank (TRA_H5_COLLECTIVE).
hid_t creation_properties(const model::OutputStorage& storage) {
  const hid_t dcpl = TRA_H5_COLLECTIVE(H5Pcreate(H5P_DATASET_CREATE));
  if (storage.chunks.empty()) return dcpl;
  std::vector<hsize_t> chunks(storage.chunks.begin(), storage.chunks.end());
  TRA_H5_COLLECTIVE(H5Pset_chunk(dcpl, static_cast<int>(chunks.size()), chunks.data()));
  if (storage.gzip > 0) TRA_H5_COLLECTIVE(H5Pset_deflate(dcpl, static_cast<unsigned>(storage.gzip)));
  return dcpl;
}

// float32 is rounded here, not by HDF5 (whose conversion would turn a
// collective write independent); beyond float's range is ±inf, as numpy's
// astype gives (a plain cast would be undefined).
std::vector<float> narrowed(const std::vector<double>& values) {
  std::vector<float> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) out[i] = to_float(values[i]);
  return out;
}

// The dataset is created by every rank (collective) whatever failed before;
// only this rank's own writes stop at its first failure. `rounds` > 0: the
// writes are collective (parallel HDF5 compresses only in collective
// writes), one chunk per rank per round, `rounds` in all on every rank; a
// rank out of chunks, or failed, takes part with an empty selection.
void write_dataset(hid_t file, const DatasetData& ds, int rounds, Failure& failed) {
  const std::string what = "cannot write dataset " + ds.dataset;
  const int rank = static_cast<int>(ds.tensor_shape.size());
  std::vector<hsize_t> dims(ds.tensor_shape.begin(), ds.tensor_shape.end());
  // A rank-0 tensor (a scalar, e.g. a full sum) is a scalar dataspace.
  Dataspace file_space(TRA_H5_COLLECTIVE(rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, dims.data(), nullptr)));
  PropList lcpl(TRA_H5_COLLECTIVE(H5Pcreate(H5P_LINK_CREATE)));
  TRA_H5_COLLECTIVE(H5Pset_create_intermediate_group(lcpl.get(), 1));
  PropList dcpl(creation_properties(ds.storage));
  PropList dxpl(TRA_H5_COLLECTIVE(H5Pcreate(H5P_DATASET_XFER)));
  TRA_H5_COLLECTIVE(H5Pset_dxpl_mpio(dxpl.get(), rounds > 0 ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT));
  const hid_t stored = ds.storage.float32 ? H5T_IEEE_F32LE : hdf5_scalar();
  errno = 0;
  Dataset d(H5Dcreate2(file, ds.dataset.c_str(), stored, file_space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT));
  if (!failed.ok(d.get(), what)) return;  // collective: failed on every rank
  // The same memory type on every rank, an empty selection included: a
  // conversion on any one rank turns the collective write independent,
  // which a compressed dataset refuses.
  const hid_t in_memory = ds.storage.float32 ? H5T_NATIVE_FLOAT : hdf5_scalar();
  static const double nothing = 0;  // HDF5 wants a buffer even for an empty selection
  const size_t calls = rounds > 0 ? static_cast<size_t>(rounds) : ds.local.size();
  for (size_t r = 0; r < calls; ++r) {
    bool mine = r < ds.local.size() && failed.text.empty();
    if (!mine && rounds == 0) return;
    std::vector<hsize_t> start(static_cast<size_t>(rank)), count(static_cast<size_t>(rank), 1);
    std::vector<Scalar> host;
    std::vector<float> narrow;
    if (mine) {
      const Tuple& t = ds.local[r];
      for (int i = 0; i < rank; ++i) {
        count[i] = static_cast<hsize_t>(t.chunk.shape[i]);
        start[i] = static_cast<hsize_t>(t.key[i] * t.chunk.shape[i]);
      }
      host = t.chunk.to_host();
      if (ds.storage.float32) narrow = narrowed(host);
    }
    Dataspace mem(rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, count.data(), nullptr));
    errno = 0;
    if (mine) {
      const herr_t selected = rank == 0 ? H5Sselect_all(file_space.get())
                                        : H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr);
      mine = failed.ok(mem.get(), what) && failed.ok(selected, what);
      if (!mine && rounds == 0) return;
    }
    if (!mine) {
      // Taking part in the collective write with nothing (a write cannot
      // be skipped on one rank: the others would wait in it).
      mem = Dataspace(TRA_H5_COLLECTIVE(H5Screate(H5S_SCALAR)));
      TRA_H5_COLLECTIVE(H5Sselect_none(mem.get()));
      TRA_H5_COLLECTIVE(H5Sselect_none(file_space.get()));
    }
    const void* data = !mine ? static_cast<const void*>(&nothing) : ds.storage.float32 ? static_cast<const void*>(narrow.data()) : host.data();
    errno = 0;
    if (!failed.ok(H5Dwrite(d.get(), in_memory, mem.get(), file_space.get(), dxpl.get(), data), what) && rounds == 0) return;
  }
}

}  // namespace

double file_bytes(const FileData& f) {
  double bytes = 1 << 20;
  for (const auto& ds : f.datasets) bytes += ds.storage.stored_bytes(ds.tensor_shape);
  for (const auto& [name, value] : f.attributes) bytes += static_cast<double>(name.size() + value.size());
  return bytes;
}

namespace {

// Why `bytes` cannot be written to `path` (through `tmp`) by this rank, or "": the
// file-size limit (ulimit -f, per process), and, on `reserve`, the disk
// (the blocks are reserved and given back, where the filesystem can).
std::string room_for(const std::string& path, const std::string& tmp, double bytes, bool reserve) {
  const auto mib = [](double b) { return std::to_string(static_cast<long long>(b / (1 << 20)) + 1) + " MiB"; };
  struct rlimit limit {};
  if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && static_cast<double>(limit.rlim_cur) < bytes)
    return "writing " + path + " needs about " + mib(bytes) + ", over the file-size limit (ulimit -f) of " + mib(static_cast<double>(limit.rlim_cur));
  if (!reserve) return "";
  const int fd = open(tmp.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0600);
  if (fd < 0) return "cannot create " + tmp + " (for " + path + "): " + std::strerror(errno);
  std::string problem;
  if (fallocate(fd, 0, 0, static_cast<off_t>(bytes)) != 0 && errno != EOPNOTSUPP && errno != ENOSYS)
    problem = "writing " + path + " needs about " + mib(bytes) + ": " + std::strerror(errno);
  close(fd);
  unlink(tmp.c_str());
  return problem;
}

}  // namespace

bool collective_writes(const model::OutputStorage& storage) { return storage.gzip > 0; }

void check_writable(const std::string& given, const std::string& what) {
  namespace fs = std::filesystem;
  // The name a link stands for, whose folder the temporary file goes to.
  std::error_code ec;
  const std::string path = fs::is_directory(fs::status(given, ec)) ? given : write_target(given, what);
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  const fs::file_status st = fs::status(dir, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) throw UserError("output folder '" + dir.string() + "' (for " + path + "): " + ec.message());
  if (!fs::is_directory(st)) throw UserError("output folder '" + dir.string() + "' (for " + path + ") does not exist");
  const std::string name = fs::path(path).filename().string();
  if (name.empty()) throw UserError("output path '" + path + "' names a folder, not a file");
  const long name_max = pathconf(dir.c_str(), _PC_NAME_MAX);
  if (name_max > 0 && static_cast<long>(name.size()) > name_max)
    throw UserError("output file name '" + name + "' has " + std::to_string(name.size()) + " characters; its folder allows at most " +
                    std::to_string(name_max));
  if (fs::is_directory(fs::status(path, ec))) throw UserError("output path '" + path + "' is a folder");
  // Make a file there and remove it: access() answers yes to root for a
  // folder no one can write (/proc), and a read-only mount says no only to
  // a write.
  const std::string probe = (dir / (".tra.probe-" + unique_suffix())).string();
  const int fd = open(probe.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0600);
  if (fd < 0) throw UserError("output folder '" + dir.string() + "' (for " + path + ") cannot be written: " + std::strerror(errno));
  close(fd);
  unlink(probe.c_str());
}

void check_space(const std::string& folder, double bytes) {
  struct statvfs fs {};
  if (statvfs(folder.empty() ? "." : folder.c_str(), &fs) != 0) return;  // unknown: the write will say
  const double free_bytes = static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize);
  if (bytes > free_bytes)
    throw UserError("the outputs need " + std::to_string(static_cast<long long>(bytes / (1 << 20)) + 1) + " MiB in folder '" +
                    (folder.empty() ? "." : folder) + "', which has " + std::to_string(static_cast<long long>(free_bytes / (1 << 20))) + " MiB free");
}

void write_file(const comm::Communicator& c, const FileData& f) {
  // Where the file lands (through a link, checked again: the name may have
  // changed since the run was planned) and one temporary name beside it for
  // all ranks, both chosen by rank 0.
  std::string target;
  comm::agree(c, [&] {
    if (c.rank() == 0) target = write_target(f.path, f.what);
  });
  target = c.broadcast(target);
  const std::string tmp = temporary_name(target, c.broadcast(c.rank() == 0 ? unique_suffix() : std::string()));
  // Attribute writes are collective: rank 0's values for all, since a value
  // of another length on one rank would hang the close.
  std::map<std::string, std::string> attributes;
  for (const auto& [name, value] : f.attributes) attributes[name] = c.broadcast(value);
  // Collective writes take as many rounds as the rank with the most chunks.
  std::vector<int> rounds;
  for (const auto& ds : f.datasets)
    rounds.push_back(collective_writes(ds.storage) ? static_cast<int>(c.max(static_cast<double>(ds.local.size()))) : 0);
  TempFileGuard guard(tmp);
  // A write HDF5 cannot finish leaves its file unclosable (the failed close
  // crashes MPI_Finalize later), so room and limits are made sure of first.
  comm::agree_on(c, room_for(f.path, tmp, file_bytes(f), c.rank() == 0));
  Failure failed;
  {
    PropList fapl(TRA_H5_COLLECTIVE(H5Pcreate(H5P_FILE_ACCESS)));
    TRA_H5_COLLECTIVE(H5Pset_fapl_mpio(fapl.get(), c.get(), MPI_INFO_NULL));
    // Attributes past HDF5's 64 KiB object-header limit (a large deck, a
    // long plan) go to dense storage, which needs the 1.8 file format.
    TRA_H5_COLLECTIVE(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST));
    PropList fcpl(TRA_H5_COLLECTIVE(H5Pcreate(H5P_FILE_CREATE)));
    TRA_H5_COLLECTIVE(H5Pset_attr_phase_change(fcpl.get(), 0, 0));
    errno = 0;
    File file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get()));  // collective: fails on every rank or none
    if (failed.ok(file.get(), "cannot create " + tmp)) {
      for (size_t i = 0; i < f.datasets.size(); ++i) write_dataset(file.get(), f.datasets[i], rounds[i], failed);
      for (const auto& [name, value] : attributes) write_string_attribute(file.get(), name, value, failed);
      errno = 0;
      failed.ok(H5Fclose(file.release()), "cannot close " + tmp);  // collective, reached by every rank
    }
  }
  // Every rank learns the outcome, so all fail or none does (the guard
  // removes the temporary file on the way out).
  comm::agree_on(c, failed.text.empty() ? "" : "writing " + f.path + ": " + failed.text);
  int rc = 0;
  c.barrier();
  if (c.rank() == 0) {
    errno = 0;
    rc = std::rename(tmp.c_str(), target.c_str()) == 0 ? 0 : errno;
  }
  TRA_MPI_CHECK(MPI_Bcast(&rc, 1, MPI_INT, 0, c.get()));
  if (rc != 0) throw UserError("cannot rename '" + tmp + "' to '" + f.path + "': " + std::strerror(rc));
  guard.keep();
}

}  // namespace tra::io::hdf5
