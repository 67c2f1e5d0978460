// The tile and stream kernels of a SIMD kernel set (kernels_body.hpp), over an instruction
// set's adapter (kernels_isa.hpp):
//
// - stream_copy: memcpy with non-temporal stores, for copy.cpp's streamed output.
// - tile (2-D): a plane whose rows are close together in the input and whose columns are
//   far apart (a transpose) is copied in blocks of columns, a cache line of each column at a
//   time, so that each input line is read once and used whole.
// - fence: orders the streamed stores before later ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "copy/kernels_isa.hpp"

namespace tslice::kernels {
namespace {

// One cache line into L1 (asm: GCC 12 deletes loops of nothing but __builtin_prefetch).
inline void prefetch(const std::byte* address) { asm volatile("prefetcht0 %0" : : "m"(*address)); }

template <class Isa>
struct Tiles {
    static constexpr std::int64_t W = Isa::kWidth;

    // Tiles. The plane's rows lie close together in the input (|row_stride| <= 64), its
    // columns far apart. A block of kTileColumns columns is walked down, a band of rows
    // (one input line per column) at a time: each column's line is loaded whole, once, into a
    // buffer (with power-of-two column strides the lines of a block all fall in one L1 set,
    // so they cannot stay in the cache while the band's rows are written), and the buffer is
    // written out row by row, a run of the block's elements per row. The line a few bands
    // down each column is prefetched: a hundred streams are more than the hardware follows.
    // Still slower than memcpy: every line of a band is on its own page (the figures are in
    // docs/performance-log.md).
    static constexpr std::int64_t kTileColumns = 128;
    static constexpr std::int64_t kTileBandsAhead = 4;

    template <std::size_t S>
    static void tile_fixed(const std::byte* src, std::int64_t row_stride, std::int64_t col_stride, std::byte* dst,
                           std::int64_t rows, std::int64_t cols, std::size_t itemsize) {
        const auto size = S == 0 ? static_cast<std::int64_t>(itemsize) : static_cast<std::int64_t>(S);
        const std::int64_t reach = magnitude(row_stride);
        // Rows per band: a line's worth of each column; the buffer holds a band of the block.
        const std::int64_t band = reach == 0 ? 16 : (64 / reach < 1 ? 1 : 64 / reach);
        const std::int64_t span = (band - 1) * reach + size;  // a column's bytes in a band
        const std::int64_t pitch = (span + 63) / 64 * 64;
        if (pitch * kTileColumns > 16384) {  // items too large to buffer: element by element
            for (std::int64_t r = 0; r < rows; ++r)
                for (std::int64_t c = 0; c < cols; ++c)
                    std::memcpy(dst + (r * cols + c) * size, src + r * row_stride + c * col_stride, static_cast<std::size_t>(size));
            return;
        }
        alignas(64) std::byte buffer[16384];
        const std::int64_t line = cols * size;
        const std::int64_t ahead = kTileBandsAhead * band * row_stride;  // the line prefetched in each column
        constexpr std::int64_t kCols = kTileColumns;
        for (std::int64_t c0 = 0; c0 < cols; c0 += kCols) {
            const std::int64_t n_cols = smaller(kCols, cols - c0);
            for (std::int64_t r0 = 0; r0 < rows; r0 += band) {
                const std::int64_t n_rows = smaller(band, rows - r0);
                const std::int64_t bytes = (n_rows - 1) * reach + size;
                // Where each column's band starts: its lowest byte; and row r0 within it.
                const std::int64_t low = row_stride < 0 ? (n_rows - 1) * row_stride : 0;
                const std::int64_t first = row_stride < 0 ? bytes - size : 0;
                const std::byte* column = src + r0 * row_stride + c0 * col_stride + low;
                const bool prefetching = r0 + (kTileBandsAhead + 1) * band < rows;
                for (std::int64_t c = 0; c < n_cols; ++c, column += col_stride) {
                    std::byte* to = buffer + c * pitch;
                    if (prefetching) prefetch(column + ahead);
                    if (bytes == 64) {
                        for (std::int64_t at = 0; at < 64; at += W) Isa::store(to + at, Isa::load(column + at));
                    } else {
                        std::memcpy(to, column, static_cast<std::size_t>(bytes));
                    }
                }
                std::byte* out = dst + r0 * line + c0 * size;
                for (std::int64_t r = 0; r < n_rows; ++r, out += line) {
                    const std::byte* from = buffer + first + r * row_stride;
                    if constexpr (S == 0) {
                        for (std::int64_t c = 0; c < n_cols; ++c) std::memcpy(out + c * size, from + c * pitch, itemsize);
                    } else {
                        for (std::int64_t c = 0; c < n_cols; ++c) std::memcpy(out + c * size, from + c * pitch, S);
                    }
                }
            }
        }
    }

    static void tile(const std::byte* src, std::int64_t row_stride, std::int64_t col_stride, std::byte* dst,
                     std::int64_t rows, std::int64_t cols, std::size_t itemsize) {
        switch (itemsize) {
            case 1: return tile_fixed<1>(src, row_stride, col_stride, dst, rows, cols, itemsize);
            case 2: return tile_fixed<2>(src, row_stride, col_stride, dst, rows, cols, itemsize);
            case 4: return tile_fixed<4>(src, row_stride, col_stride, dst, rows, cols, itemsize);
            case 8: return tile_fixed<8>(src, row_stride, col_stride, dst, rows, cols, itemsize);
            case 16: return tile_fixed<16>(src, row_stride, col_stride, dst, rows, cols, itemsize);
            default: return tile_fixed<0>(src, row_stride, col_stride, dst, rows, cols, itemsize);
        }
    }

    // memcpy with non-temporal stores: the unaligned head and tail with plain stores.
    static void stream_copy(std::byte* dst, const std::byte* src, std::size_t bytes) {
        const auto misalign = static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(dst) & (W - 1));
        const std::size_t head = misalign == 0 ? 0 : static_cast<std::size_t>(W) - misalign;
        if (bytes < head + W) {
            if (bytes > 0) std::memcpy(dst, src, bytes);
            return;
        }
        std::memcpy(dst, src, head);
        dst += head;
        src += head;
        bytes -= head;
        for (; bytes >= static_cast<std::size_t>(W); bytes -= W, dst += W, src += W) Isa::stream(dst, Isa::load(src));
        std::memcpy(dst, src, bytes);
    }

    static void fence() { Isa::fence(); }
};

}  // namespace
}  // namespace tslice::kernels
