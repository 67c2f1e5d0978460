// Inflating zip members: zlib streams any size; libdeflate, faster, inflates small members
// whole (it decompresses only whole buffers, and a member is bounded only by the file).
#include "source/inflate.hpp"

#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <new>

#include "tslice/container.hpp"
#include "tslice/error.hpp"

namespace tslice {

namespace {

// zlib counts in 32-bit unsigned ints.
constexpr std::uint64_t kMaxStep = std::uint64_t{1} << 30;

}  // namespace

struct InflateStream::Zlib {
    z_stream stream{};
};

InflateStream::InflateStream(const std::byte* compressed, std::uint64_t compressed_size,
                             std::uint64_t inflated_size, std::uint32_t crc32, std::string what)
    : zlib_(std::make_unique<Zlib>()), next_in_(compressed), remaining_in_(compressed_size),
      inflated_size_(inflated_size), expected_crc_(crc32), what_(std::move(what)) {
    // Negative window bits: a raw deflate stream, as zip stores it.
    const int status = inflateInit2(&zlib_->stream, -MAX_WBITS);
    if (status == Z_MEM_ERROR) throw std::bad_alloc();
    if (status != Z_OK) fail_input("cannot start inflating " + what_ + ": zlib error " + std::to_string(status));
}

InflateStream::~InflateStream() { inflateEnd(&zlib_->stream); }

std::size_t InflateStream::read(std::byte* out, std::size_t size) {
    if (finished_) return 0;
    size = static_cast<std::size_t>(std::min<std::uint64_t>(size, inflated_size_ - produced_));
    std::size_t filled = 0;
    z_stream& z = zlib_->stream;
    while (filled < size) {
        const std::uint64_t step_in = std::min(remaining_in_, kMaxStep);
        z.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(next_in_));
        z.avail_in = static_cast<uInt>(step_in);
        z.next_out = reinterpret_cast<Bytef*>(out + filled);
        z.avail_out = static_cast<uInt>(std::min<std::uint64_t>(size - filled, kMaxStep));
        const uInt out_before = z.avail_out;
        const int status = inflate(&z, Z_NO_FLUSH);
        const std::size_t got = out_before - z.avail_out;
        next_in_ += step_in - z.avail_in;
        remaining_in_ -= step_in - z.avail_in;
        crc_ = crc32_update(crc_, out + filled, got);
        filled += got;
        produced_ += got;
        if (status == Z_STREAM_END) {
            if (produced_ < inflated_size_)
                fail_input(what_ + " inflates to " + std::to_string(produced_) + " bytes, but the zip directory says " +
                           std::to_string(inflated_size_) + " (corrupt archive)");
            break;
        }
        if (status == Z_MEM_ERROR) throw std::bad_alloc();
        if (status == Z_DATA_ERROR || status == Z_NEED_DICT)
            fail_input("the deflate stream of " + what_ + " is corrupt (" + (z.msg ? z.msg : "invalid data") + ")");
        if (status == Z_BUF_ERROR && remaining_in_ == 0)
            fail_input("the deflate stream of " + what_ + " is cut short after " + std::to_string(produced_) + " of " +
                       std::to_string(inflated_size_) + " bytes (the archive is truncated or corrupt)");
        if (status != Z_OK && status != Z_BUF_ERROR)
            fail_input("cannot inflate " + what_ + ": zlib error " + std::to_string(status));
    }
    if (produced_ == inflated_size_) finish();
    return filled;
}

// All the bytes the directory promises are out: the stream must end here, and their CRC match.
void InflateStream::finish() {
    finished_ = true;
    z_stream& z = zlib_->stream;
    for (;;) {
        unsigned char extra[64];
        const std::uint64_t step_in = std::min(remaining_in_, kMaxStep);
        z.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(next_in_));
        z.avail_in = static_cast<uInt>(step_in);
        z.next_out = extra;
        z.avail_out = sizeof extra;
        const int status = inflate(&z, Z_NO_FLUSH);
        next_in_ += step_in - z.avail_in;
        remaining_in_ -= step_in - z.avail_in;
        if (z.avail_out != sizeof extra)
            fail_input(what_ + " inflates to more than the " + std::to_string(inflated_size_) +
                       " bytes the zip directory says (corrupt archive)");
        if (status == Z_STREAM_END) break;
        if (status == Z_MEM_ERROR) throw std::bad_alloc();
        if (status == Z_DATA_ERROR || status == Z_NEED_DICT)
            fail_input("the deflate stream of " + what_ + " is corrupt (" + (z.msg ? z.msg : "invalid data") + ")");
        if (remaining_in_ == 0 || status != Z_OK)
            fail_input("the deflate stream of " + what_ +
                       " is cut short at its end (the archive is truncated or corrupt)");
    }
    if (crc_ != expected_crc_) {
        char text[80];
        std::snprintf(text, sizeof text, "CRC-32 %08x, but the zip directory says %08x", crc_, expected_crc_);
        fail_input(what_ + " is corrupt: its bytes have " + text);
    }
}

std::vector<std::byte> inflate_whole(const std::byte* compressed, std::uint64_t compressed_size,
                                     std::uint64_t inflated_size, std::uint32_t crc32, const std::string& what) {
    if (inflated_size > kWholeInflateBytes) fail_input("internal: " + what + " is too large to inflate whole");
    struct Decompressor {
        libdeflate_decompressor* state = libdeflate_alloc_decompressor();
        ~Decompressor() { libdeflate_free_decompressor(state); }
    } decompressor;
    if (!decompressor.state) throw std::bad_alloc();
    // One byte more than promised, so that a stream longer than the directory says is told
    // from one that fits exactly.
    std::vector<std::byte> out(static_cast<std::size_t>(inflated_size) + 1);
    std::size_t got = 0;
    const libdeflate_result result = libdeflate_deflate_decompress(
        decompressor.state, compressed, static_cast<std::size_t>(compressed_size), out.data(), out.size(), &got);
    if (result == LIBDEFLATE_BAD_DATA)
        fail_input("the deflate stream of " + what + " is corrupt or cut short (the archive is truncated or corrupt)");
    if (result == LIBDEFLATE_INSUFFICIENT_SPACE || got > inflated_size)
        fail_input(what + " inflates to more than the " + std::to_string(inflated_size) +
                   " bytes the zip directory says (corrupt archive)");
    if (result != LIBDEFLATE_SUCCESS)
        fail_input("cannot inflate " + what + ": libdeflate error " + std::to_string(result));
    if (got < inflated_size)
        fail_input(what + " inflates to " + std::to_string(got) + " bytes, but the zip directory says " +
                   std::to_string(inflated_size) + " (corrupt archive)");
    out.resize(got);
    const std::uint32_t crc = crc32_update(0, out.data(), out.size());
    if (crc != crc32) {
        char text[80];
        std::snprintf(text, sizeof text, "CRC-32 %08x, but the zip directory says %08x", crc, crc32);
        fail_input(what + " is corrupt: its bytes have " + text);
    }
    return out;
}

}  // namespace tslice
