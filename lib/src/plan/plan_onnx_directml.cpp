// Two slicing ops that are not numpy's, each exactly as its own document says.
//
// ONNX Slice (opset 13 text, seed 002). Not Python slicing: for a negative step the start
// clamps to [0, dim-1], so a start below -dim selects element 0 where Python selects
// nothing (errata S002-3), and an end of INT64_MAX clamps to dim-1 (nothing for a reverse
// slice; onnxruntime reads it as "to the beginning", errata S002-2).
//
// DirectML DML_SLICE1 (seed 004): a window [offset, offset + size) per dimension, walked
// from its start with a positive stride or from its end with a negative one. Nothing is
// clamped: a window outside the input is an error.
//
// Both produce a SlicePlan with one row per input axis, in order; no axis is added or
// removed. Lengths are counted in unsigned arithmetic, so INT64_MIN and INT64_MAX anywhere
// (ends, steps) cannot overflow.
#include <limits>

#include "tslice/error.hpp"
#include "tslice/plan.hpp"

namespace tslice {
namespace {

std::string entry(const std::string& path, const char* field, std::size_t i) {
    return path + "." + field + "[" + std::to_string(i) + "]";
}

// |value| without overflow, also for INT64_MIN.
std::uint64_t magnitude(std::int64_t value) {
    return value < 0 ? ~static_cast<std::uint64_t>(value) + 1 : static_cast<std::uint64_t>(value);
}

// The number of elements first, first + step, ... strictly before `bound` (strictly after
// it for a negative step). `first` and `bound` are clamped indices, so their difference
// fits; the step may be anything but 0.
std::int64_t count_steps(std::int64_t first, std::int64_t bound, std::int64_t step) {
    if (step > 0)
        return first < bound ? static_cast<std::int64_t>(static_cast<std::uint64_t>(bound - first - 1) / magnitude(step) + 1) : 0;
    return first > bound ? static_cast<std::int64_t>(static_cast<std::uint64_t>(first - bound - 1) / magnitude(step) + 1) : 0;
}

std::int64_t clamp(std::int64_t value, std::int64_t low, std::int64_t high) {
    return value < low ? low : value > high ? high : value;
}

// first + step * length, saturated to the int64 range (only --explain shows it; a huge
// stride with one element would otherwise overflow). first + step * (length - 1) is the
// last element taken, inside the axis, so only the last addition can overflow.
std::int64_t one_step_past(std::int64_t first, std::int64_t step, std::int64_t length) {
    const std::int64_t last = first + step * (length - 1);
    std::int64_t stop = 0;
    if (__builtin_add_overflow(last, step, &stop))
        return step > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
    return stop;
}

std::string dimensional(std::size_t rank) { return std::to_string(rank) + "-dimensional"; }

}  // namespace

// ------------------------------------------------------------------------------ ONNX Slice

SlicePlan plan_slice(const SliceSpec& spec, const std::vector<std::int64_t>& input_shape, const std::string& path) {
    const std::size_t n = spec.starts.size();
    const auto rank = static_cast<std::int64_t>(input_shape.size());
    const std::string rule = "starts, ends, axes and steps must have the same length";
    auto check_length = [&](std::size_t size, const char* name) {
        if (size != n)
            fail_usage(path + "." + name + ": has " + std::to_string(size) + " entries but starts has " +
                       std::to_string(n) + "; " + rule);
    };
    check_length(spec.ends.size(), "ends");
    if (spec.axes) check_length(spec.axes->size(), "axes");
    if (spec.steps) check_length(spec.steps->size(), "steps");

    SlicePlan plan;
    plan.input_shape = input_shape;
    for (std::int64_t axis = 0; axis < rank; ++axis)  // axes not named are taken whole
        plan.axes.push_back(OutputAxis{static_cast<int>(axis), 0, input_shape[axis], 1, input_shape[axis]});

    std::vector<std::size_t> named_by(input_shape.size(), n);  // which entry named each axis
    for (std::size_t i = 0; i < n; ++i) {
        // The axis: axes[i] (negative counts from the end), or i when axes is left out.
        std::int64_t axis = static_cast<std::int64_t>(i);
        if (spec.axes) {
            axis = (*spec.axes)[i];
            if (axis < -rank || axis >= rank)
                fail_usage(
                    entry(path, "axes", i) + ": axis " + std::to_string(axis) + " is out of range for a " +
                    dimensional(input_shape.size()) + " input" +
                    (rank ? " (allowed: " + std::to_string(-rank) + " to " + std::to_string(rank - 1) + ")" : ""));
            if (axis < 0) axis += rank;
        } else if (axis >= rank) {
            fail_usage(entry(path, "starts", i) + ": entry " + std::to_string(i) + " slices axis " + std::to_string(i) +
                       ", but the input is " + dimensional(input_shape.size()) +
                       " (without \"axes\", entry i slices axis i)");
        }
        if (named_by[axis] != n) {
            const std::string also = "axes[" + std::to_string(named_by[axis]) + "]";
            fail_usage(entry(path, "axes", i) + ": axis " + std::to_string((*spec.axes)[i]) +
                       ((*spec.axes)[i] != axis ? " (that is axis " + std::to_string(axis) + ")" : "") +
                       " is repeated (also " + also + "); each axis may be sliced once");
        }
        named_by[axis] = i;

        const std::int64_t step = spec.steps ? (*spec.steps)[i] : 1;
        if (step == 0) fail_usage(entry(path, "steps", i) + ": step 0 is not allowed");

        // Negative starts and ends count from the end (adding dim to a negative number never
        // overflows), then clamp by the step's direction.
        const std::int64_t dim = input_shape[axis];
        std::int64_t start = spec.starts[i] < 0 ? spec.starts[i] + dim : spec.starts[i];
        std::int64_t end = spec.ends[i] < 0 ? spec.ends[i] + dim : spec.ends[i];
        std::int64_t length = 0;
        if (step > 0) {
            start = clamp(start, 0, dim);
            end = clamp(end, 0, dim);
            length = count_steps(start, end, step);
        } else if (dim > 0) {
            start = clamp(start, 0, dim - 1);
            end = clamp(end, -1, dim - 1);
            length = count_steps(start, end, step);
        } else {
            // An empty axis: the text's range for a reverse start, [0, dim-1], is empty too.
            // Nothing can be taken (onnxruntime gives length 0 as well; errata S002-5).
            start = end = 0;
        }
        plan.axes[axis] = OutputAxis{static_cast<int>(axis), start, end, step, length};
    }
    return plan;
}

// ------------------------------------------------------------------------------ DML_SLICE1

SlicePlan plan_slice1(const Slice1Spec& spec, const std::vector<std::int64_t>& input_shape, const std::string& path) {
    const std::size_t rank = input_shape.size();
    auto check_length = [&](std::size_t size, const char* name) {
        if (size != rank)
            fail_usage(path + "." + name + ": has " + std::to_string(size) + " entries but the input is " +
                       dimensional(rank) +
                       "; slice1 takes one entry per dimension in offsets, sizes, strides and output_sizes");
    };
    check_length(spec.offsets.size(), "offsets");
    check_length(spec.sizes.size(), "sizes");
    check_length(spec.strides.size(), "strides");
    if (spec.output_sizes) check_length(spec.output_sizes->size(), "output_sizes");

    SlicePlan plan;
    plan.input_shape = input_shape;
    for (std::size_t i = 0; i < rank; ++i) {
        const std::int64_t dim = input_shape[i];
        const std::int64_t offset = spec.offsets[i];
        const std::int64_t size = spec.sizes[i];
        const std::int64_t stride = spec.strides[i];
        const std::string axis_text = "axis " + std::to_string(i) + " (size " + std::to_string(dim) + ")";

        // The window [offset, offset + size) must be non-empty and inside the axis.
        if (offset < 0) fail_usage(entry(path, "offsets", i) + ": offset " + std::to_string(offset) + " is negative");
        if (size < 1)
            fail_usage(entry(path, "sizes", i) + ": size " + std::to_string(size) +
                       " is not allowed: a window holds at least 1 element");
        if (offset >= dim)
            fail_usage(
                entry(path, "offsets", i) + ": offset " + std::to_string(offset) + " is outside " + axis_text +
                (dim > 0 ? "; offsets run from 0 to " + std::to_string(dim - 1) : "; no window fits an empty axis"));
        if (size > dim - offset)  // offset + size > dim, without overflow
            fail_usage(entry(path, "sizes", i) + ": the window from offset " + std::to_string(offset) + " with size " +
                       std::to_string(size) + " runs past the end of " + axis_text +
                       "; offset + size must be at most " + std::to_string(dim));
        if (stride == 0) fail_usage(entry(path, "strides", i) + ": stride 0 is not allowed");

        // The most elements the window allows: 1 + (size - 1) / |stride| (the seed writes the
        // stride without |.|, errata S004-2).
        const auto most = static_cast<std::int64_t>(static_cast<std::uint64_t>(size - 1) / magnitude(stride) + 1);
        std::int64_t length = most;
        if (spec.output_sizes) {
            length = (*spec.output_sizes)[i];
            if (length < 1 || length > most)
                fail_usage(entry(path, "output_sizes", i) + ": output size " + std::to_string(length) +
                           " is out of range: the window (size " + std::to_string(size) + ", stride " +
                           std::to_string(stride) + ") allows 1 to " + std::to_string(most));
        }
        // A negative stride starts at the window's last element (errata S004-1).
        const std::int64_t first = stride > 0 ? offset : offset + size - 1;
        plan.axes.push_back(OutputAxis{static_cast<int>(i), first, one_step_past(first, stride, length), stride, length});
    }
    return plan;
}

}  // namespace tslice
