// The copy kernels, private to the library: what copy.cpp's outer loop calls once the layout
// is normalised. A kernel set is one table of these per instruction set: "scalar" (plain
// loops, the reference every other set is tested against, kernels_scalar.cpp) and the SIMD
// sets built from one kernel body (kernels_body.hpp) in kernels_sse42.cpp, kernels_avx2.cpp,
// kernels_avx512.cpp and kernels_avx512vbmi.cpp, each compiled with its own instruction-set
// flags. kernels.cpp picks one on first use (cpuid, or TSLICE_KERNEL); nothing else here
// knows which.
//
// Kernels see bytes and strides only: an item size, a byte stride, a count. Never a dtype or
// an op.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tslice::kernels {

// A row kernel prepared for one stride and item size: copies `count` elements, the first at
// `src` and each next one `stride` bytes further on (negative: backwards), densely to `dst`.
// Preparing may build shuffle tables (the stepped kernels' masks), so a copy prepares once
// and runs it on every row.
//
// `slack`: how many bytes after the row's output the kernel may overwrite with anything,
// because the caller writes them afterwards (the next row's output). With a register's worth
// of it, the stepped kernel stores every register whole up to the row's end, instead of
// staging its last ones in a buffer and copying them out.
struct RowKernel {
    using Fn = void (*)(const RowKernel& kernel, const std::byte* src, std::byte* dst, std::int64_t count,
                        std::int64_t slack);

    // Room for the stepped kernels' tables: `period` entries of one vector of masks each
    // (at most 64 entries of 64 bytes), and the output bytes of each 16-byte lane of an entry.
    static constexpr std::size_t kMaskBytes = 4096;
    static constexpr std::size_t kMaxPeriod = 64;

    Fn fn = nullptr;
    // The same copy with non-temporal stores, where the set has one: `dst` 64-byte aligned and
    // `count` elements a multiple of 64 bytes; null otherwise. A streamed copy's whole output
    // lines then go straight from the kernel, not through copy.cpp's stage.
    Fn streamed = nullptr;
    std::int64_t stride = 0;
    std::size_t itemsize = 0;
    const char* name = "";  // for tests and the timing driver: which kernel the set chose
    // The plain loop, unrolled or not: a load an element, where the other kernels load whole
    // registers of the row.
    bool per_element = false;
    int period = 0;
    alignas(64) std::uint8_t masks[kMaskBytes];
    std::uint8_t counts[kMaxPeriod * 4];
    std::uint8_t entry_at[kMaxPeriod];  // the entry for a register at distance d: entry_at[(d % step) / gcd(step, W)]
    std::uint64_t merge_lanes[kMaxPeriod];  // the merged kernel: the output lanes input register i fills

    void operator()(const std::byte* src, std::byte* dst, std::int64_t count, std::int64_t slack = 0) const {
        fn(*this, src, dst, count, slack);
    }
};

// A 2-D kernel for a plane whose rows are close together and whose columns are far apart
// (a Fortran-order input read in C order, a transpose): copies `rows` x `cols` elements,
// element (r, c) at src + r * row_stride + c * col_stride, densely to dst (row r at
// dst + r * cols * itemsize), in tiles small enough that reads and writes stay in cache.
using TileFn = void (*)(const std::byte* src, std::int64_t row_stride, std::int64_t col_stride, std::byte* dst,
                        std::int64_t rows, std::int64_t cols, std::size_t itemsize);

struct KernelSet {
    const char* name;
    // Fills `kernel` for rows of `length` elements `stride` bytes apart, of `itemsize` bytes.
    // `resident`: whether the input's pages are all mapped before the copy reads them
    // (memory the process holds), rather than faulted in by the copy's own reads (a file
    // mapping). The plain loop's choice depends on it (kernels_rows.hpp).
    void (*prepare_row)(RowKernel& kernel, std::int64_t stride, std::size_t itemsize, std::int64_t length,
                        bool resident);
    // Null for a set without 2-D kernels (the scalar set: its rows are the reference).
    TileFn tile;
    // A contiguous copy with non-temporal (streaming) stores, and the fence that orders them
    // before anything the copy's caller does next; null for a set that never streams.
    void (*stream_copy)(std::byte* dst, const std::byte* src, std::size_t bytes);
    void (*stream_fence)();
    // Whether copy_view prefetches the rows ahead of the one it copies (not for the
    // reference set, whose outer loop stays the plain one).
    bool prefetch;
    // The longest step in bytes the stepped kernel takes for items of 1, 2, 4 and 8 bytes
    // (0: never), and whether the merged kernel takes those rows in its place: for the bench to
    // say what the set chooses.
    std::int64_t stepped_most[4];
    bool merged[4];
};

// Each set, or null when this build has no such set (not x86-64, or its flags were not
// given). Whether the CPU runs it is kernels.cpp's question, and must be asked first: each
// accessor is compiled for its instruction set.
const KernelSet& scalar_set();
const KernelSet* sse42_set();
const KernelSet* avx2_set();
const KernelSet* avx512_set();
const KernelSet* avx512vbmi_set();

// The set copy_view uses: chosen once from cpuid and TSLICE_KERNEL, or forced by
// force_kernel_set (copy.hpp).
const KernelSet& active_set();

// For the kernels outside the copy (conversions, statistics), which kernels.cpp also chooses
// for: whether the set in use is `name` or one above it (scalar, sse4.2, avx2, avx512,
// avx512vbmi), so that TSLICE_KERNEL=scalar or a cap gives them their portable loops too; and
// whether the CPU has an extension those kernels need beside a set's own flags (none below a
// TSLICE_KERNEL_CAP of avx2). A kernel compiled for more than the build's baseline runs only
// after both say yes.
bool active_set_reaches(std::string_view name);
// Whether the CPU runs the set `name` (under TSLICE_KERNEL_CAP), whichever set is in use: for
// the accessors of such kernels, which the tests call directly.
bool cpu_runs(std::string_view name);
enum class Extension { Fma, F16c };
bool cpu_has(Extension extension);

// Whether rows the stepped kernel can take get it: as the set's stepped_most_bytes says (the
// default), or always, or never (the plain loop). For tests and benchmarks: the bench's table
// of copy choices times the other kernel on the CPU at hand. Read when a row kernel is prepared.
enum class SteppedChoice { Chosen, Always, Never };
SteppedChoice stepped_choice();
void set_stepped_choice(SteppedChoice choice);

// Whether rows the plain loop takes, read from memory the process holds, get it unrolled: as
// chosen (kernels_rows.hpp: not rows of elements more than half a line and at most a line
// apart), or always, or never. For tests and benchmarks, as above.
enum class UnrolledChoice { Chosen, Always, Never };
UnrolledChoice unrolled_choice();
void set_unrolled_choice(UnrolledChoice choice);

// The output size (bytes of one copy_view call) from which copy_view streams; tests lower it
// so that small copies take the streaming path too (copy.cpp).
}  // namespace tslice::kernels
