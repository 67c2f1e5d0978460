// What a kernel set asks of its instruction set, and the helpers its adapters share. An
// adapter (an `Isa`: kernels_sse42.cpp, kernels_avx2.cpp, kernels_avx512_isa.hpp) wraps an instruction set for the kernels of
// kernels_rows.hpp and kernels_tiles.hpp; kernels_body.hpp makes a kernel set of them.
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
#pragma once

#include <xsimd/xsimd.hpp>

#include <cstdint>

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

constexpr std::int64_t smaller(std::int64_t a, std::int64_t b) { return a < b ? a : b; }
constexpr std::int64_t magnitude(std::int64_t a) { return a < 0 ? -a : a; }

}  // namespace
}  // namespace tslice::kernels
