// numpy basic indexing as a plan.
//
// numpy checks an index in three passes, and tslice keeps the order so that an expression
// with several faults gets the error numpy would give:
//   1. walk the items: an integer beyond 64 bits or a second '...' fails here;
//   2. count: more integers and slices than axes is "too many indices"; a result of more
//      than 32 axes (kMaxRank) is "number of dimensions must be within [0, 32], ...";
//   3. resolve each item against its axis, left to right: an out-of-bounds integer or a
//      zero step fails here.
// Example: on shape (2, 3), "[None, ..., ::-1, 1]" walks to one new axis, an ellipsis that
// stands for no axis (2 indices for 2 axes), axis 0 reversed (start 1, stop -1, step -1,
// length 2) and axis 1 shrunk at index 1: output shape (1, 2).
#include <algorithm>
#include <limits>

#include "plan/plan_detail.hpp"
#include "tslice/error.hpp"
#include "tslice/plan.hpp"

namespace tslice {
namespace {

// Python's PySlice_Unpack + PySlice_AdjustIndices: the one place where slice bounds are
// clamped to an axis.
OutputAxis resolve_slice(const SliceItem& slice, int axis, std::int64_t dim) {
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
    const std::int64_t step = slice.step.value_or(1);
    std::int64_t start = slice.start.value_or(step < 0 ? kMax : 0);
    std::int64_t stop = slice.stop.value_or(step < 0 ? kMin : kMax);
    auto adjust = [&](std::int64_t& bound) {
        if (bound < 0) {
            bound += dim;
            if (bound < 0) bound = step < 0 ? -1 : 0;
        } else if (bound >= dim) {
            bound = step < 0 ? dim - 1 : dim;
        }
    };
    adjust(start);
    adjust(stop);
    std::int64_t length = 0;
    if (step < 0) {
        if (stop < start) length = (start - stop - 1) / -step + 1;
    } else if (start < stop) {
        length = (stop - start - 1) / step + 1;
    }
    return OutputAxis{axis, start, stop, step, length};
}

}  // namespace

std::vector<std::int64_t> SlicePlan::output_shape() const {
    std::vector<std::int64_t> shape;
    shape.reserve(axes.size());
    for (const auto& axis : axes) shape.push_back(axis.length);
    return shape;
}

SlicePlan plan_index(const IndexExpr& expr, const std::vector<std::int64_t>& input_shape) {
    return detail::plan_basic_index(expr, input_shape, 0);
}

namespace detail {

SlicePlan plan_basic_index(const IndexExpr& expr, const std::vector<std::int64_t>& input_shape,
                           std::int64_t rank_adjustment) {
    if (has_advanced(expr))
        throw Error(ErrorKind::Internal, "internal: plan_index was given an integer-list (advanced) expression; "
                                      "plan it with plan_advanced_index");
    auto fail = [&](const std::string& message, const ExprItem& item,
                    ExprProblem problem = ExprProblem::Syntax) -> void {
        throw ExprError(message, expr.text, item.column, problem);
    };

    // Pass 1: walk.
    const ExprItem* ellipsis = nullptr;
    std::size_t consumed = 0;  // items that take an input axis
    for (const auto& item : expr.items) {
        if (std::holds_alternative<EllipsisItem>(item.item)) {
            if (ellipsis) fail("an index can only have a single ellipsis ('...')", item);
            ellipsis = &item;
        } else if (const auto* integer = std::get_if<IntItem>(&item.item)) {
            if (integer->overflows)
                fail("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
                     "integer or boolean arrays are valid indices; this integer does not fit "
                     "in 64 bits",
                     item);
            ++consumed;
        } else if (std::holds_alternative<SliceItem>(item.item)) {
            ++consumed;
        }
    }

    // Pass 2: count.
    const std::size_t rank = input_shape.size();
    if (consumed > rank) {
        // numpy points at no item; the first one past the last axis is the useful place.
        std::size_t seen = 0;
        const ExprItem* culprit = &expr.items.back();
        for (const auto& item : expr.items) {
            if (std::holds_alternative<IntItem>(item.item) || std::holds_alternative<SliceItem>(item.item))
                if (++seen == rank + 1) { culprit = &item; break; }
        }
        fail("too many indices for array: array is " + std::to_string(rank) +
                 "-dimensional, but " + std::to_string(consumed) + " were indexed",
             *culprit, ExprProblem::TooManyIndices);
    }

    // Then the result's rank, as numpy checks it here (prepare_index): every None, slice and
    // axis left to '...' or the end is an axis of the result, an integer is none. The item
    // shown is the one that adds the axis past the limit (the last one when the axes taken
    // whole at the end do).
    {
        const std::size_t slices = consumed - std::count_if(expr.items.begin(), expr.items.end(), [](const ExprItem& item) {
                                                   return std::holds_alternative<IntItem>(item.item);
                                               });
        const std::size_t new_axes = std::count_if(expr.items.begin(), expr.items.end(), [](const ExprItem& item) {
            return std::holds_alternative<NewAxisItem>(item.item);
        });
        const auto result_rank = static_cast<std::int64_t>(new_axes + slices + (rank - consumed)) + rank_adjustment;
        if (result_rank > static_cast<std::int64_t>(kMaxRank)) {
            std::size_t axes = 0;
            const ExprItem* culprit = expr.items.empty() ? nullptr : &expr.items.back();
            for (const auto& item : expr.items) {
                if (std::holds_alternative<NewAxisItem>(item.item) || std::holds_alternative<SliceItem>(item.item)) ++axes;
                if (std::holds_alternative<EllipsisItem>(item.item)) axes += rank - consumed;
                if (axes > kMaxRank) {
                    culprit = &item;
                    break;
                }
            }
            throw ExprError("number of dimensions must be within [0, " + std::to_string(kMaxRank) +
                                "], indexing result would have " + std::to_string(result_rank),
                            expr.text, culprit ? culprit->column : 0, ExprProblem::TooManyDimensions, result_rank);
        }
    }

    // Pass 3: resolve, left to right. Axes not named by an item are taken whole, at the
    // ellipsis or, without one, at the end.
    SlicePlan plan;
    plan.input_shape = input_shape;
    int axis = 0;
    auto take_whole_axes = [&](std::size_t count) {
        for (std::size_t k = 0; k < count; ++k, ++axis)
            plan.axes.push_back(OutputAxis{axis, 0, input_shape[axis], 1, input_shape[axis]});
    };
    for (const auto& item : expr.items) {
        if (std::holds_alternative<EllipsisItem>(item.item)) {
            take_whole_axes(rank - consumed);
        } else if (std::holds_alternative<NewAxisItem>(item.item)) {
            plan.axes.push_back(OutputAxis{-1, 0, 1, 1, 1});
        } else if (const auto* integer = std::get_if<IntItem>(&item.item)) {
            const std::int64_t dim = input_shape[axis];
            const std::int64_t index = integer->value < 0 ? integer->value + dim : integer->value;
            if (index < 0 || index >= dim)
                fail("index " + std::to_string(integer->value) + " is out of bounds for axis " +
                         std::to_string(axis) + " with size " + std::to_string(dim),
                     item, ExprProblem::OutOfBounds);
            plan.shrunk.push_back(ShrunkAxis{axis, index});
            ++axis;
        } else {
            const auto& slice = std::get<SliceItem>(item.item);
            if (slice.step == 0)
                throw ExprError("slice step cannot be zero", expr.text, item.step_column.value_or(item.column),
                                ExprProblem::ZeroStep);
            plan.axes.push_back(resolve_slice(slice, axis, input_shape[axis]));
            ++axis;
        }
    }
    if (!ellipsis) take_whole_axes(rank - consumed);
    return plan;
}

}  // namespace detail

View apply_plan(const SlicePlan& plan, const View& input) {
    if (input.shape != plan.input_shape)
        throw Error(ErrorKind::Internal, "internal: plan for shape " + format_shape(plan.input_shape) +
                                          " applied to shape " + format_shape(input.shape));
    // A table view (after a gather) is sliced exactly like its byte strides: the table offset
    // and table strides move in step with the byte offset and byte strides.
    const bool table = input.has_table();
    View view;
    view.itemsize = input.itemsize;
    view.byte_offset = input.byte_offset;
    view.table = input.table;
    view.table_offset = input.table_offset;
    for (const auto& shrunk : plan.shrunk) {
        view.byte_offset += shrunk.index * input.byte_strides[shrunk.source_axis];
        if (table) view.table_offset += shrunk.index * input.table_strides[shrunk.source_axis];
    }
    for (const auto& axis : plan.axes) {
        view.shape.push_back(axis.length);
        if (axis.source_axis < 0) {
            view.byte_strides.push_back(0);
            if (table) view.table_strides.push_back(0);
            continue;
        }
        const std::int64_t stride = input.byte_strides[axis.source_axis];
        // An empty axis reads nothing, so its start may sit one past the end; a single element
        // needs no stride, which also keeps a huge step from overflowing step * stride.
        if (axis.length > 0) view.byte_offset += axis.start * stride;
        view.byte_strides.push_back(axis.length > 1 ? axis.step * stride : 0);
        if (table) {
            const std::int64_t table_stride = input.table_strides[axis.source_axis];
            if (axis.length > 0) view.table_offset += axis.start * table_stride;
            view.table_strides.push_back(axis.length > 1 ? axis.step * table_stride : 0);
        }
    }
    return view;
}

}  // namespace tslice
