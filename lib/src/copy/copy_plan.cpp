// The choices of a copy, made once per view (see copy_plan.hpp).
#include "copy/copy_plan.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <optional>

#include "copy/copy_machine.hpp"
#include "copy/copy_prefetch.hpp"
#include "tslice/copy.hpp"

namespace tslice {
namespace {

// The machine's streaming choices (copy_machine.cpp: from which size a copy streams, and
// when a contiguous run goes to memcpy instead), made once.
const StreamSettings& machine_settings() {
    static const StreamSettings settings = choose_stream_settings(read_machine_facts());
    return settings;
}

std::size_t default_stream_bytes() { return machine_settings().stream_bytes; }

constexpr std::size_t kStreamRowBytes = 1024;

// Rows of at most this many elements, in planes of at least kBandRows rows, are copied a band
// (a plane's rows) at a time, in a loop that does nothing between rows but prefetch and call
// the row kernel. Row by row, the copy loop's own work between rows (the next row's place,
// its pieces, its share of prefetches) cost short rows up to a third of their time: measured
// on Zen 4 (1 GiB inputs, one thread, the plain loop, medians of 5 processes of 7 copies),
// `[:, :, 3:35]` uint8 8.5 ms row by row against 5.7 in bands, int16 7.3 against 5.1,
// float32 4.9 against 4.3; uint8 `[:, :, :64]` 9.0 against 6.2; float64 every 100th element
// (rows of 11) 6.1 against 5.3, int16 22.5 against 19.2; float32 every 32nd 25.0 against
// 24.7. Bands of rows of up to 256 elements were slower on longer rows: float32 every 5th
// (rows of 205) 33.0 against 37.3 ms, `[:, :, :256]` 18.6 against 19.5, `[:, ::3, 1::4]` on a
// mapping 17.3 against 26.9. A band's first rows are not prefetched by the band before it,
// hence planes of many rows.
constexpr std::int64_t kBandRowElements = 64;
constexpr std::int64_t kBandRows = 64;

// Dense forward rows of more than this many bytes (two cache lines) are not prefetched in
// bands: the hardware prefetchers keep up with them there, and the prefetches only cost.
// Measured as above (rows 4 or 8 KiB apart, medians of 3 to 5 processes): float32
// `[:, :, :64]` 5.2 ms prefetched against 4.5 not, `[:, :, :40]` 5.3 against 4.2, float64
// `[:, :, 3:35]` 3.4 against 2.5, `[:, :, :64]` 5.0 against 4.0; rows of one or two lines
// lost without: float32 `[:, :, :32]` 2.9 against 3.6, `[:, :, :16]` 2.5 against 3.0, int16
// `[:, :, :64]` 4.9 against 5.8. (Rows of 192 bytes went either way in two sweeps.)
constexpr std::int64_t kBandUnprefetchedRowBytes = 128;

constexpr std::size_t kDefaultStreamBytes = ~std::size_t{0};  // stream_bytes not set
std::atomic<std::size_t> stream_bytes{kDefaultStreamBytes};
std::atomic<std::size_t> memcpy_bytes{kMachineMemcpyRunBytes};
std::atomic<StreamChoice> stream_choice_setting{StreamChoice::Chosen};
std::atomic<PrefetchChoice> prefetch_choice_setting{PrefetchChoice::Chosen};
std::atomic<PrefetchLevelChoice> prefetch_level_setting{PrefetchLevelChoice::Chosen};

// How many input lines ahead of the copy are prefetched (see copy_prefetch.hpp): rows ahead of
// the copied one, as many as hold this many lines; in rows far longer that read a line per
// element, this many elements on. Counted in lines rather than bytes because that is what
// the memory system keeps in flight: measured on 1 GiB float32 (one thread, warm memory),
// rows of 16 elements 256 bytes apart took 18.6 ms with one row (16 lines) ahead, 10.1 with
// four (64 lines); in a row of elements 4 KiB apart, 64 elements on 1.8 ms, 128 1.9. Twice
// as far (128 lines) was faster still on warm memory (8.3 ms there, every 5th element of
// 4 KiB rows 34 against 32), but slower for the tool, whose copy faults in the file's pages as
// it goes: `[:, ::3, 1::4]` 118 against 132 ms, every 5th element 142 against 158
// (whole process, hyperfine, warm page cache).
std::atomic<std::int64_t> prefetch_ahead_lines{64};

// Rows whose elements lie at least this many bytes apart read a line per element, too few to
// a page for the hardware's stride prefetchers to follow (measured: every 4 KiB 2.9 to 1.5 ms
// prefetched, every 2 KiB 3.4 to 2.4, every 1 KiB 4.8 to 4.6, and every 256 or 512 bytes
// 3 to 20% slower with the prefetches).
constexpr std::int64_t kSparseStride = 1024;

// Such rows prefetch their own elements half the distance on: 32 elements, a page each at
// 4 KiB apart. Measured on Zen 4 (this project's VM) with float32 [..., 5] of 1 GiB (an
// element of each 4 KiB row; one thread, memory held, four processes of 7 alternating
// rounds each): 64 elements on took 0.83 to 1.35 times the time of 32 (1.14, 1.35, 1.27 and
// 0.83) and 1.11 to 1.35 that of 16; numpy's copy took 1.01 to 1.69 times tslice's at 32,
// 0.88 to 2.25 at 64 (the VM's host decides whether such a walk over a page an element is
// fast: the same copy took 2.3 or 4.8 ms from one process to the next). The tool, whose copy
// faults a mapping's pages in, was as fast either way (16 alternating runs: [..., 5] 1.01,
// a column of float32 (4096, 65536) 0.98).
constexpr std::int64_t kSparseAheadDivisor = 2;

// Rows whose elements lie more than two elements and at most a line apart: they read every
// line and write a fraction of it, and some machines copy them faster streamed or prefetched
// further (copy_machine.cpp).
bool steps_further_within_line(std::int64_t stride, std::size_t itemsize) {
    const std::int64_t step = std::abs(stride);
    return step > 2 * static_cast<std::int64_t>(itemsize) && step <= 64;
}

// Whether a copy takes the 2-D tile kernel for its two innermost axes: rows that lie close
// together (sharing cache lines) while the elements of a row lie far apart, as when a
// Fortran-order array is read in C order. Row by row, each input line would be fetched once
// per row that uses it; in tiles, once.
bool wants_tiles(const View& layout) {
    const std::size_t rank = layout.rank();
    if (rank < 2 || layout.has_table()) return false;
    const std::int64_t rows = std::abs(layout.byte_strides[rank - 2]);
    const std::int64_t columns = std::abs(layout.byte_strides[rank - 1]);
    return rows <= 64 && columns >= 32 && columns >= 2 * rows && layout.shape[rank - 2] >= 2;
}

}  // namespace

std::size_t stream_threshold() {
    const std::size_t bytes = stream_bytes.load(std::memory_order_relaxed);
    return bytes == kDefaultStreamBytes ? default_stream_bytes() : bytes;
}
void set_stream_threshold(std::size_t bytes) { stream_bytes.store(bytes); }
const StreamSettings& stream_settings() { return machine_settings(); }
std::size_t memcpy_run_bytes() {
    if (stream_choice() != StreamChoice::Chosen) return ~std::size_t{0};
    const std::size_t bytes = memcpy_bytes.load(std::memory_order_relaxed);
    return bytes == kMachineMemcpyRunBytes ? machine_settings().memcpy_bytes : bytes;
}
void set_memcpy_run_bytes(std::size_t bytes) { memcpy_bytes.store(bytes); }
std::int64_t prefetch_lines() { return prefetch_ahead_lines.load(std::memory_order_relaxed); }
void set_prefetch_lines(std::int64_t lines) { prefetch_ahead_lines.store(std::max<std::int64_t>(lines, 0)); }
PrefetchChoice prefetch_choice() { return prefetch_choice_setting.load(std::memory_order_relaxed); }
void set_prefetch_choice(PrefetchChoice choice) { prefetch_choice_setting.store(choice); }
PrefetchLevelChoice prefetch_level_choice() { return prefetch_level_setting.load(std::memory_order_relaxed); }
void set_prefetch_level_choice(PrefetchLevelChoice choice) { prefetch_level_setting.store(choice); }

CopyPlan plan_copy(const View& view, InputMemory memory) {
    CopyPlan plan;
    plan.layout = normalise(view);
    plan.set = &kernels::active_set();
    const View& layout = plan.layout;
    const std::size_t rank = layout.rank();
    if (rank == 0) {
        plan.method = CopyPlan::Method::Element;
        return plan;
    }
    const bool table = layout.has_table();
    plan.row_length = layout.shape[rank - 1];
    plan.inner_stride = layout.byte_strides[rank - 1];
    plan.inner_table_stride = table ? layout.table_strides[rank - 1] : 0;
    plan.set->prepare_row(plan.row, plan.inner_stride, layout.itemsize, plan.row_length,
                          memory == InputMemory::Resident);
    if (table) {
        plan.method = plan.inner_table_stride != 0 ? CopyPlan::Method::TableElements : CopyPlan::Method::TableRows;
    } else if (plan.set->tile != nullptr && wants_tiles(layout)) {
        plan.method = CopyPlan::Method::Tiles;
    }
    plan.bands = plan.method == CopyPlan::Method::Rows && plan.set->prefetch && rank >= 2 &&
                 plan.row_length <= kBandRowElements && layout.shape[rank - 2] >= kBandRows;
    const auto itemsize = static_cast<std::int64_t>(layout.itemsize);
    const std::int64_t row_span = (plan.row_length - 1) * plan.inner_stride + itemsize;
    const std::int64_t row_gap = rank >= 2 ? layout.byte_strides[rank - 2] - row_span : -1;
    // Rows read in order: in bands, or each starting within a line of where the one before ended.
    const bool reads_in_order = plan.bands || (row_gap >= 0 && row_gap <= 64);
    // Where the machine says (copy_machine.cpp), the plain loop, the scalar set's, for rows read
    // in order (or one row alone) from more input than the last-level cache holds: only the
    // plan knows the order and the input's extent, the kernel set only the row.
    const std::size_t plain_above = machine_settings().plain_loop_10_to_14_bytes_apart_above;
    if (plain_above > 0 && plan.method == CopyPlan::Method::Rows && memory == InputMemory::Resident &&
        (rank < 2 || reads_in_order) && (itemsize == 2 || itemsize == 4) && plan.inner_stride >= 10 &&
        plan.inner_stride <= 14 && kernels::stepped_choice() == kernels::SteppedChoice::Chosen &&
        kernels::unrolled_choice() == kernels::UnrolledChoice::Chosen) {
        const View::Span input = layout.span_of(0, layout.element_count());
        if (static_cast<std::size_t>(input.end - input.begin) > plain_above)
            kernels::scalar_set().prepare_row(plan.row, plan.inner_stride, layout.itemsize, plan.row_length, true);
    }
    plan.prefetch_to_l1 = prefetches_to_l1(plan.inner_stride);
    const std::int64_t stride = std::abs(plan.inner_stride);
    std::int64_t ahead_lines = prefetch_lines();
    // In memory the process holds, further ahead where the machine gains from it.
    if (memory == InputMemory::Resident && !table && steps_further_within_line(plan.inner_stride, layout.itemsize))
        ahead_lines *= machine_settings().resident_stepped_prefetch_factor;
    // Short rows of elements more than two lines apart, in bands: into L2 and twice as far,
    // where the machine gains from it (copy_machine.cpp). A file mapping's copy, which faults
    // its pages in as it goes, leaves rows of elements more than four lines apart as the
    // machine otherwise would (unprefetched on AMD): on Zen 4 the tool was 3 to 5% slower
    // with them prefetched (whole process, two threads, medians of 10 alternating runs: float32
    // [:, :, ::100] 144.1 against 135.1 ms, [:, :, ::200] 126.4 against 121.9). With the
    // rows closer together in L2 it was 4 to 7% faster on two of six (float32 [:, :, ::-50]
    // 132.9 against 138.4 ms, uint8 [:, :, ::200] 116.6 against 125.0) and within 2% on the
    // others (16 runs: float32 [:, :, ::40] 1.016, [:, :, ::-40] 0.981, float64 [:, :, ::20]
    // 0.989, uint8 [:, :, ::160] 1.021).
    const bool sparse_band_to_l2 = plan.bands && stride > 128 && stride < kSparseStride &&
                                   (memory == InputMemory::Resident || stride <= 256) &&
                                   machine_settings().prefetch_sparse_bands_to_l2;
    if (sparse_band_to_l2) {
        ahead_lines *= 2;
        plan.prefetch_to_l1 = false;
    }
    if (prefetch_level_choice() == PrefetchLevelChoice::Other) plan.prefetch_to_l1 = !plan.prefetch_to_l1;
    if (plan.set->prefetch && plan.method != CopyPlan::Method::Tiles && ahead_lines > 0) {
        // A row that walks the table reads a line per element, wherever the entries say.
        const std::int64_t row_lines =
            stride > 64 ? plan.row_length
                        : ((plan.row_length - 1) * stride + static_cast<std::int64_t>(layout.itemsize) + 63) / 64;
        // A gather's rows lie anywhere: no hardware prefetcher follows the jump to the next
        // one, so rows ahead are counted for twice the lines. Measured on the development
        // machine (1 GiB float32, random rows, warm memory, one thread): 100,000 rows of 1 KiB
        // 5.8-6.2 ms with 64 lines ahead, 5.2-5.7 with 128 (a memcpy of the result: 5.0); rows
        // of 2 KiB 6.4-7.3 against 6.0; rows of 256 bytes and of 4 KiB the same either way.
        const std::int64_t rows_lines = plan.method == CopyPlan::Method::TableRows ? 2 * ahead_lines : ahead_lines;
        // The last row within that many lines, or, where the machine gains from it, the first
        // at least that far (copy_machine.cpp).
        const std::int64_t each = std::max<std::int64_t>(row_lines, 1);
        const bool round_up = memory == InputMemory::Resident && machine_settings().resident_rows_ahead_round_up;
        plan.prefetch_ahead = plan.method == CopyPlan::Method::TableElements
                                  ? 1
                                  : std::clamp<std::int64_t>((rows_lines + (round_up ? each - 1 : 0)) / each, 1, 64);
        if (plan.method != CopyPlan::Method::TableElements && stride >= kSparseStride)
            plan.lines_ahead = std::max<std::int64_t>(ahead_lines / kSparseAheadDivisor, 1);
    }
    if (prefetch_choice() == PrefetchChoice::Always) return plan;
    if (plan.bands && plan.inner_stride == itemsize && plan.row_length * itemsize > kBandUnprefetchedRowBytes)
        plan.prefetch_ahead = 0;
    // So too forward rows the plain loop copies whose elements lie at most a line apart (so
    // that they read every line of rows of more than two lines), where they go in bands or each
    // starts within a line of where the one before ended (the copy then reads memory in
    // order). Measured on Zen 4 (1 GiB inputs in memory held, one thread, medians of 5, two
    // alternating runs each): in bands, uint8 [:, :, ::20] 52.5-54.1 ms prefetched against
    // 38.4-41.2 not (numpy 39.4-42.1), [:, :, ::40] 54.0-56.4 against 44.4-44.5, float32
    // [:, :, :64:4] 17.9-18.0 against 16.2-16.3; row by row, float32 [:, :, ::12] 46.7-47.0
    // against 35.9-36.1 (numpy 38.0-39.7), [:, :, ::5] 40.8-42.0 against 39.4-40.2, float64
    // [:, :, ::3] 41.0-41.9 against 40.1-41.5. The tool, whose copy faults a mapping's pages
    // in, was as fast or faster (whole process, 10 alternating runs: uint8 [:, :, ::40] and
    // float64 [:, :, ::3] 7% faster, the others within 2%). Rows farther apart keep their
    // prefetches (float32 [:, ::3, 1::4], every third row, 2.1 times slower without), as do
    // rows running backwards ([:, :, ::-8] 2.8 times) and the rows the stepped kernel takes
    // (float32 [:, :, :128:2] and uint8 [:, :, :512:10], in bands, 1.6 to 1.8 times).
    if (plan.method == CopyPlan::Method::Rows && reads_in_order && plan.row.per_element &&
        plan.inner_stride > itemsize && plan.inner_stride <= 64 && row_span > kBandUnprefetchedRowBytes)
        plan.prefetch_ahead = 0;
    // Short rows of elements more than four lines and less than 1 KiB apart: on some CPUs the
    // hardware follows them, and prefetching only costs (copy_machine.cpp). (Four lines apart,
    // every 64th float32, the tool was 3% slower without, on Zen 4: 50.7 against 49.1 ms.)
    if (plan.bands && stride > 256 && stride < kSparseStride && !sparse_band_to_l2 &&
        !machine_settings().prefetch_strided_bands)
        plan.prefetch_ahead = 0;
    return plan;
}

StreamChoice stream_choice() { return stream_choice_setting.load(std::memory_order_relaxed); }
void set_stream_choice(StreamChoice choice) { stream_choice_setting.store(choice); }

bool copy_streams(const CopyPlan& plan, std::int64_t count) {
    const StreamChoice choice = stream_choice();
    // The staging buffer holds at least eight elements. Rows of less than kStreamRowBytes
    // are written in place: short runs, each from its own part of the input, are latency
    // bound, and the streamed stores took the line buffers their loads wait on (measured on
    // 1 GiB float32, results of 16 to 128 MiB: rows of 64 to 512 bytes 1.2 to 2x slower
    // streamed; rows of 1 KiB and more 1.3 to 1.4x faster).
    // Likewise rows that step over more than one element at a time: they read far more lines
    // than they write (every third float32: 1.36x slower streamed; every other: 1.2x faster,
    // except on Intel: copy_machine.cpp).
    const auto row_bytes = static_cast<std::size_t>(plan.row_length) * plan.layout.itemsize;
    const auto step = static_cast<std::size_t>(std::abs(plan.inner_stride));
    const bool can_stream = plan.set->stream_copy != nullptr && plan.layout.itemsize <= kStageBytes / 8;
    if (choice != StreamChoice::Chosen) return can_stream && choice == StreamChoice::Always;
    const StreamSettings& settings = machine_settings();
    const bool stepping = row_bytes >= kStreamRowBytes &&
                          step <= static_cast<std::size_t>(settings.streamed_step_items) * plan.layout.itemsize;
    // Where the machine gains from it.
    const bool stepping_further = settings.streamed_stepped_row_bytes > 0 &&
                                  steps_further_within_line(plan.inner_stride, plan.layout.itemsize) &&
                                  row_bytes >= settings.streamed_stepped_row_bytes;
    return can_stream && (stepping || stepping_further) &&
           static_cast<std::size_t>(count) * plan.layout.itemsize >= stream_threshold();
}

std::string describe_copy(const View& view, InputMemory memory) {
    if (view.element_count() == 0) return "nothing (the result is empty)";
    const CopyPlan plan = plan_copy(view, memory);
    const std::string set = plan.set->name;
    switch (plan.method) {
        case CopyPlan::Method::Element: return "one element";
        case CopyPlan::Method::Tiles:
            return "2-D tiles of the two innermost axes (kernel set " + set + ")";
        case CopyPlan::Method::TableElements:
            return "a table lookup an element, rows of " + std::to_string(plan.row_length) + " (kernel set " + set + ")";
        case CopyPlan::Method::TableRows:
        case CopyPlan::Method::Rows: break;
    }
    std::string text = std::string(plan.method == CopyPlan::Method::TableRows ? "a table lookup a row, " : "") +
                       "rows of " + std::to_string(plan.row_length) + " elements " +
                       std::to_string(plan.inner_stride) + " bytes apart: " + plan.row.name + " row kernel (kernel set " +
                       set + ")";
    if (plan.bands)
        text += ", a plane of " + std::to_string(plan.layout.shape[plan.layout.rank() - 2]) + " rows at a time";
    if (plan.prefetch_ahead > 0) text += ", prefetching " + std::to_string(plan.prefetch_ahead) + " rows ahead";
    if (plan.lines_ahead > 0 && plan.row_length > plan.lines_ahead)
        text += " and " + std::to_string(plan.lines_ahead) + " elements ahead in the row";
    return text;
}

}  // namespace tslice
