#pragma once
// A temporary output file removed on every way out: an exception, and the
// signals that end a job (SIGINT from a user's ^C to mpirun, SIGTERM from
// mpirun or Slurm when another rank died or time ran out, SIGHUP, SIGQUIT).
// The handler only unlinks the path (async-signal-safe) and then lets the
// signal do what it would have done. kill -9 cannot be caught; the other
// ranks, stopped by mpirun with SIGTERM, remove the file then.
//
// Also: a file-size limit (ulimit -f) would kill the writer with SIGXFSZ and
// no message; ignore_file_size_signal() makes such a write fail with EFBIG
// instead, which the writer reports.
#include <string>

namespace tra::io {

class TempFileGuard {
 public:
  explicit TempFileGuard(const std::string& path);  // installs the handlers (one guard at a time)
  ~TempFileGuard();  // removes the file unless kept; restores the handlers
  TempFileGuard(const TempFileGuard&) = delete;
  TempFileGuard& operator=(const TempFileGuard&) = delete;
  void keep() { keep_ = true; }  // renamed into place: nothing to remove

 private:
  bool keep_ = false;
};

void ignore_file_size_signal();

}  // namespace tra::io
