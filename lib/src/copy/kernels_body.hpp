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
// The kernels are in two parts: those that copy a row (kernels_rows.hpp, with the merged kernel
// of the sets that have write masks in kernels_merged.hpp) and those that copy a plane in tiles
// or a contiguous run with streaming stores (kernels_tiles.hpp).
#pragma once

#include "copy/kernels.hpp"
#include "copy/kernels_isa.hpp"
#include "copy/kernels_rows.hpp"
#include "copy/kernels_tiles.hpp"

namespace tslice::kernels {
namespace {

template <class Isa>
struct Body {
    static constexpr KernelSet make(const char* name) {
        return {name,
                Rows<Isa>::prepare_row,
                Tiles<Isa>::tile,
                Tiles<Isa>::stream_copy,
                Tiles<Isa>::fence,
                true,
                {Isa::template stepped_most_bytes<1>(), Isa::template stepped_most_bytes<2>(),
                 Isa::template stepped_most_bytes<4>(), Isa::template stepped_most_bytes<8>()},
                {has_merged<Isa, 1>(), has_merged<Isa, 2>(), has_merged<Isa, 4>(), has_merged<Isa, 8>()}};
    }
};

}  // namespace
}  // namespace tslice::kernels
