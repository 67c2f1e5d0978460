// tf.strided_slice (OpenVINO StridedSlice-1 implements the same) as a numpy index.
//
// TensorFlow's kernel turns the masks into a "sparse spec", expands that into a "dense spec"
// of one begin/end/stride per input axis, then clamps. All of it is numpy indexing with a
// tuple built entry by entry, which is how tslice plans it:
//
//   entry i is                      numpy item
//   ellipsis_mask[i]                ...                      (wins over every other bit)
//   else new_axis_mask[i]           None                     (wins over shrink)
//   else shrink_axis_mask[i]        begin[i]                 (an integer: end, stride and
//                                                             begin_mask are ignored)
//   else                            slice(None if begin_mask[i] else begin[i],
//                                         None if end_mask[i] else end[i], strides[i])
//
// with numpy's implicit "..." at the end when no entry is the ellipsis. numpy's clamping
// is TensorFlow's `canonical()`: a forward slice clamps to [0, dim], a reverse one to
// [-1, dim-1], and a masked bound is the far end in the slice's direction (so a reverse
// slice with end_mask includes element 0; errata S000-3, S001-3, S001-4).
//
// Seed 001's two worked examples, on an input of shape [6, 3, 4, 10] with
// begin [0, 0, 2, 2], end [3, 2, 4, 8], strides [1, 1, 1, 1], new_axis_mask 0b1001 and
// shrink_axis_mask 0b0100:
//
//   ellipsis_mask 0b1000 (entry 3 is the ellipsis, so its new-axis bit is void):
//     entries  0: new axis   1: 0:2   2: shrink at 2   3: ...
//     numpy    a[None, 0:2, 2, ...]          -> shape [1, 2, 4, 10]
//     (axis 0 of 6 -> 2; axis 1 of 3 removed at index 2; the ellipsis covers 4 and 10)
//
//   ellipsis_mask 0b0100 (entry 2 is the ellipsis, so its shrink bit is void):
//     entries  0: new axis   1: 0:2   2: ...   3: new axis
//     numpy    a[None, 0:2, ..., None]       -> shape [1, 2, 3, 4, 10, 1]
//     (the ellipsis covers the three axes 3, 4 and 10 that no entry takes)
//
// Errors name the entry at fault, in numpy's order: more than one ellipsis; more entries
// that take an input axis than the input has; then, left to right, a zero stride on a
// slice or an out-of-range shrink index. New-axis and ellipsis entries ignore begin, end and
// stride, as both TensorFlow and OpenVINO do, so a 0 there is not an error.
#include <algorithm>
#include <limits>

#include "tslice/error.hpp"
#include "tslice/plan.hpp"

namespace tslice {
namespace {

enum class EntryKind { Slice, Shrink, NewAxis, Ellipsis };

EntryKind entry_kind(const StridedSliceSpec& spec, std::size_t i) {
    if (spec.ellipsis_mask[i]) return EntryKind::Ellipsis;
    if (spec.new_axis_mask[i]) return EntryKind::NewAxis;
    if (spec.shrink_axis_mask[i]) return EntryKind::Shrink;
    return EntryKind::Slice;
}

std::string entry(const std::string& path, const char* field, std::size_t i) {
    return path + "." + field + "[" + std::to_string(i) + "]";
}

// A spec made by hand (not by parse_ops_json) may have lists of different lengths.
void check_lengths(const StridedSliceSpec& spec, const std::string& path) {
    const std::size_t n = spec.begin.size();
    auto check = [&](std::size_t size, const char* name) {
        if (size != n)
            fail_usage(path + "." + name + ": has " + std::to_string(size) + " entries but begin has " +
                       std::to_string(n) + "; every list and mask of a strided_slice has one entry per begin entry");
    };
    check(spec.end.size(), "end");
    check(spec.strides.size(), "strides");
    check(spec.begin_mask.size(), "begin_mask");
    check(spec.end_mask.size(), "end_mask");
    check(spec.new_axis_mask.size(), "new_axis_mask");
    check(spec.shrink_axis_mask.size(), "shrink_axis_mask");
    check(spec.ellipsis_mask.size(), "ellipsis_mask");
}

}  // namespace

SlicePlan plan_strided_slice(const StridedSliceSpec& spec, const std::vector<std::int64_t>& input_shape,
                             const std::string& path) {
    check_lengths(spec, path);
    const std::size_t n = spec.begin.size();

    // 1. At most one ellipsis (TensorFlow: "Multiple ellipses in slice spec not allowed").
    std::size_t ellipsis = n;
    for (std::size_t i = 0; i < n; ++i) {
        if (!spec.ellipsis_mask[i]) continue;
        if (ellipsis != n)
            fail_usage(path + ".ellipsis_mask: entries " + std::to_string(ellipsis) + " and " + std::to_string(i) +
                       " are both the ellipsis; at most one entry may be");
        ellipsis = i;
    }

    // 2. The numpy index, entry by entry; `column` is the entry's number.
    IndexExpr expr;
    for (std::size_t i = 0; i < n; ++i) {
        ExprItem item;
        item.column = i;
        switch (entry_kind(spec, i)) {
            case EntryKind::Ellipsis:
                item.item = EllipsisItem{};
                break;
            case EntryKind::NewAxis:
                item.item = NewAxisItem{};
                break;
            case EntryKind::Shrink: {
                item.item = IntItem{spec.begin[i], false};
                break;
            }
            case EntryKind::Slice: {
                SliceItem slice;
                if (!spec.begin_mask[i]) slice.start = spec.begin[i];
                if (!spec.end_mask[i]) slice.stop = spec.end[i];
                // Python's slice turns a step below -INT64_MAX into -INT64_MAX, and so does
                // numpy; the planner counts on it (it negates the step).
                slice.step = std::max(spec.strides[i], -std::numeric_limits<std::int64_t>::max());
                item.item = slice;
                break;
            }
        }
        expr.items.push_back(item);
    }

    // 3. numpy's checks, in numpy's order, each said of the spec's field.
    try {
        return plan_index(expr, input_shape);
    } catch (const ExprError& error) {
        const std::size_t i = error.column();
        switch (error.problem()) {
            case ExprProblem::TooManyIndices:
                fail_usage(entry(path, "begin", i) + ": " + error.what() +
                           " (every entry that is not a new axis or the ellipsis takes an axis)");
            case ExprProblem::TooManyDimensions:
                fail_usage(path + ".new_axis_mask: the result would have " + std::to_string(error.detail()) +
                           " dimensions; numpy arrays have at most " + std::to_string(kMaxRank) +
                           " (number of dimensions must be within [0, " + std::to_string(kMaxRank) + "])");
            case ExprProblem::ZeroStep: fail_usage(entry(path, "strides", i) + ": stride 0 is not allowed");
            case ExprProblem::OutOfBounds: fail_usage(entry(path, "begin", i) + ": " + error.what());
            case ExprProblem::Syntax: break;
        }
        throw Error(ErrorKind::Internal, "internal: " + entry(path, "begin", i) + ": " + error.what());
    }
}

}  // namespace tslice
