#pragma once
// Where a file the run writes lands. Every output, training log, checkpoint
// and --report is written under a temporary name beside its final name and
// renamed into place, and a rename replaces whatever the name held: a
// device node (/dev/null: as root, the system's own), a FIFO, a socket, a
// symbolic link. So the final name must hold a regular file or nothing, and
// anything else is refused before the run computes anything. A symbolic
// link to a regular file is written through: the new file replaces the
// link's target (in the target's folder) and the link stays.
#include <string>

namespace tra::io {

// The path to rename onto: `path` itself when it names a regular file or
// nothing, the target of a link to a regular file. UserError naming `what`
// (as "--report", "the checkpoint") and the path otherwise: a special
// file, a folder, a link to nothing or to a special file, a path the system
// refuses (a symlink loop, a name too long).
std::string write_target(const std::string& path, const std::string& what);

}  // namespace tra::io
