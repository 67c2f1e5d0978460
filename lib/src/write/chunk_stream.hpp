// A framed result written chunk by chunk: the chunks are produced on a thread of their own, at
// most two ahead of the writer (one being written, one being filled), so that copying and
// writing overlap and the result is never held whole in memory. The chunks go in order with
// write(), or, into a file whose bytes may be placed (OutputFile::placed_from), from the last
// to the first with pwrite() at their places: a copy that walks its input downwards then
// reads it upwards, the order in which the kernel reads a file ahead on its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "read/result_reader.hpp"
#include "tslice/write.hpp"

namespace tslice {

// write() of all `size` bytes, retried where interrupted; errors name `target`.
void write_all(int fd, const char* data, std::size_t size, const std::string& target);

struct ChunkOrder {
    // From the last chunk to the first, each written at its place from `base`, the offset of
    // the framing's first byte in the descriptor, which is left at the result's end.
    bool backwards = false;
    std::int64_t base = 0;
};

// Writes the framing's prefix, the data `source` produces (chunks of
// elements_per_chunk(itemsize, chunk_bytes) elements; the CRC-32 a suffix needs is computed as
// they are produced) and its suffix to `fd`. The first chunk produced exists before anything
// is written, so a source that fails at once leaves even a stream untouched. Backwards, the
// prefix is written after the data.
void stream_framed(int fd, const std::string& target, const OutputFraming& framing, std::size_t itemsize,
                   const std::vector<std::int64_t>& shape, const ChunkSource& source, std::size_t chunk_bytes,
                   const ChunkOrder& order = {});

}  // namespace tslice
