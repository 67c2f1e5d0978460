// A gather whose reads lie far apart in a mapped input, copied a window of the result at a
// time in the order of the input: region by region, each region's pages unmapped once its
// reads are done.
//
// Why: a fault on a file mapping maps the whole folio it lands in (up to 2 MiB) or the 64 KiB
// around it, so a gather of short rows spread over a file left nearly all of it resident,
// however few bytes it read. Reading each short row with pread instead costs a call per row,
// far slower than the mapping (docs/performance.md). Walked region by region, the
// mapping's faults stay as few as before and what they map goes as soon as the walk has passed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "read/row_reads.hpp"
#include "read/read_sizes.hpp"
#include "tslice/threads.hpp"
#include "tslice/view.hpp"
#include "tslice/source.hpp"

namespace tslice {

class ScatteredGather {
public:
    // Whether `view` is copied so: a gather whose table entries spread over more than
    // sizes.scattered_gather_bytes of an input whose pages can be unmapped.
    static bool suits(const View& view, const InputPages& pages, const ReadSizes& sizes);

    ScatteredGather(const std::byte* data, const View& view, const InputPages& pages, const ReadSizes& sizes);

    // Fills `dst` with elements [first, first + count). Calls in the order of the elements
    // make each window once.
    void copy(WorkerPool& pool, std::byte* dst, std::int64_t first, std::int64_t count);

    // The bytes the view may read, offsets from the input's data.
    View::Span hull() const { return hull_; }

    // The elements of a window (the last may hold fewer).
    std::int64_t window_elements() const { return window_elements_; }

    // A whole row of a window: its offset in its input region and in the window.
    struct Row {
        std::uint32_t input, output;
    };

    ScatteredGather(const ScatteredGather&) = delete;
    ScatteredGather& operator=(const ScatteredGather&) = delete;

private:
    // Anonymous memory asked for in huge pages where the kernel allows, and not zeroed by
    // hand: a window and its list in 4 KiB pages take a fault per page, a large part of the
    // time of a gather of many short rows.
    class Memory {
    public:
        Memory() = default;
        ~Memory();
        Memory(const Memory&) = delete;
        Memory& operator=(const Memory&) = delete;
        // At least `bytes`; what it held is kept unless it grows.
        std::byte* get(std::size_t bytes);

    private:
        void* map_ = nullptr;
        std::size_t size_ = 0;
    };

    void make_window(WorkerPool& pool, std::int64_t first);

    const std::byte* data_;
    View view_;
    InputPages pages_;
    View::Span hull_;  // the bytes the view may read
    int region_shift_ = 0;
    std::int64_t region_bytes_ = 0, row_bytes_ = 0, window_elements_ = 0;
    Memory window_memory_, rows_memory_;
    std::byte* window_ = nullptr;
    std::int64_t window_first_ = 0, window_count_ = 0;
    Row* rows_ = nullptr;  // the window's whole rows, region by region
};

}  // namespace tslice
