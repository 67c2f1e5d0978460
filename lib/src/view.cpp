#include "tslice/view.hpp"

#include <algorithm>

namespace tslice {

std::int64_t View::element_count() const {
    std::int64_t count = 1;
    for (auto length : shape) count *= length;
    return count;
}

std::int64_t View::element_offset(const std::vector<std::int64_t>& index) const {
    std::int64_t offset = byte_offset;
    for (std::size_t k = 0; k < shape.size(); ++k) offset += index[k] * byte_strides[k];
    if (!table) return offset;
    std::int64_t position = table_offset;
    for (std::size_t k = 0; k < shape.size(); ++k) position += index[k] * table_strides[k];
    const std::int64_t entry = (*table)[static_cast<std::size_t>(position)];
    return entry == kZeroElement ? kZeroElement : offset + entry;
}

bool View::is_c_contiguous() const {
    if (table) return false;
    std::int64_t expected = static_cast<std::int64_t>(itemsize);
    for (std::size_t k = shape.size(); k-- > 0;) {
        if (shape[k] == 1) continue;  // a length-1 axis never steps
        if (shape[k] == 0) return true;
        if (byte_strides[k] != expected) return false;
        expected *= shape[k];
    }
    return true;
}

View::Span View::span_from(std::int64_t first) const {
    const std::int64_t total = element_count();
    if (table || first >= total) return {};
    // The outermost axis that steps; the axes after it make up one of its rows.
    std::size_t outer = 0;
    while (outer < shape.size() && shape[outer] == 1) ++outer;
    std::int64_t low = byte_offset, high = byte_offset;
    std::int64_t row_elements = 1;
    for (std::size_t k = outer + 1; k < shape.size(); ++k) {
        const std::int64_t reach = (shape[k] - 1) * byte_strides[k];
        (reach < 0 ? low : high) += reach;
        row_elements *= shape[k];
    }
    if (outer < shape.size()) {
        const std::int64_t from_row = first / row_elements;
        const std::int64_t stride = byte_strides[outer];
        const std::int64_t first_row = from_row * stride, last_row = (shape[outer] - 1) * stride;
        low += std::min(first_row, last_row);
        high += std::max(first_row, last_row);
    }
    return {low, high + static_cast<std::int64_t>(itemsize)};
}

View View::contiguous(const std::vector<std::int64_t>& shape, std::size_t itemsize,
                      bool fortran_order) {
    View view;
    view.shape = shape;
    view.itemsize = itemsize;
    view.byte_strides.assign(shape.size(), 0);
    std::int64_t stride = static_cast<std::int64_t>(itemsize);
    const std::size_t n = shape.size();
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t axis = fortran_order ? k : n - 1 - k;
        view.byte_strides[axis] = stride;
        stride *= shape[axis] > 0 ? shape[axis] : 1;
    }
    return view;
}

bool View::operator==(const View& other) const {
    if (byte_offset != other.byte_offset || shape != other.shape || byte_strides != other.byte_strides ||
        itemsize != other.itemsize || has_table() != other.has_table())
        return false;
    if (!has_table()) return true;
    return table_offset == other.table_offset && table_strides == other.table_strides &&
           (table == other.table || *table == *other.table);
}

std::string format_shape(const std::vector<std::int64_t>& shape) {
    std::string text = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i) text += ", ";
        text += std::to_string(shape[i]);
    }
    if (shape.size() == 1) text += ",";
    return text + ")";
}

}  // namespace tslice
