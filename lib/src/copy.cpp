// The copy: normalise the layout, then one outer loop over rows and an inner kernel chosen
// by element size and inner stride. The kernels see bytes and strides, never ops or dtypes.
#include "tslice/copy.hpp"

#include <cstring>

namespace tslice {
namespace {

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

}  // namespace

View normalise(const View& view) {
    View out;
    out.itemsize = view.itemsize;
    out.byte_offset = view.byte_offset;
    if (view.element_count() == 0) {
        out.shape = {0};
        out.byte_strides = {0};
        return out;
    }
    for (std::size_t axis = 0; axis < view.rank(); ++axis) {
        if (view.shape[axis] == 1) continue;
        const std::int64_t length = view.shape[axis];
        const std::int64_t stride = view.byte_strides[axis];
        // The previous (outer) axis merges into this one when stepping it once is the same as
        // stepping this one `length` times.
        if (!out.shape.empty() && out.byte_strides.back() == stride * length) {
            out.shape.back() *= length;
            out.byte_strides.back() = stride;
            continue;
        }
        out.shape.push_back(length);
        out.byte_strides.push_back(stride);
    }
    return out;
}

void copy_view(const std::byte* src, const View& view, std::byte* dst, std::int64_t first,
               std::int64_t count) {
    if (count <= 0) return;
    const View layout = normalise(view);
    const std::size_t itemsize = layout.itemsize;
    src += layout.byte_offset;
    if (layout.rank() == 0) {  // a single element
        std::memcpy(dst, src, itemsize);
        return;
    }
    const std::size_t rank = layout.rank();
    const std::int64_t row_length = layout.shape[rank - 1];
    const std::int64_t inner_stride = layout.byte_strides[rank - 1];
    const RowKernel row = choose_row_kernel(inner_stride, itemsize);

    // The multi-index of element `first` over the outer axes, and the position in its row.
    std::vector<std::int64_t> index(rank, 0);
    std::int64_t remainder = first;
    for (std::size_t axis = rank; axis-- > 0;) {
        index[axis] = remainder % layout.shape[axis];
        remainder /= layout.shape[axis];
    }
    const std::byte* row_src = src;
    for (std::size_t axis = 0; axis + 1 < rank; ++axis) row_src += index[axis] * layout.byte_strides[axis];
    std::int64_t column = index[rank - 1];

    while (count > 0) {
        const std::int64_t run = std::min(row_length - column, count);
        row(row_src + column * inner_stride, inner_stride, dst, run, itemsize);
        dst += run * static_cast<std::int64_t>(itemsize);
        count -= run;
        column = 0;
        if (count == 0) break;
        // Step the outer odometer to the next row.
        for (std::size_t axis = rank - 1; axis-- > 0;) {
            row_src += layout.byte_strides[axis];
            if (++index[axis] < layout.shape[axis]) break;
            row_src -= index[axis] * layout.byte_strides[axis];
            index[axis] = 0;
        }
    }
}

}  // namespace tslice
