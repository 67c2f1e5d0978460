// The references the copies are checked against, and the bytes a copy reads (see
// bench_reference.hpp).
#include "bench_reference.hpp"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>

#include "bench_common.hpp"
#include "tslice/copy.hpp"

namespace tslice::bench {

// ---------------------------------------------------------------------------------------------
// The reference: element by element from the plan's numbers, never through copy_view.

namespace {

template <std::size_t Size>
void reference_rows(const std::byte* in, std::size_t itemsize, const std::vector<std::int64_t>& length,
                    const std::vector<std::int64_t>& step, std::int64_t base, std::byte* out) {
    const std::size_t rank = length.size();
    const std::size_t size = Size ? Size : itemsize;
    if (rank == 0) {
        std::memcpy(out, in + base * static_cast<std::int64_t>(size), size);
        return;
    }
    std::vector<std::int64_t> index(rank, 0);
    std::int64_t row = base;  // element offset of the current row's first element
    const std::int64_t inner = length[rank - 1], inner_step = step[rank - 1];
    for (;;) {
        std::int64_t element = row;
        for (std::int64_t i = 0; i < inner; ++i, element += inner_step, out += size)
            std::memcpy(out, in + element * static_cast<std::int64_t>(size), Size ? Size : size);
        std::size_t axis = rank - 1;
        for (;;) {
            if (axis == 0) return;
            --axis;
            row += step[axis];
            if (++index[axis] < length[axis]) break;
            row -= index[axis] * step[axis];
            index[axis] = 0;
        }
    }
}

}  // namespace

void reference_slice(const std::byte* in, const tslice::SlicePlan& plan, std::size_t itemsize, std::byte* out) {
    const auto& shape = plan.input_shape;
    std::vector<std::int64_t> stride(shape.size(), 1);  // C order, in elements
    for (std::size_t k = shape.size(); k-- > 1;) stride[k - 1] = stride[k] * shape[k];
    std::int64_t base = 0;
    for (const auto& shrunk : plan.shrunk) base += shrunk.index * stride[static_cast<std::size_t>(shrunk.source_axis)];
    std::vector<std::int64_t> length, step;
    for (const auto& axis : plan.axes) {
        length.push_back(axis.length);
        if (axis.source_axis < 0) {
            step.push_back(0);
        } else {
            base += axis.start * stride[static_cast<std::size_t>(axis.source_axis)];
            step.push_back(axis.step * stride[static_cast<std::size_t>(axis.source_axis)]);
        }
    }
    if (product(length) == 0) return;
    switch (itemsize) {
        case 1: return reference_rows<1>(in, itemsize, length, step, base, out);
        case 4: return reference_rows<4>(in, itemsize, length, step, base, out);
        case 8: return reference_rows<8>(in, itemsize, length, step, base, out);
        default: return reference_rows<0>(in, itemsize, length, step, base, out);
    }
}

// out[i, j] of a gather of a 2-d C-order input along `axis` (0: rows, 1: columns).
void reference_gather(const std::byte* in, const std::vector<std::int64_t>& shape, std::size_t itemsize, int axis,
                      const std::vector<std::int64_t>& indices, std::byte* out) {
    if (shape.size() != 2) die("the gather reference is for 2-d inputs");
    const auto rows = shape[0], columns = shape[1];
    const auto item = static_cast<std::int64_t>(itemsize);
    if (axis == 0) {
        for (const auto row : indices) {
            std::memcpy(out, in + row * columns * item, static_cast<std::size_t>(columns * item));
            out += columns * item;
        }
    } else {
        for (std::int64_t row = 0; row < rows; ++row)
            for (const auto column : indices) {
                std::memcpy(out, in + (row * columns + column) * item, itemsize);
                out += item;
            }
    }
}

// ---------------------------------------------------------------------------------------------
// The bytes a copy must read: every 64-byte line of the input it touches, counted once.

std::int64_t bytes_read(const View& view, std::size_t input_bytes) {
    const View layout = tslice::normalise(view);
    if (layout.element_count() == 0) return 0;
    std::vector<std::uint64_t> bits(input_bytes / 64 / 64 + 2, 0);
    const auto item = static_cast<std::int64_t>(layout.itemsize);
    auto mark = [&](std::int64_t lo, std::int64_t hi) {  // bytes [lo, hi)
        for (std::int64_t line = lo / 64; line <= (hi - 1) / 64; ++line)
            bits[static_cast<std::size_t>(line) / 64] |= std::uint64_t{1} << (line % 64);
    };
    const std::int64_t* table = layout.has_table() ? layout.table->data() + layout.table_offset : nullptr;
    const std::size_t rank = layout.rank();
    if (rank == 0) {
        const std::int64_t entry = table ? table[0] : 0;
        if (entry != View::kZeroElement) mark(layout.byte_offset + entry, layout.byte_offset + entry + item);
    } else {
        const std::int64_t n = layout.shape[rank - 1], s = layout.byte_strides[rank - 1];
        const std::int64_t ts = table ? layout.table_strides[rank - 1] : 0;
        std::vector<std::int64_t> index(rank, 0);
        std::int64_t row_offset = 0, row_table = 0;
        for (;;) {
            if (table && ts != 0) {
                for (std::int64_t i = 0; i < n; ++i) {
                    const std::int64_t entry = table[row_table + i * ts];
                    if (entry == View::kZeroElement) continue;
                    const std::int64_t at = layout.byte_offset + row_offset + i * s + entry;
                    mark(at, at + item);
                }
            } else {
                const std::int64_t entry = table ? table[row_table] : 0;
                if (entry != View::kZeroElement) {
                    const std::int64_t start = layout.byte_offset + row_offset + entry;
                    if (std::abs(s) < 64) {  // every line between the first and last element
                        const std::int64_t last = start + (n - 1) * s;
                        mark(std::min(start, last), std::max(start, last) + item);
                    } else {
                        for (std::int64_t i = 0; i < n; ++i) mark(start + i * s, start + i * s + item);
                    }
                }
            }
            std::size_t axis = rank - 1;
            bool done = false;
            for (;;) {
                if (axis == 0) {
                    done = true;
                    break;
                }
                --axis;
                row_offset += layout.byte_strides[axis];
                if (table) row_table += layout.table_strides[axis];
                if (++index[axis] < layout.shape[axis]) break;
                row_offset -= index[axis] * layout.byte_strides[axis];
                if (table) row_table -= index[axis] * layout.table_strides[axis];
                index[axis] = 0;
            }
            if (done) break;
        }
    }
    std::int64_t lines = 0;
    for (const auto word : bits) lines += std::popcount(word);
    return lines * 64;
}

}  // namespace tslice::bench
