// Copying a View into C-order bytes. Kernels know nothing of ops: they see a normalised
// layout (length-1 axes dropped, axes that are contiguous together merged) and byte strides.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tslice/view.hpp"

namespace tslice {

// A view reduced to the fewest axes that describe the same element order: axes of length 1
// dropped, neighbouring axes merged where the outer stride is the inner stride times the
// inner length (for a table view: in the table strides too). An empty view keeps a single
// axis of length 0.
View normalise(const View& view);

// Copies elements [first, first + count) of `view` (in C order of the view's shape) from
// `src` (the start of the input data) to `dst`, densely. The whole result is
// copy_view(src, view, dst, 0, view.element_count()). A table view is copied a row (an inner
// block) at a time with one table lookup per row; a kZeroElement entry writes zeros.
void copy_view(const std::byte* src, const View& view, std::byte* dst, std::int64_t first,
               std::int64_t count);

}  // namespace tslice
