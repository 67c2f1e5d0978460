// What every chunked region source (Zarr, HDF5's chunks read as stored) does with the chunks
// of a box: walk the chunks it touches, bound what a stored chunk may take, and copy a
// decoded chunk's part inside the box into the box's bytes (C order).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tslice/source.hpp"

namespace tslice {

// The chunks of a grid (chunks of shape `chunk`) that a non-empty box touches, numbered
// 0 .. count() - 1 in the grid's C order.
class ChunkGrid {
public:
    ChunkGrid(const std::vector<std::int64_t>& chunk, const Box& box);
    std::int64_t count() const { return count_; }
    // Chunk n: its place in the grid, its first index, and the box's part of it, [from, to).
    struct Chunk {
        std::vector<std::int64_t> grid, origin, from, to;
    };
    void at(std::int64_t n, Chunk& chunk) const;

private:
    std::vector<std::int64_t> chunk_, first_, across_;  // per axis: chunk length, first chunk, chunks
    Box box_;
    std::int64_t count_ = 1;
};

// The most bytes a stored chunk of `chunk_bytes` decoded may take: what blosc, zstd or
// deflate add to incompressible data. A larger one is damaged, and is not read.
inline std::uint64_t stored_chunk_limit(std::uint64_t chunk_bytes) { return chunk_bytes + chunk_bytes / 8 + (1 << 20); }

// Copies the part of `chunk` inside `box` into `dst` (the box's bytes in C order): `from` and
// `to` are the array indices of the intersection, `origin` the chunk's first index,
// `chunk_strides` the byte strides of the chunk's axes (C or F order), `item` the element size.
void place_chunk(const std::byte* chunk, const std::vector<std::int64_t>& chunk_strides, std::size_t item,
                 const Box& box, const std::vector<std::int64_t>& origin, const std::vector<std::int64_t>& from,
                 const std::vector<std::int64_t>& to, std::byte* dst);

}  // namespace tslice
