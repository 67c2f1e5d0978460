// numpy dtypes from a .npy header's descr, and the size checks every shape goes through.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "source/py_literal.hpp"
#include "tslice/npy.hpp"

namespace tslice {

// The dtype a parsed descr value names, as numpy's descr_to_dtype reads it; Error(Input)
// saying what is wrong otherwise, or for zero-byte elements.
DType checked_dtype(const PyValue& descr);

// The element count of `shape`, after checking that it is not negative and that neither the
// count nor the byte size (at `itemsize` bytes an element) overflows 64 bits, as numpy
// checks; `what` names the shape in errors ("the .npy header's shape").
std::int64_t checked_element_count(const std::vector<std::int64_t>& shape, std::size_t itemsize,
                                   const std::string& what);

}  // namespace tslice
