// JSON op specs (--op): what the user asked for, checked for form at the JSON edge, before
// any shape is known. Masks arrive as bitfields or 0/1 lists and leave here as per-entry
// flags; every later stage works with those.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tslice/expr.hpp"

namespace tslice {

// tf.strided_slice / OpenVINO StridedSlice-1. All vectors have one entry per spec entry
// (begin.size()); masks are expanded to that length (bitfield bit i -> entry i; lists padded
// with false, longer ones cut).
struct StridedSliceSpec {
    std::vector<std::int64_t> begin, end, strides;
    std::vector<bool> begin_mask, end_mask, new_axis_mask, shrink_axis_mask, ellipsis_mask;
    bool operator==(const StridedSliceSpec&) const = default;
};

// ONNX Slice (opsets 13/11/10, and 1 without steps).
struct SliceSpec {
    std::vector<std::int64_t> starts, ends;
    std::optional<std::vector<std::int64_t>> axes, steps;
    bool operator==(const SliceSpec&) const = default;
};

// DirectML DML_SLICE1: one entry per input dimension.
struct Slice1Spec {
    std::vector<std::int64_t> offsets, sizes, strides;
    std::optional<std::vector<std::int64_t>> output_sizes;
    bool operator==(const Slice1Spec&) const = default;
};

// An integer array given inline as nested JSON lists (or a scalar: shape ()).
struct IntArray {
    std::vector<std::int64_t> shape;
    std::vector<std::int64_t> values;  // C order
    bool operator==(const IntArray&) const = default;
};

// OpenVINO Gather-8. `indices` inline, or `indices_path` naming an integer .npy file, which
// read_indices_files() reads into `indices` before the op is planned.
struct GatherSpec {
    std::optional<IntArray> indices;
    std::optional<std::string> indices_path;
    // `indices` has the file's shape but not its values (a dry run): enough to plan, not to copy.
    bool indices_shape_only = false;
    std::int64_t axis = 0;
    std::int64_t batch_dims = 0;
    bool operator==(const GatherSpec&) const = default;
};

// {"op": "index", "expr": "[1:, ..., ::-1]"}
struct IndexSpec {
    IndexExpr expr;
};

struct OpSpec {
    std::variant<StridedSliceSpec, SliceSpec, Slice1Spec, GatherSpec, IndexSpec> spec;
    std::string path;  // where it came from, for messages: "ops[1]" (or "op" for a single object)
};

// Parses --op's argument: the JSON text itself, or "@FILE" to read it from a file. One op
// object or a list of them. Throws Error(Usage) for invalid specs with the JSON path of the
// field and what was expected ("ops[1].begin: expected a list of integers, got \"3\""),
// Error(Input) when @FILE cannot be read.
std::vector<OpSpec> parse_op_argument(std::string_view argument);
std::vector<OpSpec> parse_ops_json(std::string_view json_text);

// A spec as JSON that --op reads back as the same spec (masks as bitfields where they fit).
std::string to_json(const StridedSliceSpec& spec);
std::string to_json(const SliceSpec& spec);

// Reads the integer .npy files that gathers name (indices_path) into their `indices`, in C
// order as int64 (uint64 values past INT64_MAX become INT64_MAX: out of range, as they are),
// so that planning reads no file. `shape_only` (--shape, --explain): only the headers are read.
// Error(Usage) for a file of another dtype or with more indices than a gather may use,
// Error(Input) for one that cannot be read; both start with the field ("ops[0].indices: ").
void read_indices_files(std::vector<OpSpec>& ops, bool shape_only = false);

}  // namespace tslice
