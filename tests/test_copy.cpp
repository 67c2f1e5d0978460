// The copy: layout normalisation, and every row kernel of every kernel set against a plain
// element-by-element reference over random plans, item sizes and element ranges; table views
// (gathers, and slices of gathers) the same way; the sink that streams the output.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "copy_plan.hpp"
#include "copy_sink.hpp"
#include "tslice/copy.hpp"
#include "tslice/error.hpp"
#include "tslice/expr.hpp"
#include "tslice/gather.hpp"
#include "tslice/plan.hpp"

using namespace tslice;

namespace {

using Shape = std::vector<std::int64_t>;

// The reference: walk the view's multi-index in C order and copy each element alone, with
// the view's definition of a table view spelled out.
std::vector<std::byte> reference_copy(const std::byte* src, const View& view) {
    std::vector<std::byte> out(static_cast<std::size_t>(view.element_count()) * view.itemsize);
    if (out.empty()) return out;
    Shape index(view.rank(), 0);
    for (std::size_t element = 0; element < static_cast<std::size_t>(view.element_count()); ++element) {
        std::int64_t offset = view.byte_offset;
        for (std::size_t axis = 0; axis < view.rank(); ++axis) offset += index[axis] * view.byte_strides[axis];
        bool zero = false;
        if (view.has_table()) {
            std::int64_t position = view.table_offset;
            for (std::size_t axis = 0; axis < view.rank(); ++axis) position += index[axis] * view.table_strides[axis];
            const std::int64_t entry = view.table->at(static_cast<std::size_t>(position));
            zero = entry == View::kZeroElement;
            offset += zero ? 0 : entry;
        }
        if (zero) {
            std::memset(out.data() + element * view.itemsize, 0, view.itemsize);
        } else {
            std::memcpy(out.data() + element * view.itemsize, src + offset, view.itemsize);
        }
        for (std::size_t axis = view.rank(); axis-- > 0;) {
            if (++index[axis] < view.shape[axis]) break;
            index[axis] = 0;
        }
    }
    return out;
}

std::vector<std::byte> numbered_bytes(std::size_t count) {
    std::vector<std::byte> bytes(count);
    for (std::size_t i = 0; i < count; ++i) bytes[i] = static_cast<std::byte>((i * 131 + i / 251) & 0xFF);
    return bytes;
}

std::string random_slice(std::mt19937_64& rng, std::int64_t dim) {
    std::uniform_int_distribution<std::int64_t> bound(-dim - 2, dim + 2);
    std::uniform_int_distribution<int> coin(0, 3);
    std::string text;
    if (coin(rng)) text += std::to_string(bound(rng));
    text += ":";
    if (coin(rng)) text += std::to_string(bound(rng));
    if (coin(rng) == 0) {
        std::int64_t step = std::uniform_int_distribution<std::int64_t>(-4, 4)(rng);
        text += ":" + std::to_string(step == 0 ? -1 : step);
    }
    return text;
}

}  // namespace

TEST_CASE("copy: normalise drops length-1 axes and merges contiguous ones") {
    View view = View::contiguous({2, 1, 3, 4}, 4);
    View layout = normalise(view);
    CHECK(layout.shape == Shape{24});
    CHECK(layout.byte_strides == Shape{4});

    view = apply_plan(plan_index(parse_index_expr("[:, :, :, ::-1]"), {2, 1, 3, 4}), View::contiguous({2, 1, 3, 4}, 4));
    layout = normalise(view);
    CHECK(layout.shape == Shape{6, 4});
    CHECK(layout.byte_strides == Shape{16, -4});

    view = apply_plan(plan_index(parse_index_expr("[::-1, 0, ::-1, ::-1]"), {2, 1, 3, 4}), View::contiguous({2, 1, 3, 4}, 4));
    layout = normalise(view);
    CHECK(layout.shape == Shape{24});
    CHECK(layout.byte_strides == Shape{-4});

    view = apply_plan(plan_index(parse_index_expr("[:, :, 1:]"), {2, 3, 4}), View::contiguous({2, 3, 4}, 2));
    layout = normalise(view);
    CHECK(layout.shape == Shape{6, 3});
    CHECK(layout.byte_strides == Shape{8, 2});

    CHECK(normalise(View::contiguous({3, 0, 2}, 8)).shape == Shape{0});
    CHECK(normalise(View::contiguous({}, 8)).shape == Shape{});
    CHECK(normalise(View::contiguous({1, 1}, 8)).shape == Shape{});
}

TEST_CASE("copy: single element and empty views") {
    const auto data = numbered_bytes(64);
    View scalar = apply_plan(plan_index(parse_index_expr("[1, 2]"), {2, 4}), View::contiguous({2, 4}, 8));
    std::vector<std::byte> out(8);
    copy_view(data.data(), scalar, out.data(), 0, 1);
    CHECK(std::memcmp(out.data(), data.data() + 48, 8) == 0);
    copy_view(data.data(), View::contiguous({0, 4}, 8), nullptr, 0, 0);  // nothing to do, nothing read
}

TEST_CASE("copy: every kernel equals the element-by-element reference") {
    std::mt19937_64 rng(20261121);
    const std::size_t itemsizes[] = {1, 2, 3, 4, 8, 12, 16};
    int checked = 0;
    for (int round = 0; round < 3000; ++round) {
        const std::size_t itemsize = itemsizes[round % std::size(itemsizes)];
        const std::size_t rank = std::uniform_int_distribution<std::size_t>(0, 4)(rng);
        Shape shape;
        for (std::size_t axis = 0; axis < rank; ++axis) shape.push_back(std::uniform_int_distribution<std::int64_t>(0, 7)(rng));
        const bool fortran = round % 5 == 0;
        const View input = View::contiguous(shape, itemsize, fortran);
        std::string text = "[";
        for (std::size_t axis = 0; axis < rank; ++axis) text += random_slice(rng, shape[axis]) + ",";
        if (round % 7 == 0) text += "None,";
        text = rank == 0 && round % 7 != 0 ? "[...]" : text + "]";
        CAPTURE(text);
        const View view = apply_plan(plan_index(parse_index_expr(text), shape), input);
        const auto data = numbered_bytes(static_cast<std::size_t>(input.element_count()) * itemsize);
        const auto expected = reference_copy(data.data(), view);

        // Every kernel set this CPU runs (tests/test_kernels.cpp holds them to the scalar set
        // on larger views).
        const std::int64_t count = view.element_count();
        const std::int64_t cut = count > 1 ? std::uniform_int_distribution<std::int64_t>(1, count - 1)(rng) : 0;
        for (const auto& set : available_kernel_sets()) {
            CAPTURE(set);
            force_kernel_set(set);
            std::vector<std::byte> whole(expected.size());
            copy_view(data.data(), view, whole.data(), 0, view.element_count());
            CHECK(whole == expected);

            // Any split into element ranges gives the same bytes (the writer copies in chunks).
            if (count > 1) {
                std::vector<std::byte> parts(expected.size());
                copy_view(data.data(), view, parts.data(), 0, cut);
                copy_view(data.data(), view, parts.data() + cut * itemsize, cut, count - cut);
                CHECK(parts == expected);
            }
        }
        force_kernel_set("auto");
        ++checked;
    }
    CHECK(checked == 3000);
}

namespace {

// Checks copy_view on `view` against the reference, whole and split at a random element.
void check_copy(std::mt19937_64& rng, const std::vector<std::byte>& data, const View& view) {
    const auto expected = reference_copy(data.data(), view);
    std::vector<std::byte> whole(expected.size());
    copy_view(data.data(), view, whole.data(), 0, view.element_count());
    CHECK(whole == expected);
    const std::int64_t count = view.element_count();
    if (count > 1) {
        const std::int64_t cut = std::uniform_int_distribution<std::int64_t>(1, count - 1)(rng);
        const std::int64_t cut2 = std::uniform_int_distribution<std::int64_t>(cut, count)(rng);
        std::vector<std::byte> parts(expected.size(), std::byte{0x5A});
        const auto itemsize = static_cast<std::int64_t>(view.itemsize);
        copy_view(data.data(), view, parts.data(), 0, cut);
        copy_view(data.data(), view, parts.data() + cut * itemsize, cut, cut2 - cut);
        copy_view(data.data(), view, parts.data() + cut2 * itemsize, cut2, count - cut2);
        CHECK(parts == expected);
    }
}

std::string random_basic(std::mt19937_64& rng, const Shape& shape) {
    std::string text = "[";
    for (std::size_t axis = 0; axis < shape.size(); ++axis) {
        const int kind = std::uniform_int_distribution<int>(0, 5)(rng);
        if (kind == 0 && shape[axis] > 0) {
            text += std::to_string(std::uniform_int_distribution<std::int64_t>(-shape[axis], shape[axis] - 1)(rng));
        } else {
            text += random_slice(rng, shape[axis]);
        }
        text += ",";
        if (kind == 5) text += "None,";
    }
    return shape.empty() ? "[...]" : text + "]";
}

}  // namespace

TEST_CASE("copy: normalise merges table views only where the table strides agree too") {
    GatherSpec spec;
    spec.indices = IntArray{{3}, {2, 0, 1}};
    spec.axis = 0;
    View view = apply_gather(plan_gather(spec, {4, 3, 4}, "op"), View::contiguous({4, 3, 4}, 2));
    View layout = normalise(view);
    CHECK(layout.shape == Shape{3, 12});  // one memcpy of 12 elements per index
    CHECK(layout.byte_strides == Shape{0, 2});
    CHECK(layout.table_strides == Shape{1, 0});
    CHECK(*layout.table == std::vector<std::int64_t>{48, 0, 24});
    // element_offset agrees: element [2, 1, 3] is input element [1, 1, 3] (index 1).
    CHECK(view.element_offset({2, 1, 3}) == 2 * (1 * 12 + 1 * 4 + 3));

    spec.axis = 2;  // along the last axis: the table is walked innermost
    view = apply_gather(plan_gather(spec, {4, 3, 4}, "op"), View::contiguous({4, 3, 4}, 2));
    layout = normalise(view);
    CHECK(layout.shape == Shape{12, 3});
    CHECK(layout.byte_strides == Shape{8, 0});
    CHECK(layout.table_strides == Shape{0, 1});

    spec.indices = IntArray{{1}, {7}};  // out of range: zeros
    spec.axis = 0;
    view = apply_gather(plan_gather(spec, {4, 3}, "op"), View::contiguous({4, 3}, 2));
    const auto data = numbered_bytes(24);
    std::vector<std::byte> out(6, std::byte{1});
    copy_view(data.data(), view, out.data(), 0, 3);
    CHECK(out == std::vector<std::byte>(6, std::byte{0}));
    CHECK(view.element_offset({0, 2}) == View::kZeroElement);
    CHECK(View::contiguous({4, 3}, 2).element_offset({1, 2}) == 10);
}

TEST_CASE("copy: table views equal the element-by-element reference") {
    std::mt19937_64 rng(20261122);
    const std::size_t itemsizes[] = {1, 2, 3, 4, 8, 12, 16};
    int gathers = 0, advanced = 0;
    for (int round = 0; round < 3000; ++round) {
        const std::size_t itemsize = itemsizes[round % std::size(itemsizes)];
        const std::size_t rank = std::uniform_int_distribution<std::size_t>(round % 2 ? 1 : 0, 4)(rng);
        Shape shape;
        for (std::size_t axis = 0; axis < rank; ++axis)
            shape.push_back(std::uniform_int_distribution<std::int64_t>(round % 13 == 0 ? 0 : 1, 6)(rng));
        const View contiguous = View::contiguous(shape, itemsize, round % 5 == 0);
        const auto data = numbered_bytes(static_cast<std::size_t>(contiguous.element_count()) * itemsize);
        // An affine view first (slices, integers, new axes), then a gather or an advanced index.
        const std::string before = random_basic(rng, shape);
        CAPTURE(before);
        const View input = apply_plan(plan_index(parse_index_expr(before), shape), contiguous);
        if (input.rank() == 0) continue;
        const Shape in_shape = input.shape;
        View gathered;
        std::string what;
        if (round % 3 != 0) {
            // Gather-8 with random axis, batch_dims and indices (some out of range).
            const auto in_rank = static_cast<std::int64_t>(in_shape.size());
            const std::int64_t axis = std::uniform_int_distribution<std::int64_t>(0, in_rank - 1)(rng);
            const std::int64_t batch_dims = std::uniform_int_distribution<std::int64_t>(0, axis)(rng);
            Shape indices_shape(in_shape.begin(), in_shape.begin() + batch_dims);
            const std::size_t extra = std::uniform_int_distribution<std::size_t>(0, 2)(rng);
            for (std::size_t k = 0; k < extra; ++k) indices_shape.push_back(std::uniform_int_distribution<std::int64_t>(0, 3)(rng));
            std::int64_t count = 1;
            for (auto dim : indices_shape) count *= dim;
            const std::int64_t dim = in_shape[static_cast<std::size_t>(axis)];
            std::vector<std::int64_t> values;
            for (std::int64_t i = 0; i < count; ++i)
                values.push_back(std::uniform_int_distribution<std::int64_t>(-dim - 2, dim + 1)(rng));
            GatherSpec spec;
            spec.indices = IntArray{indices_shape, values};
            spec.axis = round % 4 == 0 ? axis - in_rank : axis;
            spec.batch_dims = batch_dims;
            what = "gather axis " + std::to_string(axis) + " batch_dims " + std::to_string(batch_dims) +
                   " indices shape " + format_shape(indices_shape);
            gathered = apply_gather(plan_gather(spec, in_shape, "op"), input);
            ++gathers;
        } else {
            // numpy advanced indexing: lists (in range) on some axes, slices elsewhere.
            std::string text = "[";
            for (std::size_t axis = 0; axis < in_shape.size(); ++axis) {
                const std::int64_t dim = in_shape[axis];
                const int kind = std::uniform_int_distribution<int>(0, 3)(rng);
                if (kind <= 1 && dim > 0) {
                    const bool column = kind == 1;
                    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(1, 3)(rng);
                    std::string list = "[";
                    for (std::int64_t i = 0; i < n; ++i) {
                        const std::string value = std::to_string(std::uniform_int_distribution<std::int64_t>(-dim, dim - 1)(rng));
                        list += (i ? ", " : "") + (column ? "[" + value + "]" : value);
                    }
                    text += list + "],";
                } else {
                    text += random_slice(rng, dim) + ",";
                }
            }
            text += "]";
            what = text;
            CAPTURE(what);
            const IndexExpr expr = parse_index_expr(text);
            try {
                gathered = apply_gather(plan_advanced_index(expr, in_shape), input);
            } catch (const ExprError&) {
                continue;  // lists that do not broadcast together
            }
            ++advanced;
        }
        CAPTURE(what);
        check_copy(rng, data, gathered);
        // A slice of the gather is still one view.
        const std::string after = random_basic(rng, gathered.shape);
        CAPTURE(after);
        check_copy(rng, data, apply_plan(plan_index(parse_index_expr(after), gathered.shape), gathered));
    }
    CHECK(gathers > 1500);
    CHECK(advanced > 500);
}

TEST_CASE("copy: the prefetch distance is a setting in lines, and none is no prefetching at all") {
    // Rows of 3 float32 8 bytes apart, 32 bytes from row to row: one line a row.
    View view = View::contiguous({1000, 8}, 4);
    view.shape = {1000, 3};
    view.byte_strides = {32, 8};
    const std::int64_t initial = prefetch_lines();
    const bool prefetches = plan_copy(view).set->prefetch;
    CHECK(plan_copy(view).prefetch_ahead == (prefetches ? 64 : 0));  // 64 lines: at most 64 rows
    CHECK(plan_copy(view).lines_ahead == 0);
    set_prefetch_lines(5);
    CHECK(plan_copy(view).prefetch_ahead == (prefetches ? 5 : 0));
    set_prefetch_lines(1);
    CHECK(plan_copy(view).prefetch_ahead == (prefetches ? 1 : 0));  // at least the next row
    set_prefetch_lines(0);
    CHECK(plan_copy(view).prefetch_ahead == 0);
    std::vector<std::byte> input(1000 * 32);
    for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<std::byte>(i * 7);
    std::vector<std::byte> out(1000 * 12);
    copy_view(input.data(), view, out.data(), 0, 3000);
    CHECK(out == reference_copy(input.data(), view));
    set_prefetch_lines(initial);
    CHECK(plan_copy(view).prefetch_ahead == (prefetches ? 64 : 0));

    // Rows of 16 float32 256 bytes apart (every other 4 KiB) read a line an element: 4 rows
    // make 64 lines.
    View sparse = View::contiguous({100, 2, 16, 64}, 4);
    sparse.shape = {100, 16};
    sparse.byte_strides = {8192, 256};
    CHECK(plan_copy(sparse).prefetch_ahead == (prefetches ? 4 : 0));
    CHECK(plan_copy(sparse).lines_ahead == 0);

    // Short rows go in bands; dense ones of more than two lines (128 bytes) are left to the
    // hardware's prefetchers there, shorter ones are prefetched.
    const Shape cube{4, 100, 1024};
    const View dense = apply_plan(plan_index(parse_index_expr("[:, :, :64]"), cube), View::contiguous(cube, 4));
    CHECK(plan_copy(dense).bands == prefetches);
    CHECK(plan_copy(dense).prefetch_ahead == 0);
    const View longer = apply_plan(plan_index(parse_index_expr("[:, :, :33]"), cube), View::contiguous(cube, 4));
    CHECK(plan_copy(longer).prefetch_ahead == 0);
    if (prefetches)
        CHECK(describe_copy(longer, InputMemory::Mapped).find("rows of 33 elements 4 bytes apart: contiguous row kernel "
                                                              "(kernel set ") == 0);
    // (The (4, 100) outer axes merge: one plane of 400 rows.)
    CHECK((describe_copy(longer).find("), a plane of 400 rows at a time") != std::string::npos) == prefetches);
    CHECK(describe_copy(longer).find("prefetching") == std::string::npos);
    const View shorter = apply_plan(plan_index(parse_index_expr("[:, :, :32]"), cube), View::contiguous(cube, 4));
    CHECK(plan_copy(shorter).bands == prefetches);
    CHECK(plan_copy(shorter).prefetch_ahead == (prefetches ? 32 : 0));  // 2 lines a row
    const View stepped = apply_plan(plan_index(parse_index_expr("[:, :, :1000:16]"), cube), View::contiguous(cube, 4));
    CHECK(plan_copy(stepped).bands == prefetches);
    CHECK(plan_copy(stepped).prefetch_ahead == (prefetches ? 1 : 0));  // 63 lines a row

    // A gather's rows are prefetched for twice the lines: 8 rows of 1 KiB where a slice of
    // such rows takes 4; a row of 64 float32 4 rows ahead rather than 2.
    GatherSpec spec;
    spec.indices = IntArray{{5}, {7, 2, 99, 0, 50}};
    const Shape rows{100, 256};
    const View gathered = apply_gather(plan_gather(spec, rows, "op"), View::contiguous(rows, 4));
    CHECK(plan_copy(gathered).method == CopyPlan::Method::TableRows);
    CHECK(plan_copy(gathered).prefetch_ahead == (prefetches ? 8 : 0));
    const Shape wider{100, 512};
    const View sliced = apply_plan(plan_index(parse_index_expr("[:, :256]"), wider), View::contiguous(wider, 4));
    CHECK(plan_copy(sliced).prefetch_ahead == (prefetches ? 4 : 0));
    set_prefetch_lines(128);
    CHECK(plan_copy(gathered).prefetch_ahead == (prefetches ? 16 : 0));
    set_prefetch_lines(initial);
    std::vector<std::byte> table_input(100 * 1024);
    for (std::size_t i = 0; i < table_input.size(); ++i) table_input[i] = static_cast<std::byte>(i * 5 + (i >> 10));
    std::vector<std::byte> table_out(5 * 1024);
    copy_view(table_input.data(), gathered, table_out.data(), 0, 5 * 256);
    CHECK(table_out == reference_copy(table_input.data(), gathered));
}

TEST_CASE("copy: long rows of elements 1 KiB or more apart prefetch their own elements ahead") {
    // One float32 of every 256, forwards and backwards, as one row or in rows of 100, 64, 65
    // or 7 elements (each row 512 bytes past where the last one ended, so they stay rows).
    std::mt19937_64 rng(7);
    std::vector<std::byte> input(std::size_t{8} << 20);
    for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<std::byte>(i * 13 + (i >> 12));
    const bool prefetches = plan_copy(View::contiguous({4, 4}, 4)).set->prefetch;
    for (std::int64_t row : {std::int64_t{4096}, std::int64_t{100}, std::int64_t{64}, std::int64_t{65}, std::int64_t{7}}) {
        for (const std::int64_t direction : {1, -1}) {
            View view = View::contiguous({4096}, 4);
            view.shape = {4096 / row, row};
            view.byte_strides = {(row * 1024 + 512) * direction, 1024 * direction};
            view.byte_offset = direction > 0 ? 12 : static_cast<std::int64_t>(input.size()) - 1024 + 12;
            CAPTURE(row);
            CAPTURE(direction);
            CHECK(plan_copy(view).lines_ahead == (prefetches ? 64 : 0));
            CHECK((describe_copy(view).find(", prefetching 1 rows ahead and 64 elements ahead in the row") !=
                   std::string::npos) == (prefetches && row > 64));
            const std::vector<std::byte> expected = reference_copy(input.data(), view);
            std::vector<std::byte> out(expected.size());
            copy_view(input.data(), view, out.data(), 0, view.element_count());
            CHECK(out == expected);
            // In parts that start and end inside rows, as the writer's chunks do.
            std::fill(out.begin(), out.end(), std::byte{0});
            const std::int64_t count = view.element_count();
            for (std::int64_t first = 0; first < count;) {
                const std::int64_t n = std::min<std::int64_t>(count - first, 1 + static_cast<std::int64_t>(rng() % 300));
                copy_view(input.data(), view, out.data() + first * 4, first, n);
                first += n;
            }
            CHECK(out == expected);
        }
    }

    // The block of a gather: a column of each gathered (300, 256) float32 matrix, one of them
    // out of range (zeros).
    GatherSpec spec;
    spec.indices = IntArray{{4}, {2, 9, 0, 5}};
    const Shape shape{6, 300, 256};
    const View gathered = apply_gather(plan_gather(spec, shape, "op"), View::contiguous(shape, 4));
    const View column = apply_plan(plan_index(parse_index_expr("[:, ::-1, 3]"), gathered.shape), gathered);
    const CopyPlan plan = plan_copy(column);
    CHECK(plan.method == CopyPlan::Method::TableRows);
    CHECK(plan.row_length == 300);
    CHECK(plan.lines_ahead == (prefetches ? 64 : 0));
    const std::vector<std::byte> expected = reference_copy(input.data(), column);
    std::vector<std::byte> out(expected.size(), std::byte{1});
    copy_view(input.data(), column, out.data(), 0, column.element_count());
    CHECK(out == expected);
    CHECK(std::all_of(out.begin() + 1200, out.begin() + 2400, [](std::byte b) { return b == std::byte{0}; }));
}

TEST_CASE("copy: short rows go in bands, on either input memory, and give the reference's bytes") {
    // Planes of 64 rows or more, of rows of at most 64 elements after slicing: the band
    // loop, with every kernel (contiguous, stepped, reversed, strided and unrolled) and any
    // split into element ranges; streamed too, where the band writes in place.
    std::mt19937_64 rng(20261126);
    const std::size_t itemsizes[] = {1, 2, 3, 4, 8, 16};
    int banded = 0;
    for (int round = 0; round < 400; ++round) {
        const std::size_t itemsize = itemsizes[round % std::size(itemsizes)];
        const Shape shape{std::uniform_int_distribution<std::int64_t>(1, 3)(rng),
                          std::uniform_int_distribution<std::int64_t>(64, 150)(rng),
                          std::uniform_int_distribution<std::int64_t>(1, 200)(rng)};
        const std::int64_t step = std::uniform_int_distribution<std::int64_t>(-13, 13)(rng);
        const std::string text = std::string("[:, ") + (round % 3 == 0 ? "::-1" : ":") + ", ::" +
                                 std::to_string(step == 0 ? 1 : step) + "]";
        CAPTURE(itemsize);
        CAPTURE(shape[2]);
        CAPTURE(text);
        const View view = apply_plan(plan_index(parse_index_expr(text), shape), View::contiguous(shape, itemsize));
        const auto data = numbered_bytes(static_cast<std::size_t>(shape[0] * shape[1] * shape[2]) * itemsize);
        const InputMemory memory = round % 2 ? InputMemory::Resident : InputMemory::Mapped;
        const auto expected = reference_copy(data.data(), view);
        const std::int64_t count = view.element_count();
        const auto size = static_cast<std::int64_t>(itemsize);
        for (const auto& set : available_kernel_sets()) {
            CAPTURE(set);
            force_kernel_set(set);
            const CopyPlan plan = plan_copy(view, memory);
            banded += plan.bands;
            // (Rows of one element are dropped, and whole rows read forwards merge: then the
            // plane is another one, or none.)
            const std::size_t rank = plan.layout.rank();
            if (rank >= 2 && plan.layout.shape[rank - 2] >= 64)
                CHECK(plan.bands == (plan.set->prefetch && plan.row_length <= 64));
            for (const auto stream : {StreamChoice::Chosen, StreamChoice::Always}) {
                set_stream_choice(stream);
                std::vector<std::byte> out(expected.size(), std::byte{0x5A});
                for (std::int64_t first = 0; first < count;) {
                    const std::int64_t n = round % 4 == 0 ? count
                                                          : std::min<std::int64_t>(
                                                                count - first, 1 + static_cast<std::int64_t>(rng() % 2000));
                    copy_view(data.data(), view, out.data() + first * size, first, n, memory);
                    first += n;
                }
                CHECK(out == expected);
            }
            set_stream_choice(StreamChoice::Chosen);
        }
        force_kernel_set("auto");
    }
    if (available_kernel_sets().size() > 1) CHECK(banded > 200);
}

TEST_CASE("copy: reversed rows streamed straight from their kernel give the reference's bytes") {
    // Streaming, a reversed row's whole output lines go from the kernel to the output and the
    // part lines at either end through the stage: every item size, output misalignment (so
    // that the first line boundary falls between elements too), row length and element range.
    std::mt19937_64 rng(20261127);
    const std::size_t itemsizes[] = {1, 2, 3, 4, 8, 12, 16};
    int streamed_kernels = 0;
    set_stream_choice(StreamChoice::Always);
    for (int round = 0; round < 300; ++round) {
        const std::size_t itemsize = itemsizes[round % std::size(itemsizes)];
        const Shape shape{std::uniform_int_distribution<std::int64_t>(1, 4)(rng),
                          std::uniform_int_distribution<std::int64_t>(1, 3000)(rng)};
        const std::string text = round % 2 ? "[:, ::-1]" : "[::-1, ::-1]";
        CAPTURE(itemsize);
        CAPTURE(shape[1]);
        CAPTURE(text);
        const View view = apply_plan(plan_index(parse_index_expr(text), shape), View::contiguous(shape, itemsize));
        const auto data = numbered_bytes(static_cast<std::size_t>(shape[0] * shape[1]) * itemsize);
        const auto expected = reference_copy(data.data(), view);
        const std::int64_t count = view.element_count();
        const auto size = static_cast<std::int64_t>(itemsize);
        const std::size_t misalign = rng() % 64;
        for (const auto& set : available_kernel_sets()) {
            CAPTURE(set);
            force_kernel_set(set);
            streamed_kernels += plan_copy(view).row.streamed != nullptr;
            std::vector<std::byte> buffer(expected.size() + 64, std::byte{0x5A});
            const auto shift = (64 - reinterpret_cast<std::uintptr_t>(buffer.data()) % 64 + misalign) % 64;
            std::byte* out = buffer.data() + shift;
            for (std::int64_t first = 0; first < count;) {
                const std::int64_t n = round % 3 == 0 ? count
                                                      : std::min<std::int64_t>(
                                                            count - first, 1 + static_cast<std::int64_t>(rng() % 5000));
                copy_view(data.data(), view, out + first * size, first, n);
                first += n;
            }
            CHECK(std::equal(expected.begin(), expected.end(), out));
        }
        force_kernel_set("auto");
    }
    set_stream_choice(StreamChoice::Chosen);
    if (available_kernel_sets().size() > 1) CHECK(streamed_kernels > 300);
}

namespace {

// A row kernel for Sink's test: reverses elements of 4 bytes; its streamed form records each
// call and whether the call kept Sink::put_row's promise (dst on a line, whole lines).
struct StreamedCalls {
    int calls = 0;
    bool promise_kept = true;
};
StreamedCalls streamed_calls;

void reverse4(const kernels::RowKernel&, const std::byte* src, std::byte* dst, std::int64_t count, std::int64_t) {
    for (std::int64_t i = 0; i < count; ++i) std::memcpy(dst + 4 * i, src - 4 * i, 4);
}
void reverse4_streamed(const kernels::RowKernel& kernel, const std::byte* src, std::byte* dst, std::int64_t count,
                       std::int64_t slack) {
    ++streamed_calls.calls;
    streamed_calls.promise_kept &= reinterpret_cast<std::uintptr_t>(dst) % 64 == 0 && count * 4 % 64 == 0;
    reverse4(kernel, src, dst, count, slack);
}
void plain_stream_copy(std::byte* dst, const std::byte* src, std::size_t bytes) { std::memcpy(dst, src, bytes); }
void no_fence() {}

}  // namespace

TEST_CASE("copy: streaming, the sink hands a row's whole output lines to a kernel that streams its own stores") {
    const kernels::KernelSet set{"test", nullptr, nullptr, plain_stream_copy, no_fence, false};
    kernels::RowKernel row;
    row.fn = reverse4;
    row.streamed = reverse4_streamed;
    row.stride = -4;
    row.itemsize = 4;
    std::mt19937_64 rng(20261128);
    for (int round = 0; round < 500; ++round) {
        const std::int64_t rows = std::uniform_int_distribution<std::int64_t>(1, 5)(rng);
        const std::int64_t length = std::uniform_int_distribution<std::int64_t>(1, 700)(rng);
        const auto data = numbered_bytes(static_cast<std::size_t>(rows * length) * 4);
        std::vector<std::byte> expected;
        for (std::int64_t r = 0; r < rows; ++r)
            for (std::int64_t i = length; i-- > 0;)
                expected.insert(expected.end(), data.begin() + (r * length + i) * 4, data.begin() + (r * length + i + 1) * 4);
        std::vector<std::byte> buffer(expected.size() + 128, std::byte{0x5A});
        const auto misalign = static_cast<std::size_t>(rng() % 64);  // 0 mod 4 or not
        std::byte* out = buffer.data() + (64 - reinterpret_cast<std::uintptr_t>(buffer.data()) % 64 + misalign) % 64;
        streamed_calls = {};
        {
            Sink sink(out, rows * length, 4, set, true);
            for (std::int64_t r = 0; r < rows; ++r) sink.put_row(row, data.data() + (r * length + length - 1) * 4, length);
            sink.finish();
        }
        CAPTURE(rows);
        CAPTURE(length);
        CAPTURE(misalign);
        CHECK(std::equal(expected.begin(), expected.end(), out));
        CHECK(streamed_calls.promise_kept);
        // A row with a whole line after its first line boundary, in an output whose boundaries
        // fall between elements, goes to the streamed kernel.
        const std::int64_t gap = static_cast<std::int64_t>((64 - reinterpret_cast<std::uintptr_t>(out) % 64) % 64);
        if (gap % 4 == 0 && length * 4 >= gap + 64) CHECK(streamed_calls.calls > 0);
        if (gap % 4 != 0) CHECK(streamed_calls.calls == 0);
    }
}
