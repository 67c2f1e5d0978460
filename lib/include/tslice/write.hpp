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

#include "tslice/npy.hpp"
#include "tslice/source.hpp"
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

// Writes the elements `view` selects from `data`, framed, chunk by chunk from the read stage's
// reader: with `pages` (data mapped from a file), the input pages the rest of the copy cannot
// read are released, and those it reads next asked for, as it moves on.
void write_view(const std::string& path, const OutputFraming& framing, const std::byte* data, const View& view,
                const InputPages& pages, const WriteOptions& options);

class Conversion;  // tslice/convert.hpp

// write_view with every element converted: the elements `view` selects from `data` (of
// `conversion`'s source type), converted into its target type, framed. A chunk at a time, on
// options.threads threads, releasing the input's pages as it goes.
void write_view_converted(const std::string& path, const OutputFraming& framing, const std::byte* data,
                          const View& view, const InputPages& pages, const WriteOptions& options,
                          const Conversion& conversion);

// Whether a result renamed over an existing file of 64 MiB or more leaves the freeing of the
// replaced file's blocks to a short-lived process that outlives this one, so that the write
// returns once the result is in place. Freeing waits on the disk where the file system
// discards freed blocks (ext4 mounted with `discard`): about a third of the time of copying
// the file. For a program that exits right after writing (the tslice command); off by
// default, because the space comes back only once the calling process has exited.
void release_replaced_files_after_exit(bool enabled);

// Unlinks the temporary file being written, if any, so an interrupted run leaves nothing
// behind. Async-signal-safe: meant for a SIGINT/SIGTERM handler, which then ends the process.
void remove_pending_temporary() noexcept;

}  // namespace tslice
