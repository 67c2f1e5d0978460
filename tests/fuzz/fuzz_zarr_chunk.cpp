// Fuzz target: a Zarr v2 array's .zarray and one stored chunk (the input: the .zarray text,
// a NUL byte, then the chunk's bytes), read as zarr_source.cpp reads them.
//
// Checks, besides "no crash, no sanitizer report, only tslice::Error(Input)":
//   - a chunk that decodes gives exactly the chunk's bytes (decode_zarr_chunk fills `out`
//     whole or throws);
//   - what decodes, encoded again with the same compressor, decodes to the same bytes;
//   - a part of the chunk decoded alone (decode_zarr_chunk_part) is the same bytes as that
//     part of the whole chunk.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "fuzz_common.hpp"
#include "tslice/error.hpp"
#include "source/zarr_codecs.hpp"
#include "source/zarr_meta.hpp"

using namespace tslice;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto* bytes = reinterpret_cast<const std::byte*>(data);
    const auto* nul = static_cast<const std::uint8_t*>(std::memchr(data, 0, size));
    const std::size_t text_size = nul ? static_cast<std::size_t>(nul - data) : size;
    ZarrArrayMeta meta;
    try {
        meta = parse_zarray(std::string_view(reinterpret_cast<const char*>(data), text_size), ".zarray");
    } catch (const Error& error) {
        TSLICE_FUZZ_CHECK(error.kind() == ErrorKind::Input);
        return 0;
    }
    TSLICE_FUZZ_CHECK(meta.shape.size() == meta.chunks.size());
    TSLICE_FUZZ_CHECK(meta.fill.size() == meta.dtype.itemsize);
    const std::uint64_t chunk_bytes = static_cast<std::uint64_t>(meta.chunk_elements()) * meta.dtype.itemsize;
    if (!nul || chunk_bytes > (std::uint64_t{1} << 24)) return 0;
    const std::byte* stored = bytes + text_size + 1;
    const std::size_t stored_size = size - text_size - 1;
    // A part of the chunk, decoded alone where the codec can: only Input errors, and where the
    // whole chunk decodes too, the same bytes.
    std::size_t begin = 0, end = 0;
    if (chunk_bytes > 0) {
        begin = stored_size * 2654435761u % chunk_bytes;
        end = begin + 1 + stored_size * 40503u % (chunk_bytes - begin);
    }
    std::vector<std::byte> part(static_cast<std::size_t>(chunk_bytes));
    bool part_decoded = false;
    try {
        part_decoded = decode_zarr_chunk_part(meta.compressor, stored, stored_size, part.data(), part.size(), begin, end,
                                              "the chunk");
    } catch (const Error& error) {
        TSLICE_FUZZ_CHECK(error.kind() == ErrorKind::Input);
    }
    std::vector<std::byte> out(static_cast<std::size_t>(chunk_bytes));
    try {
        decode_zarr_chunk(meta.compressor, stored, stored_size, out.data(), out.size(), "the chunk");
    } catch (const Error& error) {
        TSLICE_FUZZ_CHECK(error.kind() == ErrorKind::Input);
        return 0;
    }
    if (part_decoded)
        TSLICE_FUZZ_CHECK(std::equal(part.begin() + static_cast<std::ptrdiff_t>(begin),
                                     part.begin() + static_cast<std::ptrdiff_t>(end),
                                     out.begin() + static_cast<std::ptrdiff_t>(begin)));
    const std::vector<std::byte> again = encode_zarr_chunk(meta.compressor, out.data(), out.size(), meta.dtype.itemsize);
    std::vector<std::byte> back(out.size());
    decode_zarr_chunk(meta.compressor, again.data(), again.size(), back.data(), back.size(), "the chunk");
    TSLICE_FUZZ_CHECK(back == out);
    return 0;
}
