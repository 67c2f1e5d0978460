// .zarray reading: what each key may say, fill values of every kind, and the errors that name
// what is wrong; and the chunk codecs' round trips and refusals.

#include <doctest/doctest.h>

#include <algorithm>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "thrown_error.hpp"
#include "tslice/error.hpp"
#include "source/zarr_codecs.hpp"
#include "source/zarr_meta.hpp"

using namespace tslice;

namespace {

std::string zarray(const std::string& dtype, const std::string& fill, const std::string& extra = "") {
    return R"({"zarr_format": 2, "shape": [5, 4], "chunks": [2, 3], "dtype": )" + dtype +
           R"(, "compressor": null, "fill_value": )" + fill + R"(, "filters": null, "order": "C")" + extra + "}";
}

std::string error_of(const std::string& text) {
    try {
        parse_zarray(text, ".zarray");
    } catch (const Error& error) {
        CHECK(error.kind() == ErrorKind::Input);
        return error.what();
    }
    return "";
}

}  // namespace

TEST_CASE("zarr meta: shape, chunks, dtype, order and separator") {
    const ZarrArrayMeta meta = parse_zarray(zarray("\">f8\"", "0", R"(, "dimension_separator": "/")"), ".zarray");
    CHECK(meta.shape == std::vector<std::int64_t>{5, 4});
    CHECK(meta.chunks == std::vector<std::int64_t>{2, 3});
    CHECK(meta.dtype.type_string == ">f8");
    CHECK(meta.chunk_key({1, 0}) == "1/0");
    CHECK(parse_zarray(zarray("\"<i2\"", "0"), "z").chunk_key({3, 2}) == "3.2");
    const ZarrArrayMeta fields = parse_zarray(zarray(R"([["a", "<i4"], ["b", "|S2", [3]]])", "null"), "z");
    CHECK(fields.dtype.structured);
    CHECK(fields.dtype.itemsize == 10);
}

TEST_CASE("zarr meta: fill values of each kind") {
    const auto fill = [](const std::string& dtype, const std::string& value) {
        return parse_zarray(zarray(dtype, value), "z").fill;
    };
    double d = 0;
    std::memcpy(&d, fill("\"<f8\"", "\"NaN\"").data(), 8);
    CHECK(std::isnan(d));
    std::memcpy(&d, fill("\"<f8\"", "\"-Infinity\"").data(), 8);
    CHECK(d == -INFINITY);
    CHECK(fill("\">i4\"", "-2") == std::vector<std::byte>{std::byte{0xff}, std::byte{0xff}, std::byte{0xff}, std::byte{0xfe}});
    CHECK(fill("\"|b1\"", "true") == std::vector<std::byte>{std::byte{1}});
    CHECK(fill("\"|S3\"", "\"YWI=\"") == std::vector<std::byte>{std::byte{'a'}, std::byte{'b'}, std::byte{0}});
    CHECK(fill("\"<f4\"", "null") == std::vector<std::byte>(4));
    float f = 0;
    std::memcpy(&f, fill("\"<c8\"", "[1.5, -2]").data() + 4, 4);
    CHECK(f == -2.0f);
}

TEST_CASE("zarr meta: errors name what is wrong") {
    CHECK(error_of("{").find("not a JSON object") != std::string::npos);
    CHECK(error_of(R"({"zarr_format": 3})").find("Zarr version 2") != std::string::npos);
    CHECK(error_of(zarray("\"<f4\"", "0", R"(, "filters2": 1)")).empty());
    CHECK(error_of(zarray("\"<f4\"", "0").replace(zarray("\"<f4\"", "0").find("\"filters\": null"), 15,
                                                  R"("filters": [{"id": "delta"}])"))
              .find("filter 'delta'") != std::string::npos);
    CHECK(error_of(zarray("\"<f4\"", "\"many\"")).find("fill_value") != std::string::npos);
    CHECK(error_of(zarray("\"<q9\"", "0")).find("dtype") != std::string::npos);
    CHECK(error_of(R"({"zarr_format": 2, "shape": [5], "chunks": [0], "dtype": "<f4"})").find("positive") !=
          std::string::npos);
    CHECK(error_of(R"({"zarr_format": 2, "shape": [5], "chunks": [1, 2], "dtype": "<f4"})").find("axes") !=
          std::string::npos);
    CHECK(error_of(zarray("\"<f4\"", "0", R"(, "compressor": {"id": "lzma"})").replace(
                       zarray("\"<f4\"", "0", "").find("\"compressor\": null"), 20, ""))
              .find("lzma") != std::string::npos);
}

TEST_CASE("zarr codecs: every compressor round-trips, and refuses a chunk of the wrong size") {
    std::vector<std::byte> data(4000);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::byte>(i * 7 % 13);
    for (const auto id : {ZarrCompressor::Id::None, ZarrCompressor::Id::Blosc, ZarrCompressor::Id::Zlib,
                          ZarrCompressor::Id::Gzip, ZarrCompressor::Id::Zstd}) {
        ZarrCompressor compressor;
        compressor.id = id;
        const std::vector<std::byte> stored = encode_zarr_chunk(compressor, data.data(), data.size(), 4);
        std::vector<std::byte> back(data.size());
        decode_zarr_chunk(compressor, stored.data(), stored.size(), back.data(), back.size(), "c");
        CHECK(back == data);
        std::vector<std::byte> larger(data.size() + 1);
        CHECK_THROWS_AS(decode_zarr_chunk(compressor, stored.data(), stored.size(), larger.data(), larger.size(), "c"),
                        Error);
        if (stored.size() > 10)
            CHECK_THROWS_AS(decode_zarr_chunk(compressor, stored.data(), stored.size() / 2, back.data(), back.size(), "c"),
                            Error);
    }
}

TEST_CASE("zarr codecs: one buffer encodes chunk after chunk, larger and smaller, of every compressor") {
    std::vector<std::byte> reused;
    for (const std::size_t size : {std::size_t{64}, std::size_t{40000}, std::size_t{12}, std::size_t{0}, std::size_t{3000}}) {
        std::vector<std::byte> data(size);
        for (std::size_t i = 0; i < size; ++i) data[i] = static_cast<std::byte>((i * 2654435761u) >> 13);
        for (const auto id : {ZarrCompressor::Id::None, ZarrCompressor::Id::Blosc, ZarrCompressor::Id::Zlib,
                              ZarrCompressor::Id::Gzip, ZarrCompressor::Id::Zstd}) {
            CAPTURE(size);
            CAPTURE(static_cast<int>(id));
            ZarrCompressor compressor;
            compressor.id = id;
            const std::size_t got = encode_zarr_chunk_into(compressor, data.data(), data.size(), 4, reused);
            REQUIRE(got <= reused.size());
            CHECK(std::vector<std::byte>(reused.begin(), reused.begin() + static_cast<std::ptrdiff_t>(got)) ==
                  encode_zarr_chunk(compressor, data.data(), data.size(), 4));
            std::vector<std::byte> back(size);
            decode_zarr_chunk(compressor, reused.data(), got, back.data(), back.size(), "c");
            CHECK(back == data);
        }
    }
}

TEST_CASE("zarr codecs: a part of a chunk decodes alone where the codec can do with less") {
    // Larger than zstd's blocks (128 KiB) and blosc's, so that a part spans blocks and ends
    // blocks before the chunk does.
    std::vector<std::byte> data(600000);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::byte>((i * 2654435761u) >> 13 & 0x3F);
    const std::pair<std::size_t, std::size_t> parts[] = {{0, 1}, {0, 4096}, {1, 131073}, {4093, 4100},
                                                         {300000, 300004}, {131000, 599999}, {599996, 600000}};
    for (const auto id : {ZarrCompressor::Id::None, ZarrCompressor::Id::Zstd, ZarrCompressor::Id::Zlib,
                          ZarrCompressor::Id::Gzip, ZarrCompressor::Id::Blosc}) {
        for (const int shuffle : {0, 1, 2}) {
            if (shuffle != 1 && id != ZarrCompressor::Id::Blosc) continue;
            CAPTURE(static_cast<int>(id));
            CAPTURE(shuffle);
            ZarrCompressor compressor;
            compressor.id = id;
            compressor.shuffle = shuffle;
            const std::vector<std::byte> stored = encode_zarr_chunk(compressor, data.data(), data.size(), 4);
            const bool stream = id != ZarrCompressor::Id::None && id != ZarrCompressor::Id::Blosc;
            for (const auto& [begin, end] : parts) {
                CAPTURE(begin);
                CAPTURE(end);
                CHECK(part_decode_bytes(compressor, begin, end, data.size()) == (stream ? end : end - begin));
                std::vector<std::byte> part(data.size(), std::byte{0x55});
                const bool decoded =
                    decode_zarr_chunk_part(compressor, stored.data(), stored.size(), part.data(), data.size(), begin,
                                           end, "c");
                // A stream that would run to the chunk's end decodes it whole, with its checks.
                REQUIRE(decoded == !(stream && end == data.size()));
                if (!decoded) continue;
                CHECK(std::equal(part.begin() + static_cast<std::ptrdiff_t>(begin),
                                 part.begin() + static_cast<std::ptrdiff_t>(end),
                                 data.begin() + static_cast<std::ptrdiff_t>(begin)));
                // The rest of the chunk is not decoded: past the part nothing is written, except
                // blosc's rounding to whole items.
                const std::size_t written_to = id == ZarrCompressor::Id::Blosc ? (end + 3) / 4 * 4 : end;
                CHECK(std::all_of(part.begin() + static_cast<std::ptrdiff_t>(written_to), part.end(),
                                  [](std::byte b) { return b == std::byte{0x55}; }));
            }
            // The whole chunk is decode_zarr_chunk's, with its checks.
            std::vector<std::byte> whole(data.size());
            CHECK_FALSE(decode_zarr_chunk_part(compressor, stored.data(), stored.size(), whole.data(), whole.size(), 0,
                                               whole.size(), "c"));
            // A chunk cut short before the part ends, or of another declared size, is corrupt.
            CHECK_THROWS_AS(decode_zarr_chunk_part(compressor, stored.data(), stored.size() / 8, whole.data(),
                                                   whole.size(), 0, whole.size() - 1, "c"),
                            Error);
            // (zlib and gzip say no size: their part is read until it is out.)
            if (!stream || id == ZarrCompressor::Id::Zstd) {
                std::vector<std::byte> larger(data.size() + 8);
                CHECK_THROWS_AS(decode_zarr_chunk_part(compressor, stored.data(), stored.size(), larger.data(),
                                                       larger.size(), 0, 100, "c"),
                                Error);
            }
        }
    }
}

TEST_CASE("zarr codecs: a zlib stream that ends before its chunk is corrupt, read in part or whole") {
    std::vector<std::byte> data(1000, std::byte{7});
    ZarrCompressor compressor;
    compressor.id = ZarrCompressor::Id::Zlib;
    const std::vector<std::byte> stored = encode_zarr_chunk(compressor, data.data(), data.size(), 1);
    std::vector<std::byte> out(2000);
    // The stream ends at 1000 bytes: a part ending there, of a chunk of 2000, is a short chunk.
    CHECK_THROWS_WITH_AS(decode_zarr_chunk_part(compressor, stored.data(), stored.size(), out.data(), out.size(), 0,
                                                1000, "c"),
                         doctest::Contains("decompresses to 1000 bytes, not the chunk's 2000"), Error);
    CHECK_THROWS_WITH_AS(decode_zarr_chunk(compressor, stored.data(), stored.size(), out.data(), out.size(), "c"),
                         doctest::Contains("decompresses to 1000 bytes, not the chunk's 2000"), Error);
}
