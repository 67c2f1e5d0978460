// Inflating a deflated zip member (np.savez_compressed) as a stream: bounded memory whatever
// the member's size, with the sizes and the CRC-32 the zip directory promises checked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tslice {

class InflateStream {
public:
    // `compressed` holds the member's raw deflate stream (zip stores it without a zlib header);
    // `what` names the member in errors ("member 'x.npy'").
    InflateStream(const std::byte* compressed, std::uint64_t compressed_size, std::uint64_t inflated_size,
                  std::uint32_t crc32, std::string what);
    InflateStream(const InflateStream&) = delete;
    InflateStream& operator=(const InflateStream&) = delete;
    ~InflateStream();

    // Fills `out` with up to `size` of the next inflated bytes and returns how many: fewer only
    // at the end of the member, 0 after it. Reaching the end checks that the stream ends
    // exactly there and that the CRC-32 matches. Throws Error(Input) for a corrupt or
    // truncated stream, or one longer or shorter than the directory says.
    std::size_t read(std::byte* out, std::size_t size);

    std::uint64_t produced() const { return produced_; }
    std::uint64_t size() const { return inflated_size_; }
    // The first compressed byte not yet read: zlib keeps what it still needs of the bytes
    // before it (the window) in its own state, so they may be released.
    const std::byte* next_input() const { return next_in_; }

private:
    struct Zlib;
    void finish();

    std::unique_ptr<Zlib> zlib_;
    const std::byte* next_in_;
    std::uint64_t remaining_in_;
    std::uint64_t inflated_size_;
    std::uint32_t expected_crc_;
    std::uint32_t crc_ = 0;
    std::uint64_t produced_ = 0;
    bool finished_ = false;
    std::string what_;
};

// The same checks on a member inflated in one call with libdeflate, which is 1.6 to 2.4 times
// faster than zlib's streaming inflate (64 MiB of float32: 165 against 260 ms for random
// values, 72 against 150 ms for compressible ones) but needs the whole output at once: for
// members of at most kWholeInflateBytes, so memory stays bounded.
constexpr std::uint64_t kWholeInflateBytes = std::uint64_t{32} << 20;
std::vector<std::byte> inflate_whole(const std::byte* compressed, std::uint64_t compressed_size,
                                     std::uint64_t inflated_size, std::uint32_t crc32, const std::string& what);

}  // namespace tslice
