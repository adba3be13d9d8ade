#pragma once
// Writing results. Every file is created collectively under a temporary name
// next to its final path, each rank writes the chunks it holds as hyperslabs,
// attributes record the run, and only after every dataset is complete and the
// file closed does rank 0 rename it into place. A failed run never leaves a
// truncated file over a good one. A failure while writing (a full disk, a
// file-size limit, the folder removed) is agreed by all ranks after the
// collective close: the run stops with exit 2 and the message once, and the
// temporary file is removed, also when a signal ends the job
// (io/temp_file_guard.hpp).
#include <map>
#include <string>
#include <vector>

#include "tra/comm/communicator.hpp"
#include "tra/core/tensor_relation.hpp"
#include "tra/model/workflow.hpp"

namespace tra::io::hdf5 {

struct DatasetData {
  std::string dataset;  // "/C" or "/group/C"
  Shape tensor_shape;
  std::vector<Tuple> local;  // the chunks this rank writes (standard-form keys)
  model::OutputStorage storage;  // element type, chunked layout, compression (chunks given when gzip is)
};

struct FileData {
  std::string path;  // final path
  std::vector<DatasetData> datasets;
  std::map<std::string, std::string> attributes;  // the same names on every rank; rank 0's values are written
  std::string what = "output file";  // names the file in errors ("the checkpoint")
};

// Whether a dataset stored so is written collectively: compressed ones must
// be (parallel HDF5 filters only collective writes); the others are written
// independently, each rank its chunks (docs/performance.md measures both).
bool collective_writes(const model::OutputStorage& storage);

// What the file will hold, uncompressed: the datasets and attributes, plus
// HDF5's own structures (a generous MiB).
double file_bytes(const FileData& f);

// Collective. Returns after the file is in place on every rank.
void write_file(const comm::Communicator& c, const FileData& f);

// Throws UserError when `path` holds what a rename must not replace (a
// device, a FIFO: io/write_target.hpp), its folder does not exist or cannot
// be written (a file is made there and removed), or its name is too long for
// it. `what` names the file in the message.
void check_writable(const std::string& path, const std::string& what = "output file");
// Throws UserError when `folder`'s filesystem has less than `bytes` free.
void check_space(const std::string& folder, double bytes);

}  // namespace tra::io::hdf5
