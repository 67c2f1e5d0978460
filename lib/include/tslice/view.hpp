// The one plan every op compiles into: an affine view of the input bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tslice {

// Element (i0, i1, ...) of the view lives at byte
//   byte_offset + i0 * byte_strides[0] + i1 * byte_strides[1] + ...
// from the start of the input's data. Strides may be negative or zero (a new axis).
struct View {
    std::int64_t byte_offset = 0;
    std::vector<std::int64_t> shape;
    std::vector<std::int64_t> byte_strides;
    std::size_t itemsize = 1;

    std::size_t rank() const { return shape.size(); }
    std::int64_t element_count() const;  // 1 for a 0-d view, 0 if any axis is empty

    // The view of a C-order (or Fortran-order) array of this shape at offset 0.
    static View contiguous(const std::vector<std::int64_t>& shape, std::size_t itemsize,
                           bool fortran_order = false);

    bool operator==(const View&) const = default;
};

// numpy's shape tuple text: "(4, 3, 3)", "(5,)", "()".
std::string format_shape(const std::vector<std::int64_t>& shape);

}  // namespace tslice
