// The copy: layout normalisation, and every row kernel of every kernel set against a plain
// element-by-element reference over random plans, item sizes and element ranges; table views
// (gathers, and slices of gathers) the same way.
#include <doctest/doctest.h>

#include <cstring>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "copy_fixture.hpp"
#include "tslice/copy.hpp"
#include "tslice/error.hpp"
#include "tslice/expr.hpp"
#include "tslice/gather.hpp"
#include "tslice/plan.hpp"

using namespace tslice;
using namespace copy_fixture;

namespace {

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
