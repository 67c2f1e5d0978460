// Reading a zip archive's directory, as np.savez and np.savez_compressed write it (zip64 too).
//
// Our own reader, because no zip library Debian packages (libzip, minizip, libarchive) says
// where a stored member's bytes are in the file: they hand out copies through their own read
// calls, and a 1 GiB stored member must be mapped in place, not copied. The reader follows
// Python's zipfile (which np.load uses) where the format leaves room: the central directory is
// the truth, the local header only says where the data starts, and data before the archive
// (a self-extracting stub) shifts every offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tslice::zip {

struct Entry {
    std::string name;  // UTF-8 (names without the UTF-8 flag are code page 437, as zipfile reads them)
    std::uint16_t flags = 0;
    std::uint16_t method = 0;  // 0 stored, 8 deflated
    std::uint32_t crc32 = 0;
    std::uint64_t compressed_size = 0;
    std::uint64_t uncompressed_size = 0;
    std::uint64_t local_header_offset = 0;  // from the start of the file (already shifted)
};

// The central directory of the archive `file` (the whole file, `size` bytes). Throws
// Error(Input) naming what is wrong: no end record, a directory outside the file, a truncated
// entry, several disks.
std::vector<Entry> read_directory(const std::byte* file, std::size_t size);

// Where the member's bytes start: after its local header, whose name and extra field lengths
// may differ from the central directory's. Checks that the member's compressed bytes lie
// inside the file.
std::uint64_t data_offset(const std::byte* file, std::size_t size, const Entry& entry);

}  // namespace tslice::zip
