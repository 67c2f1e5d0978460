// The order a result's chunks are written in: in order, or from the last to the first at their
// places, with the same bytes (the CRC-32 of a framing's suffix included) and the descriptor
// left at the result's end; and when the write stage writes backwards: a copy that walks a cold
// file downwards, into an output whose bytes may be placed, so that it reads the file upwards.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "npy_fixture.hpp"
#include "fake_pages.hpp"
#include "library_internals.hpp"
#include "tslice/container.hpp"
#include "tslice/write.hpp"

using namespace tslice;
using namespace tslice_test;

namespace {

std::string crc_text(std::uint32_t crc) {
    char text[16];
    std::snprintf(text, sizeof text, "<%08x>", crc);
    return text;
}

// A framing with a prefix and a suffix that holds the CRC-32 of the prefix's last two bytes
// and the data.
const OutputFraming kFraming{"HEAD", 2, crc_text};

// Element i's bytes: 4 bytes of a number made from i.
std::uint32_t element(std::int64_t i) { return static_cast<std::uint32_t>(i * 2654435761u + 7); }

struct Streamed {
    std::string bytes;
    std::vector<std::int64_t> firsts;  // the chunks in the order the source was asked for them
};

// stream_framed of `total` elements into a file holding `before` (the descriptor at its end).
Streamed streamed(const TempDir& dir, std::int64_t total, std::size_t chunk_bytes, const ChunkOrder& order,
                  const std::string& before = "") {
    const fs::path path = dir.path / "stream.bin";
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(::write(fd, before.data(), before.size()) == static_cast<ssize_t>(before.size()));
    Streamed out;
    const ChunkSource source = [&](std::int64_t first, std::int64_t count, std::byte* scratch) {
        out.firsts.push_back(first);
        for (std::int64_t i = 0; i < count; ++i) {
            const std::uint32_t value = element(first + i);
            std::memcpy(scratch + 4 * i, &value, 4);
        }
        return static_cast<const std::byte*>(scratch);
    };
    stream_framed(fd, "the test file", kFraming, 4, {total}, source, chunk_bytes, order);
    // The descriptor is where writing in order would have left it.
    CHECK(::lseek(fd, 0, SEEK_CUR) == static_cast<off_t>(before.size() + 4 + 4 * total + 10));
    ::close(fd);
    out.bytes = read_file(path);
    return out;
}

}  // namespace

TEST_CASE("stream_framed: backwards, the chunks from the last to the first, the same bytes and CRC") {
    TempDir dir;
    for (const std::int64_t total : {0, 1, 5, 16, 17, 1000}) {
        CAPTURE(total);
        const Streamed in_order = streamed(dir, total, 64, {});
        const Streamed backwards = streamed(dir, total, 64, {true, 0});
        std::string expected = "HEAD";
        for (std::int64_t i = 0; i < total; ++i) {
            const std::uint32_t value = element(i);
            expected.append(reinterpret_cast<const char*>(&value), 4);
        }
        expected += crc_text(crc32_update(0, reinterpret_cast<const std::byte*>(expected.data()) + 2, expected.size() - 2));
        CHECK(in_order.bytes == expected);
        CHECK(backwards.bytes == expected);
        // 16 elements a chunk; one chunk is produced once, in either order.
        const std::int64_t chunks = (total + 15) / 16;
        REQUIRE(backwards.firsts.size() == static_cast<std::size_t>(chunks));
        for (std::int64_t k = 0; k < chunks; ++k) {
            CHECK(in_order.firsts[static_cast<std::size_t>(k)] == 16 * k);
            CHECK(backwards.firsts[static_cast<std::size_t>(k)] == 16 * (chunks - 1 - k));
        }
    }
}

TEST_CASE("stream_framed: backwards from a base, what the descriptor held before stays") {
    TempDir dir;
    const Streamed in_order = streamed(dir, 100, 64, {}, "abc");
    const Streamed backwards = streamed(dir, 100, 64, {true, 3}, "abc");
    CHECK(in_order.bytes.substr(0, 3) == "abc");
    CHECK(backwards.bytes == in_order.bytes);
}

TEST_CASE("stream_framed: backwards, a source that fails half way leaves no prefix before the hole") {
    TempDir dir;
    for (const bool backwards : {false, true}) {
        CAPTURE(backwards);
        const fs::path path = dir.path / "failed.bin";
        const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        REQUIRE(fd >= 0);
        int produced = 0;
        const ChunkSource failing = [&](std::int64_t, std::int64_t count, std::byte* scratch) -> const std::byte* {
            if (++produced == 3) throw std::runtime_error("no more data");
            std::memset(scratch, 1, static_cast<std::size_t>(count) * 4);
            return scratch;
        };
        CHECK_THROWS_WITH(stream_framed(fd, "the test file", kFraming, 4, {100}, failing, 64, {backwards, 0}),
                          "no more data");
        ::close(fd);
        const std::string bytes = read_file(path);
        REQUIRE(bytes.size() >= 4);
        // In order, the prefix and what came before the failure; backwards, no prefix.
        CHECK((bytes.substr(0, 4) == "HEAD") == !backwards);
    }
}

TEST_CASE("stream_framed: a source that fails at its first chunk writes nothing, in either order") {
    TempDir dir;
    for (const bool backwards : {false, true}) {
        const fs::path path = dir.path / "failed.bin";
        const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        REQUIRE(fd >= 0);
        const ChunkSource failing = [](std::int64_t, std::int64_t, std::byte*) -> const std::byte* {
            throw std::runtime_error("no data");
        };
        CHECK_THROWS_WITH(stream_framed(fd, "the test file", kFraming, 4, {100}, failing, 64, {backwards, 0}),
                          "no data");
        ::close(fd);
        CHECK(read_file(path).empty());
    }
}

namespace {

// write_view of `n` uint32 reversed (a walk down the input) to `path`, with an input whose
// page cache holds everything (`cached`) or nothing; the read aheads asked for are recorded.
struct ReversedWrite {
    std::vector<std::uint32_t> data;
    std::vector<std::pair<std::int64_t, std::int64_t>> asked;

    explicit ReversedWrite(std::int64_t n) : data(static_cast<std::size_t>(n)) {
        for (std::int64_t i = 0; i < n; ++i) data[static_cast<std::size_t>(i)] = element(i);
    }
    std::int64_t size() const { return static_cast<std::int64_t>(data.size()); }

    void write(const std::string& path, bool cached, const OutputFraming& framing = {}) {
        View reversed = View::contiguous({size()}, 4);
        reversed.byte_offset = (size() - 1) * 4;
        reversed.byte_strides = {-4};
        const auto* bytes = reinterpret_cast<const std::byte*>(data.data());
        FakePages fake(bytes);
        fake.on_read_ahead = [&](std::int64_t begin, std::int64_t end) { asked.emplace_back(begin, end); };
        fake.on_cached = [cached](std::int64_t) { return cached; };
        const InputPages pages = fake.pages();
        asked.clear();
        // Chunks of 4 KiB, read ahead on the copy's thread: every ask is recorded before
        // write_view returns.
        set_read_chunk_for_tests(4096);
        write_view(path, framing, bytes, reversed, pages, WriteOptions{});
        set_read_chunk_for_tests(0);
    }

    std::string expected() const {
        std::string out;
        for (auto i = size(); i-- > 0;) out.append(reinterpret_cast<const char*>(&data[static_cast<std::size_t>(i)]), 4);
        return out;
    }
    // Whether the input was asked for from its start up (else from its end down), all of it.
    bool asked_upwards() const {
        REQUIRE(asked.size() > 1);
        CHECK(asked.front().first != asked.back().first);
        const bool up = asked.front().first == 0;
        CHECK((up ? asked.back().second : asked.front().second) == 4 * size());
        for (std::size_t k = 1; k < asked.size(); ++k)
            CHECK((up ? asked[k].first == asked[k - 1].second : asked[k].second == asked[k - 1].first));
        return up;
    }
};

}  // namespace

TEST_CASE("write_view: a copy walking a cold file down is written backwards, reading the file upwards") {
    TempDir dir;
    ReversedWrite reversed(10000);  // 40 kB: ten chunks
    const std::string path = (dir.path / "out.bin").string();

    reversed.write(path, false, OutputFraming{"HEAD", 0, {}});
    CHECK(read_file(path) == "HEAD" + reversed.expected());
    CHECK(reversed.asked_upwards());

    // Where the page cache holds the input there is nothing to gain: in order, read downwards.
    reversed.write(path, true, OutputFraming{"HEAD", 0, {}});
    CHECK(read_file(path) == "HEAD" + reversed.expected());
    CHECK_FALSE(reversed.asked_upwards());

    // A suffix's CRC-32 is the same either way.
    reversed.write(path, false, kFraming);
    const std::string cold = read_file(path);
    reversed.write(path, true, kFraming);
    CHECK(cold == read_file(path));
    CHECK(cold.substr(4, reversed.expected().size()) == reversed.expected());
}

TEST_CASE("write_view: into a descriptor, backwards from its offset, or in order where it appends") {
    TempDir dir;
    ReversedWrite reversed(10000);
    const fs::path path = dir.path / "out.bin";
    for (const bool appends : {false, true}) {
        CAPTURE(appends);
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | (appends ? O_APPEND : 0), 0644);
        REQUIRE(fd >= 0);
        REQUIRE(::write(fd, "ab", 2) == 2);
        reversed.write("/dev/fd/" + std::to_string(fd), false);
        CHECK(::lseek(fd, 0, SEEK_CUR) == static_cast<off_t>(2 + 4 * reversed.size()));
        REQUIRE(::write(fd, "z", 1) == 1);
        ::close(fd);
        CHECK(read_file(path) == "ab" + reversed.expected() + "z");
        // Appending places every write at the end: the chunks go in order.
        CHECK(reversed.asked_upwards() == !appends);
    }
}
