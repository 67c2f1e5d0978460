// Planning: an index expression against an input shape becomes a SlicePlan (per output axis
// where it comes from and which elements it takes), and a SlicePlan applied to a View gives
// the result's View. Pure: shapes and numbers only, never the data.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tslice/expr.hpp"
#include "tslice/ops.hpp"
#include "tslice/view.hpp"

namespace tslice {

// One axis of the result.
struct OutputAxis {
    // The input axis it reads, or -1 for an axis inserted by None/newaxis (length 1).
    int source_axis = -1;
    // Python's slice.indices() for that axis: the first index, the index one step past the
    // last, the step, and the number of elements taken.
    std::int64_t start = 0, stop = 1, step = 1, length = 1;
    bool operator==(const OutputAxis&) const = default;
};

// An input axis removed by an integer index.
struct ShrunkAxis {
    int source_axis = 0;
    std::int64_t index = 0;  // normalised to [0, dim)
    bool operator==(const ShrunkAxis&) const = default;
};

struct SlicePlan {
    std::vector<std::int64_t> input_shape;
    std::vector<OutputAxis> axes;    // in output order
    std::vector<ShrunkAxis> shrunk;  // in input order

    std::vector<std::int64_t> output_shape() const;
    bool operator==(const SlicePlan&) const = default;
};

// numpy's basic indexing. Throws ExprError (with the item's column) where numpy raises:
// "index 5 is out of bounds for axis 0 with size 2", "too many indices for array: array is
// 2-dimensional, but 3 were indexed", "an index can only have a single ellipsis ('...')",
// "slice step cannot be zero", "number of dimensions must be within [0, 32], indexing result
// would have 33" (kMaxRank).
SlicePlan plan_index(const IndexExpr& expr, const std::vector<std::int64_t>& input_shape);

// The ops that are affine views, each with the semantics of the system it comes from.
// `path` names the op in messages ("ops[1]"); errors are Error(Usage) whose message starts
// with the path of the field at fault, e.g. "ops[1].strides[2]: stride 0 is not allowed".
SlicePlan plan_strided_slice(const StridedSliceSpec& spec, const std::vector<std::int64_t>& input_shape,
                             const std::string& path);
SlicePlan plan_slice(const SliceSpec& spec, const std::vector<std::int64_t>& input_shape,
                     const std::string& path);
SlicePlan plan_slice1(const Slice1Spec& spec, const std::vector<std::int64_t>& input_shape,
                      const std::string& path);

// The view of the result when `plan` is applied to `input` (whose shape must be the plan's
// input shape).
View apply_plan(const SlicePlan& plan, const View& input);

}  // namespace tslice
