// What a copy of a view will do, decided once from the view alone: its normalised layout, the
// kernel set, how rows are copied (a row kernel, 2-D tiles, a table lookup per row or per
// element), how far ahead rows are prefetched. The copy loop (copy.cpp) only carries it out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "copy/copy_machine.hpp"
#include "copy/kernels.hpp"
#include "tslice/copy.hpp"
#include "tslice/view.hpp"

namespace tslice {

// The staging buffer: well inside L1, and small, so that its streamed stores interleave with
// the kernels' loads (measured: 8 KiB flushes stall the loads, 1 to 4 KiB do not).
constexpr std::size_t kStageBytes = 2048;

struct CopyPlan {
    enum class Method {
        Element,        // a 0-d view: one element
        Rows,           // each row (the innermost axis) by the row kernel
        Tiles,          // the two innermost axes in 2-D tiles (rows close together, elements far apart)
        TableRows,      // a gather: one table lookup a row, then the row kernel (or zeros)
        TableElements,  // a gather along the innermost axis: one lookup an element
    };

    View layout;  // normalise(view)
    const kernels::KernelSet* set = nullptr;
    Method method = Method::Rows;
    kernels::RowKernel row;
    std::int64_t row_length = 0;          // elements in a row
    std::int64_t inner_stride = 0;        // bytes between a row's elements
    std::int64_t inner_table_stride = 0;  // table entries between them (TableElements)
    // Rows ahead whose input lines are prefetched while a row is copied; 0 for none (tiles,
    // and the reference set, whose loop stays the plain one).
    std::int64_t prefetch_ahead = 0;
    // Whether those prefetches go into L1 (prefetcht0) rather than L2 (prefetcht2):
    // prefetches_to_l1 (copy_prefetch.hpp), but for the rows copy_machine.cpp sends to L2.
    bool prefetch_to_l1 = false;
    // For rows whose elements lie 1 KiB or more apart, longer than this: how many elements
    // ahead in the row itself its lines are prefetched; 0 for none.
    std::int64_t lines_ahead = 0;
    // Rows (Method::Rows) short enough to be copied a band at a time: all the rows left in
    // the plane of the two innermost axes in one tight loop (copy.cpp).
    bool bands = false;
};

// For a view with at least one element.
CopyPlan plan_copy(const View& view, InputMemory memory = InputMemory::Resident);

// Whether a call that copies `count` elements writes them with non-temporal stores: only
// copies large enough that their output cannot stay in the caches anyway, of rows of at
// least 1 KiB (see copy_plan.cpp).
bool copy_streams(const CopyPlan& plan, std::int64_t count);

// The byte count from which copies stream (half a thread's share of the last-level cache,
// see copy_machine.cpp); setting it is for tests and benchmarks.
std::size_t stream_threshold();
void set_stream_threshold(std::size_t bytes);

// This machine's streaming choices and the reasons for them (copy_machine.hpp), for the bench.
const StreamSettings& stream_settings();

// In a copy that streams, a contiguous run of this many bytes or more is handed to memcpy,
// which streams it itself (copy_machine.cpp); SIZE_MAX: never, as when stream_choice() is
// not Chosen (Always streams with tslice's own loop, Never does not stream).
std::size_t memcpy_run_bytes();
// Sets it (SIZE_MAX: never), for tests; set_memcpy_run_bytes(kMachineMemcpyRunBytes) goes
// back to the machine's choice.
constexpr std::size_t kMachineMemcpyRunBytes = ~std::size_t{0} - 1;
void set_memcpy_run_bytes(std::size_t bytes);

// Whether copies stream: as copy_streams decides (the default), or always (as far as the
// staging buffer allows) or never, whatever the size and the rows: for tests and benchmarks.
enum class StreamChoice { Chosen, Always, Never };
StreamChoice stream_choice();
void set_stream_choice(StreamChoice choice);

// How far ahead of the copy the input is prefetched, in cache lines (64; 0: none): the rows
// that hold that many lines (at most 64 rows, at least one), and for long rows of elements
// 1 KiB or more apart, that many elements on in the row. A setting for tests and benchmarks.
std::int64_t prefetch_lines();
void set_prefetch_lines(std::int64_t lines);

// Whether the rules that leave some rows unprefetched (rows the hardware's prefetchers follow:
// dense or read in order in bands, read in order row by row, short rows several lines apart
// on AMD) apply, as chosen, or not: for tests and benchmarks (the bench's copy choices time
// such rows prefetched).
enum class PrefetchChoice { Chosen, Always };
PrefetchChoice prefetch_choice();
void set_prefetch_choice(PrefetchChoice choice);

// Whether the rows ahead are prefetched into the cache level chosen (CopyPlan::prefetch_to_l1)
// or into the other one (L2 for L1, L1 for L2): for the bench's copy choices.
enum class PrefetchLevelChoice { Chosen, Other };
PrefetchLevelChoice prefetch_level_choice();
void set_prefetch_level_choice(PrefetchLevelChoice choice);

}  // namespace tslice
