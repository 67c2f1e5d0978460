// reached_box: the box of the input a pipeline reads, found from its plan alone; and a box
// read into its own buffer gives the same result as the whole array.

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "tslice/copy.hpp"
#include "tslice/expr.hpp"
#include "tslice/reach.hpp"
#include "tslice/steps.hpp"

using namespace tslice;

namespace {

using Shape = std::vector<std::int64_t>;

Box box_of(const Shape& shape, const std::string& expr, std::size_t itemsize = 4) {
    return reached_box(plan_pipeline(shape, {}, parse_index_expr(expr)), itemsize);
}

// The result of `expr` on an int32 iota of `shape`, from the whole array and from only the
// box copied out of it (as a region source gives it).
void check_box_gives_result(const Shape& shape, const std::string& expr) {
    std::int64_t count = 1;
    for (const auto d : shape) count *= d;
    std::vector<std::int32_t> values(static_cast<std::size_t>(count));
    std::iota(values.begin(), values.end(), 0);
    const Pipeline pipeline = plan_pipeline(shape, {}, parse_index_expr(expr));
    const auto* data = reinterpret_cast<const std::byte*>(values.data());
    const Result whole = apply_pipeline(pipeline, data, View::contiguous(shape, 4));
    std::vector<std::byte> expected(static_cast<std::size_t>(whole.view.element_count()) * 4);
    copy_view(whole.data, whole.view, expected.data(), 0, whole.view.element_count());

    const Box box = reached_box(pipeline, 4);
    View box_view;
    box_view.shape = shape;
    box_view.itemsize = 4;
    box_view.byte_strides.resize(shape.size());
    std::int64_t stride = 4;
    for (std::size_t k = shape.size(); k-- > 0;) {
        box_view.byte_strides[k] = stride;
        box_view.byte_offset -= box.start[k] * stride;
        stride *= box.stop[k] - box.start[k];
    }
    // The box's elements, C order; anything outside it is not there.
    std::vector<std::int32_t> boxed;
    for (std::int64_t i = 0; i < count; ++i) {
        std::int64_t rest = i;
        bool inside = true;
        for (std::size_t k = shape.size(); k-- > 0;) {
            const std::int64_t index = rest % shape[k];
            rest /= shape[k];
            inside = inside && index >= box.start[k] && index < box.stop[k];
        }
        if (inside) boxed.push_back(values[static_cast<std::size_t>(i)]);
    }
    boxed.push_back(0);  // never empty
    const Result part = apply_pipeline(pipeline, reinterpret_cast<const std::byte*>(boxed.data()), box_view);
    std::vector<std::byte> got(expected.size());
    copy_view(part.data, part.view, got.data(), 0, part.view.element_count());
    CHECK_MESSAGE(got == expected, expr);
}

}  // namespace

TEST_CASE("reached_box: basic slices bound each input axis") {
    CHECK(box_of({10, 20}, "[2:5, ::-3]") == Box{{2, 1}, {5, 20}});  // 19, 16, ..., 1
    CHECK(box_of({10, 20}, "[7, 4:5]") == Box{{7, 4}, {8, 5}});
    CHECK(box_of({10, 20}, "[::-1]") == Box{{0, 0}, {10, 20}});
    CHECK(box_of({10, 20}, "[None, 3, ..., 1::100]") == Box{{3, 1}, {4, 2}});
    CHECK(box_of({10, 20}, "[5:5]") == Box{{0, 0}, {0, 0}});
    CHECK(box_of({}, "[...]") == Box{{}, {}});
    CHECK(box_of({3, 0, 2}, "[1:]") == Box{{0, 0, 0}, {0, 0, 0}});
}

TEST_CASE("reached_box: gathers bound their indices, reversed axes too") {
    CHECK(box_of({10, 20}, "[[7, 2, 5]]") == Box{{2, 0}, {8, 20}});
    CHECK(box_of({10, 20}, "[::-1][[1, 3]]") == Box{{6, 0}, {9, 20}});
    CHECK(box_of({10, 20, 30}, "[[1, 4], ::-2, [29, 3]]") == Box{{1, 1, 3}, {5, 20, 30}});
    CHECK(box_of({4, 20}, "[[False, True, False, True], 2]") == Box{{1, 2}, {4, 3}});
}

TEST_CASE("reached_box: fields of structured elements stay inside the element") {
    const DType dtype = parse_dtype_descr("[('a', '<i4'), ('b', '<f8')]");
    const Pipeline pipeline = plan_pipeline({6}, {}, parse_index_expr("['b'][2:4]"), dtype);
    CHECK(reached_box(pipeline, dtype.itemsize) == Box{{2}, {4}});
}

TEST_CASE("reached_box: an array too wide for the probe's bits is read whole") {
    const Shape shape(20, 9);  // 20 axes of 5 bits each
    CHECK(box_of(shape, "[1]").stop == shape);
}

TEST_CASE("reached_box: the box alone gives the whole array's result") {
    for (const char* expr : {"[1:4, ::-2]", "[::-1, 3]", "[[4, 0, 2], 1:]", "[::-1][[1, 2], ::-1]", "[..., None, 2]",
                             "[[1, 3], [5, 0]]", "[2:3, [6, 6, 1]]", "[::-2, ::-3]"})
        check_box_gives_result({5, 7}, expr);
}
