// The one mechanism for every directory pypto writes (generated projects, pass dumps), built so
// that it never destroys a user's files and never writes outside the directory:
//   * OUT is written only when it does not exist, is empty, or holds the marker file
//     `.pypto-project` that pypto writes (listing every file it generated there). OUT that is,
//     or lies above, the input file or the working directory is refused; so is a dangling
//     symbolic link. Paths are compared after resolving symbolic links.
//   * A new OUT is assembled in a temporary sibling directory and renamed into place.
//   * An existing OUT is updated in place: only files whose content changed are rewritten, each
//     through its own temporary file and a rename (unchanged files keep their mtimes, so build
//     outputs and `ninja`'s state stay valid); files the marker lists that the new generation no
//     longer produces are removed; nothing else in OUT is touched. Every new file is staged
//     before the first rename, so a failure while writing leaves the previous contents intact.
//   * Nothing is written through a symbolic link inside OUT, and relative paths must stay inside.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace pypto::emit {

inline constexpr const char* kProjectMarker = ".pypto-project";

// Why `dir` must not be written by pypto (empty: it may). `protect`: files (the input) that OUT
// must neither be nor contain; the working directory is always protected.
std::string output_dir_refusal(const std::string& dir, const std::vector<std::string>& protect = {});

// Writes {relative path → contents} into `dir` as described above (and the marker). Throws
// CompileError E904 when output_dir_refusal refuses `dir`, E902 when the disk refuses.
void write_files_atomically(const std::map<std::string, std::string>& files, const std::string& dir,
                            const std::vector<std::string>& protect = {});

}  // namespace pypto::emit
