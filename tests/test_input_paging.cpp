// The input's pages around a copy: what is released behind it and what is asked for ahead of
// it, in the order it walks, never the gaps it skips.
#include <doctest/doctest.h>


#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "fake_pages.hpp"
#include "library_internals.hpp"
#include "tslice/expr.hpp"
#include "tslice/plan.hpp"
#include "tslice/view.hpp"

using namespace tslice;

namespace {

using Ranges = std::vector<std::pair<std::int64_t, std::int64_t>>;

View view_of(const char* text, const std::vector<std::int64_t>& shape, std::size_t itemsize = 4) {
    return apply_plan(plan_index(parse_index_expr(text), shape), View::contiguous(shape, itemsize));
}

ReadSizes small_sizes(double read_ahead_bytes, std::int64_t smallest_block) {
    ReadSizes sizes;
    sizes.read_ahead_bytes = read_ahead_bytes;
    sizes.read_ahead_block_bytes = smallest_block;
    sizes.read_ahead_thread = false;  // the asks in order, on this thread, as they are made
    sizes.read_in_skips_cached = false;  // the fake page cache holds every page
    return sizes;
}

// The ranges asked for while a copy walks the view `step` elements at a time, and whether each
// `before` left the asks at least `ahead` elements' worth of bytes beyond the copy.
// With `reading_in`, the input can also read ranges in (InputPages::read_in): those go to `read_in`.
struct Walk {
    Ranges asked, released, read_in;
    bool reads_ahead = false;
    std::int64_t block_elements = 0;
};

Walk walk(const View& view, const ReadSizes& sizes, std::int64_t step, bool reading_in = false) {
    Walk out;
    FakePages fake(nullptr);
    fake.on_release = [&](std::int64_t begin, std::int64_t end) { out.released.emplace_back(begin, end); };
    fake.on_read_ahead = [&](std::int64_t begin, std::int64_t end) { out.asked.emplace_back(begin, end); };
    if (reading_in) fake.on_read_in = [&](std::int64_t begin, std::int64_t end) { out.read_in.emplace_back(begin, end); };
    const InputPages pages = fake.pages();
    InputPaging paging(view, pages, sizes);
    out.reads_ahead = paging.reads_ahead();
    out.block_elements = paging.block_elements();
    for (std::int64_t element = step; element < view.element_count(); element += step) paging.before(element);
    return out;
}

std::int64_t bytes_of(const Ranges& ranges) {
    std::int64_t bytes = 0;
    for (const auto& [begin, end] : ranges) bytes += end - begin;
    return bytes;
}

}  // namespace

TEST_CASE("input paging: a walk without gaps is read in, either way; ranges apart and short ones are asked for") {
    const std::vector<std::int64_t> shape = {16, 32, 64};  // rows of 8 KiB, 128 KiB in all
    // Requests of a quarter of 32 KiB: a whole row each where a row is a block.
    ReadSizes sizes = small_sizes(32 << 10, 1 << 10);
    sizes.read_in_bytes = 1 << 10;
    for (const std::string text : {"[1:-1]", "[:, :, ::-1]", "[::-1]", "[::-1, ::-1, ::-1]"}) {
        CAPTURE(text);
        const View view = view_of(text.c_str(), shape);
        const Walk got = walk(view, sizes, 1000, true);
        CHECK(got.asked.empty());
        CHECK(got.read_in.size() > 4);
        const View::Span whole = view.span_from(0);
        CHECK(bytes_of(got.read_in) == whole.end - whole.begin);  // every byte once
    }
    // Every fourth row: the first is read in, the rest, each 24 KiB past the last, asked for.
    const Walk stepped = walk(view_of("[::4]", shape), sizes, 1000, true);
    CHECK(stepped.read_in == Ranges{{0, 8 << 10}});
    CHECK(stepped.asked == Ranges{{32 << 10, 40 << 10}, {64 << 10, 72 << 10}, {96 << 10, 104 << 10}});
    // Requests shorter than read_in_bytes are asked for, walk or not.
    const Walk short_ones = walk(view_of("[::-1]", shape), small_sizes(16 << 10, 1 << 10), 1000, true);
    CHECK(short_ones.read_in.empty());
    CHECK(bytes_of(short_ones.asked) == 128 << 10);
    // Rows reversed, each in two requests read forwards: within a row the walk goes on, from
    // row to row it jumps back, so the first half of each row but the first is asked for.
    ReadSizes split = small_sizes(16 << 10, 1 << 10);
    split.read_in_bytes = 1 << 10;
    const Walk split_rows = walk(view_of("[::-1]", shape), split, 1000, true);
    REQUIRE(split_rows.read_in.size() == 17);
    CHECK(split_rows.read_in.front() == std::pair<std::int64_t, std::int64_t>{120 << 10, 124 << 10});
    for (std::size_t k = 1; k < split_rows.read_in.size(); ++k) CHECK(split_rows.read_in[k].first % (8 << 10) == 4 << 10);
    CHECK(split_rows.asked.size() == 15);
    for (const auto& [begin, end] : split_rows.asked) CHECK(begin % (8 << 10) == 0);
}

TEST_CASE("input paging: a stretch the page cache holds is not read in; one it lacks a page of is") {
    const std::vector<std::int64_t> shape = {16, 32, 64};  // rows of 8 KiB, 128 KiB in all
    ReadSizes sizes = small_sizes(32 << 10, 1 << 10);
    sizes.read_in_bytes = 1 << 10;
    sizes.read_in_skips_cached = true;
    // Every page cached but those of the third row: only the requests that reach it read in.
    Ranges read_in, asked_where;
    FakePages fake(nullptr);
    fake.on_read_in = [&](std::int64_t begin, std::int64_t end) { read_in.emplace_back(begin, end); };
    fake.on_read_ahead = [&](std::int64_t begin, std::int64_t end) { asked_where.emplace_back(begin, end); };
    fake.on_cached = [](std::int64_t at) { return at < (16 << 10) || at >= (24 << 10); };
    const InputPages pages = fake.pages();
    const View view = view_of("[:]", shape);
    InputPaging paging(view, pages, sizes);
    REQUIRE(paging.reads_ahead());
    for (std::int64_t element = 1000; element < view.element_count(); element += 1000) paging.before(element);
    // Requests of a row each (8 KiB): the third row's is the one read in.
    CHECK(read_in == Ranges{{16 << 10, 24 << 10}});
    CHECK(asked_where.empty());
}

TEST_CASE("input paging: a reversed walk is asked for from the end down, every byte once") {
    const std::vector<std::int64_t> shape = {16, 32, 64};  // rows of 8 KiB, 128 KiB in all
    // Every element reversed: the asks go down the input, one after another.
    const Walk whole = walk(view_of("[::-1, ::-1, ::-1]", shape), small_sizes(16 << 10, 1 << 10), 1000);
    REQUIRE(whole.reads_ahead);
    CHECK(whole.block_elements == 16 * 32 * 64);
    REQUIRE_FALSE(whole.asked.empty());
    CHECK(whole.asked.front().second == 128 << 10);
    CHECK(whole.asked.back().first == 0);
    for (std::size_t k = 1; k < whole.asked.size(); ++k) CHECK(whole.asked[k].second == whole.asked[k - 1].first);
    // Rows reversed, each read forwards: rows from the last down, each row's halves in order.
    const Walk rows = walk(view_of("[::-1]", shape), small_sizes(16 << 10, 1 << 10), 1000);
    REQUIRE(rows.reads_ahead);
    CHECK(bytes_of(rows.asked) == 128 << 10);
    const Ranges halves = {{120 << 10, 124 << 10}, {124 << 10, 128 << 10}, {112 << 10, 116 << 10}};
    REQUIRE(rows.asked.size() == 32);
    CHECK(Ranges(rows.asked.begin(), rows.asked.begin() + 3) == halves);
}

TEST_CASE("input paging: a walk that skips rows asks for the rows it reads, never the ones between") {
    const std::vector<std::int64_t> shape = {32, 16, 64};  // rows of 4 KiB
    const Walk got = walk(view_of("[::4]", shape), small_sizes(16 << 10, 1 << 10), 100);
    REQUIRE(got.reads_ahead);
    CHECK(got.block_elements == 16 * 64);
    CHECK(bytes_of(got.asked) == 8 * 4096);
    for (const auto& [begin, end] : got.asked) {
        CAPTURE(begin);
        const std::int64_t row = begin / 4096;
        CHECK(row % 4 == 0);
        CHECK(end <= (row + 1) * 4096);
    }
}

TEST_CASE("input paging: how far ahead the asks reach") {
    const std::vector<std::int64_t> shape = {64, 1024};  // 256 KiB
    const View view = view_of("[::-1]", shape);
    std::int64_t lowest_asked = 256 << 10;
    FakePages fake(nullptr);
    fake.on_read_ahead = [&](std::int64_t begin, std::int64_t end) {
        CHECK(end <= lowest_asked);
        lowest_asked = begin;
    };
    const InputPages pages = fake.pages();
    InputPaging paging(view, pages, small_sizes(32 << 10, 1 << 10));
    // At once: the first 32 KiB the copy reads, the end of the input.
    CHECK(lowest_asked == (256 - 32) << 10);
    for (std::int64_t element = 1024; element < view.element_count(); element += 1024) {
        paging.before(element);
        const std::int64_t copy_at = (256 << 10) - element * 4;
        CHECK(copy_at - lowest_asked >= std::min<std::int64_t>(32 << 10, copy_at));
        CHECK(copy_at - lowest_asked <= (32 + 8) << 10);
    }
    CHECK(lowest_asked == 0);
}

TEST_CASE("input paging: nothing asked for where the copy reads few pages of each block, or scattered") {
    // [:, ::3] reads one row of 8 KiB in three: blocks of one row, smaller than the smallest.
    const std::vector<std::int64_t> shape = {8, 30, 2048};
    const Walk sparse = walk(view_of("[:, ::3]", shape), small_sizes(64 << 10, 16 << 10), 500);
    CHECK_FALSE(sparse.reads_ahead);
    CHECK(sparse.asked.empty());
    CHECK_FALSE(sparse.released.empty());
    // With a smaller smallest block, each row read is its own block.
    const Walk rows = walk(view_of("[:, ::3]", shape), small_sizes(64 << 10, 4 << 10), 500);
    CHECK(rows.reads_ahead);
    CHECK(rows.block_elements == 2048);
    CHECK(bytes_of(rows.asked) == 8 * 10 * 2048 * 4);
    // One element in each page still reads every page: one block, the whole input.
    const Walk columns = walk(view_of("[..., 5]", {64, 1024}), small_sizes(64 << 10, 4 << 10), 8);
    CHECK(columns.reads_ahead);
    CHECK(columns.block_elements == 64);

    View gather = View::contiguous({2, 1 << 20}, 4);
    gather.table = std::make_shared<const std::vector<std::int64_t>>(std::vector<std::int64_t>{4 << 20, 0});
    gather.byte_strides = {0, 4};
    gather.table_strides = {1, 0};
    const Walk scattered = walk(gather, small_sizes(64 << 10, 4 << 10), 1000);
    CHECK_FALSE(scattered.reads_ahead);
    CHECK(scattered.asked.empty());
    // Either row may be read at any time: nothing of the input is released.
    for (const auto& [begin, end] : scattered.released) CHECK((begin >= end || begin >= 8 << 20 || end <= 0));
}

TEST_CASE("input paging: a gather whose walk leaves rows behind releases them") {
    // Columns 3, 0 and 7 of each 4 KiB row, the rows in order: the table stays inside a row.
    View columns = View::contiguous({256, 3}, 4);
    columns.table = std::make_shared<const std::vector<std::int64_t>>(std::vector<std::int64_t>{12, 0, 28});
    columns.byte_strides = {4096, 0};
    columns.table_strides = {0, 1};
    const Walk got = walk(columns, small_sizes(64 << 10, 4 << 10), 3 * 16);
    std::int64_t released_below = 0;
    for (const auto& [begin, end] : got.released)
        if (begin < end && begin <= released_below) released_below = std::max(released_below, end);
    // All but the last row read and what InputPaging keeps of what it released before.
    CHECK(released_below >= 255 * 4096 - kLargestFolioBytes);

    InputPaging without(view_of("[::-1]", {64, 1024}), InputPages{}, small_sizes(64 << 10, 4 << 10));
    CHECK_FALSE(without.reads_ahead());
    CHECK_FALSE(without.releases());
}

namespace {

// What the asking thread did for a walk that never moves: the ranges it asked for and mapped,
// once it has asked for at least four (what 64 KiB of read-ahead in steps of a quarter asks
// for at the start, a step split where a block ends). The mapping that follows an ask is made
// before the thread looks for the next request, so it is in.
struct Asker {
    Ranges asked, mapped;
};

Asker ask_and_map(const View& view, bool cached, bool through_mapping = true) {
    ReadSizes sizes = small_sizes(64 << 10, 4 << 10);
    sizes.read_ahead_thread = true;
    std::mutex mutex;
    Asker out;
    out.asked.reserve(64);
    out.mapped.reserve(64);
    FakePages fake(nullptr);
    fake.on_read_ahead = [&](std::int64_t begin, std::int64_t end) {
        const std::lock_guard<std::mutex> lock(mutex);
        out.asked.emplace_back(begin, end);
    };
    fake.on_read_cached = [cached](std::int64_t, std::int64_t bytes, std::byte*) { return cached ? bytes : 0; };
    fake.on_map_ahead = [&](std::int64_t begin, std::int64_t end) {
        const std::lock_guard<std::mutex> lock(mutex);
        out.mapped.emplace_back(begin, end);
    };
    const InputPages pages = fake.pages();
    {
        InputPaging paging(view, pages, sizes, through_mapping);
        for (int wait = 0; wait < 5000; ++wait) {
            {
                const std::lock_guard<std::mutex> lock(mutex);
                if (out.asked.size() >= 4) break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }
    return out;
}

}  // namespace

TEST_CASE("input paging: what a small result reads through the mapping is mapped ahead, behind the asks") {
    const std::vector<std::int64_t> shape = {16, 32, 1024};  // 2 MiB, read backwards below
    const View small = view_of("[::-1, :, ::8]", shape);     // a result of an eighth of it
    const Asker got = ask_and_map(small, true);
    REQUIRE(got.asked.size() >= 4);
    // Two requests behind the asks: all but the last two asked for.
    CHECK(got.mapped == Ranges(got.asked.begin(), got.asked.end() - 2));
    // Nothing mapped where the page cache lacks it, or for a result as large as the input, or
    // where the copy does not read through the mapping.
    CHECK(ask_and_map(small, false).mapped.empty());
    CHECK(ask_and_map(view_of("[::-1]", shape), true).mapped.empty());
    CHECK(ask_and_map(small, true, false).mapped.empty());
}
