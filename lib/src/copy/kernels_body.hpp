// The one SIMD kernel body. Every SIMD kernel set is this code over an instruction set's
// adapter (an `Isa`), compiled once per set in its own translation unit (kernels_sse42.cpp,
// kernels_avx2.cpp, kernels_avx512.cpp, kernels_avx512vbmi.cpp) with that set's compiler
// flags. Everything here has internal linkage, so the linker can never hand a function
// compiled for AVX-512 to code that runs on a CPU without it. Include it from those files
// only.
//
// xsimd provides the register types, loads and stores, and the compile-time swizzles it has
// (xsimd 8.1 lacks byte shuffles on AVX2, byte shuffles without VBMI on AVX-512, runtime
// permutes and streaming stores: those are intrinsics in the adapters). The choice of a set
// at run time is kernels.cpp's, not xsimd::dispatch's, which cannot be overridden or asked
// for every set in a test.
//
// An Isa has a register type V of kWidth bytes (an xsimd batch of bytes) and:
//   V    load(const std::byte*)            unaligned load
//   void store(std::byte*, V)              unaligned store
//   void stream(std::byte*, V)             non-temporal store to a kWidth-aligned address
//   void fence()                           orders the streamed stores before later ones
//   V    reverse<S>(V)                     the register's S-byte elements in reverse order
//   Unit unit<S>()                         how the stepped kernel's masks move S-byte elements:
//        kLanes  - a byte shuffle inside each 16-byte lane; the lanes are stored one by one
//        kBytes  - one permute of the register's bytes
//        kWords  - one permute of the register's 2-byte pieces
//        kDwords - one permute of the register's 4-byte pieces
//   V    permute<S>(V, const uint8_t* mask) that shuffle, with a kWidth-byte mask (aligned)
//   void store_lane<L>(std::byte*, V)      stores 16-byte lane L (kLanes only)
//   int64_t stepped_most_bytes<S>()        the longest stride the stepped kernel takes
//
// The kernels, per row (count elements of S bytes, `stride` bytes apart, dense output):
// - contiguous (stride == S): memcpy.
// - reversed (stride == -S; S = 1, 2, 4, 8, 16): load a register from the row's far end,
//   reverse its elements, store; a row that is not a whole number of registers ends with
//   one overlapping register instead of a scalar tail.
// - stepped (stride = k * S, 2 <= |k|, |stride| at most the set's stepped_most_bytes<S>():
//   where it measured faster than the plain loop): read the row's
//   bytes whole, a register at a time, and shuffle the wanted elements of each register to
//   its front with a mask from a table (prepared once per copy); the masks repeat every
//   `period` registers. Each register's result is stored whole and the output pointer
//   advances by the bytes that were wanted, so the next store overwrites the rest. A
//   negative step uses masks that also reverse. Near the row's end the results go through
//   a buffer, unless the caller leaves a register's worth of slack after the row (every
//   row of a copy but its last), and the last register is the one ending nearest the row's
//   end that has a table entry, leaving at most one element to copy alone.
// - strided (anything else: large steps, other item sizes, the steps above that the
//   stepped kernel leaves): a plain loop; on input already resident, the plain loop
//   unrolled eight times (unrolled).
// - stream_copy: memcpy with non-temporal stores, for copy.cpp's streamed output.
// - tile (2-D): a plane whose rows are close together in the input and whose columns are
//   far apart (a transpose) is copied in blocks of columns, a cache line of each column at a
//   time, so that each input line is read once and used whole.
#pragma once

#include <xsimd/xsimd.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#include "copy/kernels.hpp"

namespace tslice::kernels {
namespace {

enum class Unit { kLanes, kBytes, kWords, kDwords };

// xsimd generators for batch_constant: reversed order, and reversed order of pairs (for
// 16-byte elements as pairs of 8-byte ones).
struct ReversedOrder {
    static constexpr unsigned get(unsigned i, unsigned n) { return n - 1 - i; }
};
struct ReversedPairs {
    static constexpr unsigned get(unsigned i, unsigned n) { return (n / 2 - 1 - i / 2) * 2 + i % 2; }
};

// Reorders the bytes of `v` as elements of type T with xsimd's compile-time swizzle.
template <class T, class Generator, class Arch>
xsimd::batch<std::uint8_t, Arch> swizzled(const xsimd::batch<std::uint8_t, Arch>& v) {
    using Batch = xsimd::batch<T, Arch>;
    constexpr auto mask = xsimd::make_batch_constant<Batch, Generator>();
    return xsimd::bitwise_cast<xsimd::batch<std::uint8_t, Arch>>(xsimd::swizzle(xsimd::bitwise_cast<Batch>(v), mask));
}

constexpr std::int64_t gcd(std::int64_t a, std::int64_t b) {
    while (b != 0) {
        const std::int64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

constexpr std::int64_t smaller(std::int64_t a, std::int64_t b) { return a < b ? a : b; }

// One cache line into L1 (asm: GCC 12 deletes loops of nothing but __builtin_prefetch).
inline void prefetch(const std::byte* address) { asm volatile("prefetcht0 %0" : : "m"(*address)); }
constexpr std::int64_t magnitude(std::int64_t a) { return a < 0 ? -a : a; }

template <class Isa>
struct Body {
    using V = typename Isa::V;
    static constexpr std::int64_t W = Isa::kWidth;
    // The largest step (in bytes) the stepped kernel takes: beyond it a register holds at
    // most one wanted element and the plain loop does as well.
    static constexpr std::int64_t kMaxStepBytes = smaller(64, 2 * W);

    static void contiguous(const RowKernel& kernel, const std::byte* src, std::byte* dst, std::int64_t count,
                           std::int64_t) {
        std::memcpy(dst, src, static_cast<std::size_t>(count) * kernel.itemsize);
    }

    template <std::size_t S>
    static void strided_fixed(const RowKernel& kernel, const std::byte* src, std::byte* dst, std::int64_t count,
                              std::int64_t = 0) {
        const std::int64_t stride = kernel.stride;
        for (std::int64_t i = 0; i < count; ++i, src += stride, dst += S) std::memcpy(dst, src, S);
    }

    // The plain loop unrolled eight times, the elements past a multiple of eight first
    // (numpy's loop for such rows is so unrolled). Each of its eight loads then walks the
    // input at one fixed distance (eight elements on, or, in rows of at most eight elements,
    // one row on), where the plain loop's one load jumps back at every row's end; that is most
    // likely what lets the hardware's stride prefetchers follow it. Measured on Zen 4 (1 GiB inputs, rows of 1024
    // elements, one thread, medians of 5 processes of 7 copies), on memory the process holds:
    // float64 every 32nd 13.5 ms plain against 9.0 unrolled (numpy 8.3 to 8.8), every 16th
    // 25.4 against 16.7, every 100th 5.3 against 4.5; float32 every 32nd 24.7 against 16.4,
    // every 100th 10.3 against 8.8; int16 every 100th 19.2 against 17.0; uint8 and float32
    // every 16th the same. On a file mapping whose pages the copy faults in itself it was
    // slower: the tool's float32 `[:, :, ::100]` from a file 134 against 166 ms (user time 47
    // against 80 ms), and a loop over a new mapping of a float64 file, every 100th, 140
    // against 152 ms. Why was not measured (no hardware counters on that machine); so it
    // runs only on resident input.
    template <std::size_t S>
    static void unrolled(const RowKernel& kernel, const std::byte* src, std::byte* dst, std::int64_t count,
                         std::int64_t) {
        const std::int64_t stride = kernel.stride;
        std::int64_t i = 0;
        for (; i < count % 8; ++i, src += stride, dst += S) std::memcpy(dst, src, S);
        for (; i < count; i += 8, src += 8 * stride, dst += 8 * S) {
            std::memcpy(dst, src, S);
            std::memcpy(dst + S, src + stride, S);
            std::memcpy(dst + 2 * S, src + 2 * stride, S);
            std::memcpy(dst + 3 * S, src + 3 * stride, S);
            std::memcpy(dst + 4 * S, src + 4 * stride, S);
            std::memcpy(dst + 5 * S, src + 5 * stride, S);
            std::memcpy(dst + 6 * S, src + 6 * stride, S);
            std::memcpy(dst + 7 * S, src + 7 * stride, S);
        }
    }

    static void strided_any(const RowKernel& kernel, const std::byte* src, std::byte* dst, std::int64_t count,
                           std::int64_t) {
        const std::int64_t stride = kernel.stride;
        const std::size_t size = kernel.itemsize;
        for (std::int64_t i = 0; i < count; ++i, src += stride, dst += size) std::memcpy(dst, src, size);
    }

    // stride == -S: the row's bytes are [src + S - count * S, src + S), output reversed.
    //
    // Streamed: each register with a non-temporal store, `dst` 64-byte aligned and the row's
    // bytes a multiple of 64 (Sink::put_row). Streaming straight from the kernel, rather than
    // from the stage the streamed output otherwise goes through, saves a store and a load of
    // every register. 1 GiB float32 on Zen 4 (AVX-512), one thread: [::-1, ::-1, ::-1] 44.5 to
    // 47.0 ms through the stage, 38.4 to 39.4 so (4 processes each); [:, :, ::-1] 38.4 to 40.9
    // and 37.0 to 40.1; without prefetching, 120 and 65 ms.
    template <std::size_t S, bool Streamed = false>
    static void reversed(const RowKernel& kernel, const std::byte* src, std::byte* dst, std::int64_t count,
                         std::int64_t) {
        const std::int64_t bytes = count * static_cast<std::int64_t>(S);
        if (bytes < W) {
            strided_fixed<S>(kernel, src, dst, count);
            return;
        }
        const auto put = [](std::byte* at, const V& v) {
            if constexpr (Streamed)
                Isa::stream(at, v);
            else
                Isa::store(at, v);
        };
        const std::byte* top = src + S;  // one past the row's highest byte
        std::int64_t done = 0;
        for (; done + 2 * W <= bytes; done += 2 * W) {
            const V a = Isa::load(top - done - W);
            const V b = Isa::load(top - done - 2 * W);
            put(dst + done, Isa::template reverse<S>(a));
            put(dst + done + W, Isa::template reverse<S>(b));
        }
        if (done + W <= bytes) {
            put(dst + done, Isa::template reverse<S>(Isa::load(top - done - W)));
            done += W;
        }
        // The rest: one register ending at the row's lowest byte, overlapping what is done
        // (never when streamed: whole registers only).
        if (done < bytes) Isa::store(dst + bytes - W, Isa::template reverse<S>(Isa::load(top - bytes)));
    }

    // The stepped kernel, stride = +-k * S (Down: negative). Distances are counted from the
    // row's start in the direction it runs: element e covers distances [e * step, e * step + S),
    // and the register at distance d covers [d, d + W), that is bytes [src + d, src + d + W)
    // up or [src + S - d - W, src + S - d) down. Its masks are those of the entry for d mod step.

    // Shuffles the register at distance `at` with table entry `entry` and stores its wanted
    // elements at `out`, writing kWidth bytes there; returns how many of them are wanted.
    template <std::size_t S, bool Down>
    static std::int64_t shuffle_one(const RowKernel& kernel, const std::byte* src, std::int64_t at, int entry,
                                    std::byte* out) {
        constexpr Unit unit = Isa::template unit<S>();
        constexpr int lanes = unit == Unit::kLanes ? static_cast<int>(W / 16) : 1;
        const V v = Isa::load(Down ? src + static_cast<std::int64_t>(S) - at - W : src + at);
        const V shuffled = Isa::template permute<S>(v, kernel.masks + entry * W);
        const std::uint8_t* counts = kernel.counts + entry * 4;
        if constexpr (unit == Unit::kLanes) {
            std::int64_t bytes = 0;
            [&]<int... L>(std::integer_sequence<int, L...>) {
                ((Isa::template store_lane<Down ? lanes - 1 - L : L>(out + bytes, shuffled),
                  bytes += counts[Down ? lanes - 1 - L : L]),
                 ...);
            }(std::make_integer_sequence<int, lanes>{});
            return bytes;
        } else {
            Isa::store(out, shuffled);
            return counts[0];
        }
    }

    template <std::size_t S, bool Down>
    static void stepped(const RowKernel& kernel, const std::byte* src, std::byte* dst, std::int64_t count,
                        std::int64_t slack) {
        constexpr auto size = static_cast<std::int64_t>(S);
        const std::int64_t step = magnitude(kernel.stride);
        const std::int64_t span = (count - 1) * step + size;  // the row's bytes
        const std::int64_t out_bytes = count * size;
        if (span < W) {
            strided_fixed<S>(kernel, src, dst, count);
            return;
        }
        // The bytes from dst the kernel may write. Staging the registers that do not fit cost
        // rows of 147 uint8 (every 7th of 1024) twice the time of a plain loop: each copy out of
        // the buffer reads what several narrower stores just wrote, which the store buffer
        // cannot forward.
        const std::int64_t room = out_bytes + slack;
        std::int64_t at = 0, out = 0;
        int entry = 0;
        // While a whole register's store fits.
        for (; at + W <= span && out + W <= room; at += W) {
            out += shuffle_one<S, Down>(kernel, src, at, entry, dst + out);
            if (++entry == kernel.period) entry = 0;
        }
        // Then through a buffer, to the last whole register of the row.
        alignas(64) std::byte buffer[2 * W];
        for (; at + W <= span; at += W) {
            const std::int64_t bytes = shuffle_one<S, Down>(kernel, src, at, entry, buffer);
            std::memcpy(dst + out, buffer, static_cast<std::size_t>(bytes));
            out += bytes;
            if (++entry == kernel.period) entry = 0;
        }
        // Registers cover whole elements, so `out` ends on an element. The rest: the register
        // ending as near the row's end as a distance with a table entry allows (its elements
        // not yet written are kept), and the last element, if that register ends before it.
        std::int64_t done = out / size;
        if (done == count) return;
        const std::int64_t grain = step / kernel.period;  // gcd(step, W)
        const std::int64_t last = (span - W) / grain * grain;
        const std::int64_t first = (last + step - 1) / step;         // its first element
        const std::int64_t end = smaller((last + W - size) / step + 1, count);  // and one past its last
        if (end > done) {
            const int last_entry = kernel.entry_at[(last % step) / grain];
            if (first * size + W <= room) {
                // Elements [first, done) are written again, with the same bytes.
                shuffle_one<S, Down>(kernel, src, last, last_entry, dst + first * size);
            } else {
                shuffle_one<S, Down>(kernel, src, last, last_entry, buffer);
                std::memcpy(dst + out, buffer + (done - first) * size, static_cast<std::size_t>((end - done) * size));
            }
            done = end;
        }
        for (std::int64_t e = done; e < count; ++e) std::memcpy(dst + e * size, src + e * kernel.stride, S);
    }

    // The stepped kernel's table: for each of `period` registers, the shuffle mask that moves
    // its wanted elements (in output order) to the front of each unit, and the bytes each
    // unit (16-byte lane, or the whole register) then holds.
    template <std::size_t S, bool Down>
    static void build_masks(RowKernel& kernel, std::int64_t step) {
        constexpr Unit unit = Isa::template unit<S>();
        constexpr std::int64_t unit_bytes = unit == Unit::kLanes ? 16 : W;
        constexpr auto size = static_cast<std::int64_t>(S);
        const std::int64_t period = step / gcd(step, W);
        kernel.period = static_cast<int>(period);
        for (std::int64_t entry = 0; entry < period; ++entry)
            kernel.entry_at[(entry * W % step) / (step / period)] = static_cast<std::uint8_t>(entry);
        for (std::int64_t entry = 0; entry < period; ++entry) {
            std::uint8_t* mask = kernel.masks + entry * W;
            std::uint8_t* counts = kernel.counts + entry * 4;
            std::memset(mask, unit == Unit::kLanes ? 0x80 : 0, static_cast<std::size_t>(W));
            std::memset(counts, 0, 4);
            const std::int64_t low = entry * W;  // the register's first byte, from the row's start
            for (std::int64_t e = (low + step - 1) / step; e * step < low + W; ++e) {
                const std::int64_t at = e * step - low;
                const std::int64_t pos = Down ? W - size - at : at;  // the element's bytes in the register
                const std::int64_t u = pos / unit_bytes;
                const std::int64_t slot = u * unit_bytes + counts[u];  // where it goes
                for (std::int64_t b = 0; b < size; ++b) {
                    const std::int64_t from = pos + b, to = slot + b;
                    if constexpr (unit == Unit::kLanes) {
                        mask[to] = static_cast<std::uint8_t>(from - u * unit_bytes);
                    } else if constexpr (unit == Unit::kBytes) {
                        mask[to] = static_cast<std::uint8_t>(from);
                    } else if constexpr (unit == Unit::kWords) {
                        if (to % 2 == 0) {
                            const auto index = static_cast<std::uint16_t>(from / 2);
                            std::memcpy(mask + to, &index, 2);
                        }
                    } else {
                        if (to % 4 == 0) {
                            const auto index = static_cast<std::uint32_t>(from / 4);
                            std::memcpy(mask + to, &index, 4);
                        }
                    }
                }
                counts[u] = static_cast<std::uint8_t>(counts[u] + size);
            }
        }
    }

    template <std::size_t S>
    static void prepare_sized(RowKernel& kernel, std::int64_t length, bool resident) {
        constexpr auto size = static_cast<std::int64_t>(S);
        const std::int64_t stride = kernel.stride;
        if (stride == -size) {
            kernel.fn = reversed<S>;
            kernel.streamed = reversed<S, true>;
            kernel.name = "reversed";
            return;
        }
        if constexpr (S <= 8) {
            const std::int64_t step = magnitude(stride);
            // The stepped kernel reads every byte of the row and costs about the same per
            // register whatever it holds; the plain loop costs per element. So the stepped
            // kernel wins up to some step, which each set's adapter says (stepped_most_bytes),
            // from timings on 1 GiB inputs of rows of 1024 elements, steps of 2 to 12
            // elements (most of them) both ways, on an AMD EPYC (Zen 4) with each set forced
            // (TSLICE_KERNEL): AVX-512 uint8 every 8th 41 ms shuffled against 44 plain, every
            // 12th 48 against 41;
            // int16 every 5th 40 against 43, every 6th 40 against 39; float32 every 3rd 40
            // against 43, every 4th backwards 38 against 35; float64 every 2nd backwards 44
            // against 39. The bench's table of copy choices times the other kernel on any CPU.
            const SteppedChoice choice = stepped_choice();
            const bool plain_is_faster = choice == SteppedChoice::Chosen ? step > Isa::template stepped_most_bytes<S>()
                                                                         : choice == SteppedChoice::Never;
            if (step % size == 0 && step >= 2 * size && step <= kMaxStepBytes && length * step >= 2 * W &&
                !plain_is_faster) {
                if (stride < 0) {
                    build_masks<S, true>(kernel, step);
                    kernel.fn = stepped<S, true>;
                } else {
                    build_masks<S, false>(kernel, step);
                    kernel.fn = stepped<S, false>;
                }
                kernel.name = "stepped";
                return;
            }
        }
        if (resident) {
            kernel.fn = unrolled<S>;
            kernel.name = "unrolled";
        } else {
            kernel.fn = strided_fixed<S>;
            kernel.name = "strided";
        }
    }

    static void prepare_row(RowKernel& kernel, std::int64_t stride, std::size_t itemsize, std::int64_t length,
                            bool resident) {
        kernel.stride = stride;
        kernel.itemsize = itemsize;
        kernel.period = 0;
        kernel.streamed = nullptr;
        if (stride == static_cast<std::int64_t>(itemsize)) {
            kernel.fn = contiguous;
            kernel.name = "contiguous";
            return;
        }
        switch (itemsize) {
            case 1: return prepare_sized<1>(kernel, length, resident);
            case 2: return prepare_sized<2>(kernel, length, resident);
            case 4: return prepare_sized<4>(kernel, length, resident);
            case 8: return prepare_sized<8>(kernel, length, resident);
            case 16: return prepare_sized<16>(kernel, length, resident);
            default:
                kernel.fn = strided_any;
                kernel.name = "strided";
                return;
        }
    }

    // Tiles. The plane's rows lie close together in the input (|row_stride| <= 64), its
    // columns far apart. A block of kTileColumns columns is walked down, a band of rows
    // (one input line per column) at a time: each column's line is loaded whole, once, into a
    // buffer (with power-of-two column strides the lines of a block all fall in one L1 set,
    // so they cannot stay in the cache while the band's rows are written), and the buffer is
    // written out row by row, a run of the block's elements per row. The line a few bands
    // down each column is prefetched: a hundred streams are more than the hardware follows.
    // Measured on a 16384 x 16384 float32 transpose: 4x faster than row by row, still about
    // 6x slower than memcpy (every line of a band is on its own page).
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

    static constexpr KernelSet make(const char* name) {
        return {name,
                prepare_row,
                tile,
                stream_copy,
                fence,
                true,
                {Isa::template stepped_most_bytes<1>(), Isa::template stepped_most_bytes<2>(),
                 Isa::template stepped_most_bytes<4>(), Isa::template stepped_most_bytes<8>()}};
    }
};

}  // namespace
}  // namespace tslice::kernels
