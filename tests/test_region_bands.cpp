// A region source's box read a band at a time: what the read stage hands out equals the same
// result copied from the whole array, and each band is read once, only the box's rows, whole
// chunk rows at a time.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "library_internals.hpp"
#include "thrown_error.hpp"
#include "tslice/copy.hpp"
#include "tslice/error.hpp"
#include "tslice/expr.hpp"
#include "tslice/reach.hpp"
#include "tslice/source.hpp"
#include "tslice/steps.hpp"

using namespace tslice;

namespace {

// An array of int32 whose elements are their flat indices, chunked as `chunks`; records
// each box it is asked for, and the most threads its reads were given at once. A read of a box
// holding `failing_row` fails.
class CountingSource final : public RegionSource {
public:
    CountingSource(std::vector<std::int64_t> shape, std::vector<std::int64_t> chunks)
        : shape_(std::move(shape)), chunks_(std::move(chunks)) {}

    std::vector<ArrayInFile> list() const override { return {}; }
    std::vector<std::int64_t> chunk_shape(const ArrayInFile&) const override { return chunks_; }
    bool reads_side_by_side() const override { return side_by_side; }

    void read(const ArrayInFile&, const Box& box, std::byte* dst, unsigned threads, const Written&) const override {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            reads_.push_back(box);
            threads_.push_back(threads);
            running_threads_ += threads;
            most_threads_at_once_ = std::max(most_threads_at_once_, running_threads_);
            most_reads_at_once_ = std::max(most_reads_at_once_, ++running_reads_);
        }
        struct Done {
            const CountingSource* source;
            unsigned threads;
            ~Done() {
                const std::lock_guard<std::mutex> lock(source->mutex_);
                source->running_threads_ -= threads;
                --source->running_reads_;
            }
        } done{this, threads};
        // Long enough for reads ahead to overlap where they can.
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        if (failing_row >= box.start[0] && failing_row < box.stop[0]) fail_input("the chunk 3.0 is corrupt");
        const std::size_t rank = shape_.size();
        std::vector<std::int64_t> at = box.start;
        auto* out = reinterpret_cast<std::int32_t*>(dst);
        for (std::int64_t n = 0; n < box.element_count(); ++n) {
            std::int64_t flat = 0;
            for (std::size_t k = 0; k < rank; ++k) flat = flat * shape_[k] + at[k];
            out[n] = static_cast<std::int32_t>(flat);
            for (std::size_t k = rank; k-- > 0;) {
                if (++at[k] < box.stop[k]) break;
                at[k] = box.start[k];
            }
        }
    }

    std::vector<Box> reads() const {
        const std::lock_guard<std::mutex> lock(mutex_);
        return reads_;
    }
    std::vector<unsigned> threads() const {
        const std::lock_guard<std::mutex> lock(mutex_);
        return threads_;
    }
    unsigned most_threads_at_once() const {
        const std::lock_guard<std::mutex> lock(mutex_);
        return most_threads_at_once_;
    }
    unsigned most_reads_at_once() const {
        const std::lock_guard<std::mutex> lock(mutex_);
        return most_reads_at_once_;
    }
    std::int64_t failing_row = -1;
    bool side_by_side = true;

private:
    std::vector<std::int64_t> shape_, chunks_;
    mutable std::mutex mutex_;
    mutable std::vector<Box> reads_;
    mutable std::vector<unsigned> threads_;
    mutable unsigned running_threads_ = 0, most_threads_at_once_ = 0, running_reads_ = 0, most_reads_at_once_ = 0;
};

ArrayInFile int32_array(const std::vector<std::int64_t>& shape) {
    ArrayInFile array;
    array.type.dtype = parse_dtype_descr("'<i4'");
    array.shape = shape;
    array.bytes.kind = ArrayBytes::Kind::Region;
    return array;
}

struct Case {
    std::vector<std::int64_t> shape, chunks;
    std::string expr;
};

// The pipeline's result over the whole array in memory, its elements their flat indices as
// the test's source gives them: what a region read must give.
std::vector<std::int32_t> expected_of(const Pipeline& pipeline, const std::vector<std::int64_t>& shape) {
    std::vector<std::int32_t> whole(static_cast<std::size_t>(
        std::accumulate(shape.begin(), shape.end(), std::int64_t{1}, std::multiplies<>())));
    std::iota(whole.begin(), whole.end(), 0);
    const Result direct =
        apply_pipeline(pipeline, reinterpret_cast<const std::byte*>(whole.data()), View::contiguous(shape, 4));
    const std::int64_t count = direct.view.element_count();
    std::vector<std::int32_t> expected(static_cast<std::size_t>(count));
    copy_view(direct.data, direct.view, reinterpret_cast<std::byte*>(expected.data()), 0, count);
    return expected;
}

// The result of `expr` read in bands through a ResultReader (chunks of `chunk_bytes`), checked
// against the same result of the whole array; false where the result is not read in bands.
// `side_by_side`: whether the source allows two reads at once.
bool check_bands(const Case& c, unsigned threads, std::int64_t limit = kBandsLimitBytes, bool side_by_side = true) {
    CAPTURE(c.expr);
    CAPTURE(threads);
    CAPTURE(side_by_side);
    const auto source = std::make_shared<CountingSource>(c.shape, c.chunks);
    source->side_by_side = side_by_side;
    const ArrayInFile array = int32_array(c.shape);
    const Pipeline pipeline = plan_pipeline(c.shape, {}, parse_index_expr(c.expr));
    const Box box = reached_box(pipeline, 4);
    const Result banded = apply_pipeline(pipeline, nullptr, ArrayData::region_view(array, box));
    const std::optional<BandLayout> layout = band_layout(banded.view, box, 4, c.chunks, threads, limit);
    if (!layout) return false;

    const std::vector<std::int32_t> expected = expected_of(pipeline, c.shape);
    const auto count = static_cast<std::int64_t>(expected.size());

    {
        RegionBands bands(source, array, box, *layout, threads, "in.zarr");
        const InputPages pages(bands);
        ResultReader reader(nullptr, banded.view, pages, {threads});
        std::vector<std::int32_t> got(static_cast<std::size_t>(count));
        // In the reader's units: parts of elements where a chunk is smaller than one.
        const std::int64_t per_chunk = reader.chunk_elements(), units = reader.elements();
        const auto unit = static_cast<std::int64_t>(reader.itemsize());
        std::vector<std::byte> scratch(static_cast<std::size_t>(per_chunk * unit));
        for (std::int64_t first = 0; first < units; first += per_chunk) {
            const std::int64_t n = std::min(per_chunk, units - first);
            const std::byte* bytes = reader.chunk(first, n, scratch.data());
            std::memcpy(reinterpret_cast<std::byte*>(got.data()) + first * unit, bytes, static_cast<std::size_t>(n * unit));
        }
        CHECK(got == expected);
    }
    // With the threads asked for (-t), no more: all of them for one read, or shared by two
    // reads ahead side by side.
    for (const unsigned used : source->threads())
        CHECK((used == threads || (side_by_side && layout->ahead == 2 && used == threads / 2)));
    CHECK(source->most_threads_at_once() <= threads);
    if (!side_by_side) CHECK(source->most_reads_at_once() == 1);
    // Each band read once, inside the box, starting and ending on chunk rows (or the box's edge).
    const std::vector<Box> reads = source->reads();
    for (std::size_t i = 0; i < reads.size(); ++i) {
        const Box& read = reads[i];
        for (std::size_t k = 1; k < c.shape.size(); ++k) {
            CHECK(read.start[k] == box.start[k]);
            CHECK(read.stop[k] == box.stop[k]);
        }
        CHECK(read.start[0] >= box.start[0]);
        CHECK(read.stop[0] <= box.stop[0]);
        CHECK((read.start[0] == box.start[0] || read.start[0] % c.chunks[0] == 0));
        CHECK((read.stop[0] == box.stop[0] || read.stop[0] % c.chunks[0] == 0));
        for (std::size_t j = 0; j < i; ++j) CHECK_FALSE(reads[j] == read);
    }
    return true;
}

}  // namespace

TEST_CASE("region bands: results read a band at a time equal the whole array's") {
    set_read_chunk_for_tests(64);  // chunks of 16 elements: many per band, and across bands
    const std::vector<Case> cases = {
        {{37, 9}, {4, 4}, "[:, :]"},
        {{37, 9}, {4, 4}, "[3:30, 1:7]"},
        {{37, 9}, {4, 4}, "[3:36:5, ::2]"},
        {{37, 9}, {4, 4}, "[:, 4]"},
        {{37, 9}, {4, 4}, "[11]"},
        {{37, 9}, {4, 4}, "[11, 2:5]"},
        {{37, 9}, {3, 9}, "[2:35:2, ::-1]"},
        {{6, 5, 7}, {2, 2, 3}, "[1:5, ::2, 2:6]"},
        {{6, 5, 7}, {1, 5, 7}, "[..., 3]"},
        {{6, 5, 7}, {2, 2, 3}, "[:, None, 1:4, ::-2]"},
        {{200}, {7}, "[5:190:4]"},
        {{200}, {7}, "[:]"},
        {{37, 9}, {4, 4}, "[::-1]"},
        {{37, 9}, {4, 4}, "[30:3:-3, 1:5]"},
        {{6, 5, 7}, {2, 2, 3}, "[::-2, 1, ::-1]"},
        {{200}, {7}, "[190:5:-4]"},
    };
    for (const unsigned threads : {1u, 3u})
        for (const Case& c : cases) CHECK(check_bands(c, threads));
    // A source that reads one box at a time (HDF5) is never read twice at once.
    for (const Case& c : cases) CHECK(check_bands(c, 2, kBandsLimitBytes, false));
    // Chunks smaller than an element: each is handed out in parts.
    set_read_chunk_for_tests(2);
    for (const Case& c : {cases[1], cases[7]}) CHECK(check_bands(c, 2));
    set_read_chunk_for_tests(0);
}

TEST_CASE("region bands: what they cannot read is read whole") {
    // A gather, a chunk row too large.
    CHECK_FALSE(check_bands({{37, 9}, {4, 4}, "[[3, 1, 8]]"}, 2));
    CHECK_FALSE(check_bands({{37, 9}, {4, 4}, "[:, [3, 1]]"}, 2));
    CHECK_FALSE(check_bands({{40, 1000}, {40, 1000}, "[:]"}, 2, 300000));
    CHECK(check_bands({{40, 1000}, {4, 1000}, "[:]"}, 2, 300000));
}

TEST_CASE("region bands: a band that fails to read names the input, and fails again when reached again") {
    set_read_chunk_for_tests(64);
    const std::vector<std::int64_t> shape{40, 8};
    const auto source = std::make_shared<CountingSource>(shape, std::vector<std::int64_t>{4, 8});
    source->failing_row = 13;
    const ArrayInFile array = int32_array(shape);
    const Pipeline pipeline = plan_pipeline(shape, {}, parse_index_expr("[:]"));
    const Box box = reached_box(pipeline, 4);
    const Result banded = apply_pipeline(pipeline, nullptr, ArrayData::region_view(array, box));
    const std::optional<BandLayout> layout = band_layout(banded.view, box, 4, {4, 8}, 1, kBandsLimitBytes);
    REQUIRE(layout);
    RegionBands bands(source, array, box, *layout, 1, "in.zarr");
    const InputPages pages(bands);
    ResultReader reader(nullptr, banded.view, pages, {1});
    std::vector<std::byte> scratch(64);
    std::int64_t first = 0;
    std::string message;
    try {
        for (; first < 320; first += 16) reader.chunk(first, 16, scratch.data());
    } catch (const Error& error) {
        message = error.what();
        CHECK(error.file() == "'in.zarr'");
    }
    CHECK(message.find("the chunk 3.0 is corrupt") != std::string::npos);
    CHECK(first >= 12 * 8 / 16);  // the rows before the failing band were handed out
    CHECK_THROWS_AS(reader.chunk(first, 16, scratch.data()), Error);
    set_read_chunk_for_tests(0);
}

namespace {

// The gather `expr` read as its rows only, against the same gather of the whole array; false
// where it is not read so. `reads` receives the boxes read.
bool check_rows(const Case& c, std::vector<Box>* reads = nullptr) {
    CAPTURE(c.expr);
    CountingSource source(c.shape, c.chunks);
    const ArrayInFile array = int32_array(c.shape);
    const Pipeline pipeline = plan_pipeline(c.shape, {}, parse_index_expr(c.expr));
    const Box box = reached_box(pipeline, 4);
    const Result over_box = apply_pipeline(pipeline, nullptr, ArrayData::region_view(array, box));
    const std::optional<GatheredRows> rows = gathered_rows(over_box.view, box, 4, kBandsLimitBytes);
    if (!rows) return false;
    const std::vector<std::byte> kept = read_rows(source, array, box, rows->rows, c.chunks, 2);

    const std::vector<std::int32_t> expected = expected_of(pipeline, c.shape);
    const auto count = static_cast<std::int64_t>(expected.size());
    std::vector<std::int32_t> got(expected.size());
    copy_view(kept.data(), rows->view, reinterpret_cast<std::byte*>(got.data()), 0, count);
    CHECK(got == expected);
    if (reads) *reads = source.reads();
    return true;
}

}  // namespace

TEST_CASE("region rows: a gather of rows reads those rows only, each chunk row once") {
    std::vector<Box> reads;
    CHECK(check_rows({{40, 9}, {4, 3}, "[[30, 2, 30, 17, 3]]"}, &reads));
    // Chunk rows 0 (rows 2 to 3), 4 (17) and 7 (30): three reads, of four rows in all.
    REQUIRE(reads.size() == 3);
    std::int64_t rows = 0;
    for (const Box& read : reads) rows += read.stop[0] - read.start[0];
    CHECK(rows == 4);
    CHECK(check_rows({{40, 9}, {4, 3}, "[[3, 39], 1:5]"}));
    CHECK(check_rows({{40, 9}, {4, 3}, "[[3, 39], ::-2]"}));
    CHECK(check_rows({{40, 9}, {4, 3}, "[[-1, 0], 7]"}));
    CHECK(check_rows({{6, 5, 7}, {2, 2, 3}, "[[5, 0], :, [1, 3]]"}));
    CHECK(check_rows({{6, 5, 7}, {1, 5, 7}, "[[4, 1], None, 2:4]"}));
    CHECK(check_rows({{50}, {8}, "[[49, 3, 3, 20]]"}));
    // Every row of the box, or a gather that crosses rows: read as a box.
    CHECK_FALSE(check_rows({{40, 9}, {4, 3}, "[:, [1, 2]]"}));
    CHECK_FALSE(check_rows({{40, 9}, {4, 3}, "[[3, 4, 5]]"}));
    CHECK_FALSE(check_rows({{40, 9}, {4, 3}, "[3:30:3, [1, 2]]"}));
}

TEST_CASE("region bands: a band holds chunks for more workers on more threads, within 64 MiB and two chunks per thread") {
    // The Zarr bench's read: chunks (4, 512, 512) of float32, a box two chunks wide.
    const std::vector<std::int64_t> shape{128, 512, 1024}, chunks{4, 512, 512};
    const ArrayInFile array = int32_array(shape);
    const Pipeline pipeline = plan_pipeline(shape, {}, parse_index_expr("[:]"));
    const Box box = reached_box(pipeline, 4);
    const Result banded = apply_pipeline(pipeline, nullptr, ArrayData::region_view(array, box));
    const auto rows_for = [&](unsigned threads) {
        const std::int64_t limit = bands_limit_bytes(chunks, 4, threads);
        const std::optional<BandLayout> layout = band_layout(banded.view, box, 4, chunks, threads, limit);
        REQUIRE(layout);
        const std::int64_t band_bytes = layout->band_rows * layout->row_bytes, chunk = std::int64_t{4} << 20;
        // Two bands read ahead, side by side on half the threads each, where four bands fit.
        const std::int64_t readers = layout->ahead == 2 && threads >= 2 ? 2 : 1;
        const std::int64_t workers = readers * std::min<std::int64_t>(threads / readers, band_bytes / chunk);
        // The bands and the workers' chunks, within 64 MiB (16 of them the program's) and two chunks a thread.
        CHECK((2 + layout->ahead) * band_bytes + 2 * chunk * workers <= (std::int64_t{48} << 20) + 2 * chunk * threads);
        return std::pair{layout->band_rows, layout->ahead};
    };
    using Bands = std::pair<std::int64_t, int>;  // rows per band, bands read ahead
    CHECK(rows_for(1) == Bands{4, 2});   // a chunk row: two chunks; four bands of 8 MiB
    CHECK(rows_for(2) == Bands{4, 2});   // two bands read ahead side by side, a worker each
    CHECK(rows_for(4) == Bands{8, 1});   // four chunks, in bands of 16 MiB: 64 MiB hold three
    CHECK(rows_for(8) == Bands{8, 1});   // six would hold 72 MiB and 48 MiB more for their workers
    CHECK(rows_for(16) == Bands{16, 1});  // eight: bands of 32 MiB
    CHECK(bands_limit_bytes({}, 4, 16) == kBandsLimitBytes);  // unchunked: rows of any count
}
