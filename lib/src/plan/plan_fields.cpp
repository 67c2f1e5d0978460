// numpy's field indexing (a['x'], a[['z', 'x']]) as a plan. Errors, each checked against
// numpy 1.24 (/usr/bin/python3):
//   a['x'] on an array without fields     IndexError: only integers, slices (`:`), ...
//   a['w'], a[['x', 'w']]                  ValueError: no field of name w / KeyError: 'w'
//   a[['x', 'x']]                          ValueError: duplicate field of name 'x'
#include "tslice/fields.hpp"

#include <algorithm>
#include <cstring>

#include "base/python_text.hpp"
#include "tslice/error.hpp"

namespace tslice {
namespace {

std::size_t field_size(const DType::Field& field) {
    std::size_t size = field.type->itemsize;
    for (const auto dim : field.subshape) size *= static_cast<std::size_t>(dim);  // checked when the dtype was read
    return size;
}

std::string dtype_name(const DType& dtype) { return dtype.structured ? dtype.descr : "'" + dtype.type_string + "'"; }

}  // namespace

std::vector<std::int64_t> FieldPlan::output_shape() const {
    std::vector<std::int64_t> shape = input_shape;
    shape.insert(shape.end(), subshape.begin(), subshape.end());
    return shape;
}

FieldPlan plan_fields(const IndexExpr& expr, const std::vector<std::int64_t>& shape, const DType& dtype) {
    const FieldItem* selection = field_selection(expr);
    if (!selection) throw Error(ErrorKind::Internal, "internal: plan_fields was given a subscript without field names");
    const std::size_t column = expr.items.front().column;
    auto fail = [&](const std::string& message) { throw ExprError(message, expr.text, column); };
    if (!dtype.structured)
        fail("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays "
             "are valid indices; a field name selects a field of a structured array, and this array's dtype " +
             dtype_name(dtype) + " has no fields");
    std::vector<const DType::Field*> chosen;
    for (const auto& name : selection->names) {
        const auto found = std::find_if(dtype.fields.begin(), dtype.fields.end(), [&](const DType::Field& field) {
            return field.name == name && !name.empty();
        });
        if (found == dtype.fields.end()) {
            std::string names;
            for (const auto& field : dtype.fields)
                if (!field.name.empty()) names += (names.empty() ? "" : ", ") + str_repr_utf8(field.name);
            fail("no field of name " + name + "; the fields are " + names);
        }
        if (std::find(chosen.begin(), chosen.end(), &*found) != chosen.end())
            fail("duplicate field of name " + str_repr_utf8(name));
        chosen.push_back(&*found);
    }

    FieldPlan plan;
    plan.input_shape = shape;
    plan.names = selection->names;
    plan.list = selection->list;
    if (!selection->list) {
        const DType::Field& field = *chosen.front();
        plan.dtype = *field.type;
        plan.byte_offset = field.offset;
        plan.subshape = field.subshape;
        if (shape.size() + field.subshape.size() > kMaxRank)
            fail("the field " + str_repr_utf8(field.name) + " adds " + std::to_string(field.subshape.size()) +
                 " axes to an array of " + std::to_string(shape.size()) + ": numpy arrays have at most " +
                 std::to_string(kMaxRank));
        return plan;
    }
    DType& out = plan.dtype;
    out.structured = true;
    out.kind = 'V';
    out.byte_order = '|';
    out.itemsize = dtype.itemsize;
    out.descr = "[";
    for (const auto* field : chosen) {
        out.fields.push_back(*field);
        out.packed_itemsize += field_size(*field);
        if (out.fields.size() > 1) out.descr += ", ";
        out.descr += "(" + str_repr_utf8(field->name) + ", " + field->type->descr;
        if (!field->subshape.empty()) out.descr += ", " + format_shape(field->subshape);
        out.descr += ")";
    }
    out.descr += "]";
    // numpy reads an empty structured dtype; tslice needs bytes to write.
    if (out.packed_itemsize == 0) fail("the selected fields have no bytes; tslice needs an itemsize of at least 1");
    return plan;
}

View apply_fields(const FieldPlan& plan, const View& input) {
    if (input.shape != plan.input_shape)
        throw Error(ErrorKind::Internal, "internal: field plan for shape " + format_shape(plan.input_shape) +
                                             " applied to shape " + format_shape(input.shape));
    View view = input;
    if (plan.list) return view;  // the dtype changes, the elements stay whole
    view.byte_offset += static_cast<std::int64_t>(plan.byte_offset);
    view.itemsize = plan.dtype.itemsize;
    std::int64_t stride = static_cast<std::int64_t>(plan.dtype.itemsize);
    std::vector<std::int64_t> strides(plan.subshape.size());
    for (std::size_t k = plan.subshape.size(); k-- > 0;) {
        strides[k] = stride;
        stride *= plan.subshape[k];
    }
    for (std::size_t k = 0; k < plan.subshape.size(); ++k) {
        view.shape.push_back(plan.subshape[k]);
        view.byte_strides.push_back(plan.subshape[k] > 1 ? strides[k] : 0);
        if (view.has_table()) view.table_strides.push_back(0);
    }
    return view;
}

std::vector<FieldBytes> packed_fields(const DType& selection) {
    std::vector<FieldBytes> bytes;
    for (const auto& field : selection.fields) bytes.push_back({field.offset, field_size(field)});
    return bytes;
}

void pack_elements(const DType& selection, const std::byte* elements, std::int64_t count, std::byte* out) {
    const std::vector<FieldBytes> fields = packed_fields(selection);
    for (std::int64_t i = 0; i < count; ++i, elements += selection.itemsize)
        for (const auto& field : fields) {
            std::memcpy(out, elements + field.offset, field.size);
            out += field.size;
        }
}

}  // namespace tslice
