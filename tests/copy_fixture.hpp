// What the tests of the copy share: the element-by-element reference copy of a view, and input
// bytes that differ from their neighbours.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tslice/view.hpp"

namespace copy_fixture {

using Shape = std::vector<std::int64_t>;

// The reference: walk the view's multi-index in C order and copy each element alone, with
// the view's definition of a table view spelled out.
inline std::vector<std::byte> reference_copy(const std::byte* src, const tslice::View& view) {
    std::vector<std::byte> out(static_cast<std::size_t>(view.element_count()) * view.itemsize);
    if (out.empty()) return out;
    Shape index(view.rank(), 0);
    for (std::size_t element = 0; element < static_cast<std::size_t>(view.element_count()); ++element) {
        std::int64_t offset = view.byte_offset;
        for (std::size_t axis = 0; axis < view.rank(); ++axis) offset += index[axis] * view.byte_strides[axis];
        bool zero = false;
        if (view.has_table()) {
            std::int64_t position = view.table_offset;
            for (std::size_t axis = 0; axis < view.rank(); ++axis) position += index[axis] * view.table_strides[axis];
            const std::int64_t entry = view.table->at(static_cast<std::size_t>(position));
            zero = entry == tslice::View::kZeroElement;
            offset += zero ? 0 : entry;
        }
        if (zero) {
            std::memset(out.data() + element * view.itemsize, 0, view.itemsize);
        } else {
            std::memcpy(out.data() + element * view.itemsize, src + offset, view.itemsize);
        }
        for (std::size_t axis = view.rank(); axis-- > 0;) {
            if (++index[axis] < view.shape[axis]) break;
            index[axis] = 0;
        }
    }
    return out;
}

inline std::vector<std::byte> numbered_bytes(std::size_t count) {
    std::vector<std::byte> bytes(count);
    for (std::size_t i = 0; i < count; ++i) bytes[i] = static_cast<std::byte>((i * 131 + i / 251) & 0xFF);
    return bytes;
}

}  // namespace copy_fixture
