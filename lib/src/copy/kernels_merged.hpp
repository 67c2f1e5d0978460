// The merged row kernel, for the sets whose registers have write masks (AVX-512): rows of
// elements of S bytes, stride = +-k * S with k >= 2. One output register holds W / S elements,
// which lie in k input registers read in turn through the row; each of those registers is
// permuted so that its wanted elements land at their places in the output register, the
// others' lanes zeroed (a masked permute), and the k results are or-ed together and stored
// once. The places repeat from one output register to the next, so one table, built when the
// kernel is prepared, serves the whole copy: per input register, its permute indexes and the
// output lanes it fills. Elements lie at most a register apart, so every input register
// holds at least one.
//
// Against the stepped kernel (kernels_rows.hpp), which stores each input register's shuffle
// whole and moves the output pointer on by the bytes it wanted, this stores each output byte
// once, in whole registers: a 1 GiB uint8 row of every 7th element stored 64 bytes for every
// 9 or 10 it kept, and ran at the speed of those stores, not of memory. Against the plain
// loop, it loads a register where the loop loads an element, reading the row in order.
//
// The row's last output register, and a row shorter than one, load only the bytes within the
// row (masked loads: never a byte past the row's last element, which may end a mapping) and
// store only the elements wanted (a masked store), so no slack is needed after the row. A
// streamed copy's rows have no such register: each streams whole registers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#include "copy/kernels.hpp"
#include "copy/kernels_isa.hpp"

namespace tslice::kernels {
namespace {

// Whether Isa has the merged kernel for S-byte elements: the AVX-512 adapter says (merges<S>);
// the other sets' registers have no write masks.
template <class Isa, std::size_t S>
constexpr bool has_merged() {
    if constexpr (requires { Isa::template merges<S>(); })
        return Isa::template merges<S>();
    else
        return false;
}

template <class Isa>
struct Merged {
    using V = typename Isa::V;
    static constexpr std::int64_t W = Isa::kWidth;

    // Whether the kernel can take rows of S-byte elements `step` bytes apart: whole elements
    // at most a register apart (an output register then needs at most W / S input registers,
    // within the table's room). Which of those rows it gets is prepare_sized's choice
    // (kernels_rows.hpp).
    template <std::size_t S>
    static constexpr bool takes(std::int64_t step) {
        const auto size = static_cast<std::int64_t>(S);
        static_assert(W / S <= static_cast<std::int64_t>(RowKernel::kMaxPeriod) && W * W <= RowKernel::kMaskBytes);
        return step % size == 0 && step >= 2 * size && step <= W;
    }

    // The table: for each of the `period` input registers of an output register (step / S of
    // them, each holding at least one wanted element, as elements lie at most a register
    // apart), nearest the row's start first, the permute indexes of the output lanes as S-byte
    // numbers of its elements (masks), and the lanes it fills (merge_lanes).
    template <std::size_t S, bool Down>
    static void build(RowKernel& kernel, std::int64_t step) {
        constexpr auto size = static_cast<std::int64_t>(S);
        constexpr std::int64_t per = W / size;
        const std::int64_t registers = step / size;
        std::memset(kernel.masks, 0, static_cast<std::size_t>(registers * W));
        std::memset(kernel.merge_lanes, 0, sizeof kernel.merge_lanes);
        for (std::int64_t p = 0; p < per; ++p) {
            // Element p of an output register lies `distance` bytes from the register's first
            // element in the direction the row runs, within input register `j`.
            const std::int64_t distance = p * step;
            const std::int64_t j = distance / W;
            // Its lowest byte's place in that register: a falling row's registers are read
            // downwards from the first element's last byte.
            const std::int64_t place = Down ? (j + 1) * W - distance - size : distance - j * W;
            const auto number = static_cast<std::uint64_t>(place / size);
            std::memcpy(kernel.masks + j * W + p * size, &number, S);  // little-endian: its low S bytes
            kernel.merge_lanes[j] |= std::uint64_t{1} << p;
        }
        kernel.period = static_cast<int>(registers);
    }

    // The kernel for rows `registers` input registers to an output register: one compiled for
    // that many, where the set's choice takes such rows (stepped_most_bytes), so that the
    // table stays in registers; the loop over the table otherwise.
    template <std::size_t S, bool Down, bool Streamed>
    static RowKernel::Fn for_registers(std::int64_t registers) {
        constexpr std::int64_t most = Isa::template stepped_most_bytes<S>() / static_cast<std::int64_t>(S);
        return [&]<int... K>(std::integer_sequence<int, K...>) {
            constexpr RowKernel::Fn compiled[] = {run<S, Down, Streamed, (K >= 2 ? K : 0)>...};
            return registers < static_cast<std::int64_t>(sizeof...(K)) ? compiled[registers] : compiled[0];
        }(std::make_integer_sequence<int, (most >= 2 ? most + 1 : 1)>{});
    }

    // Registers: the table's length if it is known here (2 or more), 0 if not. Streamed:
    // every register with a non-temporal store, `dst` 64-byte aligned and the row's output a
    // whole number of registers (Sink::put_row), straight from the kernel rather than through
    // the stage a streamed copy otherwise goes through.
    template <std::size_t S, bool Down, bool Streamed, int Registers>
    static void run(const RowKernel& kernel, const std::byte* src, std::byte* dst, std::int64_t count,
                    std::int64_t) {
        constexpr auto size = static_cast<std::int64_t>(S);
        constexpr std::int64_t per = W / size;
        const std::int64_t step = magnitude(kernel.stride);
        const std::int64_t block = per * step;  // the input bytes of one output register
        const std::int64_t span = (count - 1) * step + size;
        const int registers = Registers >= 2 ? Registers : kernel.period;
        const std::byte* top = src + size;  // one past a falling row's highest byte
        // Input register j of the output register whose elements start `base` bytes on.
        const auto address = [&](std::int64_t base, std::int64_t j) {
            return Down ? top - base - (j + 1) * W : src + base + j * W;
        };
        // The table, in registers where its length is known here.
        V indexes[Registers >= 2 ? Registers : 1];
        std::uint64_t lanes[Registers >= 2 ? Registers : 1];
        if constexpr (Registers >= 2) {
            for (int i = 0; i < Registers; ++i) {
                indexes[i] = table(kernel, i);
                lanes[i] = kernel.merge_lanes[i];
            }
        }
        // Input register i's wanted elements, at their places in the output register.
        const auto picked = [&](int i, const V& v) {
            if constexpr (Registers >= 2)
                return Isa::template pick<S>(lanes[i], indexes[i], v);
            else
                return Isa::template pick<S>(kernel.merge_lanes[i], table(kernel, i), v);
        };
        std::int64_t base = 0;
        // Output registers whose input registers all lie within the row.
        for (; base + block <= span; base += block, dst += W) {
            V merged = picked(0, Isa::load(address(base, 0)));
            for (int i = 1; i < registers; ++i) merged = Isa::merge(merged, picked(i, Isa::load(address(base, i))));
            put<Streamed>(dst, merged);
        }
        const std::int64_t done = base / step;
        if (done == count) return;
        // The rest: `left` elements whose bytes lie `reach` bytes on from `base`, loading only
        // those bytes and storing only those elements.
        const std::int64_t left = count - done;
        const std::int64_t reach = (left - 1) * step + size;
        V merged = Isa::zero();
        for (int j = 0; j < registers && j * W < reach; ++j) {
            const std::int64_t beyond = (j + 1) * W - reach;  // bytes of the register past the row
            const std::uint64_t bytes = beyond <= 0 ? ~std::uint64_t{0}
                                        : Down      ? ~std::uint64_t{0} << beyond
                                                    : ~std::uint64_t{0} >> beyond;
            merged = Isa::merge(merged, picked(j, Isa::load_part(address(base, j), bytes)));
        }
        const std::int64_t out = left * size;
        if constexpr (Streamed)
            Isa::stream(dst, merged);  // out == W: whole registers only
        else
            Isa::store_part(dst, out == W ? ~std::uint64_t{0} : (std::uint64_t{1} << out) - 1, merged);
    }

private:
    static V table(const RowKernel& kernel, int i) {
        return Isa::load(reinterpret_cast<const std::byte*>(kernel.masks + i * W));
    }
    template <bool Streamed>
    static void put(std::byte* dst, const V& v) {
        if constexpr (Streamed)
            Isa::stream(dst, v);
        else
            Isa::store(dst, v);
    }
};

}  // namespace
}  // namespace tslice::kernels
