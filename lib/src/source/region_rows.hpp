// A gather from a region source's array that picks rows of its first axis reads those rows
// only: each chunk row that holds one is read once, and the rows it needs are kept, one after
// another, in memory. The gather's table is turned to point into them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tslice/source.hpp"
#include "tslice/view.hpp"

namespace tslice {

struct GatheredRows {
    std::vector<std::int64_t> rows;  // of the box's first axis, from its start: sorted, distinct
    View view;                       // the result over the rows kept one after another
};

// The rows `result` (a table view over the box's bytes in C order, from offset 0, as
// ArrayData::open lays them) reads, and the result over them; nullopt where it is not a gather
// of whole rows (an axis that crosses rows outside its table), reads every row of the box, or
// needs more than `limit_bytes` of them.
std::optional<GatheredRows> gathered_rows(const View& result, const Box& box, std::size_t itemsize,
                                          std::int64_t limit_bytes);

// The rows, read through `source` (each chunk row once, `threads` workers), kept one after
// another; `chunks` as RegionSource::chunk_shape.
std::vector<std::byte> read_rows(const RegionSource& source, const ArrayInFile& array, const Box& box,
                                 const std::vector<std::int64_t>& rows, const std::vector<std::int64_t>& chunks,
                                 unsigned threads);

}  // namespace tslice
