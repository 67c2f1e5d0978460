// The last release of a file that a result replaced, left to a process that outlives tslice.
//
// Renaming a result over an existing file drops the replaced file's last name, and whoever
// drops its last reference frees its blocks. On a file system mounted with `discard` (common
// on virtual disks and SSDs) ext4 then waits for the disk to discard every freed extent: 91 to
// 154 ms for a 1 GiB file on the VM of docs/performance-log.md, a third to a half of the time
// of copying it. A command that exits right after writing may hand that wait to a short-lived process of
// its own (release_replaced_files_after_exit in tslice/write.hpp): it holds the replaced file
// until the command has exited, then lets it go, so the command returns once its result is in
// place and the space comes back a moment later.
#pragma once

#include <string>

namespace tslice {

// The file `path` names, opened to be released after the rename that replaces it, when
// replaced files are released after exit and it is large enough for that to matter; -1
// otherwise (the rename then frees it, as it always did).
int hold_replaced_file(const std::string& path);

// Hands `held` (hold_replaced_file's descriptor, or -1 for nothing) to a process that closes it
// once this one has exited, and closes it here. Where a process cannot be made, the file is
// released here as it would have been without.
void release_after_exit(int held);

}  // namespace tslice
