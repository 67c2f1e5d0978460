// Probing how a mapped input's pages are held: pages already mapped are seen mapped whole,
// pages not in memory are never touched (so a probe of a cold file reads nothing), every
// range touched is handed back, and a span too short for a sample is not probed.
#include <doctest/doctest.h>

#include <optional>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "library_internals.hpp"
#include "fake_pages.hpp"
#include "machine_skips.hpp"

using namespace tslice;
namespace fs = std::filesystem;

namespace {

struct Ranges {
    std::vector<std::pair<std::int64_t, std::int64_t>> handed_back;
    std::optional<FakePages> fake;
    // The pages of the mapping at `map`, whose ranges handed back are recorded.
    InputPages unmap(const void* map) {
        fake.emplace(static_cast<const std::byte*>(map));
        fake->on_unmap = [this](std::int64_t begin, std::int64_t end) { handed_back.emplace_back(begin, end); };
        return fake->pages();
    }
};

// How many of the pages of [map, map + bytes) are in memory.
std::size_t resident_pages(void* map, std::size_t bytes) {
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> resident((bytes + page - 1) / page);
    REQUIRE(::mincore(map, bytes, resident.data()) == 0);
    std::size_t count = 0;
    for (const unsigned char r : resident) count += r & 1;
    return count;
}

constexpr std::size_t kMapBytes = std::size_t{8} << 20;

}  // namespace

TEST_CASE("folio probe: pages already mapped are seen mapped whole; each touched range is handed back") {
    void* map = ::mmap(nullptr, kMapBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    REQUIRE(map != MAP_FAILED);
    const View::Span span{100, static_cast<std::int64_t>(kMapBytes) - 100};
    Ranges ranges;
    const FolioProbe probe = probe_folios(static_cast<const std::byte*>(map), span, 8, ranges.unmap(map));
    CHECK(probe.samples == 8);
    CHECK(probe.cached == 8);
    CHECK(probe.mapped_whole == 8);  // no fault: the second page was mapped before
    CHECK(probe.large_folios());
    CHECK(ranges.handed_back.size() == 8);
    for (const auto& [begin, end] : ranges.handed_back) {
        CHECK(span.begin <= begin);
        CHECK(begin < end);
        CHECK(end <= span.end);
    }
    ::munmap(map, kMapBytes);
}

TEST_CASE("folio probe: pages not in memory are not touched, and say nothing") {
    void* map = ::mmap(nullptr, kMapBytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(map != MAP_FAILED);
    REQUIRE(resident_pages(map, kMapBytes) == 0);
    Ranges ranges;
    const FolioProbe probe =
        probe_folios(static_cast<const std::byte*>(map), {0, static_cast<std::int64_t>(kMapBytes)}, 8, ranges.unmap(map));
    CHECK(probe.cached == 0);
    CHECK_FALSE(probe.large_folios());
    CHECK(ranges.handed_back.empty());
    CHECK(resident_pages(map, kMapBytes) == 0);
    ::munmap(map, kMapBytes);
}

TEST_CASE("folio probe: an input mostly not in memory is not taken for large folios") {
    void* map = ::mmap(nullptr, kMapBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(map != MAP_FAILED);
    std::memset(map, 1, kMapBytes / 4);  // its first quarter in memory
    const FolioProbe probe =
        probe_folios(static_cast<const std::byte*>(map), {0, static_cast<std::int64_t>(kMapBytes)}, 8, InputPages{});
    CHECK(probe.samples == 8);
    CHECK(probe.cached == 2);
    CHECK(probe.mapped_whole == 2);
    CHECK_FALSE(probe.large_folios());
    ::munmap(map, kMapBytes);
}

TEST_CASE("folio probe: a cold file is not read") {
    // In the build directory, on a disk's file system, where dropped pages really leave the
    // page cache (a tmpfs keeps them).
    const fs::path path = fs::current_path() / "tslice-folio-probe-test.bin";
    std::ofstream(path, std::ios::binary) << std::string(kMapBytes, 'x');
    const int fd = ::open(path.c_str(), O_RDONLY);
    REQUIRE(fd >= 0);
    REQUIRE(::fdatasync(fd) == 0);
    REQUIRE(::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0);
    void* map = ::mmap(nullptr, kMapBytes, PROT_READ, MAP_SHARED, fd, 0);
    REQUIRE(map != MAP_FAILED);
    if (resident_pages(map, kMapBytes) != 0) {
        // A file system that keeps its pages in memory whatever is asked (tmpfs, overlays on
        // one): there is no cold file to probe here.
        machine_skips::skip("folio probe of a cold file", "the build directory's file system kept the dropped pages");
        ::munmap(map, kMapBytes);
        ::close(fd);
        std::error_code ignored;
        fs::remove(path, ignored);
        return;
    }
    const FolioProbe probe =
        probe_folios(static_cast<const std::byte*>(map), {0, static_cast<std::int64_t>(kMapBytes)}, 16, InputPages{});
    CHECK(probe.cached == 0);
    CHECK_FALSE(probe.large_folios());
    CHECK(resident_pages(map, kMapBytes) == 0);
    ::munmap(map, kMapBytes);
    ::close(fd);
    std::error_code ignored;
    fs::remove(path, ignored);
}

TEST_CASE("folio probe: a span too short for two pages the distance apart is not probed") {
    void* map = ::mmap(nullptr, kMapBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    REQUIRE(map != MAP_FAILED);
    Ranges ranges;
    const FolioProbe probe =
        probe_folios(static_cast<const std::byte*>(map), {4096, 4096 + kFolioProbeDistance}, 8, ranges.unmap(map));
    CHECK(probe.cached == 0);
    CHECK(ranges.handed_back.empty());
    // Just long enough: one place, probed as often as asked.
    const FolioProbe just = probe_folios(static_cast<const std::byte*>(map), {4096, 8192 + kFolioProbeDistance}, 3,
                                         ranges.unmap(map));
    CHECK(just.cached == 3);
    ::munmap(map, kMapBytes);
}
