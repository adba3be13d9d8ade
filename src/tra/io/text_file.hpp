#pragma once
// A text file written whole or not at all: under a temporary name beside it,
// then renamed into place, so that a failure leaves an existing file as it
// was and no partial one behind.
#include <string>

namespace tra::io {

// `what` names the file in errors ("the calibration file"): a UserError
// located at the path when the folder is missing or not writable, the disk
// is full, or the rename fails.
void write_text_file(const std::string& path, const std::string& text, const std::string& what);

}  // namespace tra::io
