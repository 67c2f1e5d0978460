// Printing values as numpy's print() shows an array: the same layout, padding, float
// formatting, line wrapping at 75 columns and summarisation with "..." above 1000 elements.
#pragma once

#include <cstddef>
#include <string>

#include "tslice/npy.hpp"
#include "tslice/view.hpp"

namespace tslice {

// The text numpy's str(array) gives (without a trailing newline). Reads only the elements it
// shows, through the view's strides, so a summarised huge array costs little. Byte order is
// honoured. Throws Error(Usage) for dtypes it cannot show (object arrays, odd float sizes),
// naming -o.
std::string format_array(const std::byte* data, const View& view, const DType& dtype);

}  // namespace tslice
