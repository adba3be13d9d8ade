#include "tra/app/output_paths.hpp"

#include <filesystem>
#include <map>

#include "tra/common/error.hpp"
#include "tra/io/hdf5/writer.hpp"

namespace tra::app {

namespace fs = std::filesystem;

std::string resolve_output(const std::string& file, const std::string& output_dir) {
  fs::path p(file);
  if (p.is_relative() && !output_dir.empty()) p = fs::path(output_dir) / p;
  return p.lexically_normal().string();
}

namespace {

// The file a path names however it is spelled (out.h5, ./out.h5, its
// absolute path, through a symlinked folder): two outputs are one file when
// these agree.
std::string same_file_key(const std::string& path) {
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(fs::absolute(path), ec);
  return ec ? fs::absolute(path).lexically_normal().string() : canonical.string();
}

// same_file_key -> what the run reads there: the deck, the HDF5 inputs.
std::map<std::string, std::string> files_read(const model::Workflow& wf) {
  std::map<std::string, std::string> read;
  read[same_file_key(wf.deck_path)] = "the deck itself";
  for (const auto& t : wf.tensors) {
    if (auto h = std::get_if<model::Hdf5Source>(&t.source)) read.emplace(same_file_key(h->file), "the input of tensor '" + t.name + "'");
    if (auto s = std::get_if<model::SparseSource>(&t.source)) read.emplace(same_file_key(s->file), "the input of tensor '" + t.name + "'");
  }
  return read;
}

}  // namespace

void check_other_files(const model::Workflow& wf, const std::vector<PlannedOutput>& outputs, const std::vector<OtherFile>& files) {
  std::map<std::string, std::string> taken = files_read(wf);  // same_file_key -> what is there
  for (const auto& o : outputs) taken.emplace(same_file_key(o.path), "an output of the deck");
  for (const auto& f : files) {
    if (f.path.empty()) continue;
    // At the deck's place when the deck names the file (an option names itself).
    const auto fail = [&](const std::string& msg) {
      if (f.where.known()) throw UserError(f.where, msg);
      throw UserError(msg);
    };
    auto [at, fresh] = taken.emplace(same_file_key(f.path), f.what);
    if (!fresh) fail(f.what + " " + f.path + " is " + at->second + "; give it a file of its own");
    try {
      io::hdf5::check_writable(f.path, f.what);
    } catch (const UserError& e) {
      fail(e.what());
    }
  }
}

namespace {

// The output's storage, checked against the tensor it writes: HDF5 chunks
// of its rank, none larger than the tensor; compressed without chunks given,
// the plan's own chunks (each rank then writes whole HDF5 chunks).
model::OutputStorage storage_of(const model::OutputDecl& o, const RelType& type) {
  model::OutputStorage s = o.storage;
  const Shape shape = type.tensor_shape();
  if (shape.empty() && (s.gzip > 0 || !s.chunks.empty()))
    throw UserError(o.loc, "output " + o.tensor + " is a scalar; it cannot be chunked or compressed");
  const bool planned = s.gzip > 0 && s.chunks.empty();
  if (planned) s.chunks = type.chunk_shape;
  if (s.chunks.empty()) return s;
  if (s.chunks.size() != shape.size())
    throw UserError(o.loc, "chunks " + shape_string(s.chunks) + " has " + std::to_string(s.chunks.size()) + " extents but " + o.tensor +
                               " has shape " + shape_string(shape));
  for (size_t i = 0; i < shape.size(); ++i)
    if (s.chunks[i] > shape[i])
      throw UserError(o.loc, "chunks " + shape_string(s.chunks) + " is larger than " + o.tensor + "'s shape " + shape_string(shape) + " (dimension " +
                                 std::to_string(i) + ")");
  if (static_cast<double>(volume(s.chunks)) * (s.float32 ? 4 : 8) >= 4294967296.0)
    throw UserError(o.loc, (planned ? "the plan's chunks " + shape_string(s.chunks) + ", which gzip uses without chunks:, "
                                    : "chunks " + shape_string(s.chunks) + " ") +
                               "hold 4 GiB or more; HDF5's chunks are smaller" + (planned ? ": give chunks:" : ""));
  return s;
}

}  // namespace

std::vector<PlannedOutput> plan_outputs(const model::Workflow& wf, const physical::IaPlan& ia, const std::vector<int>& nodes,
                                        const std::string& output_dir) {
  const std::map<std::string, std::string> read = files_read(wf);  // same_file_key -> what reads it
  std::vector<PlannedOutput> outputs;
  std::vector<std::string> keys;
  for (size_t i = 0; i < wf.outputs.size(); ++i) {
    const model::OutputDecl& o = wf.outputs[i];
    PlannedOutput p{&o, resolve_output(o.file, output_dir), nodes[i], 0, {}};
    p.storage = storage_of(o, ia.node(nodes[i]).type);
    p.bytes = p.storage.stored_bytes(ia.node(nodes[i]).type.tensor_shape());
    const std::string key = same_file_key(p.path);
    if (auto r = read.find(key); r != read.end())
      throw UserError(o.loc, "output file " + p.path + " is " + r->second + "; writing it would replace what the run reads");
    io::hdf5::check_writable(p.path);
    for (size_t k = 0; k < outputs.size(); ++k) {
      const std::string& a = outputs[k].decl->dataset;
      const std::string& b = o.dataset;
      const bool nested = a == b || b.rfind(a + "/", 0) == 0 || a.rfind(b + "/", 0) == 0;
      if (keys[k] == key && nested)
        throw UserError(o.loc, "dataset " + b + " of " + p.path + " collides with dataset " + a + " written by the output at line " +
                                   std::to_string(outputs[k].decl->loc.line) +
                                   (outputs[k].path == p.path ? "" : " (" + outputs[k].path + ", the same file)"));
    }
    // One spelling per file from here on: datasets are grouped by path.
    for (size_t k = 0; k < outputs.size(); ++k)
      if (keys[k] == key) p.path = outputs[k].path;
    outputs.push_back(p);
    keys.push_back(key);
  }
  // Room for every output (the temporary file and the one it replaces are
  // both there until the rename, so an existing output does not count).
  std::map<std::string, double> bytes;  // per folder
  for (const auto& o : outputs) bytes[fs::path(o.path).parent_path().string()] += o.bytes;
  for (const auto& [folder, b] : bytes) io::hdf5::check_space(folder, b);
  return outputs;
}

}  // namespace tra::app
