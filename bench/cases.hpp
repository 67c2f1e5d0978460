// The benchmark's inputs and cases, in one place: the data
// generator, the in-process table and the whole-process list all read them from here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tslice::bench {

// An input .npy file. Quick mode divides each element count by 64 (the indices keep their
// count where it still fits) so that the whole quick run takes seconds.
struct InputSpec {
    const char* name;   // file stem: DIR/<name>.npy
    const char* descr;  // the header's dtype literal
    std::size_t itemsize;
    std::vector<std::int64_t> full, quick;
};

// Integer indices for the gathers: `count` values drawn uniformly (with repetition) from
// [0, bound), where bound is the gathered axis of the data file.
struct IndicesSpec {
    const char* name;  // DIR/<name>.npy, '<i8', shape (count,)
    std::int64_t full_count, quick_count;
};

enum class Kind {
    Contiguous,     // whole contiguous runs: within 1.05x of memcpy of the output bytes
    Reversed,       // a reversed inner axis: within 1.3x of memcpy of the output bytes
    Stepped,        // a stepped inner axis: within 1.2x of memcpy of the bytes read
    GatherRows,     // whole rows gathered: within 1.1x of memcpy of the output bytes
    GatherColumns,  // single elements gathered along the last axis: no memcpy target
};

struct CaseSpec {
    const char* input;    // an InputSpec name
    const char* expr;     // numpy expression (slices), empty for a gather
    Kind kind;
    int gather_axis = -1;         // gathers: the axis (Gather-8 axis, batch_dims 0)
    const char* indices = "";     // gathers: an IndicesSpec name
};

inline const std::vector<InputSpec>& inputs() {
    static const std::vector<InputSpec> specs = {
        {"f4", "'<f4'", 4, {256, 1024, 1024}, {4, 1024, 1024}},
        {"u1", "'|u1'", 1, {1024, 1024, 1024}, {16, 1024, 1024}},
        {"f8", "'<f8'", 8, {128, 1024, 1024}, {2, 1024, 1024}},
        {"i2", "'<i2'", 2, {512, 1024, 1024}, {8, 1024, 1024}},
        {"rows_f4", "'<f4'", 4, {1000000, 256}, {15625, 256}},
        {"cols_f4", "'<f4'", 4, {4096, 65536}, {64, 65536}},
        {"small_f4", "'<f4'", 4, {16, 16}, {16, 16}},  // 1 KiB of data: the process start-up case
        {"short_rows_f4", "'<f4'", 4, {16777216, 16}, {262144, 16}},  // 64-byte rows
    };
    return specs;
}

inline const std::vector<IndicesSpec>& indices_files() {
    static const std::vector<IndicesSpec> specs = {
        {"rows_idx", 100000, 1562},
        {"cols_idx", 1000, 1000},
        {"short_rows_idx", 1600000, 25000},
    };
    return specs;
}

inline const std::vector<CaseSpec>& cases() {
    static const std::vector<CaseSpec> specs = {
        {"f4", "[1:-1, :, :]", Kind::Contiguous},
        {"f4", "[:, 100:900, 100:900]", Kind::Contiguous},
        {"f4", "[:, :, ::-1]", Kind::Reversed},
        {"f4", "[:, :, ::2]", Kind::Stepped},
        {"f4", "[::-1, ::-1, ::-1]", Kind::Reversed},
        {"f4", "[..., 5]", Kind::Stepped},
        {"f4", "[:, ::3, 1::4]", Kind::Stepped},
        // Short rows, and steps of several elements either way: where the shuffling kernel
        // and streamed stores lost to the plain loop (numpy was 2x faster on [:, :, ::-8]).
        {"f4", "[:, :, :64]", Kind::Stepped},
        {"f4", "[:, :, ::5]", Kind::Stepped},
        {"f4", "[:, :, ::-8]", Kind::Stepped},
        // Rows that read every line and keep a few elements of each: numpy's plain loop, reading
        // memory in order, was faster than tslice's prefetched or unrolled copies (0.71 to 0.88
        // of numpy for uint8 every 40th, float32 every 12th and 16th).
        {"f4", "[:, :, ::3]", Kind::Stepped},
        {"f4", "[:, :, ::12]", Kind::Stepped},
        {"f4", "[:, :, ::16]", Kind::Stepped},
        // A step of uint8 the shuffling kernel lost on while it staged each row's end (numpy
        // 2x faster), and rows of single elements 400 bytes apart (numpy 1.5x faster).
        {"u1", "[:, :, ::7]", Kind::Stepped},
        {"u1", "[:, :, ::40]", Kind::Stepped},
        {"f4", "[:, :, ::100]", Kind::Stepped},
        // int16 every 5th and 6th element, rows read in order: numpy's loop took 0.80 and 0.94
        // of the time of the merged kernel and the unrolled loop, which the plain loop beat.
        {"i2", "[:, :, ::5]", Kind::Stepped},
        {"i2", "[:, :, ::6]", Kind::Stepped},
        {"u1", "[:, :, ::-1]", Kind::Reversed},
        {"f8", "[:, :, ::-1]", Kind::Reversed},
        {"rows_f4", "", Kind::GatherRows, 0, "rows_idx"},
        {"cols_f4", "", Kind::GatherColumns, 1, "cols_idx"},
    };
    return specs;
}

// Gathers measured as whole processes only: what they test is the write stage's way through
// the input (short rows spread over all of it, copied window by window), not a copy kernel.
inline const std::vector<CaseSpec>& whole_process_gathers() {
    static const std::vector<CaseSpec> specs = {
        {"short_rows_f4", "", Kind::GatherRows, 0, "short_rows_idx"},
    };
    return specs;
}

// The whole-process extras: a slice of the 1 KiB file, and --shape on the 1 GiB float32 file.
inline constexpr const char* kSmallInput = "small_f4";
inline constexpr const char* kSmallExpr = "[::-1, ::2]";
inline constexpr const char* kShapeInput = "f4";
inline constexpr const char* kShapeExpr = "[:, ::3, 1::4]";

}  // namespace tslice::bench
