// The pipeline of a run: ops then the expression, each planned against the shape the previous
// one produces, then applied to the input's layout; a gather of a gathered result reads a copy.

#include <doctest/doctest.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "tslice/copy.hpp"
#include "tslice/error.hpp"
#include "tslice/expr.hpp"
#include "tslice/ops.hpp"
#include "tslice/steps.hpp"

using namespace tslice;

namespace {

using Shape = std::vector<std::int64_t>;
using Values = std::vector<std::int64_t>;

Values iota(std::int64_t count) {
    Values values(static_cast<std::size_t>(count));
    std::iota(values.begin(), values.end(), 0);
    return values;
}

OpSpec gather_op(Shape shape, Values indices, std::int64_t axis, const std::string& path) {
    GatherSpec spec;
    spec.indices = IntArray{std::move(shape), std::move(indices)};
    spec.axis = axis;
    return OpSpec{spec, path};
}

OpSpec slice_op(Values starts, Values ends, Values axes, Values steps, const std::string& path) {
    SliceSpec spec;
    spec.starts = std::move(starts);
    spec.ends = std::move(ends);
    spec.axes = std::move(axes);
    spec.steps = std::move(steps);
    return OpSpec{spec, path};
}

// The pipeline's result over int64 data 0, 1, 2, ... of `shape`, copied out.
Values run(const Pipeline& pipeline, const Values& data, bool* materialised = nullptr) {
    const Result result = apply_pipeline(pipeline, reinterpret_cast<const std::byte*>(data.data()),
                                         View::contiguous(pipeline.input_shape, 8));
    if (materialised) *materialised = result.owned != nullptr;
    Values out(static_cast<std::size_t>(result.view.element_count()));
    copy_view(result.data, result.view, reinterpret_cast<std::byte*>(out.data()), 0, result.view.element_count());
    return out;
}

}  // namespace

TEST_CASE("steps: ops then the expression, each against the previous shape, labelled as written") {
    const std::vector<OpSpec> ops{slice_op({1}, {4}, {0}, {1}, "ops[0]"), gather_op({2}, {2, 0}, 1, "ops[1]")};
    const Pipeline pipeline = plan_pipeline({4, 3}, ops, parse_index_expr("[::-1]"));
    REQUIRE(pipeline.steps.size() == 3);
    CHECK(pipeline.steps[0].label == "ops[0] slice");
    CHECK(pipeline.steps[1].label == "ops[1] gather");
    CHECK(pipeline.steps[2].label == "[::-1]");
    CHECK(pipeline.output_shape() == Shape{3, 2});
    // numpy: a[1:4][:, [2, 0]][::-1] of a = arange(12).reshape(4, 3)
    CHECK(run(pipeline, iota(12)) == Values{11, 9, 8, 6, 5, 3});
}

TEST_CASE("steps: no ops and no expression is the input itself") {
    const Pipeline pipeline = plan_pipeline({2, 3}, {}, std::nullopt);
    CHECK(pipeline.steps.empty());
    CHECK(pipeline.output_shape() == Shape{2, 3});
    CHECK(run(pipeline, iota(6)) == iota(6));
}

TEST_CASE("steps: a slice of a gather composes; a gather of a gather reads a copy") {
    bool materialised = true;
    const Pipeline sliced = plan_pipeline({5}, {gather_op({3}, {4, 0, 2}, 0, "ops[0]")}, parse_index_expr("[::2]"));
    CHECK(run(sliced, iota(5), &materialised) == Values{4, 2});
    CHECK_FALSE(materialised);

    const Pipeline twice =
        plan_pipeline({5}, {gather_op({3}, {4, 0, 2}, 0, "ops[0]"), gather_op({2}, {2, -3}, 0, "ops[1]")}, std::nullopt);
    CHECK(run(twice, iota(5), &materialised) == Values{2, 4});
    CHECK(materialised);
}

TEST_CASE("steps: an expression with an integer list plans a gather, a basic one a slice") {
    CHECK(std::holds_alternative<GatherPlan>(plan_expression(parse_index_expr("[[1, 0]]"), {3})));
    CHECK(std::holds_alternative<SlicePlan>(plan_expression(parse_index_expr("[1:]"), {3})));
}

TEST_CASE("steps: a planning error of a later step names that step") {
    const std::vector<OpSpec> ops{slice_op({0}, {1}, {0}, {1}, "ops[0]"), slice_op({0}, {1}, {3}, {1}, "ops[1]")};
    CHECK_THROWS_WITH_AS(plan_pipeline({4, 3}, ops, std::nullopt), doctest::Contains("ops[1]"), Error);
}
