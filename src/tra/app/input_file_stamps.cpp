#include "tra/app/input_file_stamps.hpp"

#include <variant>

#include "tra/comm/agreement.hpp"
#include "tra/common/error.hpp"

namespace tra::app {

namespace {

bool same(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino && a.st_size == b.st_size && a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
         a.st_mtim.tv_nsec == b.st_mtim.tv_nsec;
}

}  // namespace

InputFileStamps::InputFileStamps(const model::Workflow& wf) {
  for (const model::TensorDecl& t : wf.tensors) {
    if (!t.is_data()) continue;
    const auto* h = std::get_if<model::Hdf5Source>(&t.source);
    Stamp s{&t, h ? h->file : std::get<model::SparseSource>(t.source).file, false, {}};
    s.found = ::stat(s.file.c_str(), &s.st) == 0;
    stamps_.push_back(s);
  }
}

void InputFileStamps::check(const comm::Communicator& c) const {
  comm::agree(c, [&] {
    for (const Stamp& s : stamps_) {
      struct stat now {};
      const bool found = ::stat(s.file.c_str(), &now) == 0;
      if (found != s.found || (found && !same(now, s.st)))
        throw UserError(s.tensor->loc, "tensor '" + s.tensor->name + "': HDF5 file '" + s.file +
                                           "' changed since the run began: the run kept its data from its first read, and stops rather "
                                           "than go on with data the file no longer holds");
    }
  });
}

}  // namespace tra::app
