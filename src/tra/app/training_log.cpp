#include "tra/app/training_log.hpp"

#include "tra/comm/agreement.hpp"
#include "tra/io/text_file.hpp"

namespace tra::app {

TrainingLog::TrainingLog(const std::string& header) {
  text_ << header << "\n";
  text_.precision(17);
}

void TrainingLog::add(const std::vector<std::optional<double>>& row) {
  for (size_t i = 0; i < row.size(); ++i) {
    if (i) text_ << ",";
    if (row[i]) text_ << *row[i];
  }
  text_ << "\n";
}

void TrainingLog::write(const comm::Communicator& c, const std::string& path) const {
  comm::agree(c, [&] {
    if (!path.empty() && c.rank() == 0) io::write_text_file(path, text_.str(), "the training log");
  });
}

}  // namespace tra::app
