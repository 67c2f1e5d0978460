// A view reduced to the fewest axes that give the same element order, so that the copy's rows
// are as long as the layout allows.
#include "tslice/copy.hpp"

namespace tslice {

View normalise(const View& view) {
    View out;
    out.itemsize = view.itemsize;
    out.byte_offset = view.byte_offset;
    out.table = view.table;
    out.table_offset = view.table_offset;
    const bool table = view.has_table();
    if (view.element_count() == 0) {
        out.shape = {0};
        out.byte_strides = {0};
        if (table) out.table_strides = {0};
        return out;
    }
    for (std::size_t axis = 0; axis < view.rank(); ++axis) {
        if (view.shape[axis] == 1) continue;
        const std::int64_t length = view.shape[axis];
        const std::int64_t stride = view.byte_strides[axis];
        const std::int64_t table_stride = table ? view.table_strides[axis] : 0;
        // The previous (outer) axis merges into this one when stepping it once is the same as
        // stepping this one `length` times, in the bytes and in the table alike.
        if (!out.shape.empty() && out.byte_strides.back() == stride * length &&
            (!table || out.table_strides.back() == table_stride * length)) {
            out.shape.back() *= length;
            out.byte_strides.back() = stride;
            if (table) out.table_strides.back() = table_stride;
            continue;
        }
        out.shape.push_back(length);
        out.byte_strides.push_back(stride);
        if (table) out.table_strides.push_back(table_stride);
    }
    return out;
}

}  // namespace tslice
