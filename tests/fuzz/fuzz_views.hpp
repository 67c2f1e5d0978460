// Checks on views that several fuzz targets make: every element a view can read lies inside
// the input, and two views select the same elements.
#pragma once

#include <cstdint>
#include <vector>

#include "fuzz_common.hpp"
#include "tslice/view.hpp"

namespace tslice_fuzz {

// The element offsets of `view` in C order (View::kZeroElement for a gathered zero), or
// nothing when the view has more than `limit` elements.
inline std::vector<std::int64_t> element_offsets(const tslice::View& view, std::int64_t limit = 1 << 16) {
    std::vector<std::int64_t> offsets;
    const std::int64_t count = view.element_count();
    if (count > limit) return offsets;
    std::vector<std::int64_t> index(view.rank(), 0);
    for (std::int64_t n = 0; n < count; ++n) {
        offsets.push_back(view.element_offset(index));
        for (std::size_t k = view.rank(); k-- > 0;) {
            if (++index[k] < view.shape[k]) break;
            index[k] = 0;
        }
    }
    return offsets;
}

// Every element of `view` (up to `limit` of them) starts at a multiple of the item size inside
// an input of `input_bytes` bytes.
inline void check_inside(const tslice::View& view, std::int64_t input_bytes, std::int64_t limit = 1 << 16) {
    TSLICE_FUZZ_CHECK(view.shape.size() == view.byte_strides.size());
    for (auto length : view.shape) TSLICE_FUZZ_CHECK(length >= 0);
    const auto itemsize = static_cast<std::int64_t>(view.itemsize);
    for (std::int64_t offset : element_offsets(view, limit)) {
        if (offset == tslice::View::kZeroElement) continue;
        if (offset < 0 || offset + itemsize > input_bytes || offset % itemsize != 0)
            finding("an element at byte offset %lld of a %lld-byte input (itemsize %lld)", static_cast<long long>(offset),
                    static_cast<long long>(input_bytes), static_cast<long long>(itemsize));
    }
}

}  // namespace tslice_fuzz
