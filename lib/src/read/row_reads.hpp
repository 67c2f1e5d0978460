// A gather's rows read from the input file where they lie (pread), not through its mapping.
//
// Why: a gather of scattered rows faults the mapping once for each, and every fault maps the
// 64 KiB around it (the kernel's default fault-around), so a gather of 10% of a file's rows
// leaves nearly all of it resident (docs/performance.md). Read with pread, the pages stay in the page cache and
// never become this process's memory, and reads sorted by offset let a cold device stream.
#pragma once

#include <cstdint>
#include <vector>

#include "read/read_sizes.hpp"
#include "tslice/threads.hpp"
#include "tslice/view.hpp"
#include "tslice/source.hpp"

namespace tslice {

// The bytes of one row of a gather: its innermost axis where that is a contiguous block of
// the input (a gather along any axis but the innermost), else one element; 0 for a view
// without a table or elements.
std::int64_t gathered_row_bytes(const View& view);

// Whether a copy of `view` reads its rows so (read_gathered_rows): a gather whose rows are at
// least sizes.read_row_bytes long, from an input that can be read without its mapping.
bool reads_gathered_rows(const View& view, const InputPages& pages, const ReadSizes& sizes);

// The reads that make elements [first, first + count) of a gather, row by row: `bytes` bytes from
// input offset `input` (View::kZeroElement: zeros) to output offset `output` (from the
// first element), in output order. Appended to `out`.
struct RowRead {
    std::int64_t input = 0, output = 0, bytes = 0;
};
void list_row_reads(const View& view, std::int64_t first, std::int64_t count, std::vector<RowRead>& out);

// Rows closer together than this are read as one span (into a buffer, then copied apart):
// a read costs about as much as copying this many bytes.
constexpr std::int64_t kRowReadGapBytes = 8 << 10;
// The most one such span reads.
constexpr std::int64_t kRowReadSpanBytes = 256 << 10;

// Fills `dst` with elements [first, first + count) of such a gather through `pages.read`, in
// the order of the rows' input offsets, split over `pool`. Rows the page cache lacks are asked
// for all at once before any is waited for, and then the rows of the `next_count` elements
// after these too (the next chunk's), so that a cold input keeps its device busy.
void read_gathered_rows(WorkerPool& pool, const View& view, const InputPages& pages, std::byte* dst,
                        std::int64_t first, std::int64_t count, std::int64_t next_count = 0);

}  // namespace tslice
