// A decoded chunk's part inside a box copied into the box's bytes (C order): what every
// chunked region source (Zarr, HDF5's chunks read as stored) does with a chunk once decoded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tslice/source.hpp"

namespace tslice {

// Copies the part of `chunk` inside `box` into `dst` (the box's bytes in C order): `from` and
// `to` are the array indices of the intersection, `origin` the chunk's first index,
// `chunk_strides` the byte strides of the chunk's axes (C or F order), `item` the element size.
void place_chunk(const std::byte* chunk, const std::vector<std::int64_t>& chunk_strides, std::size_t item,
                 const Box& box, const std::vector<std::int64_t>& origin, const std::vector<std::int64_t>& from,
                 const std::vector<std::int64_t>& to, std::byte* dst);

}  // namespace tslice
