// The text of each element as numpy's print shows it: one formatter per numpy Format class
// (numpy/core/arrayprint.py), built from the elements that will be shown (their widths and
// float format depend on all of them), and the str() of a 0-d array's scalar.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "tslice/npy.hpp"

namespace tslice {

using Pointers = std::vector<const std::byte*>;

class Formatter {
public:
    virtual ~Formatter() = default;
    virtual std::string operator()(const std::byte* element) const = 0;
};

using FormatterPtr = std::unique_ptr<Formatter>;

// numpy's _get_format_function for `data`, the shown elements. `zero_d` says the data is a
// 0-d array's (only a structured 0-d array's fields are formatted this way); `precision` is
// set_printoptions' (the most digits after the point of a float).
FormatterPtr make_formatter(const DType& dtype, const Pointers& data, bool zero_d, int precision);

// str() of a 0-d array: the str of its scalar (whose floats print all their digits; only a
// structured scalar's fields follow `precision`).
std::string scalar_text(const std::byte* p, const DType& dtype, int precision);

}  // namespace tslice
