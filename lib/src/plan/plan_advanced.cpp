// numpy's integer-array (advanced) indexing as a gather plan.
//
// numpy 1.24's order of checks, each verified against /usr/bin/python3:
//   1. walk the items: a second '...' or an integer beyond 64 bits (in a list too) fails;
//   2. count: every integer, slice and list takes one axis: "too many indices"; then the
//      result's rank: "number of dimensions must be within [0, 32], indexing result would
//      have 33" (the broadcast lists count as many axes as the longest list shape has);
//   3. the masks' shapes against the axes they cover, left to right: "boolean index did not
//      match indexed array along axis 1; size of axis is 3 but size of corresponding boolean
//      axis is 2" (numpy 2's words);
//   4. resolve left to right: an out-of-bounds integer or a zero step fails here, before any
//      list is looked at: a[[9], 7] on (2, 3) complains about 7;
//   5. broadcast the index arrays (lists, masks as their nonzero() arrays, the integers as 0-d
//      arrays and True/False as arrays of shape (1,) and (0,)):
//      "shape mismatch: indexing arrays could not be broadcast together with shapes (2,) (3,)"
//      (0-d arrays are not listed; numpy's message ends with a space, dropped here);
//   6. the lists' values against their axes, list by list, each in C order: "index 5 is out
//      of bounds for axis 0 with size 2" — also where the result is empty because of a slice
//      or an empty axis, as numpy 2 raises (numpy 1.x only warned there, DeprecationWarning
//      "Out of bound index found ... In the future the index error will be raised"); skipped
//      only where the index arrays broadcast to nothing, so that no index is ever looked up.
// Steps 1, 2 and 4 are plan_index's own, run on the expression with every list replaced by a
// full slice (or, for a list with a value beyond 64 bits, by such an integer), a mask over k
// axes by k full slices and True/False by nothing, so clamping and those errors live in one
// place.
//
// A mask is numpy's: the integer arrays of its nonzero(), one per axis it covers, next to each
// other. True and False take no axis and add one of length 1 or 0 (numpy's 0-d boolean index):
// an index array of shape (1,) or (0,) that reads nothing (source axis -1).
//
// Where the broadcast axes go: when the index arrays are next to each other in the
// expression (no slice, None or '...' between them, even a '...' that stands for no axis),
// they replace them in place; otherwise they come first. On shape (2, 3, 4, 5):
//   [:, [0, 1], [1, 2]]       -> (2, 2, 5)      adjacent
//   [:, [0, 1], 0]            -> (2, 2, 5)      adjacent (the integer is an index array)
//   [[0, 1], :, [1, 2]]       -> (2, 3, 5)      apart: broadcast axes first
//   [:, [0], None, [0]]       -> (1, 2, 1, 5)   None separates
//   [:, [0], ..., [0], :]     -> (1, 2, 5)      an empty '...' separates too
#include <algorithm>

#include "plan/plan_detail.hpp"
#include "tslice/error.hpp"
#include "tslice/gather.hpp"
#include "tslice/plan.hpp"

namespace tslice {
namespace {

using Shape = std::vector<std::int64_t>;

// numpy's compact shape text in broadcast messages: "(2,)", "(1,3)".
std::string compact_shape(const Shape& shape) {
    std::string text = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i) text += ',';
        text += std::to_string(shape[i]);
    }
    return text + (shape.size() == 1 ? ",)" : ")");
}

// numpy's broadcasting of `shape` into `result`; false when they do not broadcast.
bool broadcast_into(Shape& result, const Shape& shape) {
    if (shape.size() > result.size()) result.insert(result.begin(), shape.size() - result.size(), 1);
    const std::size_t shift = result.size() - shape.size();
    for (std::size_t k = 0; k < shape.size(); ++k) {
        std::int64_t& dim = result[shift + k];
        if (shape[k] == dim || shape[k] == 1) continue;
        if (dim != 1) return false;
        dim = shape[k];
    }
    return true;
}

// One index array of the expression, before normalisation.
struct Advanced {
    std::size_t item = 0;  // position in expr.items
    int source_axis = 0;   // -1 for True/False
    Shape shape;                  // () for an integer
    std::vector<std::int64_t> values;  // as written for a list; normalised for an integer
    bool is_list = false;  // an integer list, whose values are checked against the axis
};

// How many input axes an item takes: a mask as many as it has dimensions, True/False, None
// and '...' none of their own.
std::size_t axes_taken(const IndexItem& item) {
    if (const auto* list = std::get_if<IntListItem>(&item)) return list->boolean ? list->shape.size() : 1;
    if (std::holds_alternative<BoolItem>(item) || std::holds_alternative<NewAxisItem>(item) ||
        std::holds_alternative<EllipsisItem>(item))
        return 0;
    return 1;
}

// numpy's nonzero() of a mask: per dimension, the coordinates of its True entries in C order.
std::vector<std::vector<std::int64_t>> nonzero(const IntListItem& mask) {
    const std::size_t rank = mask.shape.size();
    std::vector<std::vector<std::int64_t>> coordinates(rank);
    Shape index(rank, 0);
    for (const auto value : mask.values) {
        if (value)
            for (std::size_t k = 0; k < rank; ++k) coordinates[k].push_back(index[k]);
        for (std::size_t k = rank; k-- > 0;) {
            if (++index[k] < mask.shape[k]) break;
            index[k] = 0;
        }
    }
    return coordinates;
}

}  // namespace

GatherPlan plan_advanced_index(const IndexExpr& expr, const std::vector<std::int64_t>& input_shape) {
    auto fail = [&](const std::string& message, std::size_t item) -> void {
        throw ExprError(message, expr.text, expr.items[item].column);
    };

    // Steps 1, 2 and 4: plan_index on the expression with the lists as full slices.
    IndexExpr basic;
    basic.text = expr.text;
    // numpy's result has the broadcast index arrays' axes (as many as the longest shape has;
    // an integer is a 0-d array, a mask's nonzero() arrays and True/False have one) where
    // `basic` counts one axis per full slice put in.
    std::int64_t placeholders = 0, broadcast_rank = 0;
    for (const auto& item : expr.items) {
        if (const auto* list = std::get_if<IntListItem>(&item.item)) {
            const std::size_t slices = axes_taken(item.item);
            for (std::size_t k = 0; k < slices; ++k)
                basic.items.push_back(list->overflows ? ExprItem{IntItem{0, true}, item.column, {}}
                                                      : ExprItem{SliceItem{}, item.column, {}});
            placeholders += static_cast<std::int64_t>(slices);
            broadcast_rank = std::max(broadcast_rank, list->boolean ? 1 : static_cast<std::int64_t>(list->shape.size()));
        } else if (std::holds_alternative<BoolItem>(item.item)) {
            broadcast_rank = std::max<std::int64_t>(broadcast_rank, 1);
        } else {
            basic.items.push_back(item);
        }
    }
    const std::size_t rank = input_shape.size();
    std::size_t consumed = 0;
    for (const auto& item : expr.items) consumed += axes_taken(item.item);

    // Step 3: each mask against the axes it covers (once steps 1 and 2 have passed).
    auto check_masks = [&] {
        std::size_t axis = 0;
        for (const auto& item : expr.items) {
            const auto* list = std::get_if<IntListItem>(&item.item);
            if (list && list->boolean)
                for (std::size_t k = 0; k < list->shape.size(); ++k, ++axis)
                    if (list->shape[k] != input_shape[axis])
                        // numpy 2's words (numpy 1.x said "along dimension 0; dimension is 3 but
                        // corresponding boolean dimension is 2").
                        throw ExprError("boolean index did not match indexed array along axis " + std::to_string(axis) +
                                            "; size of axis is " + std::to_string(input_shape[axis]) +
                                            " but size of corresponding boolean axis is " + std::to_string(list->shape[k]),
                                        expr.text, item.column);
            axis += std::holds_alternative<EllipsisItem>(item.item) ? rank - consumed
                                                                     : (list && list->boolean ? 0 : axes_taken(item.item));
        }
    };
    SlicePlan sliced;
    try {
        sliced = detail::plan_basic_index(basic, input_shape, broadcast_rank - placeholders);
    } catch (const ExprError& error) {
        if (error.problem() == ExprProblem::OutOfBounds || error.problem() == ExprProblem::ZeroStep) check_masks();
        throw;
    }
    check_masks();

    // Which input axis and which of the plan's output axes belong to each item.
    std::vector<std::vector<OutputAxis>> basic_axes(expr.items.size());  // per item
    std::vector<Advanced> advanced;
    std::size_t next_axis = 0, next_output = 0;
    for (std::size_t i = 0; i < expr.items.size(); ++i) {
        const IndexItem& item = expr.items[i].item;
        if (std::holds_alternative<EllipsisItem>(item)) {
            for (std::size_t k = 0; k < rank - consumed; ++k) basic_axes[i].push_back(sliced.axes[next_output++]);
            next_axis += rank - consumed;
        } else if (std::holds_alternative<NewAxisItem>(item) || std::holds_alternative<SliceItem>(item)) {
            basic_axes[i].push_back(sliced.axes[next_output++]);
            if (std::holds_alternative<SliceItem>(item)) ++next_axis;
        } else if (const auto* list = std::get_if<IntListItem>(&item); list && list->boolean) {
            auto coordinates = nonzero(*list);
            const Shape shape{static_cast<std::int64_t>(coordinates.empty() ? 0 : coordinates.front().size())};
            for (auto& axis_coordinates : coordinates) {
                ++next_output;  // a placeholder slice
                advanced.push_back(Advanced{i, static_cast<int>(next_axis++), shape, std::move(axis_coordinates), false});
            }
        } else if (list) {
            ++next_output;  // the placeholder slice
            advanced.push_back(Advanced{i, static_cast<int>(next_axis++), list->shape, list->values, true});
        } else if (const auto* boolean = std::get_if<BoolItem>(&item)) {
            const std::int64_t length = boolean->value ? 1 : 0;
            advanced.push_back(Advanced{i, -1, {length}, std::vector<std::int64_t>(static_cast<std::size_t>(length), 0), false});
        } else {  // an integer: a 0-d index array, already checked and normalised by plan_index
            const int axis = static_cast<int>(next_axis++);
            const auto shrunk = std::find_if(sliced.shrunk.begin(), sliced.shrunk.end(),
                                             [&](const ShrunkAxis& s) { return s.source_axis == axis; });
            advanced.push_back(Advanced{i, axis, {}, {shrunk->index}, false});
        }
    }
    const std::vector<OutputAxis> trailing(sliced.axes.begin() + static_cast<std::ptrdiff_t>(next_output), sliced.axes.end());

    // Step 5: broadcast.
    Shape broadcast;
    for (std::size_t a = 0; a < advanced.size(); ++a) {
        if (!broadcast_into(broadcast, advanced[a].shape)) {
            std::string shapes;
            for (const auto& array : advanced)
                if (!array.shape.empty()) {
                    if (!shapes.empty()) shapes += ' ';
                    shapes += compact_shape(array.shape);
                }
            fail("shape mismatch: indexing arrays could not be broadcast together with shapes " + shapes,
                 advanced[a].item);
        }
    }

    // The output axes.
    bool adjacent = true;
    for (std::size_t a = 1; a < advanced.size(); ++a) adjacent = adjacent && advanced[a].item <= advanced[a - 1].item + 1;
    GatherPlan plan;
    plan.input_shape = input_shape;
    plan.table_shape = broadcast;
    auto add_broadcast_axes = [&] {
        for (std::size_t j = 0; j < broadcast.size(); ++j)
            plan.axes.push_back(GatherAxis{GatherAxisKind::Indices, -1, static_cast<int>(j), 0, broadcast[j], 1, broadcast[j]});
    };
    auto add_basic_axis = [&](const OutputAxis& axis) {
        plan.axes.push_back(GatherAxis{axis.source_axis < 0 ? GatherAxisKind::NewAxis : GatherAxisKind::Sliced,
                                       axis.source_axis, -1, axis.start, axis.stop, axis.step, axis.length});
    };
    if (!adjacent || advanced.empty()) add_broadcast_axes();
    for (std::size_t i = 0; i < expr.items.size(); ++i) {
        if (adjacent && !advanced.empty() && i == advanced.front().item) add_broadcast_axes();
        for (const auto& axis : basic_axes[i]) add_basic_axis(axis);
    }
    for (const auto& axis : trailing) add_basic_axis(axis);

    // Sizes: numpy has no limit here, tslice's table and result have (gather.hpp).
    std::int64_t table_entries = 1, output_elements = 1;
    bool too_big = false;
    for (const auto dim : broadcast) too_big = too_big || __builtin_mul_overflow(table_entries, dim, &table_entries);
    const Shape output_shape = plan.output_shape();
    const bool empty = std::find(output_shape.begin(), output_shape.end(), 0) != output_shape.end();
    for (const auto dim : output_shape) too_big = too_big || __builtin_mul_overflow(output_elements, dim, &output_elements);
    if (!empty && (too_big || table_entries > kMaxGatherTable || output_elements > kMaxGatherOutput))
        fail("the index arrays broadcast to shape " + format_shape(broadcast) + " for a result of shape " +
                 format_shape(output_shape) + ": more than tslice gathers at once (at most " +
                 std::to_string(kMaxGatherTable) + " index combinations and " + std::to_string(kMaxGatherOutput) +
                 " elements)",
             advanced.front().item);

    // Step 6: bounds, unless the index arrays broadcast to nothing.
    const bool nothing_indexed = std::find(broadcast.begin(), broadcast.end(), 0) != broadcast.end();
    for (auto& array : advanced) {
        if (!array.is_list) continue;
        const std::int64_t dim = input_shape[static_cast<std::size_t>(array.source_axis)];
        for (auto& value : array.values) {
            if (value >= -dim && value < dim) {
                if (value < 0) value += dim;
                continue;
            }
            if (!nothing_indexed)
                fail("index " + std::to_string(value) + " is out of bounds for axis " + std::to_string(array.source_axis) +
                         " with size " + std::to_string(dim),
                     array.item);
            value = View::kZeroElement;  // never read: no index combination exists
        }
    }
    for (auto& array : advanced)
        plan.indices.push_back(IndexArray{array.source_axis, array.shape,
                                          std::make_shared<const std::vector<std::int64_t>>(std::move(array.values))});
    return plan;
}

}  // namespace tslice
