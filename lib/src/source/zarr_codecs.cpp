// Zarr v2 chunk codecs through their C libraries: libblosc, zlib, libzstd.
#include "source/zarr_codecs.hpp"

#include <blosc.h>
#include <nlohmann/json.hpp>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "tslice/error.hpp"

namespace tslice {
namespace {

[[noreturn]] void corrupt(const std::string& what, const std::string& why) { fail_input(what + " is corrupt: " + why); }

// An uncompressed chunk holds the chunk's bytes, no more, no fewer.
void check_stored_size(std::size_t size, std::size_t expected, const std::string& what) {
    if (size != expected)
        corrupt(what, "it holds " + std::to_string(size) + " bytes, not the chunk's " + std::to_string(expected));
}

// A zstd chunk's first frame, where it says its size, says the chunk's.
void check_zstd_frame(const std::byte* data, std::size_t size, std::size_t expected, const std::string& what) {
    const unsigned long long declared = ZSTD_getFrameContentSize(data, size);
    if (declared == ZSTD_CONTENTSIZE_ERROR) corrupt(what, "it is not zstd data");
    if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != expected)
        corrupt(what, "its zstd frame holds " + std::to_string(declared) + " bytes, not the chunk's " +
                          std::to_string(expected));
}

// zlib and gzip streams (windowBits 15, or 15 + 16 for gzip's header and trailer) inflated
// into a chunk of `expected` bytes: the whole chunk, checked to end there; or, for `until`
// under `expected`, its first `until` bytes, the rest of the stream not read.
void inflate_chunk(const std::byte* data, std::size_t size, std::byte* out, std::size_t expected, std::size_t until,
                   bool gzip, const std::string& what) {
    z_stream stream{};
    if (inflateInit2(&stream, gzip ? 15 + 16 : 15) != Z_OK) fail_input("cannot start zlib for " + what);
    const bool whole = until >= expected;
    const std::size_t wanted = whole ? expected : until;
    std::size_t in_done = 0, out_done = 0;
    int status = Z_OK;
    // zlib's counters are 32-bit: large buffers go through in pieces.
    constexpr std::size_t kPiece = std::size_t{1} << 30;
    do {
        if (!whole && out_done == wanted) break;
        stream.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(data + in_done));
        stream.avail_in = static_cast<uInt>(std::min(kPiece, size - in_done));
        stream.next_out = reinterpret_cast<Bytef*>(out + out_done);
        // One byte more than expected, so that a chunk that inflates to more is caught.
        std::byte spare[1];
        const bool at_end = out_done == expected;
        if (at_end) stream.next_out = reinterpret_cast<Bytef*>(spare);
        stream.avail_out = at_end ? 1 : static_cast<uInt>(std::min(kPiece, wanted - out_done));
        const uInt in_before = stream.avail_in, out_before = stream.avail_out;
        status = inflate(&stream, Z_NO_FLUSH);
        in_done += in_before - stream.avail_in;
        const std::size_t produced = out_before - stream.avail_out;
        if (at_end && produced > 0) {
            inflateEnd(&stream);
            corrupt(what, "it decompresses to more than the chunk's " + std::to_string(expected) + " bytes");
        }
        out_done += at_end ? 0 : produced;
        if (status == Z_BUF_ERROR && in_before == stream.avail_in && out_before == stream.avail_out) break;
    } while (status == Z_OK);
    const char* message = stream.msg;
    inflateEnd(&stream);
    const auto short_chunk = [&] {
        corrupt(what, "it decompresses to " + std::to_string(out_done) + " bytes, not the chunk's " +
                          std::to_string(expected));
    };
    if (status == Z_STREAM_END && out_done < expected) short_chunk();
    if (!whole && out_done == wanted) return;
    if (status != Z_STREAM_END)
        corrupt(what, std::string(gzip ? "gzip" : "zlib") + " data " + (message ? message : "ends early"));
    if (out_done != expected) short_chunk();
}

// A blosc chunk's header holds together and says the chunk's size.
void check_blosc_header(const std::byte* data, std::size_t size, std::size_t expected, const std::string& what) {
    std::size_t nbytes = 0;
    if (size < BLOSC_MIN_HEADER_LENGTH || blosc_cbuffer_validate(data, size, &nbytes) != 0)
        corrupt(what, "it is not blosc data (or is cut short)");
    if (nbytes != expected)
        corrupt(what, "its blosc header says " + std::to_string(nbytes) + " bytes, not the chunk's " +
                          std::to_string(expected));
    if (expected > static_cast<std::size_t>(std::numeric_limits<int>::max()))
        corrupt(what, "blosc holds at most 2 GiB a chunk");
}

std::vector<std::byte> deflate_all(const std::byte* data, std::size_t size, int level, bool gzip) {
    z_stream stream{};
    if (deflateInit2(&stream, level, Z_DEFLATED, gzip ? 15 + 16 : 15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        fail_input("cannot start zlib");
    std::vector<std::byte> out(deflateBound(&stream, static_cast<uLong>(size)) + 64);
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(data));
    stream.avail_in = static_cast<uInt>(size);
    stream.next_out = reinterpret_cast<Bytef*>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    const int status = deflate(&stream, Z_FINISH);
    out.resize(stream.total_out);
    deflateEnd(&stream);
    if (status != Z_STREAM_END) fail_input("zlib could not compress a chunk");
    return out;
}

}  // namespace

nlohmann::json ZarrCompressor::to_json() const {
    switch (id) {
        case Id::None:
            return nullptr;
        case Id::Blosc:
            return {{"id", "blosc"}, {"cname", cname}, {"clevel", level}, {"shuffle", shuffle}, {"blocksize", 0}};
        case Id::Zlib:
            return {{"id", "zlib"}, {"level", level}};
        case Id::Gzip:
            return {{"id", "gzip"}, {"level", level}};
        case Id::Zstd:
            return {{"id", "zstd"}, {"level", level}};
    }
    return nullptr;
}

ZarrCompressor parse_zarr_compressor(const json::Node* value, const std::string& where) {
    ZarrCompressor compressor;
    if (!value || value->kind == json::Node::Kind::Null) return compressor;
    const json::Node* id_node = json::member(*value, "id");
    if (!id_node || id_node->kind != json::Node::Kind::String)
        fail_input(where + ": \"compressor\" is neither null nor an object with an \"id\"");
    const std::string& id = id_node->text;
    if (id == "blosc") compressor.id = ZarrCompressor::Id::Blosc;
    else if (id == "zlib") compressor.id = ZarrCompressor::Id::Zlib;
    else if (id == "gzip") compressor.id = ZarrCompressor::Id::Gzip;
    else if (id == "zstd") compressor.id = ZarrCompressor::Id::Zstd;
    else
        fail_input(where + ": the compressor '" + id + "' is not one tslice reads (blosc, zlib, gzip, zstd, or none)");
    return compressor;
}

void decode_zarr_chunk(const ZarrCompressor& compressor, const std::byte* data, std::size_t size, std::byte* out,
                       std::size_t expected, const std::string& what) {
    switch (compressor.id) {
        case ZarrCompressor::Id::None:
            check_stored_size(size, expected, what);
            if (size > 0) std::memcpy(out, data, size);  // an empty chunk may have no buffer
            return;
        case ZarrCompressor::Id::Zlib:
        case ZarrCompressor::Id::Gzip:
            inflate_chunk(data, size, out, expected, expected, compressor.id == ZarrCompressor::Id::Gzip, what);
            return;
        case ZarrCompressor::Id::Zstd: {
            check_zstd_frame(data, size, expected, what);
            // Several frames may follow each other; ZSTD_decompress reads them all, and a
            // result past `expected` is an error (dstSize_tooSmall).
            const std::size_t got = ZSTD_decompress(out, expected, data, size);
            if (ZSTD_isError(got)) corrupt(what, std::string("zstd: ") + ZSTD_getErrorName(got));
            if (got != expected)
                corrupt(what, "it decompresses to " + std::to_string(got) + " bytes, not the chunk's " +
                                  std::to_string(expected));
            return;
        }
        case ZarrCompressor::Id::Blosc: {
            check_blosc_header(data, size, expected, what);
            const int got = blosc_decompress_ctx(data, out, expected, 1);
            if (got < 0 || static_cast<std::size_t>(got) != expected)
                corrupt(what, "blosc could not decompress it (error " + std::to_string(got) + ")");
            return;
        }
    }
}

std::size_t part_decode_bytes(const ZarrCompressor& compressor, std::size_t begin, std::size_t end,
                              std::size_t expected) {
    switch (compressor.id) {
        case ZarrCompressor::Id::None:
        case ZarrCompressor::Id::Blosc:
            return end - begin;
        case ZarrCompressor::Id::Zlib:
        case ZarrCompressor::Id::Gzip:
        case ZarrCompressor::Id::Zstd:
            return end;
    }
    return expected;
}

bool decode_zarr_chunk_part(const ZarrCompressor& compressor, const std::byte* data, std::size_t size,
                            std::byte* out, std::size_t expected, std::size_t begin, std::size_t end,
                            const std::string& what) {
    if (begin >= end || end > expected || (begin == 0 && end == expected)) return false;
    // A stream decodes from the chunk's start: a part that ends with the chunk is all of it.
    const bool stream = compressor.id == ZarrCompressor::Id::Zlib || compressor.id == ZarrCompressor::Id::Gzip ||
                        compressor.id == ZarrCompressor::Id::Zstd;
    if (stream && end == expected) return false;
    switch (compressor.id) {
        case ZarrCompressor::Id::None:
            // The stored size is still checked: a chunk of the wrong size is as corrupt here as
            // when it is read whole.
            check_stored_size(size, expected, what);
            std::memcpy(out + begin, data + begin, end - begin);
            return true;
        case ZarrCompressor::Id::Zlib:
        case ZarrCompressor::Id::Gzip:
            inflate_chunk(data, size, out, expected, end, compressor.id == ZarrCompressor::Id::Gzip, what);
            return true;
        case ZarrCompressor::Id::Blosc: {
            check_blosc_header(data, size, expected, what);
            // blosc_getitem counts in the items of the header's typesize, and decodes only the
            // blocks that hold them, each into a buffer of its own, in the calling thread.
            std::size_t typesize = 0;
            int flags = 0;
            blosc_cbuffer_metainfo(data, &typesize, &flags);
            if (typesize == 0) return false;
            const std::size_t first = begin / typesize, last = (end + typesize - 1) / typesize;
            // A chunk whose size is not whole items keeps its last bytes apart: read whole.
            if (last * typesize > expected) return false;
            const int got = blosc_getitem(data, static_cast<int>(first), static_cast<int>(last - first),
                                          out + first * typesize);
            if (got < 0 || static_cast<std::size_t>(got) != (last - first) * typesize)
                corrupt(what, "blosc could not decompress it (error " + std::to_string(got) + ")");
            return true;
        }
        case ZarrCompressor::Id::Zstd:
            break;
    }
    check_zstd_frame(data, size, expected, what);
    // A stream decoder stops once `end` bytes are out: it decodes a block (at most 128 KiB)
    // at a time, so the rest of the chunk is never decoded. Kept per thread, with its window,
    // for the chunks that follow.
    struct Decoder {
        ZSTD_DCtx* context = ZSTD_createDCtx();
        ~Decoder() { ZSTD_freeDCtx(context); }
    };
    thread_local Decoder decoder;
    if (!decoder.context) return false;
    ZSTD_DCtx_reset(decoder.context, ZSTD_reset_session_only);
    ZSTD_inBuffer input{data, size, 0};
    ZSTD_outBuffer output{out, end, 0};
    while (output.pos < output.size) {
        const std::size_t before_in = input.pos, before_out = output.pos;
        const std::size_t hint = ZSTD_decompressStream(decoder.context, &output, &input);
        if (ZSTD_isError(hint)) corrupt(what, std::string("zstd: ") + ZSTD_getErrorName(hint));
        if (output.pos < output.size && input.pos == input.size && before_in == input.pos &&
            before_out == output.pos)
            corrupt(what, "it decompresses to " + std::to_string(output.pos) + " bytes, not the chunk's " +
                              std::to_string(expected));
    }
    return true;
}

std::size_t encode_zarr_chunk_into(const ZarrCompressor& compressor, const std::byte* data, std::size_t size,
                                   std::size_t itemsize, std::vector<std::byte>& out) {
    const auto room = [&out](std::size_t bound) {
        if (out.size() < bound) out.resize(bound);
    };
    switch (compressor.id) {
        case ZarrCompressor::Id::None:
            room(size);
            if (size > 0) std::memcpy(out.data(), data, size);
            return size;
        case ZarrCompressor::Id::Zlib:
        case ZarrCompressor::Id::Gzip: {
            const std::vector<std::byte> deflated =
                deflate_all(data, size, compressor.level, compressor.id == ZarrCompressor::Id::Gzip);
            room(deflated.size());
            if (!deflated.empty()) std::memcpy(out.data(), deflated.data(), deflated.size());
            return deflated.size();
        }
        case ZarrCompressor::Id::Zstd: {
            // One context per thread, kept: ZSTD_compress would make and free one per chunk.
            struct Context {
                ZSTD_CCtx* context = ZSTD_createCCtx();
                ~Context() { ZSTD_freeCCtx(context); }
            };
            thread_local Context kept;
            if (!kept.context) fail_input("zstd: cannot make a compression context");
            room(ZSTD_compressBound(size));
            const std::size_t got =
                ZSTD_compressCCtx(kept.context, out.data(), ZSTD_compressBound(size), data, size, compressor.level);
            if (ZSTD_isError(got)) fail_input(std::string("zstd: ") + ZSTD_getErrorName(got));
            return got;
        }
        case ZarrCompressor::Id::Blosc: {
            // Room for exactly this chunk, as a buffer of its own would give: blosc stores a
            // chunk that does not shrink as it is only when the room says it cannot grow.
            room(size + BLOSC_MAX_OVERHEAD);
            const int got = blosc_compress_ctx(compressor.level, compressor.shuffle, itemsize, size, data, out.data(),
                                               size + BLOSC_MAX_OVERHEAD, compressor.cname.c_str(), 0, 1);
            if (got <= 0) fail_input("blosc could not compress a chunk (error " + std::to_string(got) + ")");
            return static_cast<std::size_t>(got);
        }
    }
    return 0;
}

std::vector<std::byte> encode_zarr_chunk(const ZarrCompressor& compressor, const std::byte* data, std::size_t size,
                                         std::size_t itemsize) {
    std::vector<std::byte> out;
    out.resize(encode_zarr_chunk_into(compressor, data, size, itemsize, out));
    return out;
}

}  // namespace tslice
