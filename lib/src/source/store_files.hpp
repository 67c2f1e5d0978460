// The files of a Zarr store (metadata, chunks, a group's consolidated metadata), opened and
// read whole with their size bounded, for the reader (zarr_source.cpp) and the writer that
// updates a group's consolidated metadata (write/zarr_consolidated.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tslice {

// A file opened for reading, closed with this.
struct OpenFile {
    int fd = -1;
    std::size_t size = 0;
    OpenFile() = default;
    OpenFile(const OpenFile&) = delete;
    OpenFile& operator=(const OpenFile&) = delete;
    ~OpenFile();
};

// Opens a regular file of at most `limit` bytes: false where it does not exist; Error(Input)
// for anything else (a directory, a FIFO, which is opened without waiting for a writer, a
// larger file). `shown` names it in messages.
bool open_file(OpenFile& file, const std::string& path, const std::string& shown, std::uint64_t limit);

// Reads the open file into `bytes` (resized to what it holds).
void read_into(const OpenFile& file, std::vector<std::byte>& bytes, const std::string& shown);

// The whole file, or nullopt where it does not exist (open_file).
std::optional<std::vector<std::byte>> read_file(const std::string& path, const std::string& shown, std::uint64_t limit);

}  // namespace tslice
