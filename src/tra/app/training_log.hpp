#pragma once
// A training run's CSV log: a header, then one row per iteration, numbers
// at full precision. Rank 0 writes it whole, under a temporary name renamed
// into place; a failure there (a full disk, the folder gone) stops every
// rank.
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tra/comm/communicator.hpp"

namespace tra::app {

class TrainingLog {
 public:
  explicit TrainingLog(const std::string& header);
  void add(const std::vector<std::optional<double>>& row);  // nullopt: an empty field (not measured then)
  void write(const comm::Communicator& c, const std::string& path) const;  // "" = no log

 private:
  std::ostringstream text_;
};

}  // namespace tra::app
