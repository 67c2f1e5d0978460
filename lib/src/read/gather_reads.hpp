// How a gather is read from a file, one decision for the write stage and the text writers:
// rows of at least ReadSizes::read_row_bytes with pread (row_reads.hpp), shorter rows spread
// far over the input a window at a time in the input's order (scattered_gather.hpp), and long
// rows so too where the page cache holds the input in large folios (folio_probe.hpp). Any other
// view, or data in memory, is left to the caller, who copies it through the mapping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "read/scattered_gather.hpp"
#include "read/read_sizes.hpp"
#include "tslice/threads.hpp"
#include "tslice/view.hpp"
#include "tslice/source.hpp"

namespace tslice {

class GatherReads {
public:
    // `view` and `pages` must outlive this.
    GatherReads(const std::byte* data, const View& view, const InputPages& pages, const ReadSizes& sizes);

    // Whether the view is read so, not through the mapping.
    explicit operator bool() const { return reads_rows_ || scattered_.has_value(); }

    // Fills `dst` with elements [first, first + count); quickest called in their order.
    void copy(WorkerPool& pool, std::byte* dst, std::int64_t first, std::int64_t count);

private:
    const View& view_;
    const InputPages& pages_;
    bool reads_rows_ = false;
    std::optional<ScatteredGather> scattered_;
};

}  // namespace tslice
