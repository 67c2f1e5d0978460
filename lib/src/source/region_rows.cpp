// The rows of a region source a gather reads (region_rows.hpp).
#include "source/region_rows.hpp"

#include <algorithm>
#include <cstring>
#include <memory>

namespace tslice {

std::optional<GatheredRows> gathered_rows(const View& result, const Box& box, std::size_t itemsize,
                                          std::int64_t limit_bytes) {
    const std::size_t rank = box.start.size();
    if (!result.has_table() || rank == 0 || result.element_count() == 0 || box.element_count() == 0) return std::nullopt;
    std::int64_t row_bytes = static_cast<std::int64_t>(itemsize);
    for (std::size_t k = 1; k < rank; ++k) row_bytes *= box.stop[k] - box.start[k];
    const std::int64_t box_rows = box.stop[0] - box.start[0];
    // What the affine axes add to an entry: it must stay in the entry's row.
    std::int64_t low = 0, high = static_cast<std::int64_t>(result.itemsize);
    for (std::size_t k = 0; k < result.rank(); ++k) {
        if (result.shape[k] < 2) continue;
        const std::int64_t reach = (result.shape[k] - 1) * result.byte_strides[k];
        (reach < 0 ? low : high) += reach;
    }
    std::vector<char> used(static_cast<std::size_t>(box_rows), 0);
    for (const std::int64_t entry : *result.table) {
        if (entry == View::kZeroElement) continue;
        const std::int64_t at = result.byte_offset + entry;
        if (at < 0 || at >= box_rows * row_bytes) return std::nullopt;
        const std::int64_t in_row = at % row_bytes;
        if (in_row + low < 0 || in_row + high > row_bytes) return std::nullopt;
        used[static_cast<std::size_t>(at / row_bytes)] = 1;
    }
    GatheredRows out;
    std::vector<std::int64_t> position(static_cast<std::size_t>(box_rows), -1);
    for (std::int64_t row = 0; row < box_rows; ++row)
        if (used[static_cast<std::size_t>(row)]) {
            position[static_cast<std::size_t>(row)] = static_cast<std::int64_t>(out.rows.size());
            out.rows.push_back(row);
        }
    const auto kept = static_cast<std::int64_t>(out.rows.size());
    if (kept == box_rows || kept > limit_bytes / row_bytes) return std::nullopt;
    auto table = std::make_shared<std::vector<std::int64_t>>(*result.table);
    for (std::int64_t& entry : *table) {
        if (entry == View::kZeroElement) continue;
        const std::int64_t at = result.byte_offset + entry;
        entry = position[static_cast<std::size_t>(at / row_bytes)] * row_bytes + at % row_bytes;
    }
    out.view = result;
    out.view.byte_offset = 0;
    out.view.table = std::move(table);
    return out;
}

std::vector<std::byte> read_rows(const RegionSource& source, const ArrayInFile& array, const Box& box,
                                 const std::vector<std::int64_t>& rows, const std::vector<std::int64_t>& chunks,
                                 unsigned threads) {
    const std::size_t rank = box.start.size();
    std::int64_t row_bytes = static_cast<std::int64_t>(array.type.itemsize());
    for (std::size_t k = 1; k < rank; ++k) row_bytes *= box.stop[k] - box.start[k];
    // A chunk row too large to hold is read a row at a time (each row decoding its chunks).
    constexpr std::int64_t kMostRead = std::int64_t{64} << 20;
    std::int64_t chunk_rows = chunks.size() == rank ? chunks[0] : 1;
    if (chunk_rows * row_bytes > kMostRead) chunk_rows = 1;
    std::vector<std::byte> kept(static_cast<std::size_t>(std::max<std::int64_t>(1, static_cast<std::int64_t>(rows.size()) * row_bytes)));
    std::vector<std::byte> read;
    // A chunk row at a time: from its first row wanted to its last, so that no chunk is
    // decoded twice, and no row between two chunk rows is read.
    for (std::size_t i = 0; i < rows.size();) {
        const std::int64_t first = box.start[0] + rows[i];
        const std::int64_t chunk_row = first / chunk_rows;
        std::size_t j = i;
        while (j + 1 < rows.size() && (box.start[0] + rows[j + 1]) / chunk_rows == chunk_row) ++j;
        Box part = box;
        part.start[0] = first;
        part.stop[0] = box.start[0] + rows[j] + 1;
        read.resize(static_cast<std::size_t>((part.stop[0] - part.start[0]) * row_bytes));
        source.read(array, part, read.data(), threads, {});
        for (std::size_t n = i; n <= j; ++n)
            std::memcpy(kept.data() + static_cast<std::int64_t>(n) * row_bytes,
                        read.data() + (box.start[0] + rows[n] - first) * row_bytes, static_cast<std::size_t>(row_bytes));
        i = j + 1;
    }
    return kept;
}

}  // namespace tslice
