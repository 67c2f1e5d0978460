// A gather copied window by window in the input's order: which gathers are, the same bytes as
// copy_view whatever the window, the region and the ranges asked for, and every region's
// pages unmapped once read, never outside what the view reads.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <utility>
#include <vector>

#include "gather_fixture.hpp"
#include "fake_pages.hpp"
#include "library_internals.hpp"
#include "tslice/copy.hpp"
#include "tslice/view.hpp"

using namespace tslice;
using namespace gather_fixture;

namespace {

ReadSizes sizes_of(std::int64_t window_bytes, std::int64_t region_bytes, std::int64_t spread_bytes = 0) {
    ReadSizes sizes;
    sizes.gather_window_bytes = window_bytes;
    sizes.gather_region_bytes = region_bytes;
    sizes.scattered_gather_bytes = spread_bytes;
    return sizes;
}

// Records the ranges unmapped.
struct Unmaps {
    std::mutex mutex;
    std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
    FakePages fake{nullptr};
    InputPages pages() {
        fake.on_unmap = [this](std::int64_t begin, std::int64_t end) {
            const std::lock_guard<std::mutex> lock(mutex);
            ranges.emplace_back(begin, end);
        };
        return fake.pages();
    }
};

View with_zero_entries(View view, std::initializer_list<std::size_t> entries) {
    auto table = std::make_shared<std::vector<std::int64_t>>(*view.table);
    for (const std::size_t entry : entries) (*table)[entry] = View::kZeroElement;
    view.table = table;
    return view;
}

std::vector<View> gathers() {
    View stepped = gather({300, 8, 3}, 0, random_indices(200, 300, 5));  // rows, then every other column
    stepped.shape[2] = 2;
    stepped.byte_strides[2] = 8;
    return {
        with_zero_entries(gather({3000, 16}, 0, random_indices(2500, 3000, 1)), {3, 17}),  // rows of 64 bytes
        gather({50, 40, 3}, 1, random_indices(70, 40, 2)),                                 // rows of 12 bytes
        gather({200, 30}, 1, random_indices(45, 30, 3)),                                  // single elements
        gather({4000}, 0, random_indices(3000, 4000, 4), 3),                              // 3-byte elements
        stepped,
    };
}

std::vector<std::byte> copied(const View& view, const std::vector<std::byte>& input) {
    std::vector<std::byte> bytes(static_cast<std::size_t>(view.element_count()) * view.itemsize);
    copy_view(input.data(), view, bytes.data(), 0, view.element_count());
    return bytes;
}

}  // namespace

TEST_CASE("scattered gather: gathers whose entries spread far, from an input that can be unmapped") {
    const View rows = gather({4000, 16}, 0, {5, 3900, 17});  // entries 3895 rows of 64 bytes apart
    Unmaps unmaps;
    const InputPages pages = unmaps.pages();
    CHECK(ScatteredGather::suits(rows, pages, sizes_of(1024, 64, 3895 * 64 - 1)));
    CHECK_FALSE(ScatteredGather::suits(rows, pages, sizes_of(1024, 64, 3895 * 64)));
    CHECK_FALSE(ScatteredGather::suits(rows, InputPages{}, sizes_of(1024, 64)));  // data in memory
    CHECK_FALSE(ScatteredGather::suits(View::contiguous({4000, 16}, 4), pages, sizes_of(1024, 64)));  // no table
    CHECK_FALSE(ScatteredGather::suits(with_zero_entries(rows, {0, 1, 2}), pages, sizes_of(1024, 64)));  // all zeros
    CHECK_FALSE(ScatteredGather::suits(gather({4000, 16}, 0, {}), pages, sizes_of(1024, 64)));  // empty
}

TEST_CASE("scattered gather: copy_view's bytes, whatever the window, the region and the ranges asked for") {
    const std::vector<std::byte> input = input_bytes(3000 * 16 * 4);
    for (const View& view : gathers()) {
        const std::vector<std::byte> want = copied(view, input);
        const std::int64_t total = view.element_count();
        const auto itemsize = static_cast<std::int64_t>(view.itemsize);
        for (const std::int64_t window : {std::int64_t{1}, std::int64_t{28}, std::int64_t{256}, std::int64_t{1} << 20})
            for (const std::int64_t region : {std::int64_t{1}, std::int64_t{64}, std::int64_t{5000}, std::int64_t{1} << 20})
                for (const unsigned threads : {1u, 3u}) {
                    CAPTURE(view.shape);
                    CAPTURE(window);
                    CAPTURE(region);
                    CAPTURE(threads);
                    Unmaps unmaps;
                    WorkerPool pool(threads);
                    ScatteredGather scattered(input.data(), view, unmaps.pages(), sizes_of(window, region));
                    CHECK(scattered.window_elements() >= 1);
                    CHECK(scattered.window_elements() * itemsize <= std::max(window, itemsize));
                    // In order, in ranges of any length.
                    std::vector<std::byte> got(want.size(), std::byte{0x55});
                    std::mt19937 random(static_cast<unsigned>(window + region + threads));
                    for (std::int64_t first = 0; first < total;) {
                        const std::int64_t count =
                            std::min(total - first, std::uniform_int_distribution<std::int64_t>(1, 900)(random));
                        scattered.copy(pool, got.data() + first * itemsize, first, count);
                        first += count;
                    }
                    CHECK(got == want);
                    // Backwards, and a range across windows.
                    std::vector<std::byte> range(static_cast<std::size_t>(std::min<std::int64_t>(total, 700)) *
                                                 view.itemsize);
                    const std::int64_t first = total - static_cast<std::int64_t>(range.size()) / itemsize;
                    scattered.copy(pool, range.data(), first, static_cast<std::int64_t>(range.size()) / itemsize);
                    CHECK(std::equal(range.begin(), range.end(), want.begin() + first * itemsize));
                    scattered.copy(pool, range.data(), 0, 1);
                    CHECK(std::equal(range.begin(), range.begin() + itemsize, want.begin()));
                }
    }
}

TEST_CASE("scattered gather: each region read is unmapped, inside what the view reads") {
    const std::vector<std::byte> input = input_bytes(3000 * 16 * 4);
    for (const View& view : gathers()) {
        CAPTURE(view.shape);
        std::vector<RowRead> reads;
        list_row_reads(view, 0, view.element_count(), reads);
        View affine = view;
        affine.table = nullptr;
        affine.table_strides.clear();
        const View::EntryRange entries = *view.table_entry_range();
        const std::int64_t low = affine.span_from(0).begin + entries.low, high = affine.span_from(0).end + entries.high;
        for (const unsigned threads : {1u, 3u}) {
            Unmaps unmaps;
            WorkerPool pool(threads);
            ScatteredGather scattered(input.data(), view, unmaps.pages(), sizes_of(512, 256));
            std::vector<std::byte> got(static_cast<std::size_t>(view.element_count()) * view.itemsize);
            scattered.copy(pool, got.data(), 0, view.element_count());
            CHECK(got == copied(view, input));
            for (const auto& [begin, end] : unmaps.ranges) {
                CHECK(begin < end);
                CHECK(begin >= low);
                CHECK(end <= high);
                CHECK(end - begin <= 256 + kLargestFolioBytes);
            }
            // A read's first byte: in some range unmapped (its region's).
            for (const RowRead& read : reads) {
                if (read.input == View::kZeroElement) continue;
                CHECK(std::any_of(unmaps.ranges.begin(), unmaps.ranges.end(),
                                  [&](const auto& range) { return range.first <= read.input && read.input < range.second; }));
            }
        }
    }
}
