// The scalar kernel set: one element at a time (memcpy for a contiguous row). The reference
// that every SIMD set is tested against (tests/test_kernels.cpp), and what TSLICE_KERNEL=scalar
// forces. It has no 2-D kernel and never streams, so that copy.cpp's row-by-row loop is the
// reference too.
#include <cstring>

#include "copy/kernels.hpp"

namespace tslice::kernels {
namespace {

void contiguous(const RowKernel& kernel, const std::byte* src, std::byte* dst, std::int64_t count, std::int64_t) {
    std::memcpy(dst, src, static_cast<std::size_t>(count) * kernel.itemsize);
}

// A fixed Size lets the compiler turn memcpy into a single load and store.
template <std::size_t Size>
void strided_fixed(const RowKernel& kernel, const std::byte* src, std::byte* dst, std::int64_t count, std::int64_t) {
    const std::int64_t stride = kernel.stride;
    for (std::int64_t i = 0; i < count; ++i, src += stride, dst += Size) std::memcpy(dst, src, Size);
}

void strided_any(const RowKernel& kernel, const std::byte* src, std::byte* dst, std::int64_t count, std::int64_t) {
    const std::int64_t stride = kernel.stride;
    const std::size_t size = kernel.itemsize;
    for (std::int64_t i = 0; i < count; ++i, src += stride, dst += size) std::memcpy(dst, src, size);
}

void prepare_row(RowKernel& kernel, std::int64_t stride, std::size_t itemsize, std::int64_t, bool) {
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
    kernel.name = "strided";
    kernel.per_element = true;
    switch (itemsize) {
        case 1: kernel.fn = strided_fixed<1>; return;
        case 2: kernel.fn = strided_fixed<2>; return;
        case 4: kernel.fn = strided_fixed<4>; return;
        case 8: kernel.fn = strided_fixed<8>; return;
        case 16: kernel.fn = strided_fixed<16>; return;
        default: kernel.fn = strided_any; return;
    }
}

constexpr KernelSet kScalar{"scalar", prepare_row, nullptr, nullptr, nullptr, false, {0, 0, 0, 0}, {false, false, false, false}};

}  // namespace

const KernelSet& scalar_set() { return kScalar; }

}  // namespace tslice::kernels
