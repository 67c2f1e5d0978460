// The AVX-512 kernel set (F, CD, BW, DQ, VL: Skylake-SP, Ice Lake, Zen 4 and later; no VBMI,
// which Skylake lacks): the one kernel body (kernels_body.hpp) over 64-byte registers. This
// file alone is compiled with the AVX-512 flags (CMakeLists.txt); the dispatcher
// (kernels.cpp) calls avx512_set() only on a CPU that has them all.
#include "copy/kernels.hpp"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512CD__) && defined(__AVX512DQ__) && \
    defined(__AVX512VL__)

#include "copy/kernels_avx512_isa.hpp"

namespace tslice::kernels {
namespace {

constexpr KernelSet kSet = Body<Avx512<false>>::make("avx512");
}  // namespace

const KernelSet* avx512_set() { return &kSet; }

}  // namespace tslice::kernels

#else

const tslice::kernels::KernelSet* tslice::kernels::avx512_set() { return nullptr; }

#endif
