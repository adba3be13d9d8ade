#pragma once
// The temporary names results are written under before they are renamed
// into place (HDF5 outputs, checkpoints, the training log, --report): short
// names beside the final file, `.tra.tmp-<pid>-<clock>-<n>`. Short, because
// MPI-IO's shared-file-pointer component builds names from the file's and
// overflows near 255 characters, and a final name that fits its folder's
// limit must not fail for its temporary's length; rename() has no such
// limit. Unique beyond the process id, which repeats across nodes and
// containers: another job's temporary file of the same name would be this
// one's to remove.
#include <string>

namespace tra::io {

// `<pid>-<clock>-<n>`: a new one at each call.
std::string unique_suffix();

// `.tra.tmp-<suffix>` in `path`'s folder.
std::string temporary_name(const std::string& path, const std::string& suffix);

}  // namespace tra::io
