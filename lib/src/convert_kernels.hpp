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

// Reverses the bytes of each of `count` units of `unit` bytes.
void swap_units(std::byte* bytes, std::size_t count, std::size_t unit);

}  // namespace tslice::kernels
