// Field selection on structured arrays: a['x'] and a[['z', 'x']] as numpy 1.24 does them.
//
// One field is a view of its own: the element's bytes at the field's offset, with the field's
// dtype; a sub-array field ('y', '<i2', (2, 3)) adds its axes after the array's. A list of
// fields keeps the elements whole and changes the dtype only: the selected fields at their
// offsets, in the order given (DType::packed_itemsize); writers pack them, one after another,
// because numpy's own multi-field view (with gaps and offsets out of order) cannot always be
// saved. Pure: shapes and dtypes, never the data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tslice/expr.hpp"
#include "tslice/npy.hpp"
#include "tslice/view.hpp"

namespace tslice {

struct FieldPlan {
    std::vector<std::int64_t> input_shape;
    std::vector<std::string> names;      // as selected, for --explain
    bool list = false;                   // a[['x']] rather than a['x']
    DType dtype;                         // the result's
    std::size_t byte_offset = 0;         // one field: where it starts in the element
    std::vector<std::int64_t> subshape;  // one field: its sub-array shape

    std::vector<std::int64_t> output_shape() const;
    bool operator==(const FieldPlan&) const = default;
};

// The field subscript `expr` (field_selection(expr) is set) against an array of `shape` and
// `dtype`. Throws ExprError at the subscript with numpy's errors: a dtype without fields
// ("only integers, slices ..."), "no field of name w", "duplicate field of name 'x'".
FieldPlan plan_fields(const IndexExpr& expr, const std::vector<std::int64_t>& shape, const DType& dtype);

// The result's view: for one field, the field's bytes of every element.
View apply_fields(const FieldPlan& plan, const View& input);

// Where each field of a selection lies in an element, in the order it is written.
struct FieldBytes {
    std::size_t offset = 0, size = 0;
};
std::vector<FieldBytes> packed_fields(const DType& selection);

// Packs `count` elements of `selection` (each selection.itemsize bytes, fields at their
// offsets) from `elements` into `out` (selection.packed_itemsize bytes each).
void pack_elements(const DType& selection, const std::byte* elements, std::int64_t count, std::byte* out);

}  // namespace tslice
