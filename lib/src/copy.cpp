// The copy: normalise the layout, then one outer loop over rows and an inner kernel chosen
// by element size and inner stride. The kernels see bytes and strides, never ops or dtypes.
//
// A table view (a gather) adds one lookup to the outer loop: each row starts at its byte
// offset plus the table entry of the row, and a row whose entry is View::kZeroElement is
// zero-filled. Rows are the innermost normalised axis, so when the gathered block is
// contiguous (gather along any axis but the last) a whole block is one memcpy. Only when
// the innermost axis itself walks the table (gather along the last axis) is every element
// looked up on its own.
#include "tslice/copy.hpp"

#include <algorithm>
#include <cstring>

namespace tslice {
namespace {

constexpr std::int64_t kZero = View::kZeroElement;

// Copies `count` elements of `Size` bytes spaced `stride` bytes apart. A fixed Size lets
// the compiler turn memcpy into a single load and store.
template <std::size_t Size>
void copy_strided_fixed(const std::byte* src, std::int64_t stride, std::byte* dst, std::int64_t count) {
    for (std::int64_t i = 0; i < count; ++i, src += stride, dst += Size) std::memcpy(dst, src, Size);
}

void copy_strided_any(const std::byte* src, std::int64_t stride, std::byte* dst, std::int64_t count,
                      std::size_t itemsize) {
    for (std::int64_t i = 0; i < count; ++i, src += stride, dst += itemsize) std::memcpy(dst, src, itemsize);
}

using RowKernel = void (*)(const std::byte*, std::int64_t, std::byte*, std::int64_t, std::size_t);

template <std::size_t Size>
void row_fixed(const std::byte* src, std::int64_t stride, std::byte* dst, std::int64_t count, std::size_t) {
    copy_strided_fixed<Size>(src, stride, dst, count);
}

void row_contiguous(const std::byte* src, std::int64_t, std::byte* dst, std::int64_t count,
                    std::size_t itemsize) {
    std::memcpy(dst, src, static_cast<std::size_t>(count) * itemsize);
}

RowKernel choose_row_kernel(std::int64_t inner_stride, std::size_t itemsize) {
    if (inner_stride == static_cast<std::int64_t>(itemsize)) return row_contiguous;
    switch (itemsize) {
        case 1: return row_fixed<1>;
        case 2: return row_fixed<2>;
        case 4: return row_fixed<4>;
        case 8: return row_fixed<8>;
        case 16: return row_fixed<16>;
        default: return copy_strided_any;
    }
}

// A row whose elements each have their own table entry: element i is at
// src + i * stride + table[i * table_stride], or zeros for kZero.
using TableRowKernel = void (*)(const std::byte*, std::int64_t, const std::int64_t*, std::int64_t, std::byte*,
                                std::int64_t, std::size_t);

template <std::size_t Size>
void table_row_fixed(const std::byte* src, std::int64_t stride, const std::int64_t* table, std::int64_t table_stride,
                     std::byte* dst, std::int64_t count, std::size_t) {
    for (std::int64_t i = 0; i < count; ++i, dst += Size) {
        const std::int64_t entry = table[i * table_stride];
        if (entry == kZero) {
            std::memset(dst, 0, Size);
        } else {
            std::memcpy(dst, src + i * stride + entry, Size);
        }
    }
}

void table_row_any(const std::byte* src, std::int64_t stride, const std::int64_t* table, std::int64_t table_stride,
                   std::byte* dst, std::int64_t count, std::size_t itemsize) {
    for (std::int64_t i = 0; i < count; ++i, dst += itemsize) {
        const std::int64_t entry = table[i * table_stride];
        if (entry == kZero) {
            std::memset(dst, 0, itemsize);
        } else {
            std::memcpy(dst, src + i * stride + entry, itemsize);
        }
    }
}

TableRowKernel choose_table_row_kernel(std::size_t itemsize) {
    switch (itemsize) {
        case 1: return table_row_fixed<1>;
        case 2: return table_row_fixed<2>;
        case 4: return table_row_fixed<4>;
        case 8: return table_row_fixed<8>;
        case 16: return table_row_fixed<16>;
        default: return table_row_any;
    }
}

}  // namespace

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

void copy_view(const std::byte* src, const View& view, std::byte* dst, std::int64_t first,
               std::int64_t count) {
    if (count <= 0) return;
    const View layout = normalise(view);
    const std::size_t itemsize = layout.itemsize;
    const std::int64_t* table = layout.has_table() ? layout.table->data() + layout.table_offset : nullptr;
    const std::byte* base = src + layout.byte_offset;
    const std::size_t rank = layout.rank();
    if (rank == 0) {  // a single element
        if (!table) {
            std::memcpy(dst, base, itemsize);
        } else if (table[0] == kZero) {
            std::memset(dst, 0, itemsize);
        } else {
            std::memcpy(dst, base + table[0], itemsize);
        }
        return;
    }
    const std::int64_t row_length = layout.shape[rank - 1];
    const std::int64_t inner_stride = layout.byte_strides[rank - 1];
    const std::int64_t inner_table_stride = table ? layout.table_strides[rank - 1] : 0;
    const RowKernel row = choose_row_kernel(inner_stride, itemsize);
    const TableRowKernel table_row = choose_table_row_kernel(itemsize);
    const auto item_bytes = static_cast<std::int64_t>(itemsize);

    // The multi-index of element `first`; the byte offset and table position of its row.
    std::vector<std::int64_t> index(rank, 0);
    std::int64_t remainder = first;
    for (std::size_t axis = rank; axis-- > 0;) {
        index[axis] = remainder % layout.shape[axis];
        remainder /= layout.shape[axis];
    }
    std::int64_t row_offset = 0, row_table = 0;
    for (std::size_t axis = 0; axis + 1 < rank; ++axis) {
        row_offset += index[axis] * layout.byte_strides[axis];
        if (table) row_table += index[axis] * layout.table_strides[axis];
    }
    std::int64_t column = index[rank - 1];

    while (count > 0) {
        const std::int64_t run = std::min(row_length - column, count);
        const std::int64_t start = row_offset + column * inner_stride;
        if (!table) {
            row(base + start, inner_stride, dst, run, itemsize);
        } else if (inner_table_stride == 0) {
            // One lookup for the whole row: a gathered block, or zeros.
            const std::int64_t entry = table[row_table];
            if (entry == kZero) {
                std::memset(dst, 0, static_cast<std::size_t>(run) * itemsize);
            } else {
                row(base + start + entry, inner_stride, dst, run, itemsize);
            }
        } else {
            table_row(base + start, inner_stride, table + row_table + column * inner_table_stride,
                      inner_table_stride, dst, run, itemsize);
        }
        dst += run * item_bytes;
        count -= run;
        column = 0;
        if (count == 0) break;
        // Step the outer odometer to the next row.
        for (std::size_t axis = rank - 1; axis-- > 0;) {
            row_offset += layout.byte_strides[axis];
            if (table) row_table += layout.table_strides[axis];
            if (++index[axis] < layout.shape[axis]) break;
            row_offset -= index[axis] * layout.byte_strides[axis];
            if (table) row_table -= index[axis] * layout.table_strides[axis];
            index[axis] = 0;
        }
    }
}

}  // namespace tslice
