// The AVX-512 kernel set with VBMI (Ice Lake, Zen 4 and later): the AVX-512 set
// (kernels_avx512.cpp) whose byte shuffles and reversals move bytes across the whole register
// (vpermb) instead of lane by lane. This file alone is compiled with these flags
// (CMakeLists.txt); the dispatcher (kernels.cpp) calls avx512vbmi_set() only on a CPU that
// has them all.
#include "copy/kernels.hpp"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512CD__) && defined(__AVX512DQ__) && \
    defined(__AVX512VL__) && defined(__AVX512VBMI__)

#include "copy/kernels_avx512_isa.hpp"

namespace tslice::kernels {
namespace {

constexpr KernelSet kSet = Body<Avx512<true>>::make("avx512vbmi");
}  // namespace

const KernelSet* avx512vbmi_set() { return &kSet; }

}  // namespace tslice::kernels

#else

const tslice::kernels::KernelSet* tslice::kernels::avx512vbmi_set() { return nullptr; }

#endif
