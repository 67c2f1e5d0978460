#include "tslice/view.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "tslice/error.hpp"

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

std::optional<View::EntryRange> View::table_entry_range() const {
    if (!table) return std::nullopt;
    std::optional<EntryRange> range;
    for (const std::int64_t entry : *table) {
        if (entry == kZeroElement) continue;
        if (!range) range = EntryRange{entry, entry};
        range->low = std::min(range->low, entry);
        range->high = std::max(range->high, entry);
    }
    return range;
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

namespace {

// The hull of a range of elements of an affine view, walked down the axes: a range inside one
// row of an axis is that row's business; one that spans rows is a partial first row, whole
// rows between, and a partial last row.
class RangeHull {
public:
    explicit RangeHull(const View& view) : view_(view) {
        const std::size_t n = view.rank();
        inner_.assign(n + 1, 1);
        whole_low_.assign(n + 1, 0);
        whole_high_.assign(n + 1, 0);
        for (std::size_t k = n; k-- > 0;) {
            const std::int64_t reach = (view.shape[k] - 1) * view.byte_strides[k];
            inner_[k] = inner_[k + 1] * view.shape[k];
            whole_low_[k] = whole_low_[k + 1] + std::min<std::int64_t>(reach, 0);
            whole_high_[k] = whole_high_[k + 1] + std::max<std::int64_t>(reach, 0);
        }
    }

    // Elements [first, end) (first < end) of the block of axes `axis`.. whose element 0 is at `base`.
    void add(std::size_t axis, std::int64_t base, std::int64_t first, std::int64_t end) {
        if (first == 0 && end == inner_[axis]) {
            add_whole(axis, base, base);
            return;
        }
        const std::int64_t row = inner_[axis + 1], stride = view_.byte_strides[axis];
        const std::int64_t first_row = first / row, last_row = (end - 1) / row;
        if (first_row == last_row) {
            add(axis + 1, base + first_row * stride, first - first_row * row, end - first_row * row);
            return;
        }
        add(axis + 1, base + first_row * stride, first - first_row * row, row);
        if (last_row - first_row > 1) {
            const std::int64_t a = (first_row + 1) * stride, b = (last_row - 1) * stride;
            add_whole(axis + 1, base + std::min(a, b), base + std::max(a, b));
        }
        add(axis + 1, base + last_row * stride, 0, end - last_row * row);
    }

    View::Span span() const { return {low_, high_ + static_cast<std::int64_t>(view_.itemsize)}; }

private:
    // Whole blocks of axes `axis`.. with element 0 anywhere in [low_base, high_base].
    void add_whole(std::size_t axis, std::int64_t low_base, std::int64_t high_base) {
        low_ = std::min(low_, low_base + whole_low_[axis]);
        high_ = std::max(high_, high_base + whole_high_[axis]);
    }

    const View& view_;
    std::vector<std::int64_t> inner_, whole_low_, whole_high_;
    std::int64_t low_ = std::numeric_limits<std::int64_t>::max();
    std::int64_t high_ = std::numeric_limits<std::int64_t>::min();
};

}  // namespace

View::Span View::span_of(std::int64_t first, std::int64_t end) const {
    end = std::min(end, element_count());
    first = std::max<std::int64_t>(first, 0);
    if (table || first >= end) return {};
    RangeHull hull(*this);
    hull.add(0, byte_offset, first, end);
    return hull.span();
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
        // Shapes are checked when read (checked_element_count), so this cannot overflow for
        // an array of a file; the check keeps a shape that was not from becoming undefined
        // behaviour. Past the last axis the product is not needed.
        if (k + 1 < n && __builtin_mul_overflow(stride, shape[axis] > 0 ? shape[axis] : 1, &stride))
            fail_input("shape " + format_shape(shape) + " is too large: its strides overflow 64 bits");
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
