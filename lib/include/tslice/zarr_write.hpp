// Writing a result as a Zarr v2 array: a directory of chunk files and a .zarray, made in a
// temporary directory beside the target and renamed into place when complete.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tslice/container.hpp"
#include "tslice/convert.hpp"
#include "tslice/view.hpp"
#include "tslice/write.hpp"

namespace tslice {

struct ZarrOptions {
    std::vector<std::int64_t> chunks;  // one per axis; empty: about 4 MiB a chunk (zarr_chunks)
    std::string compressor = "zstd";   // zstd, blosc (lz4 inside, byte shuffle), zlib or none
};

// The default chunk shape for `shape` of `itemsize`-byte elements: whole trailing axes first,
// as many as fit in `target` bytes, then as many rows of the next axis as fit (at least one),
// one index of each axis before it.
std::vector<std::int64_t> zarr_chunks(const std::vector<std::int64_t>& shape, std::size_t itemsize,
                                      std::int64_t target = std::int64_t{4} << 20);

// "64,256,256" as chunk lengths; Error(Usage) for anything that is not positive integers.
std::vector<std::int64_t> parse_zarr_chunks(const std::string& text);

// Error(Usage) where a Zarr array cannot hold the result, or the options do not fit it (a
// chunk list of another length than the shape, an unknown compressor); checked before reading.
void check_zarr_output(const ElementType& type, const std::vector<std::int64_t>& shape, const ZarrOptions& options);

// Writes the elements of `view` over `data` as the Zarr array `path`, its chunks copied and
// compressed on `write.threads` threads and each written as soon as it is compressed. `path`
// appears whole or not at all: an existing Zarr store there is replaced only once the new one
// is complete; any other existing file or directory is left alone (Error(Usage)).
// Chunks are made a row of the chunk grid at a time (every chunk that shares the first
// axis's index), and the input's pages that row read are released after it (`pages`).
// `conversion` (--astype): each chunk's elements are converted from the view's type to `type`
// as the chunk is made, so the converted result is never whole in memory.
void write_zarr(const std::string& path, const std::byte* data, const View& view, const ElementType& type,
                const ZarrOptions& options, const WriteOptions& write, const InputPages& pages = {},
                const Conversion* conversion = nullptr);

// Removes the temporary directory of a Zarr store being written, if any, and what it holds:
// for remove_pending_temporary() in a signal handler. Async-signal-safe (open, getdents64,
// unlinkat, rmdir): a chunk file a worker makes meanwhile may survive the removal.
void remove_pending_zarr_store() noexcept;

}  // namespace tslice
