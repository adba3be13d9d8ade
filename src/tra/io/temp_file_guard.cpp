#include "tra/io/temp_file_guard.hpp"

#include <csignal>
#include <cstring>

#include <unistd.h>

namespace tra::io {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
// The path the handler removes: a fixed buffer, since a handler may not
// allocate. Empty when no file is being written.
char g_path[4096];
struct sigaction g_previous[sizeof(kSignals) / sizeof(kSignals[0])];

extern "C" void remove_and_reraise(int sig) {
  if (g_path[0]) unlink(g_path);
  // What the signal did before the guard (the default action, or the
  // program's own handler), delivered on return.
  for (size_t i = 0; i < sizeof(kSignals) / sizeof(kSignals[0]); ++i)
    if (kSignals[i] == sig) sigaction(sig, &g_previous[i], nullptr);
  raise(sig);
}

}  // namespace

TempFileGuard::TempFileGuard(const std::string& path) {
  std::strncpy(g_path, path.c_str(), sizeof(g_path) - 1);
  g_path[sizeof(g_path) - 1] = '\0';
  struct sigaction act {};
  act.sa_handler = remove_and_reraise;
  sigemptyset(&act.sa_mask);
  for (size_t i = 0; i < sizeof(kSignals) / sizeof(kSignals[0]); ++i) {
    sigaction(kSignals[i], nullptr, &g_previous[i]);
    // An ignored signal (SIGHUP under nohup) stays ignored: it ends nothing.
    if (g_previous[i].sa_handler != SIG_IGN) sigaction(kSignals[i], &act, nullptr);
  }
}

TempFileGuard::~TempFileGuard() {
  for (size_t i = 0; i < sizeof(kSignals) / sizeof(kSignals[0]); ++i) sigaction(kSignals[i], &g_previous[i], nullptr);
  if (!keep_ && g_path[0]) unlink(g_path);
  g_path[0] = '\0';
}

void ignore_file_size_signal() { signal(SIGXFSZ, SIG_IGN); }

}  // namespace tra::io
