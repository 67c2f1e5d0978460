// A gather's rows read where they lie: the reads a range of elements needs, and a copy made
// of them equal to copy_view's, read in the order of the input.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <vector>

#include "gather_fixture.hpp"
#include "fake_pages.hpp"
#include "library_internals.hpp"
#include "tslice/copy.hpp"
#include "tslice/gather.hpp"
#include "tslice/view.hpp"

using namespace tslice;
using namespace gather_fixture;


TEST_CASE("row reads: which gathers read whole rows") {
    CHECK(gathered_row_bytes(gather({50, 8, 3}, 0, {4, 1})) == 8 * 3 * 4);
    CHECK(gathered_row_bytes(gather({50, 8, 3}, 1, {4, 1})) == 3 * 4);
    CHECK(gathered_row_bytes(gather({50, 8, 3}, 2, {2, 1})) == 4);  // along the innermost axis: elements
    CHECK(gathered_row_bytes(gather({50, 8, 3}, 0, {})) == 0);       // no elements
    CHECK(gathered_row_bytes(View::contiguous({50, 8}, 4)) == 0);  // no table
}

TEST_CASE("row reads: the reads of any range of elements make copy_view's bytes") {
    const std::vector<std::byte> input = input_bytes(50 * 8 * 3 * 4);
    View stepped = gather({50, 8, 3}, 0, random_indices(40, 50, 5));  // rows, then every other column
    stepped.shape[2] = 2;
    stepped.byte_strides[2] = 8;
    for (const View& view : {gather({50, 8, 3}, 0, random_indices(40, 50, 1)),
                             gather({50, 8, 3}, 1, random_indices(5, 8, 2)),
                             gather({50, 8, 3}, 2, random_indices(7, 3, 3)), stepped}) {
        const std::int64_t total = view.element_count();
        std::vector<std::byte> want(static_cast<std::size_t>(total) * 4);
        copy_view(input.data(), view, want.data(), 0, total);
        for (const auto [first, count] : {std::pair<std::int64_t, std::int64_t>{0, total}, {5, 1}, {7, 50}, {23, 24}}) {
            CAPTURE(first);
            CAPTURE(count);
            std::vector<RowRead> reads;
            list_row_reads(view, first, count, reads);
            std::vector<std::byte> got(static_cast<std::size_t>(count) * 4);
            std::int64_t covered = 0;
            for (const RowRead& read : reads) {
                std::memcpy(got.data() + read.output, input.data() + read.input, static_cast<std::size_t>(read.bytes));
                CHECK(read.output == covered);  // in output order, each byte once
                covered += read.bytes;
            }
            CHECK(covered == count * 4);
            CHECK(std::equal(got.begin(), got.end(), want.begin() + first * 4));
        }
    }
}

TEST_CASE("row reads: rows read in input order, close ones together, zeros where the table says") {
    const Shape shape = {4000, 64};  // rows of 256 bytes
    const std::vector<std::byte> input = input_bytes(4000 * 64 * 4);
    View view = gather(shape, 0, random_indices(3000, 4000, 3));
    auto table = std::make_shared<std::vector<std::int64_t>>(*view.table);
    (*table)[17] = View::kZeroElement;
    view.table = table;
    const std::int64_t total = view.element_count();
    std::vector<std::byte> want(static_cast<std::size_t>(total) * 4);
    copy_view(input.data(), view, want.data(), 0, total);

    for (const unsigned threads : {1u, 3u}) {
        CAPTURE(threads);
        std::mutex mutex;
        std::vector<std::pair<std::int64_t, std::int64_t>> calls;
        FakePages fake(input.data());
        fake.on_read = [&](std::int64_t begin, std::int64_t bytes, std::byte* dst) {
            std::memcpy(dst, input.data() + begin, static_cast<std::size_t>(bytes));
            const std::lock_guard<std::mutex> lock(mutex);
            calls.emplace_back(begin, bytes);
        };
        fake.on_read_cached = [](std::int64_t, std::int64_t, std::byte*) -> std::int64_t { return 0; };
        const InputPages pages = fake.pages();
        WorkerPool pool(threads);
        std::vector<std::byte> got(want.size(), std::byte{0x55});
        read_gathered_rows(pool, view, pages, got.data(), 0, total);
        CHECK(got == want);
        // 3000 rows of 4000, about one in four apart: spans of many rows, fewer reads than rows.
        CHECK(calls.size() < 3000 / 4);
        for (const auto& [begin, bytes] : calls) CHECK(bytes <= kRowReadSpanBytes);
        if (threads == 1) {
            CHECK(std::is_sorted(calls.begin(), calls.end()));
            for (std::size_t k = 1; k < calls.size(); ++k)
                CHECK(calls[k].first >= calls[k - 1].first + calls[k - 1].second);
        }
    }
}

TEST_CASE("row reads: what the page cache lacks is asked for at once, then read") {
    const Shape shape = {4000, 64};
    const std::vector<std::byte> input = input_bytes(4000 * 64 * 4);
    const View view = gather(shape, 0, random_indices(500, 4000, 4));
    const std::int64_t total = view.element_count();
    std::vector<std::byte> want(static_cast<std::size_t>(total) * 4);
    copy_view(input.data(), view, want.data(), 0, total);

    // Bytes below 400,000 are "cached"; a read from the cache stops where they end.
    const std::int64_t cached_below = 400000;
    std::vector<std::pair<std::int64_t, std::int64_t>> asked, waited;
    FakePages fake(input.data());
    fake.on_read_cached = [&](std::int64_t begin, std::int64_t bytes, std::byte* dst) {
        const std::int64_t got = std::clamp<std::int64_t>(cached_below - begin, 0, bytes);
        std::memcpy(dst, input.data() + begin, static_cast<std::size_t>(got));
        return got;
    };
    fake.on_read_ahead = [&](std::int64_t begin, std::int64_t end) {
        CHECK(waited.empty());  // every request before the first waiting read
        asked.emplace_back(begin, end);
    };
    fake.on_read = [&](std::int64_t begin, std::int64_t bytes, std::byte* dst) {
        CHECK(begin + bytes > cached_below);
        std::memcpy(dst, input.data() + begin, static_cast<std::size_t>(bytes));
        waited.emplace_back(begin, begin + bytes);
    };
    const InputPages pages = fake.pages();
    WorkerPool pool(1);
    std::vector<std::byte> got(want.size());
    read_gathered_rows(pool, view, pages, got.data(), 0, total);
    CHECK(got == want);
    CHECK_FALSE(waited.empty());
    CHECK(asked == waited);
}

TEST_CASE("row reads: a cold chunk asks for the next chunk's rows too, a warm one does not") {
    const Shape shape = {4000, 64};  // rows of 256 bytes
    const std::vector<std::byte> input = input_bytes(4000 * 64 * 4);
    const View view = gather(shape, 0, {10, 3000, 20, 1000});
    for (const bool cold : {true, false}) {
        CAPTURE(cold);
        std::vector<std::pair<std::int64_t, std::int64_t>> asked;
        FakePages fake(input.data());
        fake.on_read_cached = [&](std::int64_t begin, std::int64_t bytes, std::byte* dst) -> std::int64_t {
            if (cold) return 0;
            std::memcpy(dst, input.data() + begin, static_cast<std::size_t>(bytes));
            return bytes;
        };
        fake.on_read_ahead = [&](std::int64_t begin, std::int64_t end) { asked.emplace_back(begin, end); };
        fake.on_read = [&](std::int64_t begin, std::int64_t bytes, std::byte* dst) {
            std::memcpy(dst, input.data() + begin, static_cast<std::size_t>(bytes));
        };
        const InputPages pages = fake.pages();
        WorkerPool pool(2);
        std::vector<std::byte> got(2 * 64 * 4);
        // The first two rows (10 and 3000), the next two (20 and 1000) asked for ahead.
        read_gathered_rows(pool, view, pages, got.data(), 0, 2 * 64, 2 * 64);
        CHECK(std::memcmp(got.data(), input.data() + 10 * 256, 256) == 0);
        CHECK(std::memcmp(got.data() + 256, input.data() + 3000 * 256, 256) == 0);
        std::sort(asked.begin(), asked.end());
        if (cold)
            CHECK(asked == std::vector<std::pair<std::int64_t, std::int64_t>>{
                               {10 * 256, 11 * 256}, {20 * 256, 21 * 256}, {1000 * 256, 1001 * 256},
                               {3000 * 256, 3001 * 256}});
        else
            CHECK(asked.empty());
    }
}
