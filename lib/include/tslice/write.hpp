// The write stage: a result's elements in C order, in bounded chunks, to a file or a stream.
//
// Every write goes to a temporary file beside the target, renamed into place only when
// everything was written, so a failure leaves no partial file and never harms an existing
// one. `path` "-", and the names of an open descriptor (/dev/stdout, /dev/stderr, /dev/fd/N,
// /proc/self/fd/N), write into that descriptor as it is, at its offset (a shell's `>>`
// appends); a device or a pipe is written in place. An existing file the user could not open
// for writing is refused, never replaced. Nothing is written before the first chunk exists.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tslice/copy.hpp"
#include "tslice/npy.hpp"
#include "tslice/view.hpp"

namespace tslice {

// The data of a write, as consecutive chunks of the output (C order): `source(first, count,
// scratch)` returns where the bytes of elements [first, first + count) are: `scratch` (room
// for count * itemsize bytes) after filling it, or bytes that already hold them (a contiguous
// input, written straight from its mapping). The next chunk is produced (on another thread)
// while the previous one is written.
using ChunkSource = std::function<const std::byte*(std::int64_t first, std::int64_t count, std::byte* scratch)>;
// The same with a source that always fills the scratch buffer.
using ChunkFiller = std::function<void(std::byte* dst, std::int64_t first, std::int64_t count)>;

// The bytes an output file holds around the array data: `prefix` before it and, when `suffix`
// is set, what it makes of the CRC-32 of the bytes from prefix[crc_from] through the data
// after it (an .npz member's CRC). A .npy's framing is its header alone; container.hpp makes
// those of .npz and .safetensors.
struct OutputFraming {
    std::string prefix;
    std::size_t crc_from = 0;
    std::function<std::string(std::uint32_t crc32)> suffix;
};

struct WriteOptions {
    // fsync the file before it is renamed into place, and its directory after: the result
    // is then on stable storage when the write returns (as rsync --fsync, dd conv=fsync).
    bool sync = false;
    // write_view: the threads that copy a large result (1: the calling thread only).
    unsigned threads = 1;
    // write_view: reverse each element's bytes (a big-endian input into a little-endian format).
    bool swap_bytes = false;
    // With swap_bytes: how many bytes make one number whose bytes are reversed; 0 for the whole
    // element (a complex number is two, each reversed on its own).
    std::size_t swap_unit = 0;
    // write_view: a selection of fields (DType::packed_itemsize set) whose elements are written
    // packed, the selected fields one after another, instead of whole.
    std::optional<DType> packed_selection;
    // write_view: told the bytes written so far, and of how many, after each chunk (a progress line).
    std::function<void(std::int64_t bytes_written, std::int64_t bytes_total)> progress;
};

// Writes `shape` elements of `itemsize` bytes from `source`, framed.
void write_array(const std::string& path, const OutputFraming& framing, std::size_t itemsize,
                 const std::vector<std::int64_t>& shape, const ChunkSource& source,
                 const WriteOptions& options = {});

// A C-order .npy of `dtype` and `shape`.
void write_npy(const std::string& path, const DType& dtype, const std::vector<std::int64_t>& shape,
               const ChunkSource& source);
void write_npy(const std::string& path, const DType& dtype, const std::vector<std::int64_t>& shape,
               const ChunkFiller& fill);

// Text of a length known only at the end, made piece by piece: `next(out)` appends the next
// piece to `out` (emptied between calls) and returns false when there is none.
using TextSource = std::function<bool(std::string& out)>;

// Writes the text as write_array writes arrays: to a temporary renamed into place, or into
// the descriptor the path names.
void write_text(const std::string& path, const TextSource& next, const WriteOptions& options = {});

// What a copy tells the input about its pages as it moves on, for data mapped from a file
// (ArrayData::pages()); bytes [begin, end) are offsets from the data a view reads. Any may
// be unset: data in memory has none.
struct InputPages {
    using Callback = std::function<void(std::int64_t begin, std::int64_t end)>;
    // The copy will not read these bytes again: their pages may leave this process's memory.
    Callback release;
    // The copy reads these bytes next: their pages may be read from the file ahead of it.
    Callback read_ahead;
    // Copies `bytes` bytes from offset `begin` to `dst` without mapping them (pread): for
    // scattered reads, a gather's rows, which would otherwise leave the file mapped.
    std::function<void(std::int64_t begin, std::int64_t bytes, std::byte* dst)> read;
    // As `read`, from what the page cache holds only, never waiting for the device: returns
    // the bytes read, fewer where a page is not there.
    std::function<std::int64_t(std::int64_t begin, std::int64_t bytes, std::byte* dst)> read_cached;
    // The copy is done with these bytes for now, and may read them again later (a gather
    // copied window by window): their pages may leave this process's memory, to be mapped
    // from the page cache again if they are read.
    Callback unmap;
    // The copy reads these bytes soon, through the mapping: their pages may be mapped ahead
    // of it, waiting for the device where they are not in the page cache yet.
    Callback map_ahead;
    // The copy reads these bytes next, going on from the last bytes it read ahead: they are
    // read into the page cache now, and the call returns when they are there.
    Callback read_in;
    // Whether the page holding byte `at` is in the page cache, found without reading it.
    std::function<bool(std::int64_t at)> cached;
    // The file the bytes are read from (-1 where there is none), and where byte 0 of the data
    // is in it: a contiguous result is moved from it to the output without being copied into
    // this process (file_splice.hpp). Only while the data lives.
    int file = -1;
    std::int64_t file_offset = 0;

    // An input with pages to ask for is a mapping the copy faults in as it reads; one without
    // is memory the process holds (copy.hpp).
    InputMemory memory() const { return read_ahead ? InputMemory::Mapped : InputMemory::Resident; }
};

// Writes the elements `view` selects from `data`, framed. With `pages`, the input pages the
// rest of the copy cannot read are released, and those it reads next asked for, as it moves on.
void write_view(const std::string& path, const OutputFraming& framing, const std::byte* data, const View& view,
                const InputPages& pages, const WriteOptions& options);

// Unlinks the temporary file being written, if any, so an interrupted run leaves nothing
// behind. Async-signal-safe: meant for a SIGINT/SIGTERM handler, which then ends the process.
void remove_pending_temporary() noexcept;

}  // namespace tslice
