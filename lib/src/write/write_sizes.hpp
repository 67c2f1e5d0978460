// The write stage's sizes. The shipped values suit real files; tests and the fuzzer set small
// ones so that arrays of a few kilobytes cross many chunks, release pieces and threads.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tslice/view.hpp"

namespace tslice {

struct WriteSizes {
    // The writer's unit: large enough that a write() costs little per byte, small enough that
    // two buffers of it are nothing beside the page cache.
    std::size_t chunk_bytes = std::size_t{1} << 20;
    // Threads start only for results large enough to split (copy_view_parallel's parts).
    std::int64_t threaded_bytes = std::int64_t{2} << 20;
    // A chunk that reads far more input than it writes (a large step, a few columns of many) is
    // copied in pieces of about this much input, each released when done, so that a small
    // result of a large file never has the whole file mapped.
    double release_bytes = 64 << 20;
    // How far ahead of the copy the input's pages are asked for (InputPaging).
    double read_ahead_bytes = 32 << 20;
    // A read ahead covers blocks of whole trailing axes whose pages the copy mostly reads;
    // smaller blocks are left to the kernel's read-around of each fault.
    std::int64_t read_ahead_block_bytes = std::int64_t{1} << 20;
    // Whether read aheads are asked for by a thread of their own (InputPaging).
    bool read_ahead_thread = true;
    // A read ahead at least this long that goes on from the last one (a walk without gaps) is
    // read into the page cache (InputPages::read_in) rather than asked for.
    std::int64_t read_in_bytes = std::int64_t{1} << 20;
    // A gather whose rows are at least this long reads them from the file (row_reads.hpp)
    // when the input can be read so (InputPages::read), instead of through the mapping.
    std::int64_t read_row_bytes = 512;
    // A gather through the mapping whose reads spread over more than this much of the input
    // is copied a window at a time in the input's order (scattered_gather.hpp): the mapping
    // would otherwise keep about that much resident.
    std::int64_t scattered_gather_bytes = std::int64_t{64} << 20;
    // Such a window's result bytes at most, and twice the bytes of its list of rows.
    std::int64_t gather_window_bytes = std::int64_t{64} << 20;
    // Such a window's reads go region by region of the input, each region released when done.
    std::int64_t gather_region_bytes = std::int64_t{4} << 20;
};

WriteSizes write_sizes();
// For tests: takes effect for writes that start afterwards; not while a write runs.
void set_write_sizes(const WriteSizes& sizes);

// A view whose elements are larger than `chunk_bytes`, as a view of parts of them: a trailing
// axis over each element's bytes in the largest units that divide the element and fit a
// chunk (write.cpp). Other views are returned as they are.
View in_chunk_sized_units(const View& view, std::size_t chunk_bytes);

}  // namespace tslice
