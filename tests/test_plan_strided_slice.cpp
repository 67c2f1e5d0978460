// strided_slice's planner (OpenVINO's StridedSlice, seed 000; TensorFlow's, seed 001) against
// every worked example with the seeds' own numbers, or what implementations do where an erratum
// (docs/errata.md) says the seed is wrong; values are copied from an input whose element i is i.
#include <doctest/doctest.h>

#include <cstddef>
#include <numeric>
#include <string>
#include <vector>

#include "plan_ops_fixture.hpp"
#include "tslice/ops.hpp"
#include "tslice/plan.hpp"

using namespace tslice;
using namespace plan_ops_fixture;

namespace {

SlicePlan strided(const std::string& json, const Shape& shape) {
    return plan_strided_slice(spec_of<StridedSliceSpec>(json), shape, "op");
}

// The input indices an output axis takes.
Ints ids(const OutputAxis& axis) {
    Ints taken;
    for (std::int64_t k = 0; k < axis.length; ++k) taken.push_back(axis.start + k * axis.step);
    return taken;
}

// The flat C-order indices of every combination of per-input-axis ids (C order over the
// combinations): what a plan taking those ids must produce from run().
Ints expected(const Shape& shape, const std::vector<Ints>& per_axis) {
    Ints flat{0};
    for (std::size_t axis = 0; axis < shape.size(); ++axis) {
        Ints next;
        for (auto base : flat)
            for (auto id : per_axis[axis]) next.push_back(base * shape[axis] + id);
        flat = next;
    }
    return flat;
}

Ints range(std::int64_t n) {
    Ints r(static_cast<std::size_t>(n));
    std::iota(r.begin(), r.end(), 0);
    return r;
}

}  // namespace

// ===================================================================== seed 000 (OpenVINO)

TEST_CASE("plan ops: seed 000 basic example, 3:0:-1 takes 3 elements (S000-1, S000-9)") {
    // array[0:4, 1:4, 0:4:2, 1:4:2, 3:0:-1, 3:0:-2] on 4^6.
    const Shape input(6, 4);
    const SlicePlan plan = strided(R"({"op": "StridedSlice", "begin": [0, 1, 0, 1, 3, 3], "end": [4, 4, 4, 4, 0, 0],
                                      "stride": [1, 1, 2, 2, -1, -2]})",
                                   input);
    // The seed says 4 for the fifth dimension with ids [3, 2, 1, 0]; 3:0:-1 stops before 0.
    CHECK(plan.output_shape() == Shape{4, 3, 2, 2, 3, 2});
    const std::vector<Ints> seed_ids = {{0, 1, 2, 3}, {1, 2, 3}, {0, 2}, {1, 3}, {3, 2, 1}, {3, 1}};
    REQUIRE(plan.axes.size() == 6);
    for (std::size_t axis = 0; axis < 6; ++axis) CHECK(ids(plan.axes[axis]) == seed_ids[axis]);
    CHECK(run(plan) == expected(input, seed_ids));
}

TEST_CASE("plan ops: seed 000 clamping example gives (0, 0) (S000-2)") {
    // begin [1234, 2], end [1234, 4321], stride [1, -1] on (2, 2): the seed says (1, 1) with
    // element id [2], which does not exist; both axes are empty (numpy array[2:3, 2:1:-1] too).
    const SlicePlan plan =
        strided(R"({"op": "StridedSlice", "begin": [1234, 2], "end": [1234, 4321], "stride": [1, -1]})", {2, 2});
    CHECK(plan.output_shape() == Shape{0, 0});
    CHECK(run(plan).empty());
    CHECK(strided(R"({"op": "StridedSlice", "begin": [2, 2], "end": [3, 1], "stride": [1, -1]})", {2, 2})
              .output_shape() == Shape{0, 0});
}

TEST_CASE("plan ops: seed 000 negative slicing example") {
    // array[0:2, 0:2, 0:-1] on (2, 3, 4).
    const Shape input{2, 3, 4};
    const SlicePlan plan =
        strided(R"({"op": "StridedSlice", "begin": [0, 0, 0], "end": [2, 2, -1], "stride": [1, 1, 1]})", input);
    CHECK(plan.output_shape() == Shape{2, 2, 3});
    const std::vector<Ints> seed_ids = {{0, 1}, {0, 1}, {0, 1, 2}};
    for (std::size_t axis = 0; axis < 3; ++axis) CHECK(ids(plan.axes[axis]) == seed_ids[axis]);
    CHECK(run(plan) == expected(input, seed_ids));
}

TEST_CASE("plan ops: seed 000 begin_mask & end_mask example, a masked reverse end includes 0 (S000-3, S000-11)") {
    // array[1:, :, ::-1] on (2, 3, 4), with the seed's mask lists of lengths 3, 3, 5, 2, 1.
    const Shape input{2, 3, 4};
    const SlicePlan plan = strided(R"({"op": "StridedSlice", "begin": [1, 1, 123], "end": [0, 0, 2], "stride": [1, 1, -1],
                                      "begin_mask": [0, 1, 1], "end_mask": [1, 1, 1], "new_axis_mask": [0, 0, 0, 0, 0],
                                      "shrink_axis_mask": [0, 0], "ellipsis_mask": [0]})",
                                   input);
    // The seed says 3 elements [3, 2, 1] for the last axis; the masked reverse end is before 0.
    CHECK(plan.output_shape() == Shape{1, 3, 4});
    const std::vector<Ints> real_ids = {{1}, {0, 1, 2}, {3, 2, 1, 0}};
    for (std::size_t axis = 0; axis < 3; ++axis) CHECK(ids(plan.axes[axis]) == real_ids[axis]);
    CHECK(run(plan) == expected(input, real_ids));
    // The same masks as TensorFlow bitfields.
    CHECK(strided(R"({"op": "strided_slice", "begin": [1, 1, 123], "end": [0, 0, 2], "strides": [1, 1, -1],
                      "begin_mask": 6, "end_mask": 7})",
                  input) == plan);
}

TEST_CASE("plan ops: seed 000 new_axis_mask example, a new axis takes no input axis (S000-10)") {
    // array[np.newaxis, 0:2, np.newaxis, 0:4] on (2, 4); begin, end and stride of the new
    // axes (1234, 9876, 132, 241) are ignored.
    const Shape input{2, 4};
    const SlicePlan plan = strided(R"({"op": "StridedSlice", "begin": [1234, 0, -1, 0], "end": [1234, 2, 9876, 4],
                                      "stride": [132, 1, 241, 1], "begin_mask": [0, 0, 0, 0], "end_mask": [0, 0, 0, 0],
                                      "new_axis_mask": [1, 0, 1, 0], "shrink_axis_mask": [0, 0, 0, 0],
                                      "ellipsis_mask": [0, 0, 0, 0]})",
                                   input);
    CHECK(plan.output_shape() == Shape{1, 2, 1, 4});
    CHECK(plan.axes[0].source_axis == -1);
    CHECK(plan.axes[1].source_axis == 0);
    CHECK(plan.axes[2].source_axis == -1);
    CHECK(plan.axes[3].source_axis == 1);
    CHECK(run(plan) == range(8));
    // A stride of 0 on a new axis is ignored too (TensorFlow and OpenVINO read no stride there).
    CHECK(strided(R"({"op": "strided_slice", "begin": [0, 0], "end": [0, 2], "strides": [0, 1], "new_axis_mask": 1})",
                  input)
              .output_shape() == Shape{1, 2, 4});
}

TEST_CASE("plan ops: seed 000 shrink_axis_mask example, end is ignored (S000-7)") {
    // array[0:1, 0, 0:384, 0:640, 0:8] on (1, 2, 384, 640, 8).
    const Shape input{1, 2, 384, 640, 8};
    const std::string masks = R"("begin_mask": [0, 0, 0, 0, 0], "end_mask": [0, 0, 0, 0, 0],
        "new_axis_mask": [0, 0, 0, 0, 0], "shrink_axis_mask": [0, 1, 0, 0, 0], "ellipsis_mask": [0, 0, 0, 0, 0]})";
    const SlicePlan plan = strided(R"({"op": "StridedSlice", "begin": [0, 0, 0, 0, 0], "end": [1, 0, 384, 640, 8],
                                      "stride": [1, 1, 1, 1, 1], )" + masks,
                                   input);
    CHECK(plan.output_shape() == Shape{1, 384, 640, 8});
    CHECK(plan.shrunk == std::vector<ShrunkAxis>{{1, 0}});
    CHECK(run(plan) == range(384 * 640 * 8));
    // The seed says begin[i] must equal end[i] on a shrunk entry; end (and stride) are
    // ignored: the same plan with end 5 and stride -3 there.
    CHECK(strided(R"({"op": "StridedSlice", "begin": [0, 0, 0, 0, 0], "end": [1, 5, 384, 640, 8],
                      "stride": [1, -3, 1, 1, 1], )" + masks,
                  input) == plan);
    // Index 1 of the axis of 2, and -1 for the same element.
    const SlicePlan second = strided(R"({"op": "StridedSlice", "begin": [0, -1, 0, 0, 0], "end": [1, 0, 384, 640, 8],
                                        "stride": [1, 1, 1, 1, 1], )" + masks,
                                     input);
    CHECK(second.shrunk == std::vector<ShrunkAxis>{{1, 1}});
    CHECK(run(second).front() == 384 * 640 * 8);
}

TEST_CASE("plan ops: seed 000 ellipsis example on the 12 listed dimensions (S000-4)") {
    // array[0:4, ..., 0:5]: the IR lists 12 input dimensions of 10; the ellipsis covers
    // 12 - (3 - 0 - 1) = 10 of them, not 8.
    const std::string json = R"({"op": "StridedSlice", "begin": [0, 0, 0], "end": [4, 0, 5], "stride": [1, -1, 1],
        "begin_mask": [0, 0, 0], "end_mask": [0, 0, 0], "new_axis_mask": [0, 0, 0], "shrink_axis_mask": [0, 0, 0],
        "ellipsis_mask": [0, 1, 0]})";
    const SlicePlan twelve = strided(json, Shape(12, 10));
    Shape want{4};
    want.insert(want.end(), 10, 10);
    want.push_back(5);
    CHECK(twelve.output_shape() == want);
    CHECK(ids(twelve.axes.front()) == Ints{0, 1, 2, 3});
    CHECK(ids(twelve.axes.back()) == Ints{0, 1, 2, 3, 4});
    // The ellipsis' stride of -1 is ignored: the covered axes are taken whole, forwards.
    for (std::size_t axis = 1; axis <= 10; ++axis) CHECK(ids(twelve.axes[axis]) == range(10));
    // On the 10-D input the text speaks of, the ellipsis covers 8: (4, 10 x 8, 5).
    Shape ten_want{4};
    ten_want.insert(ten_want.end(), 8, 10);
    ten_want.push_back(5);
    CHECK(strided(json, Shape(10, 10)).output_shape() == ten_want);
}

TEST_CASE("plan ops: seed 000 prose example [0, ..., 0] on a 10-D input (S000-4)") {
    const Shape input(10, 10);
    const SlicePlan with_ellipsis = strided(R"({"op": "StridedSlice", "begin": [0, 0, 0], "end": [1, 0, 1],
                                               "shrink_axis_mask": [1, 0, 1], "ellipsis_mask": [0, 1, 0]})",
                                            input);
    CHECK(with_ellipsis.output_shape() == Shape(8, 10));
    CHECK(with_ellipsis.shrunk == std::vector<ShrunkAxis>{{0, 0}, {9, 0}});
    // The seed's second form, [0, :, :, :, :, :, :, :, :, 0] (10 entries), is the same.
    const SlicePlan spelled = strided(R"({"op": "StridedSlice", "begin": [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                                         "end": [1, 0, 0, 0, 0, 0, 0, 0, 0, 1], "end_mask": 510,
                                         "shrink_axis_mask": 513})",
                                      input);
    CHECK(spelled == with_ellipsis);
    // Its first form, [0, :, :, :, :, :, :, :, :, :, 0], has 11 entries: too many indices.
    CHECK(error_of([&] {
              strided(R"({"op": "StridedSlice", "begin": [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                          "end": [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], "end_mask": 1022, "shrink_axis_mask": 1025})",
                      input);
          }) == "op.begin[10]: too many indices for array: array is 10-dimensional, but 11 were indexed (every entry "
                "that is not a new axis or the ellipsis takes an axis)");
}

TEST_CASE("plan ops: seed 000 last example, ellipsis with a new axis and masks (S000-5, S000-11)") {
    // array[2:, ..., np.newaxis, :5] (the numpy text says :10, but end is 5 with begin_mask
    // set), with the seed's mask lists of lengths 4, 4, 3, 1, 2.
    const std::string json = R"({"op": "StridedSlice", "begin": [2, 1, 10, 10], "end": [123, 1, 10, 5],
        "stride": [1, -1, 1, 1], "begin_mask": [0, 0, 1, 1], "end_mask": [1, 1, 0, 0], "new_axis_mask": [0, 0, 1],
        "shrink_axis_mask": [0], "ellipsis_mask": [0, 1]})";
    // The 12 listed input dimensions: (8, 10 x 10, 1, 5), 13 dimensions.
    const SlicePlan twelve = strided(json, Shape(12, 10));
    Shape want{8};
    want.insert(want.end(), 10, 10);
    want.push_back(1);
    want.push_back(5);
    CHECK(twelve.output_shape() == want);
    CHECK(ids(twelve.axes.front()) == Ints{2, 3, 4, 5, 6, 7, 8, 9});
    CHECK(twelve.axes[11].source_axis == -1);
    CHECK(ids(twelve.axes.back()) == Ints{0, 1, 2, 3, 4});
    // The 10-D input the output and the comment "8 = 10 - (4 - 1 - 1)" are computed for:
    // (8, 10 x 8, 1, 5), the seed's output.
    Shape ten_want{8};
    ten_want.insert(ten_want.end(), 8, 10);
    ten_want.push_back(1);
    ten_want.push_back(5);
    CHECK(strided(json, Shape(10, 10)).output_shape() == ten_want);
}

TEST_CASE("plan ops: begin == end gives an empty axis, not one element (S000-6)") {
    CHECK(strided(R"({"op": "StridedSlice", "begin": [2], "end": [2]})", {5}).output_shape() == Shape{0});
    CHECK(strided(R"({"op": "StridedSlice", "begin": [2], "end": [2], "strides": [-1]})", {5}).output_shape() ==
          Shape{0});
    CHECK(strided(R"({"op": "StridedSlice", "begin": [-3], "end": [2]})", {5}).output_shape() == Shape{0});
}

TEST_CASE("plan ops: a reverse begin below -dim is empty, as in TensorFlow and numpy (S000-8)") {
    // [-10::-1] on 4: OpenVINO clamps the begin to 0 (one element); TensorFlow's canonical()
    // clamps it to -1, and numpy agrees: nothing.
    CHECK(strided(R"({"op": "StridedSlice", "begin": [-10], "end": [0], "strides": [-1], "end_mask": 1})", {4})
              .output_shape() == Shape{0});
    // OpenVINO's own shape test strided_slice_ignore_end_mask_stride_neg_1: eight axes of 4,
    // begin {0, 2, 4, 10, -1, -2, -4, -10}, end_mask on every axis, stride -1. OpenVINO
    // expects {1, 3, 4, 4, 4, 3, 1, 1}; the last axis is empty here.
    const std::string begins = "[0, 2, 4, 10, -1, -2, -4, -10]";
    CHECK(strided(R"({"op": "StridedSlice", "begin": )" + begins + R"(, "end": [1, 3, 4, 5, -1, -3, -4, -5],
                      "strides": [-1, -1, -1, -1, -1, -1, -1, -1], "end_mask": 255})",
                  Shape(8, 4))
              .output_shape() == Shape{1, 3, 4, 4, 4, 3, 1, 0});
    // Forwards (strided_slice_ignore_end_mask), OpenVINO and numpy agree.
    CHECK(strided(R"({"op": "StridedSlice", "begin": )" + begins + R"(, "end": [1, 3, 4, 5, -1, -3, -4, -5],
                      "end_mask": 255})",
                  Shape(8, 4))
              .output_shape() == Shape{4, 2, 0, 0, 1, 2, 4, 4});
    // A reverse begin past the end clamps to dim - 1.
    const SlicePlan from_end =
        strided(R"({"op": "StridedSlice", "begin": [10], "end": [0], "strides": [-1], "end_mask": 1})", {4});
    CHECK(ids(from_end.axes[0]) == Ints{3, 2, 1, 0});
}

TEST_CASE("plan ops: the ellipsis wins over a new axis and a shrink on its entry; a new axis over a shrink (S000-12)") {
    const Shape input{2, 3};
    CHECK(strided(R"({"op": "strided_slice", "begin": [0], "end": [0], "ellipsis_mask": 1, "new_axis_mask": 1})", input)
              .output_shape() == Shape{2, 3});
    CHECK(strided(R"({"op": "strided_slice", "begin": [0], "end": [0], "ellipsis_mask": 1, "shrink_axis_mask": 1})",
                  input)
              .output_shape() == Shape{2, 3});
    CHECK(strided(R"({"op": "strided_slice", "begin": [5], "end": [0], "new_axis_mask": 1, "shrink_axis_mask": 1})",
                  input)
              .output_shape() == Shape{1, 2, 3});
}

// ================================================================ seed 001 (TensorFlow)

TEST_CASE("plan ops: seed 001 first example gives [1, 2, 4, 10]") {
    // new_axis_mask 0b1001, shrink_axis_mask 4, ellipsis_mask 8 on [6, 3, 4, 10]:
    // a[None, 0:2, 2, ...].
    const Shape input{6, 3, 4, 10};
    const SlicePlan plan = strided(R"({"op": "strided_slice", "begin": [0, 0, 2, 2], "end": [3, 2, 4, 8],
                                      "strides": [1, 1, 1, 1], "new_axis_mask": 9, "shrink_axis_mask": 4,
                                      "ellipsis_mask": 8})",
                                   input);
    CHECK(plan.output_shape() == Shape{1, 2, 4, 10});
    CHECK(plan.shrunk == std::vector<ShrunkAxis>{{1, 2}});
    Ints want;
    for (std::int64_t i = 0; i < 2; ++i)
        for (std::int64_t k = 0; k < 4; ++k)
            for (std::int64_t l = 0; l < 10; ++l) want.push_back(i * 120 + 2 * 40 + k * 10 + l);
    CHECK(run(plan) == want);
}

TEST_CASE("plan ops: seed 001 second example gives [1, 2, 3, 4, 10, 1]") {
    // ellipsis_mask 4 instead: a[None, 0:2, ..., None].
    const Shape input{6, 3, 4, 10};
    const SlicePlan plan = strided(R"({"op": "strided_slice", "begin": [0, 0, 2, 2], "end": [3, 2, 4, 8],
                                      "strides": [1, 1, 1, 1], "new_axis_mask": 9, "shrink_axis_mask": 4,
                                      "ellipsis_mask": 4})",
                                   input);
    CHECK(plan.output_shape() == Shape{1, 2, 3, 4, 10, 1});
    CHECK(plan.shrunk.empty());
    CHECK(run(plan) == range(2 * 3 * 4 * 10));
}

TEST_CASE("plan ops: entries may outnumber the dimensions when some are new axes (S001-1)") {
    CHECK(strided(R"({"op": "strided_slice", "begin": [0, 0, 0, 0, 0], "end": [1, 1, 2, 1, 1], "new_axis_mask": 27})",
                  {2})
              .output_shape() == Shape{1, 1, 2, 1, 1});
    CHECK(error_of([] {
              strided(R"({"op": "strided_slice", "begin": [0, 0, 0], "end": [1, 1, 1], "new_axis_mask": 1})", {2});
          }) == "op.begin[2]: too many indices for array: array is 1-dimensional, but 2 were indexed (every entry "
                "that is not a new axis or the ellipsis takes an axis)");
}

TEST_CASE("plan ops: a forward end clamps to N, not N-1 (S001-2)") {
    CHECK(ids(strided(R"({"op": "strided_slice", "begin": [0], "end": [100]})", {5}).axes[0]) == range(5));
    CHECK(ids(strided(R"({"op": "strided_slice", "begin": [0], "end": [9223372036854775807]})", {5}).axes[0]) ==
          range(5));
}

TEST_CASE("plan ops: end_mask with a negative stride includes element 0 (S001-3)") {
    CHECK(ids(strided(R"({"op": "strided_slice", "begin": [3], "end": [2], "strides": [-1], "end_mask": 1})", {5})
                  .axes[0]) == Ints{3, 2, 1, 0});
    CHECK(ids(strided(R"({"op": "strided_slice", "begin": [0], "end": [-9223372036854775808], "strides": [-1]})", {5})
                  .axes[0]) == Ints{0});
    CHECK(ids(strided(R"({"op": "strided_slice", "begin": [4], "end": [-9223372036854775808], "strides": [-2]})", {5})
                  .axes[0]) == Ints{4, 2, 0});
}

TEST_CASE("plan ops: begin_mask with a negative stride begins at N-1 (S001-4)") {
    CHECK(ids(strided(R"({"op": "strided_slice", "begin": [0], "end": [1], "strides": [-1], "begin_mask": 1})", {5})
                  .axes[0]) == Ints{4, 3, 2});
}

TEST_CASE("plan ops: a forward begin clamps to N: begin 10 on 5 is empty (S001-5)") {
    CHECK(strided(R"({"op": "strided_slice", "begin": [10], "end": [0], "end_mask": 1})", {5}).output_shape() ==
          Shape{0});
    CHECK(strided(R"({"op": "strided_slice", "begin": [-10], "end": [0], "end_mask": 1})", {5}).output_shape() ==
          Shape{5});
}

TEST_CASE("plan ops: strided_slice errors name the entry") {
    const Shape input{2, 3};
    CHECK(error_of([&] {
              strided(R"({"op": "strided_slice", "begin": [0, 0, 0], "end": [0, 0, 0], "ellipsis_mask": 5})", input);
          }) == "op.ellipsis_mask: entries 0 and 2 are both the ellipsis; at most one entry may be");
    CHECK(error_of([&] {
              strided(R"({"op": "strided_slice", "begin": [0, 0], "end": [1, 1], "strides": [1, 0]})", input);
          }) == "op.strides[1]: stride 0 is not allowed");
    CHECK(error_of([&] {
              plan_strided_slice(spec_of<StridedSliceSpec>(R"({"op": "strided_slice", "begin": [0, 0, 7],
                                     "end": [1, 1, 1], "new_axis_mask": 1, "shrink_axis_mask": 4})"),
                                 input, "ops[0]");
          }) == "ops[0].begin[2]: index 7 is out of bounds for axis 1 with size 3");
    CHECK(error_of([&] {
              strided(R"({"op": "strided_slice", "begin": [-3], "end": [0], "shrink_axis_mask": 1})", input);
          }) == "op.begin[0]: index -3 is out of bounds for axis 0 with size 2");
    CHECK(error_of([&] {
              strided(R"({"op": "strided_slice", "begin": [-9223372036854775808], "end": [0], "shrink_axis_mask": 1})",
                      input);
          }) == "op.begin[0]: index -9223372036854775808 is out of bounds for axis 0 with size 2");
    CHECK(error_of([&] {
              strided(R"({"op": "strided_slice", "begin": [0], "end": [0], "shrink_axis_mask": 1})", {0});
          }) == "op.begin[0]: index 0 is out of bounds for axis 0 with size 0");
    CHECK(error_of([&] { strided(R"({"op": "strided_slice", "begin": [0], "end": [1]})", {}); }) ==
          "op.begin[0]: too many indices for array: array is 0-dimensional, but 1 were indexed (every entry that is "
          "not a new axis or the ellipsis takes an axis)");
    // numpy's order: the ellipses, then the count, then entry by entry.
    CHECK(error_of([&] {
              strided(R"({"op": "strided_slice", "begin": [0, 0, 0, 0, 0], "end": [0, 0, 0, 0, 0],
                          "strides": [0, 1, 1, 1, 1], "ellipsis_mask": 3})",
                      input);
          }) == "op.ellipsis_mask: entries 0 and 1 are both the ellipsis; at most one entry may be");
    CHECK(error_of([&] {
              strided(R"({"op": "strided_slice", "begin": [0, 0, 0], "end": [0, 0, 0], "strides": [0, 1, 1]})", input);
          }).rfind("op.begin[2]: too many indices", 0) == 0);
    CHECK(error_of([&] {
              strided(R"({"op": "strided_slice", "begin": [0, 5], "end": [0, 0], "strides": [0, 1],
                          "shrink_axis_mask": 2})",
                      input);
          }) == "op.strides[0]: stride 0 is not allowed");
    // A hand-made spec with lists of different lengths.
    StridedSliceSpec bad;
    bad.begin = {0};
    CHECK(error_of([&] { plan_strided_slice(bad, input, "op"); }) ==
          "op.end: has 0 entries but begin has 1; every list and mask of a strided_slice has one entry per begin "
          "entry");
}

TEST_CASE("plan ops: strided_slice with INT64 extremes") {
    // Strides of INT64_MIN and INT64_MAX take one element; ends of INT64_MIN/MAX run to the
    // ends.
    CHECK(ids(strided(R"({"op": "strided_slice", "begin": [-1], "end": [-9223372036854775808],
                         "strides": [-9223372036854775808]})",
                      {5})
                  .axes[0]) == Ints{4});
    CHECK(ids(strided(R"({"op": "strided_slice", "begin": [0], "end": [0], "strides": [9223372036854775807],
                         "end_mask": 1})",
                      {5})
                  .axes[0]) == Ints{0});
    CHECK(strided(R"({"op": "strided_slice", "begin": [-9223372036854775808], "end": [9223372036854775807]})", {5})
              .output_shape() == Shape{5});
    CHECK(strided(R"({"op": "strided_slice", "begin": [9223372036854775807], "end": [-9223372036854775808],
                      "strides": [-1]})",
                  {5})
              .output_shape() == Shape{5});
    CHECK(run(strided(R"({"op": "strided_slice", "begin": [0], "end": [0], "strides": [-9223372036854775807],
                          "begin_mask": 1, "end_mask": 1})",
                      {5})) == Ints{4});
}

TEST_CASE("plan ops: strided_slice on zero-size and 0-d inputs") {
    CHECK(strided(R"({"op": "strided_slice", "begin": [], "end": []})", {}).output_shape() == Shape{});
    CHECK(strided(R"({"op": "strided_slice", "begin": [0], "end": [0], "new_axis_mask": 1})", {}).output_shape() ==
          Shape{1});
    CHECK(strided(R"({"op": "strided_slice", "begin": [0, 1], "end": [0, 5], "strides": [-1, 1], "begin_mask": 1,
                      "end_mask": 1})",
                  {0, 3})
              .output_shape() == Shape{0, 2});
}
