// Zarr v2's compressors: a chunk's bytes decoded (and, for writing, encoded) by the codec its
// .zarray names. Pure functions over buffers: what to read and where the chunk goes are the
// store's (zarr_source.cpp, zarr_write.cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/json_tree.hpp"

namespace tslice {

struct ZarrCompressor {
    enum class Id { None, Blosc, Zlib, Gzip, Zstd };
    Id id = Id::None;
    int level = 1;
    // Blosc only: the inner compressor ("lz4", "zstd", "zlib", "blosclz", "lz4hc") and the
    // shuffle (0 none, 1 bytes, 2 bits), for writing; reading takes both from the chunk's header.
    std::string cname = "lz4";
    int shuffle = 1;

    // The .zarray "compressor" value, as numcodecs writes it (null for none).
    nlohmann::json to_json() const;
};

// The compressor a .zarray's "compressor" value names (null: none); Error(Input) naming any
// other codec (and what tslice reads). `where` names the .zarray in messages. (Writing keeps
// nlohmann for its output, to_json; reading goes through the one JSON reading path.)
ZarrCompressor parse_zarr_compressor(const json::Node* value, const std::string& where);

// Decodes `size` bytes of a stored chunk into `out`, which must receive exactly `expected`
// bytes: Error(Input) naming `what` (the chunk's file) for corrupt data or another size.
void decode_zarr_chunk(const ZarrCompressor& compressor, const std::byte* data, std::size_t size, std::byte* out,
                       std::size_t expected, const std::string& what);

// A part of a chunk alone: bytes [begin, end) of a chunk of `expected` bytes land at
// out + begin, where the codec can decode less than the whole chunk; other bytes of `out`
// may be written too. What each codec decodes for it (part_decode_bytes):
//   - zstd, zlib and gzip are streams: they decode from the chunk's start and stop once `end`
//     bytes are out, so a part near the start (one time step of a C-order chunk of many) costs
//     that part;
//   - blosc decodes only the blocks that hold the part (blosc_getitem; blosc cuts a chunk
//     into blocks of a size it chose when it compressed it);
//   - none copies the part, its stored size checked.
// Returns false where the codec cannot, or the part is the whole chunk: the caller decodes the
// whole chunk. Error(Input) as decode_zarr_chunk for what is corrupt in what it decodes; what
// it does not decode is not looked at.
bool decode_zarr_chunk_part(const ZarrCompressor& compressor, const std::byte* data, std::size_t size,
                            std::byte* out, std::size_t expected, std::size_t begin, std::size_t end,
                            const std::string& what);
// The bytes decode_zarr_chunk_part decodes for that part (`expected` where it decodes the
// whole chunk), before blosc rounds the part out to its blocks.
std::size_t part_decode_bytes(const ZarrCompressor& compressor, std::size_t begin, std::size_t end,
                              std::size_t expected);

// Encodes a chunk of `size` bytes of elements of `itemsize` bytes (blosc's shuffle needs it).
std::vector<std::byte> encode_zarr_chunk(const ZarrCompressor& compressor, const std::byte* data, std::size_t size,
                                         std::size_t itemsize);
// The same into `out`, grown to the most the codec may need and never shrunk, so that a
// writer that passes one buffer chunk after chunk allocates it, and faults its pages in, once;
// returns the bytes of the encoded chunk at out's start.
std::size_t encode_zarr_chunk_into(const ZarrCompressor& compressor, const std::byte* data, std::size_t size,
                                   std::size_t itemsize, std::vector<std::byte>& out);

}  // namespace tslice
