// Conversion kernels that need an instruction set beyond the build's baseline, chosen at run
// time, and the byte swaps around every kernel.
#pragma once

#include <cstddef>

namespace tslice::kernels {

using ConvertKernel = void (*)(const std::byte* src, std::byte* dst, std::size_t count, const void* context);

// float32 <-> float16 with F16C (round to nearest even, as numpy); nullptr where the CPU has
// no F16C, or TSLICE_KERNEL=scalar asks for plain loops.
ConvertKernel f16c_f4_to_f2();
ConvertKernel f16c_f2_to_f4();

// The AVX2 kernels (convert_avx2.cpp); nullptr where the CPU has no AVX2, or TSLICE_KERNEL=scalar.
// E4M3ToF2 and E5M2ToF2 take the table of the 256 codes' float16 bits as their context.
enum class AvxPair { F4ToBF16, F4ToE4M3, F4ToE5M2, F8ToF4, E4M3ToF2, E5M2ToF2 };
ConvertKernel avx2_kernel(AvxPair pair);

// Reverses the bytes of each of `count` units of `unit` bytes.
void swap_units(std::byte* bytes, std::size_t count, std::size_t unit);

}  // namespace tslice::kernels
