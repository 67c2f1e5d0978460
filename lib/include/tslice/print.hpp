// Printing values as numpy's print() shows an array: the same layout, padding, float
// formatting, line wrapping at 75 columns and summarisation with "..." above 1000 elements.
#pragma once

#include <cstddef>
#include <string>

#include "tslice/container.hpp"
#include "tslice/npy.hpp"
#include "tslice/view.hpp"

namespace tslice {

// The text numpy's str(array) gives (without a trailing newline). Reads only the elements it
// shows, through the view's strides, so a summarised huge array costs little. Byte order is
// honoured. Throws Error(Usage) for dtypes it cannot show (object arrays, odd float sizes),
// naming -o.
// numpy's set_printoptions that matter on a terminal, with numpy's defaults.
struct PrintOptions {
    int precision = 8;               // the most digits after a float's point
    std::int64_t threshold = 1000;   // more elements than this are summarised with "..."
    std::int64_t linewidth = 75;     // the characters a line may hold
    std::int64_t edgeitems = 3;      // the elements kept at each end of a summarised axis
};

std::string format_array(const std::byte* data, const View& view, const DType& dtype,
                         const PrintOptions& options = {});

// numpy's str() of an array of a type numpy lacks (BF16, F8_E4M3, F8_E5M2): the float32
// array of the same values. `data` and `view` as for format_array.
std::string format_narrow_float_array(const std::byte* data, const View& view, const ElementType& type,
                                      const PrintOptions& options = {});

}  // namespace tslice
