// Little-endian integers, as every format tslice reads or writes stores them (zip, .npy,
// safetensors, pickle, GGUF): the one place that knows the byte order, so that a reader or a
// writer says only how wide a field is.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
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

// Stores the unsigned integer `value` little-endian at `p`, at any alignment: load_le's inverse.
template <typename T>
void store_le(std::byte* p, T value) {
    static_assert(std::is_unsigned_v<T>, "store_le writes unsigned integers");
    if constexpr (std::endian::native == std::endian::big && sizeof(T) > 1) {
        if constexpr (sizeof(T) == 2) value = static_cast<T>(__builtin_bswap16(value));
        else if constexpr (sizeof(T) == 4) value = static_cast<T>(__builtin_bswap32(value));
        else value = static_cast<T>(__builtin_bswap64(value));
    }
    std::memcpy(p, &value, sizeof value);
}

// Stores the low `count` (0 to 8) bytes of `value` little-endian at `p`; higher bytes are
// dropped, as a field of that width holds only these.
inline void store_le(std::byte* p, std::uint64_t value, std::size_t count) {
    for (std::size_t k = 0; k < count; ++k) p[k] = static_cast<std::byte>((value >> (8 * k)) & 0xFF);
}

// Appends the low `count` bytes of `value` little-endian to `out`: a header built as text.
inline void append_le(std::string& out, std::uint64_t value, std::size_t count) {
    const std::size_t at = out.size();
    out.resize(at + count);
    store_le(reinterpret_cast<std::byte*>(out.data() + at), value, count);
}

}  // namespace tslice
