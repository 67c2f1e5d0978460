// The planner: shapes, clamped bounds and byte offsets for the tricky cases, and numpy's
// errors in numpy's order.
#include <doctest/doctest.h>

#include <limits>

#include "thrown_error.hpp"
#include "tslice/error.hpp"
#include "tslice/expr.hpp"
#include "tslice/plan.hpp"

using namespace tslice;
using namespace tslice_test;

namespace {

using Shape = std::vector<std::int64_t>;

SlicePlan plan(std::string_view text, const Shape& shape) { return plan_index(parse_index_expr(text), shape); }

Shape shape_of(std::string_view text, const Shape& shape) { return plan(text, shape).output_shape(); }

std::pair<std::size_t, std::string> error_of(std::string_view text, const Shape& shape) {
    INFO("the expression: '" << text << "'");
    const ExprError error = thrown_by<ExprError>([&] { plan(text, shape); });
    return {error.column(), error.what()};
}

}  // namespace

TEST_CASE("plan: output shapes") {
    struct Case {
        const char* text;
        Shape input, output;
    };
    const Case cases[] = {
        // Negative steps with out-of-range bounds clamp as Python's slice.indices does.
        {"[100:-100:-1]", {5}, {5}},
        {"[-100:100:-1]", {5}, {0}},
        {"[-10::-1]", {4}, {0}},
        {"[10::-1]", {4}, {4}},
        {"[3:0:-1]", {4}, {3}},
        {"[::-3]", {10}, {4}},
        {"[2:2]", {5}, {0}},
        {"[10:]", {5}, {0}},
        {"[:-10]", {5}, {0}},
        {"[::9223372036854775807]", {5}, {1}},
        {"[::-9223372036854775807]", {5}, {1}},
        {"[-9223372036854775808:9223372036854775807]", {5}, {5}},
        {"[:100000000000000000000]", {5}, {5}},
        // Zero-size inputs.
        {"[:, 1:]", {0, 3}, {0, 2}},
        {"[::-1]", {0}, {0}},
        {"[5:]", {0, 3}, {0, 3}},
        // 0-d results and 0-d inputs.
        {"[1, 2]", {2, 3}, {}},
        {"[...]", {}, {}},
        {"[None]", {}, {1}},
        {"[..., None]", {}, {1}},
        // The ellipsis in every position.
        {"[..., 0]", {2, 3, 4}, {2, 3}},
        {"[0, ...]", {2, 3, 4}, {3, 4}},
        {"[0, ..., 0]", {2, 3, 4}, {3}},
        {"[0, 1, ..., 2]", {2, 3, 4}, {}},
        {"[0, 1, 2, ...]", {2, 3, 4}, {}},
        {"[...]", {2, 3, 4}, {2, 3, 4}},
        {"[1:, ..., ::-1]", {4, 3, 3}, {3, 3, 3}},
        // Several new axes, around an ellipsis and at the ends.
        {"[None, ..., None]", {2, 3}, {1, 2, 3, 1}},
        {"[None, None, 0, None]", {2, 3}, {1, 1, 1, 3}},
        {"[:, None, :, None]", {2, 3}, {2, 1, 3, 1}},
        {"[None, 1, ..., None, ::2, None]", {2, 3, 5}, {1, 3, 1, 3, 1}},
        // Fewer indices than axes: the rest are taken whole.
        {"[1]", {2, 3, 4}, {3, 4}},
        {"[:, 1]", {2, 3, 4}, {2, 4}},
    };
    for (const auto& c : cases) {
        CAPTURE(c.text);
        CHECK(shape_of(c.text, c.input) == c.output);
    }
}

TEST_CASE("plan: resolved axes keep Python's slice.indices numbers") {
    const SlicePlan p = plan("[None, 1, ..., -100::-2]", {3, 4, 5});
    const std::vector<OutputAxis> axes = {
        {-1, 0, 1, 1, 1},   // the new axis
        {1, 0, 4, 1, 4},    // axis 1 taken whole by the ellipsis
        {2, -1, -1, -2, 0}, // -100 clamps to -1 for a negative step: nothing
    };
    CHECK(p.axes == axes);
    CHECK(p.shrunk == std::vector<ShrunkAxis>{{0, 1}});
    CHECK(plan("[-1]", {3}).shrunk == std::vector<ShrunkAxis>{{0, 2}});
    CHECK(plan("[::-1]", {3}).axes == std::vector<OutputAxis>{{0, 2, -1, -1, 3}});
}

TEST_CASE("plan: views are offsets and byte strides") {
    const View input = View::contiguous({2, 3, 4}, 4);
    CHECK(input.byte_strides == std::vector<std::int64_t>{48, 16, 4});

    View view = apply_plan(plan("[1:, ..., ::-1]", {2, 3, 4}), input);
    CHECK(view.shape == Shape{1, 3, 4});
    CHECK(view.byte_offset == 48 + 12);
    CHECK(view.byte_strides == std::vector<std::int64_t>{0, 16, -4});

    view = apply_plan(plan("[1, None, 2, ::2]", {2, 3, 4}), input);
    CHECK(view.shape == Shape{1, 2});
    CHECK(view.byte_offset == 48 + 32);
    CHECK(view.byte_strides == std::vector<std::int64_t>{0, 8});

    // Fortran order: the first axis is the contiguous one.
    const View fortran = View::contiguous({2, 3}, 8, true);
    CHECK(fortran.byte_strides == std::vector<std::int64_t>{8, 16});
    view = apply_plan(plan("[::-1, 1:]", {2, 3}), fortran);
    CHECK(view.byte_offset == 8 + 16);
    CHECK(view.byte_strides == std::vector<std::int64_t>{-8, 16});

    // A huge step takes one element, and its stride is not computed (it would overflow).
    view = apply_plan(plan("[::9223372036854775807]", {5}), View::contiguous({5}, 8));
    CHECK(view.shape == Shape{1});
    CHECK(view.byte_strides == std::vector<std::int64_t>{0});

    // A plan applies to any view: expressions compose.
    const View once = apply_plan(plan("[::-1]", {2, 3, 4}), input);
    const View twice = apply_plan(plan("[::-1]", {2, 3, 4}), once);
    CHECK(twice.byte_offset == 0);
    CHECK(twice.byte_strides == input.byte_strides);
}

TEST_CASE("plan: numpy's errors, in numpy's order") {
    struct Case {
        const char* text;
        Shape shape;
        std::size_t column;
        const char* message;
    };
    const Case cases[] = {
        {"[5]", {2}, 1, "index 5 is out of bounds for axis 0 with size 2"},
        {"[:, 5]", {2, 3}, 4, "index 5 is out of bounds for axis 1 with size 3"},
        {"[:, -4]", {2, 3}, 4, "index -4 is out of bounds for axis 1 with size 3"},
        {"[0]", {0}, 1, "index 0 is out of bounds for axis 0 with size 0"},
        {"[None, None, 5]", {2, 3}, 13, "index 5 is out of bounds for axis 0 with size 2"},
        {"[..., None, 1, 7]", {2, 3}, 15, "index 7 is out of bounds for axis 1 with size 3"},
        {"[9223372036854775807]", {2}, 1,
         "index 9223372036854775807 is out of bounds for axis 0 with size 2"},
        {"[1, 2, 3]", {2, 3}, 7, "too many indices for array: array is 2-dimensional, but 3 were indexed"},
        {"[0]", {}, 1, "too many indices for array: array is 0-dimensional, but 1 were indexed"},
        {"[..., ...]", {2}, 6, "an index can only have a single ellipsis ('...')"},
        {"[::0]", {2}, 3, "slice step cannot be zero"},  // under the step
        {"[1 : 2 :  0x0]", {2}, 10, "slice step cannot be zero"},
        // Order: walk errors, then too many, then item by item.
        {"[..., 1, 2, 3, ...]", {2, 3}, 15, "an index can only have a single ellipsis ('...')"},
        {"[::0, 1, 2, 3]", {2, 3}, 9, "too many indices for array: array is 2-dimensional, but 4 were indexed"},
        {"[::0, 5]", {2, 3}, 3, "slice step cannot be zero"},
        {"[5, ::0]", {2, 3}, 1, "index 5 is out of bounds for axis 0 with size 2"},
        {"[1, 99999999999999999999, ..., ...]", {2, 3}, 4, "only integers, slices (`:`)"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.text);
        const auto [column, message] = error_of(c.text, c.shape);
        CHECK(column == c.column);
        CHECK(message.rfind(c.message, 0) == 0);
    }
}
