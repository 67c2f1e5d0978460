// The read stage's sizes, each a multiple of one number, the chunk: the shipped chunk, or a
// test's small one (set_read_chunk_for_tests), with which arrays of a few kilobytes cross many
// chunks, release pieces, read aheads, gather windows and threads. Unit tests of one part of
// the stage construct that part with sizes of their own (the fields are its parameters).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace tslice {

// The result's unit, the one chunk size of the read and write stages: large enough that a
// write() costs little per byte, small enough that the writer's two buffers of it are nothing
// beside the page cache.
constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

// The page the kernel reads and maps (x86-64's base page).
constexpr std::int64_t kPageBytes = 4096;

struct ReadSizes {
    std::size_t chunk_bytes = kChunkBytes;
    // Threads start only for results of at least two chunks (copy_view_parallel's parts).
    std::int64_t threaded_bytes = 2 * chunk();
    // A chunk that reads far more input than it writes (a large step, a few columns of many) is
    // copied in pieces of about this much input, each released when done, so that a small
    // result of a large file never has the whole file mapped.
    double release_bytes = static_cast<double>(64 * chunk());
    // How far ahead of the copy the input's pages are asked for (InputPaging; the A/B that
    // keeps it and this distance: docs/performance.md).
    double read_ahead_bytes = static_cast<double>(32 * chunk());
    // A read ahead covers blocks of whole trailing axes whose pages the copy mostly reads;
    // blocks under a page are left to the kernel's read-around of each fault. (A floor of a
    // chunk left `[:, ::64]`'s blocks of 4 KiB to the faults, far slower cold:
    // docs/performance.md.)
    std::int64_t read_ahead_block_bytes = kPageBytes;
    // Whether read aheads are asked for by a thread of their own (InputPaging); a test's small
    // chunks ask on the copy's thread, so that the test sees every ask.
    bool read_ahead_thread = true;
    // A read ahead at least this long that goes on from the last one (a walk without gaps) is
    // read into the page cache (InputPages::read_in) rather than asked for.
    std::int64_t read_in_bytes = chunk();
    // Whether such a read in is left out where the page cache holds the stretch already
    // (InputPaging::fetch); a test's small chunks read in every one, so that the test sees it.
    bool read_in_skips_cached = true;
    // A gather whose rows are at least this long reads them from the file (row_reads.hpp)
    // instead of through the mapping. Not a multiple of the chunk: about what a pread costs
    // against copying through a fault; a test's chunk of less than 1 KiB lowers it to half a
    // chunk, so that its small arrays reach both ways.
    std::int64_t read_row_bytes = 512;
    // A gather through the mapping whose reads spread over more than this much of the input
    // is copied a window at a time in the input's order (scattered_gather.hpp): the mapping
    // would otherwise keep about that much resident.
    std::int64_t scattered_gather_bytes = 64 * chunk();
    // Such a window's result bytes at most, and twice the bytes of its list of rows.
    std::int64_t gather_window_bytes = 64 * chunk();
    // Such a window's reads go region by region of the input, each region released when done.
    std::int64_t gather_region_bytes = 4 * chunk();

    ReadSizes() = default;
    // The sizes of a chunk of `bytes`.
    explicit ReadSizes(std::size_t bytes)
        : chunk_bytes(bytes),
          threaded_bytes(2 * chunk()),
          release_bytes(static_cast<double>(64 * chunk())),
          read_ahead_bytes(static_cast<double>(32 * chunk())),
          read_ahead_block_bytes(kPageBytes),
          read_ahead_thread(bytes == kChunkBytes),
          read_in_bytes(chunk()),
          read_in_skips_cached(bytes == kChunkBytes),
          read_row_bytes(std::min<std::int64_t>(512, chunk() / 2)),
          scattered_gather_bytes(64 * chunk()),
          gather_window_bytes(64 * chunk()),
          gather_region_bytes(4 * chunk()) {}

private:
    std::int64_t chunk() const { return static_cast<std::int64_t>(chunk_bytes); }
};

// The sizes reads use: the shipped ones, or those of the chunk a test set.
ReadSizes read_sizes();
// The one test hook: reads that start afterwards use ReadSizes(chunk_bytes) (0: the shipped
// sizes again); not while a read runs.
void set_read_chunk_for_tests(std::size_t chunk_bytes);

}  // namespace tslice
