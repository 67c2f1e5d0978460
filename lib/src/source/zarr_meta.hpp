// A Zarr v2 array's metadata (.zarray), read into what the reader and writer need. Pure: text
// in, a value out, so the fuzz target runs it on any bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tslice/npy.hpp"
#include "source/zarr_codecs.hpp"

namespace tslice {

struct ZarrArrayMeta {
    std::vector<std::int64_t> shape, chunks;
    DType dtype;
    bool fortran_order = false;    // "order": "F": each chunk's elements in Fortran order
    char separator = '.';          // "dimension_separator": chunk keys "0.1" or "0/1"
    std::vector<std::byte> fill;   // one element: what a missing chunk holds ("fill_value")
    ZarrCompressor compressor;

    std::int64_t chunk_elements() const;
    // The key of the chunk at grid position `index` ("0.1.2"; "0" for a 0-d array).
    std::string chunk_key(const std::vector<std::int64_t>& index) const;
};

// Reads a .zarray's text; Error(Input) naming `where` and what is wrong: not JSON, a
// zarr_format other than 2, a shape or chunks that are not positive integers of one length,
// a dtype numpy would not read, a filter (named), a compressor tslice does not read, a
// fill_value that does not fit the dtype.
ZarrArrayMeta parse_zarray(std::string_view text, const std::string& where);

// The .zarray text of an array tslice writes.
std::string make_zarray(const ZarrArrayMeta& meta);

}  // namespace tslice
