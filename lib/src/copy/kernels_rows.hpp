// The row kernels of a SIMD kernel set (kernels_body.hpp), over an instruction set's adapter
// (kernels_isa.hpp). They copy one row: count elements of S bytes, `stride` bytes apart, to
// dense output.
//
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
// - merged (kernels_merged.hpp): the stepped kernel's rows, on the sets whose registers have
//   write masks: each output register gathered from the input registers it needs, and
//   stored once.
// - strided (anything else: large steps, other item sizes, the steps above that the
//   stepped kernel leaves): a plain loop; on input already resident, the plain loop
//   unrolled eight times (unrolled), but for elements more than half a line and at most a
//   line apart.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#include "copy/kernels.hpp"
#include "copy/kernels_isa.hpp"
#include "copy/kernels_merged.hpp"

namespace tslice::kernels {
namespace {

constexpr std::int64_t gcd(std::int64_t a, std::int64_t b) {
    while (b != 0) {
        const std::int64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

template <class Isa>
struct Rows {
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
    // likely what lets the hardware's stride prefetchers, which follow each load instruction
    // on its own, keep up with it. In short rows the elements before the first eight are
    // copied each by a load of its own too (a switch into a run of copies, as the compiler
    // unrolls numpy's loop), not by a loop whose one load would step through them and jump
    // back: that loop made rows of five float32 1020 bytes apart 1.6 times slower, and rows of
    // eleven 400 bytes apart 1.1 times. Longer rows keep the loop: a streamed copy cuts its
    // rows where its stage fills, so that the count changes from call to call, and in a
    // throwaway program that copied float32 [:, :, ::3] (rows of 342) through such a stage the
    // switch's jump, mispredicted, made the copy 11% slower (docs/performance-log.md: "Loads
    // of their own for a row's first elements"). On memory
    // the process holds the unrolled loop was as fast as the plain loop or faster; on a file
    // mapping whose pages the copy faults in itself it was slower, why was not measured (no
    // hardware counters on that machine); so it runs only on resident input
    // (docs/performance-log.md: "Short rows in bands, and the unrolled loop on memory already
    // held").
    template <std::size_t S>
    static void unrolled(const RowKernel& kernel, const std::byte* src, std::byte* dst, std::int64_t count,
                         std::int64_t) {
        constexpr std::int64_t kShortRow = 16;  // elements: rows shorter take the switch
        const std::int64_t stride = kernel.stride;
        const std::int64_t head = count % 8;
        if (count < kShortRow) {
            src += head * stride;
            dst += head * static_cast<std::int64_t>(S);
            switch (head) {  // from the row's first element up to `src`
                case 7: std::memcpy(dst - 7 * S, src - 7 * stride, S); [[fallthrough]];
                case 6: std::memcpy(dst - 6 * S, src - 6 * stride, S); [[fallthrough]];
                case 5: std::memcpy(dst - 5 * S, src - 5 * stride, S); [[fallthrough]];
                case 4: std::memcpy(dst - 4 * S, src - 4 * stride, S); [[fallthrough]];
                case 3: std::memcpy(dst - 3 * S, src - 3 * stride, S); [[fallthrough]];
                case 2: std::memcpy(dst - 2 * S, src - 2 * stride, S); [[fallthrough]];
                case 1: std::memcpy(dst - 1 * S, src - 1 * stride, S); [[fallthrough]];
                default: break;
            }
        } else {
            for (std::int64_t i = 0; i < head; ++i, src += stride, dst += S) std::memcpy(dst, src, S);
        }
        for (std::int64_t i = head; i < count; i += 8, src += 8 * stride, dst += 8 * S) {
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
    // every register (docs/performance-log.md: "A reversed row streams its own stores").
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
            // from timings of both kernels with each set forced (TSLICE_KERNEL; in
            // docs/performance-log.md). The bench's table of copy choices times the other
            // kernel on any CPU.
            const SteppedChoice choice = stepped_choice();
            bool plain_is_faster = choice == SteppedChoice::Chosen ? step > Isa::template stepped_most_bytes<S>()
                                                                   : choice == SteppedChoice::Never;
            // Where the set has the merged kernel (kernels_merged.hpp), it takes the stepped
            // kernel's rows: it stores each output byte once where the stepped kernel stores a
            // register for every input register. In memory the process holds, where the plain
            // loop is unrolled, it takes them only up to the adapter's merged_held_most_bytes.
            if constexpr (has_merged<Isa, S>()) {
                if (choice == SteppedChoice::Chosen && resident && step > Isa::template merged_held_most_bytes<S>())
                    plain_is_faster = true;
                if (Merged<Isa>::template takes<S>(step) && (length - 1) * step + size >= W && !plain_is_faster) {
                    const std::int64_t registers = step / size;
                    if (stride < 0) {
                        Merged<Isa>::template build<S, true>(kernel, step);
                        kernel.fn = Merged<Isa>::template for_registers<S, true, false>(registers);
                        kernel.streamed = Merged<Isa>::template for_registers<S, true, true>(registers);
                    } else {
                        Merged<Isa>::template build<S, false>(kernel, step);
                        kernel.fn = Merged<Isa>::template for_registers<S, false, false>(registers);
                        kernel.streamed = Merged<Isa>::template for_registers<S, false, true>(registers);
                    }
                    kernel.name = "merged";
                    return;
                }
            }
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
        // Rows of elements more than half a line and at most a line apart (fewer than two to a
        // line, every line or nearly read): the plain loop's one load walks the lines in turn,
        // as the hardware's stream prefetchers expect, where the unrolled loop's eight loads
        // each jump eight elements. Measured on Zen 4 (1 GiB inputs in memory held, one
        // thread, the bench's paired ratios, forward rows): float32 [:, :, ::16] (64 bytes
        // apart) 1.22-1.30 times slower unrolled, uint8 [:, :, ::64] 1.07-1.15, float64
        // [:, :, ::8] 1.38, uint8 [:, :, ::40] 1.2-1.25 (in bands without prefetches, as
        // copy_plan.cpp copies them), float32 [:, :, ::12] (48 bytes) the same either way;
        // at 32 bytes apart or less the two were as fast (float32 [:, :, ::8] and ::5, uint8
        // [:, :, ::20]) or the unrolled loop faster (float64 [:, :, ::3] 1.08), and further
        // apart the unrolled loop was faster ([:, :, ::100] 1.47, [:, :, ::32] 1.09).
        const UnrolledChoice choice = unrolled_choice();
        const bool lines_in_turn = magnitude(stride) > 32 && magnitude(stride) <= 64;
        const bool unroll =
            choice == UnrolledChoice::Chosen ? resident && !lines_in_turn : choice == UnrolledChoice::Always;
        kernel.per_element = true;
        if (unroll) {
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
        kernel.per_element = false;
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
                kernel.per_element = true;
                return;
        }
    }
};

}  // namespace
}  // namespace tslice::kernels
