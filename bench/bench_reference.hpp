// What every timed copy is checked against, and what the "memcpy read" column copies: the
// result computed element by element from the plan's numbers, never through copy_view (so that
// a bug in the copy cannot pass its own check), and the bytes of the input a copy touches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tslice/plan.hpp"
#include "tslice/view.hpp"

namespace tslice::bench {

// The slice `plan` of the C-order input `in`, into `out`.
void reference_slice(const std::byte* in, const tslice::SlicePlan& plan, std::size_t itemsize, std::byte* out);

// A gather of rows (axis 0) or columns (axis 1) of a 2-d C-order input, into `out`.
void reference_gather(const std::byte* in, const std::vector<std::int64_t>& shape, std::size_t itemsize, int axis,
                      const std::vector<std::int64_t>& indices, std::byte* out);

// How many bytes of the input (input_bytes long) a copy of `view` must read.
std::int64_t bytes_read(const View& view, std::size_t input_bytes);

}  // namespace tslice::bench
