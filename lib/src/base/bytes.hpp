// Little-endian integers, as every format tslice reads stores them (zip, .npy, safetensors,
// pickle, GGUF): the one place that knows the byte order, so that a reader says only how
// wide a field is.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace tslice {

// The unsigned integer of type T stored little-endian at `p`, at any alignment.
template <typename T>
T load_le(const std::byte* p) {
    static_assert(std::is_unsigned_v<T>, "load_le reads unsigned integers");
    T value;
    std::memcpy(&value, p, sizeof value);
    if constexpr (std::endian::native == std::endian::big && sizeof(T) > 1) {
        if constexpr (sizeof(T) == 2) value = static_cast<T>(__builtin_bswap16(value));
        else if constexpr (sizeof(T) == 4) value = static_cast<T>(__builtin_bswap32(value));
        else value = static_cast<T>(__builtin_bswap64(value));
    }
    return value;
}

// The unsigned integer of `count` (0 to 8) little-endian bytes at `p`: for fields whose width
// the data gives (pickle's LONG1, a zip64 extra field).
inline std::uint64_t load_le(const std::byte* p, std::size_t count) {
    std::uint64_t value = 0;
    for (std::size_t k = count; k-- > 0;) value = (value << 8) | std::to_integer<std::uint64_t>(p[k]);
    return value;
}

}  // namespace tslice
