// What the copy loop (copy.cpp) prefetches ahead of itself, and in what pieces.
//
// The hardware prefetchers follow one stream of rising (or falling) addresses, but not rows
// that each start a new page and then run backwards, or that skip part of each page:
// measured on Zen 4, such copies ran at half speed without help. So while a row is copied,
// the lines of the rows that hold the next 64 lines or so (copy_plan.cpp) are prefetched, a
// share before each piece of the row (not all at once, which starves the copy's own loads),
// in rising order whatever the row's direction, and whole pages where the row covers most of
// them (reading the rest of a page costs less than leaving a gap in it). Rows read forwards
// with adjacent elements prefetch into L2 (prefetcht2); rows read backwards, and rows with a
// line per element, into L1 (prefetcht0): what measured fastest (prefetches_to_l1), but for
// short rows of elements more than two lines apart on Zen 4, which go into L2
// (CopyPlan::prefetch_to_l1, copy_machine.cpp). A row
// whose elements lie 1 KiB or more apart, longer than that, also prefetches its own elements
// 32 on (the column of a matrix: each element on a page of its own, which no hardware
// prefetcher follows; every 4 KiB of 1 GiB float32 copied in half the time; copy_plan.cpp
// says why 32).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "tslice/view.hpp"

namespace tslice {

constexpr std::int64_t kPrefetchMost = 65536;  // bytes of a row prefetched, in its reading order
constexpr std::int64_t kPiece = 1024;          // input bytes copied between prefetches
constexpr std::int64_t kTablePiece = 16;       // elements looked up between prefetches
constexpr std::int64_t kSparsePiece = 16;      // elements of a line each copied between prefetches

// GCC 12 takes a loop of nothing but __builtin_prefetch for one without effects and deletes
// it (its mod/ref analysis), hence the asm on x86.
template <bool ToL1>
inline void prefetch_line(const void* address) {
#if defined(__x86_64__) || defined(__i386__)
    if constexpr (ToL1) {
        asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(address)));
    } else {
        asm volatile("prefetcht2 %0" : : "m"(*static_cast<const char*>(address)));
    }
#else
    __builtin_prefetch(address, 0, ToL1 ? 3 : 1);
#endif
}

// Whether the lines of rows read with this inner stride are prefetched into L1 (prefetcht0),
// not L2: rows read backwards, and rows with a line per element. Measured on Zen 4 (1 GiB
// inputs, rows of 1024 elements, one thread, medians of 7): every 100th int16 took 45 ms
// with the lines prefetched into L2 and 23 to 25 ms into L1 (numpy: 13 to 15), every 100th
// float32 14 and 11.6, every 17th 34 and 31.5; steps of 32 the same either way. Forward
// rows of adjacent elements were no faster in L1 (float32 [:, :, :64] slower: 7.2 to 9.6
// against 6.6 to 7.4 ms).
inline bool prefetches_to_l1(std::int64_t inner_stride) { return inner_stride < 0 || inner_stride > 64; }

// The cache lines of a row to prefetch, in rising order: `count` lines from `first`, `step`
// bytes apart.
struct RowLines {
    std::uintptr_t first = 0;
    std::int64_t step = 0, count = 0;

    void prefetch(std::int64_t from, std::int64_t to, bool to_l1) const {
        for (std::int64_t i = from; i < to; ++i) {
            const auto* line = reinterpret_cast<const void*>(first + static_cast<std::uintptr_t>(i * step));
            if (to_l1) {
                prefetch_line<true>(line);
            } else {
                prefetch_line<false>(line);
            }
        }
    }
};

// The lines of a row of `length` elements from `start`, `stride` bytes apart.
inline RowLines row_lines(const std::byte* start, std::int64_t stride, std::int64_t length, std::int64_t itemsize) {
    constexpr std::int64_t kLine = 64, kPage = 4096;
    const auto address = reinterpret_cast<std::uintptr_t>(start);
    if (std::abs(stride) > kLine) {  // a line per element: the first ones read, lowest first
        const std::int64_t elements = std::min(length, kPrefetchMost / kLine);
        const auto lowest = stride > 0 ? address : address - static_cast<std::uintptr_t>((elements - 1) * -stride);
        return {lowest, std::abs(stride), elements};
    }
    const std::int64_t reach = (length - 1) * stride;
    std::uintptr_t low = reach < 0 ? address - static_cast<std::uintptr_t>(-reach) : address;
    std::uintptr_t high = low + static_cast<std::uintptr_t>(std::abs(reach) + itemsize);
    const std::uintptr_t page_low = low & ~std::uintptr_t{kPage - 1};
    const std::uintptr_t page_high = (high + kPage - 1) & ~std::uintptr_t{kPage - 1};
    if (high - low >= kPage / 2 && 4 * (high - low) >= 3 * (page_high - page_low)) {
        low = page_low;
        high = page_high;
    }
    if (high - low > static_cast<std::uintptr_t>(kPrefetchMost)) {
        if (stride >= 0) {
            high = low + kPrefetchMost;
        } else {
            low = high - kPrefetchMost;
        }
    }
    low &= ~std::uintptr_t{kLine - 1};
    return {low, kLine, static_cast<std::int64_t>((high - low + kLine - 1) / kLine)};
}

// The elements of a row that walks the table (a gather along the last axis), to prefetch:
// each one's line, wherever its table entry puts it.
struct TableElements {
    const std::byte* row = nullptr;  // the row's start, before the entries
    const std::int64_t* entries = nullptr;
    std::int64_t stride = 0, table_stride = 0, count = 0;

    void prefetch(std::int64_t from, std::int64_t to) const {
        for (std::int64_t i = from; i < to; ++i) {
            const std::int64_t entry = entries[i * table_stride];
            if (entry != View::kZeroElement) prefetch_line<false>(row + i * stride + entry);
        }
    }
};

}  // namespace tslice
