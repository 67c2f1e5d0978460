// The ops' planners against every worked example of their seed documents, with the seeds'
// own numbers. Where a seed is wrong, the test holds what the implementations really do and
// names the erratum (docs/errata.md). Values are checked by copying through the plan from an
// input whose element i holds i (seed 004: i + 1, as its example tensor).
#include <doctest/doctest.h>

#include <cstddef>
#include <limits>
#include <numeric>

#include "tslice/copy.hpp"
#include "tslice/error.hpp"
#include "tslice/ops.hpp"
#include "tslice/plan.hpp"

using namespace tslice;

namespace {

using Shape = std::vector<std::int64_t>;
using Ints = std::vector<std::int64_t>;
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

template <class Spec>
Spec spec_of(const std::string& json) {
    const auto ops = parse_ops_json(json);
    REQUIRE(ops.size() == 1);
    return std::get<Spec>(ops[0].spec);
}

SlicePlan strided(const std::string& json, const Shape& shape) {
    return plan_strided_slice(spec_of<StridedSliceSpec>(json), shape, "op");
}
SlicePlan onnx(const std::string& json, const Shape& shape) { return plan_slice(spec_of<SliceSpec>(json), shape, "op"); }
SlicePlan dml(const std::string& json, const Shape& shape) { return plan_slice1(spec_of<Slice1Spec>(json), shape, "op"); }

// The message of the Error(Usage) that `plan` throws.
template <class Plan>
std::string error_of(Plan&& plan) {
    try {
        plan();
    } catch (const Error& error) {
        CHECK(error.kind() == ErrorKind::Usage);
        return error.what();
    }
    FAIL("no error");
    return {};
}

// The result's values when the plan is applied to an input whose element i (C order) holds
// first + i.
Ints run(const SlicePlan& plan, std::int64_t first = 0) {
    std::int64_t count = 1;
    for (auto dim : plan.input_shape) count *= dim;
    Ints input(static_cast<std::size_t>(count));
    std::iota(input.begin(), input.end(), first);
    const View view = apply_plan(plan, View::contiguous(plan.input_shape, sizeof(std::int64_t)));
    Ints output(static_cast<std::size_t>(view.element_count()));
    copy_view(reinterpret_cast<const std::byte*>(input.data()), view, reinterpret_cast<std::byte*>(output.data()), 0,
              view.element_count());
    return output;
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
