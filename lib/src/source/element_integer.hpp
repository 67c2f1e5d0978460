// One integer element of a numpy dtype, of any size and byte order, read as a 128-bit integer:
// the printer's integers, and the integer index arrays read from files.
#pragma once

#include <cstddef>

#include "tslice/npy.hpp"

namespace tslice {

// Wide enough for every numpy integer, signed or unsigned, and for exact binary16 arithmetic.
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

inline bool swapped(char byte_order) { return byte_order == '>'; }

// The element's `size` bytes in native order.
void load_native(const std::byte* src, std::size_t size, bool swap, void* dst);

// An integer element of any size and byte order ('b', 'i', 'u', 'm', 'M' kinds).
Int128 load_integer(const std::byte* p, const DType& dtype);

}  // namespace tslice
