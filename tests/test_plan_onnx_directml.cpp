// The planners of ONNX Slice (seed 002) and DirectML's DML_SLICE1 (seed 004) against every worked
// example with the seeds' own numbers, or what implementations do where an erratum (docs/errata.md)
// says the seed is wrong; values are copied from an input whose element i is i (seed 004: i + 1).
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "plan_ops_fixture.hpp"
#include "tslice/ops.hpp"
#include "tslice/plan.hpp"

using namespace tslice;
using namespace plan_ops_fixture;

namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

SlicePlan onnx(const std::string& json, const Shape& shape) {
    return plan_slice(spec_of<SliceSpec>(json), shape, "op");
}
SlicePlan dml(const std::string& json, const Shape& shape) {
    return plan_slice1(spec_of<Slice1Spec>(json), shape, "op");
}

}  // namespace

// ==================================================================== seed 002 (ONNX)

TEST_CASE("plan ops: seed 002 example 1 of opsets 13, 11 and 10") {
    const SlicePlan plan =
        onnx(R"({"op": "Slice", "axes": [0, 1], "starts": [1, 0], "ends": [2, 3], "steps": [1, 2]})", {2, 4});
    CHECK(plan.output_shape() == Shape{1, 2});
    CHECK(run(plan, 1) == Ints{5, 7});
}

TEST_CASE("plan ops: seed 002 example 2 of opsets 13, 11, 10 and 1") {
    const SlicePlan plan = onnx(R"({"op": "Slice", "starts": [0, 1], "ends": [-1, 1000]})", {2, 4});
    CHECK(plan.output_shape() == Shape{1, 3});
    CHECK(run(plan, 1) == Ints{2, 3, 4});
}

TEST_CASE("plan ops: seed 002 opset 1 example 1 (no steps)") {
    const SlicePlan plan = onnx(R"({"op": "Slice", "axes": [0, 1], "starts": [1, 0], "ends": [2, 3]})", {2, 4});
    CHECK(plan.output_shape() == Shape{1, 3});
    CHECK(run(plan, 1) == Ints{5, 6, 7});
}

TEST_CASE("plan ops: a reverse start beyond n clamps to n-1 (S002-1)") {
    const SlicePlan plan = onnx(R"({"op": "slice", "starts": [10], "ends": [-10], "steps": [-1]})", {4});
    CHECK(plan.axes[0] == OutputAxis{0, 3, -1, -1, 4});
    CHECK(run(plan) == Ints{3, 2, 1, 0});
    // INT_MIN as the end "to the beginning", as the text recommends.
    CHECK(run(onnx(R"({"op": "slice", "starts": [-1], "ends": [-9223372036854775808], "steps": [-1]})", {4})) ==
          Ints{3, 2, 1, 0});
    CHECK(run(onnx(R"({"op": "slice", "starts": [9223372036854775807], "ends": [-9223372036854775808],
                      "steps": [-2]})",
                   {5})) == Ints{4, 2, 0});
}

TEST_CASE("plan ops: INT64_MAX as a reverse end clamps to dim-1: nothing (S002-2)") {
    // onnxruntime reads it as "to the beginning" and returns [3, 2, 1, 0]; the text clamps.
    CHECK(onnx(R"({"op": "slice", "starts": [3], "ends": [9223372036854775807], "steps": [-1]})", {4})
              .output_shape() == Shape{0});
    // Forwards, INT64_MAX is the end.
    CHECK(run(onnx(R"({"op": "slice", "starts": [1], "ends": [9223372036854775807]})", {4})) == Ints{1, 2, 3});
    CHECK(run(onnx(R"({"op": "slice", "starts": [-9223372036854775808], "ends": [9223372036854775807]})", {4})) ==
          Ints{0, 1, 2, 3});
}

TEST_CASE("plan ops: a reverse start below -dim clamps to 0, not Python's -1 (S002-3)") {
    const SlicePlan plan = onnx(R"({"op": "slice", "starts": [-10], "ends": [-20], "steps": [-1]})", {4});
    CHECK(plan.axes[0] == OutputAxis{0, 0, -1, -1, 1});
    CHECK(run(plan) == Ints{0});
    CHECK(run(onnx(R"({"op": "slice", "starts": [-9223372036854775808], "ends": [-9223372036854775808],
                      "steps": [-1]})",
                   {4})) == Ints{0});
}

TEST_CASE("plan ops: repeated axes are an error (S002-4)") {
    CHECK(error_of([] { onnx(R"({"op": "slice", "starts": [0, 0], "ends": [1, 1], "axes": [0, 0]})", {2, 3}); }) ==
          "op.axes[1]: axis 0 is repeated (also axes[0]); each axis may be sliced once");
    CHECK(error_of([] { onnx(R"({"op": "slice", "starts": [0, 0], "ends": [1, 1], "axes": [1, -1]})", {2, 3}); }) ==
          "op.axes[1]: axis -1 (that is axis 1) is repeated (also axes[0]); each axis may be sliced once");
}

TEST_CASE("plan ops: a reverse slice of an empty axis takes nothing (S002-5)") {
    const SlicePlan plan = onnx(R"({"op": "slice", "starts": [0, 0], "ends": [-1, 1], "steps": [-1, 1]})", {0, 3});
    CHECK(plan.output_shape() == Shape{0, 1});
    CHECK(plan.axes[0] == OutputAxis{0, 0, 0, -1, 0});
}

TEST_CASE("plan ops: slice rows, axes, steps and extremes") {
    // Axes not named are taken whole, rows in input order.
    const SlicePlan plan = onnx(R"({"op": "slice", "starts": [1], "ends": [3], "axes": [-2], "steps": [1]})", {2, 4, 3});
    CHECK(plan.axes == std::vector<OutputAxis>{{0, 0, 2, 1, 2}, {1, 1, 3, 1, 2}, {2, 0, 3, 1, 3}});
    CHECK(plan.shrunk.empty());
    // Steps larger than the axis, and INT64 extremes as steps.
    CHECK(run(onnx(R"({"op": "slice", "starts": [1], "ends": [100], "steps": [9223372036854775807]})", {4})) ==
          Ints{1});
    CHECK(run(onnx(R"({"op": "slice", "starts": [-1], "ends": [-9223372036854775808],
                      "steps": [-9223372036854775808]})",
                   {4})) == Ints{3});
    CHECK(run(onnx(R"({"op": "slice", "starts": [0], "ends": [4], "steps": [3]})", {4})) == Ints{0, 3});
    // Empty spec: the input unchanged (also on a 0-d input).
    CHECK(onnx(R"({"op": "slice", "starts": [], "ends": []})", {}).output_shape() == Shape{});
    CHECK(onnx(R"({"op": "slice", "starts": [], "ends": []})", {2, 0}).output_shape() == Shape{2, 0});
}

TEST_CASE("plan ops: slice errors name the field") {
    CHECK(error_of([] { onnx(R"({"op": "slice", "starts": [0], "ends": [1], "axes": [2]})", {2, 3}); }) ==
          "op.axes[0]: axis 2 is out of range for a 2-dimensional input (allowed: -2 to 1)");
    CHECK(error_of([] { onnx(R"({"op": "slice", "starts": [0], "ends": [1], "axes": [-3]})", {2, 3}); }) ==
          "op.axes[0]: axis -3 is out of range for a 2-dimensional input (allowed: -2 to 1)");
    CHECK(error_of([] { onnx(R"({"op": "slice", "starts": [0], "ends": [1], "axes": [0]})", {}); }) ==
          "op.axes[0]: axis 0 is out of range for a 0-dimensional input");
    CHECK(error_of([] { onnx(R"({"op": "slice", "starts": [0, 0, 0], "ends": [1, 1, 1]})", {2, 3}); }) ==
          "op.starts[2]: entry 2 slices axis 2, but the input is 2-dimensional (without \"axes\", entry i slices axis "
          "i)");
    CHECK(error_of([] { onnx(R"({"op": "slice", "starts": [0, 0], "ends": [1, 1], "steps": [1, 0]})", {2, 3}); }) ==
          "op.steps[1]: step 0 is not allowed");
    SliceSpec bad;
    bad.starts = {0};
    CHECK(error_of([&] { plan_slice(bad, {2}, "ops[3]"); }) ==
          "ops[3].ends: has 0 entries but starts has 1; starts, ends, axes and steps must have the same length");
}

// ================================================================ seed 004 (DML_SLICE1)

TEST_CASE("plan ops: seed 004 example 1, positive strides") {
    const SlicePlan plan = dml(R"({"op": "DML_SLICE1", "offsets": [0, 0, 0, 1], "sizes": [1, 1, 4, 3],
                                  "strides": [1, 1, 2, 2]})",
                               {1, 1, 4, 4});
    CHECK(plan.output_shape() == Shape{1, 1, 2, 2});
    CHECK(run(plan, 1) == Ints{2, 4, 10, 12});
    CHECK(plan.axes[2] == OutputAxis{2, 0, 4, 2, 2});
    CHECK(plan.axes[3] == OutputAxis{3, 1, 5, 2, 2});
}

TEST_CASE("plan ops: seed 004 example 2, a negative stride starts at the window's end (S004-1, S004-2, S004-3)") {
    // Axis 2 starts at InputWindowOffsets[2] + InputWindowSizes[2] - 1 = 3 (the seed writes
    // Sizes[0]); it allows 1 + 3 / |-2| = 2 elements (the seed divides by -2).
    const SlicePlan plan = dml(R"({"op": "DML_SLICE1", "offsets": [0, 0, 0, 1], "sizes": [1, 1, 4, 3],
                                  "strides": [1, 1, -2, 2]})",
                               {1, 1, 4, 4});
    CHECK(plan.output_shape() == Shape{1, 1, 2, 2});
    CHECK(run(plan, 1) == Ints{14, 16, 6, 8});
    CHECK(plan.axes[2] == OutputAxis{2, 3, -1, -2, 2});
}

TEST_CASE("plan ops: slice1 stride 0 is an error: strides may not be 0 (S004-4)") {
    CHECK(error_of([] {
              dml(R"({"op": "slice1", "offsets": [0, 0, 0, 1], "sizes": [1, 1, 4, 3], "strides": [1, 1, 0, 2]})",
                  {1, 1, 4, 4});
          }) == "op.strides[2]: stride 0 is not allowed");
}

TEST_CASE("plan ops: slice1 output sizes") {
    // Fewer than the window allows, from either end.
    SlicePlan plan = dml(R"({"op": "slice1", "offsets": [1], "sizes": [7], "strides": [3], "output_sizes": [2]})", {9});
    CHECK(run(plan) == Ints{1, 4});
    plan = dml(R"({"op": "slice1", "offsets": [1], "sizes": [7], "strides": [-3]})", {9});
    CHECK(run(plan) == Ints{7, 4, 1});
    plan = dml(R"({"op": "slice1", "offsets": [1], "sizes": [7], "strides": [-3], "output_sizes": [1]})", {9});
    CHECK(run(plan) == Ints{7});
    // Huge strides take one element; |INT64_MIN| does not overflow.
    plan = dml(R"({"op": "slice1", "offsets": [2], "sizes": [7], "strides": [-9223372036854775808]})", {9});
    CHECK(plan.axes[0] == OutputAxis{0, 8, kMin + 8, kMin, 1});
    CHECK(run(plan) == Ints{8});
    plan = dml(R"({"op": "slice1", "offsets": [2], "sizes": [7], "strides": [9223372036854775807]})", {9});
    CHECK(plan.axes[0] == OutputAxis{0, 2, kMax, kMax, 1});
    // 0-d input: no entries.
    CHECK(dml(R"({"op": "slice1", "offsets": [], "sizes": [], "strides": []})", {}).output_shape() == Shape{});
}

TEST_CASE("plan ops: slice1 errors: no clamping") {
    const Shape input{1, 1, 4, 4};
    auto error = [&](const std::string& fields) {
        return error_of([&] { dml(R"({"op": "slice1", )" + fields + "}", input); });
    };
    CHECK(error(R"("offsets": [0, 0, 0], "sizes": [1, 1, 4], "strides": [1, 1, 1])") ==
          "op.offsets: has 3 entries but the input is 4-dimensional; slice1 takes one entry per dimension in offsets, "
          "sizes, strides and output_sizes");
    CHECK(error(R"("offsets": [0, 0, 0, -1], "sizes": [1, 1, 4, 3], "strides": [1, 1, 1, 1])") ==
          "op.offsets[3]: offset -1 is negative");
    CHECK(error(R"("offsets": [0, 0, 0, 4], "sizes": [1, 1, 4, 1], "strides": [1, 1, 1, 1])") ==
          "op.offsets[3]: offset 4 is outside axis 3 (size 4); offsets run from 0 to 3");
    CHECK(error(R"("offsets": [0, 0, 0, 0], "sizes": [1, 1, 4, 0], "strides": [1, 1, 1, 1])") ==
          "op.sizes[3]: size 0 is not allowed: a window holds at least 1 element");
    CHECK(error(R"("offsets": [0, 0, 1, 0], "sizes": [1, 1, 4, 1], "strides": [1, 1, 1, 1])") ==
          "op.sizes[2]: the window from offset 1 with size 4 runs past the end of axis 2 (size 4); offset + size "
          "must be at most 4");
    CHECK(error(R"("offsets": [0, 0, 1, 0], "sizes": [1, 1, 9223372036854775807, 1], "strides": [1, 1, 1, 1])") ==
          "op.sizes[2]: the window from offset 1 with size 9223372036854775807 runs past the end of axis 2 (size 4); "
          "offset + size must be at most 4");
    CHECK(error(R"("offsets": [0, 0, 9223372036854775807, 0], "sizes": [1, 1, 9223372036854775807, 1],
                   "strides": [1, 1, 1, 1])") ==
          "op.offsets[2]: offset 9223372036854775807 is outside axis 2 (size 4); offsets run from 0 to 3");
    CHECK(error(R"("offsets": [0, 0, 0, 1], "sizes": [1, 1, 4, 3], "strides": [1, 1, -2, 2], "output_sizes": [1, 1, 3, 2])") ==
          "op.output_sizes[2]: output size 3 is out of range: the window (size 4, stride -2) allows 1 to 2");
    CHECK(error(R"("offsets": [0, 0, 0, 1], "sizes": [1, 1, 4, 3], "strides": [1, 1, 2, 2], "output_sizes": [1, 0, 2, 2])") ==
          "op.output_sizes[1]: output size 0 is out of range: the window (size 1, stride 1) allows 1 to 1");
    CHECK(error_of([] { dml(R"({"op": "slice1", "offsets": [0], "sizes": [1], "strides": [1]})", {0}); }) ==
          "op.offsets[0]: offset 0 is outside axis 0 (size 0); no window fits an empty axis");
}
