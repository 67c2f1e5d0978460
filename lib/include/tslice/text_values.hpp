// A result's values as text that other programs read: JSON nested lists (jq, json.loads) or CSV
// (np.loadtxt(..., delimiter=","), spreadsheets). text_values.cpp says how each dtype is written.
#pragma once

#include <string>

#include "tslice/container.hpp"
#include "tslice/convert.hpp"
#include "tslice/view.hpp"
#include "tslice/write.hpp"

namespace tslice {

enum class TextFormat { Json, Csv };

// Writes the elements `view` selects from `data` to `path` ("-": standard output), in bounded
// memory: with `pages` (data mapped from a file), the input pages already read are given
// back, and the next ones asked for, as the text goes out. CSV takes 0-, 1- and 2-D results of numbers; anything else is
// Error(Usage).
// With `conversion` (--astype), the elements of `view` are of its source type and are
// converted a chunk at a time as they are written: `type` is the converted type.
void write_values_as_text(const std::string& path, TextFormat format, const std::byte* data, const View& view,
                          const ElementType& type, const InputPages& pages = {},
                          const WriteOptions& options = {}, const Conversion* conversion = nullptr);

}  // namespace tslice
