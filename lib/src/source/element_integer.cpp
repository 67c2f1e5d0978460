// Reading one integer element (element_integer.hpp).
#include "source/element_integer.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

namespace tslice {

// Elements are assembled little-end first, as on the x86-64 hosts tslice targets.
static_assert(std::endian::native == std::endian::little, "integers are assembled on a little-endian host");

void load_native(const std::byte* src, std::size_t size, bool swap, void* dst) {
    std::memcpy(dst, src, size);
    if (swap) {
        auto* bytes = static_cast<unsigned char*>(dst);
        std::reverse(bytes, bytes + size);
    }
}

// Any numpy integer (and timedelta/datetime) fits in Int128 with its sign intact, so one
// comparison serves signed and unsigned kinds alike.
Int128 load_integer(const std::byte* p, const DType& dtype) {
    std::uint64_t bits = 0;
    load_native(p, dtype.itemsize, swapped(dtype.byte_order), &bits);
    if (dtype.kind == 'u') return bits;
    const auto unused = static_cast<unsigned>(64 - 8 * dtype.itemsize);  // sign-extend
    return static_cast<std::int64_t>(bits << unused) >> unused;
}

}  // namespace tslice
