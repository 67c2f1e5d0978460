// How a gather is read from a mapped input: long rows spread far go through the mapping
// window by window where the mapping's pages are in memory and map whole, and are read with
// pread where they are not; either way the bytes are copy_view's.
#include <doctest/doctest.h>

#include <sys/mman.h>

#include <atomic>
#include <cstring>
#include <vector>

#include "gather_fixture.hpp"
#include "fake_pages.hpp"
#include "library_internals.hpp"
#include "tslice/copy.hpp"
#include "tslice/threads.hpp"

using namespace tslice;
using namespace gather_fixture;

namespace {

// A gather of rows of 1 KiB from a 4 MiB input, copied through GatherReads.
struct LongRows {
    static constexpr std::int64_t kRows = 4096;
    const std::vector<std::byte> input = input_bytes(kRows * 1024);
    const View view = gather({kRows, 256}, 0, random_indices(1000, kRows, 11));
    std::atomic<int> reads{0}, unmaps{0};  // reads: with pread, from the cache or not

    FakePages fake{input.data()};

    InputPages pages() {
        fake.on_read = [this](std::int64_t begin, std::int64_t bytes, std::byte* dst) {
            ++reads;
            std::memcpy(dst, input.data() + begin, static_cast<std::size_t>(bytes));
        };
        fake.on_read_cached = [this](std::int64_t begin, std::int64_t bytes, std::byte* dst) {
            ++reads;
            std::memcpy(dst, input.data() + begin, static_cast<std::size_t>(bytes));
            return bytes;
        };
        fake.on_read_ahead = [](std::int64_t, std::int64_t) {};
        fake.on_unmap = [this](std::int64_t, std::int64_t) { ++unmaps; };
        return fake.pages();
    }

    static ReadSizes sizes() {
        ReadSizes sizes;
        sizes.read_row_bytes = 512;
        sizes.scattered_gather_bytes = 1 << 20;  // the rows spread over 4 MiB
        sizes.gather_region_bytes = 256 << 10;
        return sizes;
    }

    // The gather copied from `mapped` (the input's bytes as the mapping holds them).
    std::vector<std::byte> copy(const std::byte* mapped) {
        const InputPages input_pages = pages();
        GatherReads gather_reads(mapped, view, input_pages, sizes());
        REQUIRE(gather_reads);
        WorkerPool pool(2);
        std::vector<std::byte> got(static_cast<std::size_t>(view.element_count()) * 4);
        gather_reads.copy(pool, got.data(), 0, view.element_count());
        return got;
    }

    std::vector<std::byte> want() const {
        std::vector<std::byte> bytes(static_cast<std::size_t>(view.element_count()) * 4);
        copy_view(input.data(), view, bytes.data(), 0, view.element_count());
        return bytes;
    }
};

}  // namespace

TEST_CASE("gather reads: long rows of an input whose pages are mapped are copied through the mapping") {
    LongRows rows;
    const std::size_t bytes = rows.input.size();
    void* map = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    REQUIRE(map != MAP_FAILED);
    std::memcpy(map, rows.input.data(), bytes);
    CHECK(rows.copy(static_cast<const std::byte*>(map)) == rows.want());
    CHECK(rows.reads == 0);
    CHECK(rows.unmaps > 0);
    ::munmap(map, bytes);
}

TEST_CASE("gather reads: long rows of an input whose pages are not in memory are read with pread") {
    LongRows rows;
    const std::size_t bytes = rows.input.size();
    // Never touched: its pages hold zeros, not the input, if anything reads them.
    void* map = ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(map != MAP_FAILED);
    CHECK(rows.copy(static_cast<const std::byte*>(map)) == rows.want());
    CHECK(rows.reads > 0);
    ::munmap(map, bytes);
}

TEST_CASE("gather reads: short rows spread far are copied through the mapping, never read with pread") {
    LongRows rows;
    ReadSizes sizes = LongRows::sizes();
    sizes.read_row_bytes = 2048;  // 1 KiB rows are short
    const InputPages pages = rows.pages();
    GatherReads gather_reads(rows.input.data(), rows.view, pages, sizes);
    REQUIRE(gather_reads);
    WorkerPool pool(1);
    std::vector<std::byte> got(static_cast<std::size_t>(rows.view.element_count()) * 4);
    gather_reads.copy(pool, got.data(), 0, rows.view.element_count());
    CHECK(got == rows.want());
    CHECK(rows.reads == 0);
}
