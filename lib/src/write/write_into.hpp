// write_view's body for an output that is already open: a container written result by result
// into one file (container_write.hpp) calls it once per result, then commits the file once.
#pragma once

#include "write/output_file.hpp"
#include "tslice/convert.hpp"
#include "tslice/write.hpp"

namespace tslice {

// Writes the framed result to `output` at its current end. `alone`: the result is the whole
// file, so it may be written out of order (a downward walk written from its last chunk).
void write_view_into(OutputFile& output, const OutputFraming& framing, const std::byte* data, const View& view,
                     const InputPages& pages, const WriteOptions& options, bool alone);

// The same, each element converted on the way (convert_write.cpp): write_view_converted's body.
void write_view_converted_into(OutputFile& output, const OutputFraming& framing, const std::byte* data,
                               const View& view, const InputPages& pages, const WriteOptions& options,
                               const Conversion& conversion);

}  // namespace tslice
