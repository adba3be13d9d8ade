#pragma once
// Which TRA this is: the project's version and the git commit it was built
// from (both fixed when CMake configures; CMake configures again when the
// checkout's HEAD moves). Drivers print them for --version, and every output
// file records them beside the command line, the date, the host and the
// rank count (app/run_deck.cpp), so a result says how it was made.
#include <string>

namespace tra {

const char* version();  // "0.1.0"
const char* git_commit();  // "1e46750ab3c2", or "unknown" outside a git checkout
// The Kokkos it was built against and its backends: "Kokkos 4.6.1 OpenMP+Serial".
std::string kokkos_build();
// "tra-run 0.1.0 (git 1e46750ab3c2, Kokkos 3.4.1 Serial)"
std::string version_line(const std::string& program);

}  // namespace tra
