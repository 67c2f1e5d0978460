// The copy: layout normalisation, and every row kernel against a plain element-by-element
// reference over random plans, item sizes and element ranges.
#include <doctest/doctest.h>

#include <cstring>
#include <random>

#include "tslice/copy.hpp"
#include "tslice/expr.hpp"
#include "tslice/plan.hpp"

using namespace tslice;

namespace {

using Shape = std::vector<std::int64_t>;

// The reference: walk the view's multi-index in C order and copy each element alone.
std::vector<std::byte> reference_copy(const std::byte* src, const View& view) {
    std::vector<std::byte> out(static_cast<std::size_t>(view.element_count()) * view.itemsize);
    if (out.empty()) return out;
    Shape index(view.rank(), 0);
    for (std::size_t element = 0; element < static_cast<std::size_t>(view.element_count()); ++element) {
        std::int64_t offset = view.byte_offset;
        for (std::size_t axis = 0; axis < view.rank(); ++axis) offset += index[axis] * view.byte_strides[axis];
        std::memcpy(out.data() + element * view.itemsize, src + offset, view.itemsize);
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

        std::vector<std::byte> whole(expected.size());
        copy_view(data.data(), view, whole.data(), 0, view.element_count());
        CHECK(whole == expected);

        // Any split into element ranges gives the same bytes (the writer copies in chunks).
        const std::int64_t count = view.element_count();
        if (count > 1) {
            const std::int64_t cut = std::uniform_int_distribution<std::int64_t>(1, count - 1)(rng);
            std::vector<std::byte> parts(expected.size());
            copy_view(data.data(), view, parts.data(), 0, cut);
            copy_view(data.data(), view, parts.data() + cut * itemsize, cut, count - cut);
            CHECK(parts == expected);
        }
        ++checked;
    }
    CHECK(checked == 3000);
}
