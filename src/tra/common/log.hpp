#pragma once
// Progress and verbose messages: printed by rank 0 only, so that a run on many
// ranks reads like a run on one.
#include <iostream>
#include <string>

namespace tra {

struct Log {
  static int rank;  // set once after MPI_Init
  static bool verbose;  // --verbose
  static void info(const std::string& line) {
    if (rank == 0) std::cout << line << std::endl;
  }
  static void progress(const std::string& line) {
    if (rank == 0) std::cerr << "[tra] " << line << std::endl;
  }
  // Something the user asked for that the run does otherwise (it goes on).
  static void warn(const std::string& line) {
    if (rank == 0) std::cerr << "tra-run: warning: " << line << std::endl;
  }
};

}  // namespace tra
