#pragma once
// Move-only RAII owners of HDF5 identifiers (the parthenon habit): a handle
// closes its id with the right H5*close when it goes out of scope, also on the
// error path.
#include <hdf5.h>

#include <string>
#include <utility>

namespace tra::io::hdf5 {

template <herr_t (*Close)(hid_t)>
class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id) : id_(id) {}
  ~Handle() { reset(); }
  Handle(Handle&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, H5I_INVALID_HID);
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  hid_t release() { return std::exchange(id_, H5I_INVALID_HID); }  // the caller closes it (and checks the close)

 private:
  // Closes without looking at the result: a handle goes out of scope on the
  // error path too, where a second error cannot be reported. A close whose
  // failure matters (a file written: its data reaches the disk there)
  // release()s the id and checks its own close (io/hdf5/writer.cpp).
  void reset() {
    if (id_ >= 0) static_cast<void>(Close(id_));
    id_ = H5I_INVALID_HID;
  }

  hid_t id_ = H5I_INVALID_HID;
};

using File = Handle<H5Fclose>;
using Dataset = Handle<H5Dclose>;
using Dataspace = Handle<H5Sclose>;
using Datatype = Handle<H5Tclose>;
using PropList = Handle<H5Pclose>;
using Attribute = Handle<H5Aclose>;
using Group = Handle<H5Gclose>;

// Turn off HDF5's own printing of error stacks: TRA reports errors itself.
void silence_errors();
// The innermost description on HDF5's error stack ("required filter
// 'deflate' is not registered", "checksum error"): what went wrong, as HDF5
// knows it, for a message that names the file and the dataset; "" if none.
std::string hdf5_reason();

// For calls made while a file is open collectively (MPI-IO): a failure there
// cannot be unwound, since closing handles is itself collective and the other
// ranks are elsewhere. Print what failed on this rank and abort all ranks.
[[noreturn]] void abort_collective(const char* call, const char* file, int line);

}  // namespace tra::io::hdf5

#define TRA_H5_COLLECTIVE(call)                                                       \
  ([&]() {                                                                            \
    auto tra_h5_rc_ = (call);                                                         \
    if (tra_h5_rc_ < 0) ::tra::io::hdf5::abort_collective(#call, __FILE__, __LINE__); \
    return tra_h5_rc_;                                                                \
  }())

namespace tra::io::hdf5 {}  // namespace tra::io::hdf5
