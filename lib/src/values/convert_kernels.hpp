// Conversion kernels that need an instruction set beyond the build's baseline, chosen at run
// time, and the byte swaps around every kernel.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tslice::kernels {

using ConvertKernel = void (*)(const std::byte* src, std::byte* dst, std::size_t count, const void* context);

// float32 <-> float16 with F16C (round to nearest even, as numpy); nullptr where the CPU has
// no F16C, or the kernel set in use is below avx2 (TSLICE_KERNEL, TSLICE_KERNEL_CAP:
// copy/kernels.hpp).
ConvertKernel f16c_f4_to_f2();
ConvertKernel f16c_f2_to_f4();

// The AVX2 kernels (convert_avx2.cpp); nullptr where the kernel set in use is below avx2.
// E4M3ToF2 and E5M2ToF2 take the table of the 256 codes' float16 bits as their context.
enum class AvxPair { F4ToBF16, F4ToE4M3, F4ToE5M2, F8ToF4, E4M3ToF2, E5M2ToF2 };
ConvertKernel avx2_kernel(AvxPair pair);

// An output of at least this many bytes is written by the narrowing kernels with streaming
// (non-temporal) stores, as memcpy writes a large copy: it is not read again soon, so it need
// not be read into the cache before it is written. The write stage's pieces are far smaller
// (they stay in the cache for the write() that follows); a conversion made whole in memory
// (Zarr, printing) is not.
constexpr std::size_t kStreamBytes = std::size_t{8} << 20;

// The elements of `to_size` bytes to convert one by one before `dst` plus that many elements
// is `alignment`-aligned (a streaming store's); `count` where it never is.
inline std::size_t unaligned_head(const std::byte* dst, std::size_t alignment, std::size_t to_size,
                                  std::size_t count) {
    const auto misaligned = reinterpret_cast<std::uintptr_t>(dst) % alignment;
    if (misaligned % to_size != 0) return count;
    const std::size_t head = (alignment - misaligned) % alignment / to_size;
    return head < count ? head : count;
}

// Reverses the bytes of each of `count` units of `unit` bytes.
void swap_units(std::byte* bytes, std::size_t count, std::size_t unit);

}  // namespace tslice::kernels
