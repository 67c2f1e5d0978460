// --explain: the equivalent specs of an expression, and the plan table.
#include <doctest/doctest.h>

#include <limits>

#include "tslice/copy.hpp"
#include "tslice/explain.hpp"

using namespace tslice;

namespace {

std::string strided_json(std::string_view text) {
    const auto spec = strided_slice_equivalent(parse_index_expr(text));
    REQUIRE(spec.has_value());
    return to_json(*spec);
}

std::optional<std::string> onnx_json(std::string_view text, const std::vector<std::int64_t>& shape) {
    const auto spec = onnx_slice_equivalent(plan_index(parse_index_expr(text), shape));
    if (!spec) return std::nullopt;
    return to_json(*spec);
}

}  // namespace

TEST_CASE("explain: strided_slice equivalents set one mask bit per item kind") {
    CHECK(strided_json("[1:, ..., ::-1]") ==
          R"({"op": "strided_slice", "begin": [1, 0, 0], "end": [0, 0, 0], "strides": [1, 1, -1], )"
          R"("begin_mask": 4, "end_mask": 5, "new_axis_mask": 0, "shrink_axis_mask": 0, "ellipsis_mask": 2})");
    CHECK(strided_json("[None, -1, 2:5:2]") ==
          R"({"op": "strided_slice", "begin": [0, -1, 2], "end": [0, 0, 5], "strides": [1, 1, 2], )"
          R"("begin_mask": 0, "end_mask": 0, "new_axis_mask": 1, "shrink_axis_mask": 2, "ellipsis_mask": 0})");
    CHECK_FALSE(strided_slice_equivalent(parse_index_expr("[[0, 1], 2]")).has_value());
}

TEST_CASE("explain: masks of more than 62 entries are written as lists") {
    std::string text = "[";
    for (int i = 0; i < 70; ++i) text += "None, ";
    text += "0]";
    const std::string json = strided_json(text);
    CHECK(json.find(R"("new_axis_mask": [1, 1, 1,)") != std::string::npos);
    CHECK(json.find(R"("shrink_axis_mask": [0, 0,)") != std::string::npos);
}

TEST_CASE("explain: ONNX slice equivalents use the resolved numbers") {
    // Reverse to the front: ONNX reads -1 as the last element, so the end is INT64_MIN.
    CHECK(onnx_json("[::-1]", {4}) ==
          R"({"op": "slice", "starts": [3], "ends": [-9223372036854775808], "axes": [0], "steps": [-1]})");
    // Axes taken whole are left out; an empty reverse slice becomes 0:0.
    CHECK(onnx_json("[:, -100::-1, 1:3]", {2, 4, 5}) ==
          R"({"op": "slice", "starts": [0, 1], "ends": [0, 3], "axes": [1, 2], "steps": [-1, 1]})");
    // Nothing cut: axis 0 whole rather than empty lists.
    CHECK(onnx_json("[...]", {2, 3}) ==
          R"({"op": "slice", "starts": [0], "ends": [9223372036854775807], "axes": [0], "steps": [1]})");
    CHECK_FALSE(onnx_json("[0]", {2, 3}).has_value());
    CHECK_FALSE(onnx_json("[None]", {2, 3}).has_value());
}

TEST_CASE("explain: the plan table") {
    DType dtype;
    dtype.type_string = "<f4";
    dtype.descr = "'<f4'";
    dtype.itemsize = 4;
    // The copy line names this CPU's kernel set.
    const std::string set = active_kernel_set();
    const auto expr = parse_index_expr("[None, 1, ::-2]");
    const Pipeline pipeline = plan_pipeline({2, 5}, {}, expr);
    CHECK(explain(pipeline, dtype, expr) ==
          "input: shape (2, 5), dtype <f4\n"
          "\n"
          "[None, 1, ::-2]\n"
          "  axis  source      kind  start  stop  step  length\n"
          "     0       -  new axis                          1\n"
          "     1       1     slice      4    -1    -2       3\n"
          "     -       0    shrunk      1\n"
          "\n"
          "result: shape (1, 3), dtype <f4\n"
          "copy: rows of 3 elements -8 bytes apart: strided"
          " row kernel (kernel set " + set + ")" + (set == "scalar" ? "" : ", prefetching 64 rows ahead") + "\n"
          "\n"
          "as strided_slice: {\"op\": \"strided_slice\", \"begin\": [0, 1, 0], \"end\": [0, 2, 0], \"strides\": [1, 1, -2], "
          "\"begin_mask\": 4, \"end_mask\": 4, \"new_axis_mask\": 1, \"shrink_axis_mask\": 2, \"ellipsis_mask\": 0}\n"
          "as ONNX slice: none (ONNX Slice neither inserts nor removes axes)\n");
}

TEST_CASE("explain: a gather says how it is read from a file") {
    DType dtype;
    dtype.type_string = "<f4";
    dtype.descr = "'<f4'";
    dtype.itemsize = 4;
    const auto copy_line = [&](const std::vector<std::int64_t>& shape, const char* text) {
        const auto expr = parse_index_expr(text);
        const std::string explained = explain(plan_pipeline(shape, {}, expr), dtype, expr);
        return explained.substr(explained.find("copy: "));
    };
    const std::string pread = "rows are read where they lie (pread";
    CHECK(copy_line({10, 256}, "[[3, 1, 3]]").find(pread) != std::string::npos);  // rows of 1 KiB
    CHECK(copy_line({10, 2, 128}, "[[3, 1]]").find(pread) != std::string::npos);   // blocks of 1 KiB
    CHECK(copy_line({10, 8}, "[[3, 1, 3]]").find(pread) == std::string::npos);     // 32-byte rows
    CHECK(copy_line({10, 256}, "[:, [3, 1]]").find(pread) == std::string::npos);   // along the rows
    CHECK(copy_line({10, 256}, "[::-1]").find(pread) == std::string::npos);        // no gather
    const std::string windows = "if it reads from more than 64 MiB of the input, copied 64 MiB of the result at a time";
    CHECK(copy_line({10, 8}, "[[3, 1, 3]]").find(windows) != std::string::npos);    // 32-byte rows
    CHECK(copy_line({10, 256}, "[:, [3, 1]]").find(windows) != std::string::npos);  // single elements
    CHECK(copy_line({10, 256}, "[[3, 1, 3]]").find(windows) == std::string::npos);  // rows of 1 KiB: pread
    CHECK(copy_line({10, 256}, "[::-1]").find(windows) == std::string::npos);       // no gather
}
