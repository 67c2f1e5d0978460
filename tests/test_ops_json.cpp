// JSON op specs: every field kind, the aliases, masks in both forms, and every error with
// its JSON path and message.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

#include "thrown_error.hpp"
#include "tslice/error.hpp"
#include "tslice/ops.hpp"

using namespace tslice;
using namespace tslice_test;

namespace {

using Ints = std::vector<std::int64_t>;
using Mask = std::vector<bool>;

template <class Spec>
Spec only(const std::string& json) {
    const auto ops = parse_ops_json(json);
    REQUIRE(ops.size() == 1);
    REQUIRE(std::holds_alternative<Spec>(ops[0].spec));
    return std::get<Spec>(ops[0].spec);
}

// The message of the Error(Usage) that parsing `json` throws.
std::string error_of(const std::string& json) {
    INFO("the spec: " << json);
    const Error error = thrown_by([&] { parse_ops_json(json); });
    CHECK(error.kind() == ErrorKind::Usage);
    CHECK(error.exit_code() == 2);
    return error.what();
}

}  // namespace

TEST_CASE("ops json: strided_slice with every field") {
    const auto spec = only<StridedSliceSpec>(
        R"({"op": "strided_slice", "begin": [0, -1, 2], "end": [3, 9223372036854775807, -9223372036854775808],
            "strides": [1, -2, 3], "begin_mask": 1, "end_mask": [0, 1], "new_axis_mask": 0,
            "shrink_axis_mask": [0, 0, 1], "ellipsis_mask": 2})");
    CHECK(spec.begin == Ints{0, -1, 2});
    CHECK(spec.end == Ints{3, std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min()});
    CHECK(spec.strides == Ints{1, -2, 3});
    CHECK(spec.begin_mask == Mask{true, false, false});
    CHECK(spec.end_mask == Mask{false, true, false});
    CHECK(spec.new_axis_mask == Mask{false, false, false});
    CHECK(spec.shrink_axis_mask == Mask{false, false, true});
    CHECK(spec.ellipsis_mask == Mask{false, true, false});
}

TEST_CASE("ops json: strided_slice defaults and the stride alias") {
    auto spec = only<StridedSliceSpec>(R"({"op": "strided_slice", "begin": [1, 2], "end": [3, 4]})");
    CHECK(spec.strides == Ints{1, 1});
    CHECK(spec.begin_mask == Mask{false, false});
    CHECK(spec.ellipsis_mask == Mask{false, false});
    spec = only<StridedSliceSpec>(R"({"op": "StridedSlice", "begin": [1], "end": [3], "stride": [-1]})");
    CHECK(spec.strides == Ints{-1});
    spec = only<StridedSliceSpec>(R"({"op": "strided_slice", "begin": [], "end": []})");
    CHECK(spec.begin.empty());
    CHECK(spec.begin_mask.empty());
}

TEST_CASE("ops json: masks as bitfields and as lists") {
    auto masks = [](const std::string& mask) {
        return only<StridedSliceSpec>(R"({"op": "strided_slice", "begin": [0, 0, 0, 0], "end": [0, 0, 0, 0],
                                          "begin_mask": )" + mask + "}")
            .begin_mask;
    };
    // Bit i belongs to entry i (TensorFlow).
    CHECK(masks("5") == Mask{true, false, true, false});
    CHECK(masks("0") == Mask{false, false, false, false});
    CHECK(masks("15") == Mask{true, true, true, true});
    // Bits past the last entry are ignored.
    CHECK(masks("16") == Mask{false, false, false, false});
    CHECK(masks("9223372036854775807") == Mask{true, true, true, true});
    // A list of 0/1 (OpenVINO): shorter ones padded with 0, longer ones cut.
    CHECK(masks("[0, 1]") == Mask{false, true, false, false});
    CHECK(masks("[]") == Mask{false, false, false, false});
    CHECK(masks("[1, 0, 1, 1]") == Mask{true, false, true, true});
    CHECK(masks("[1, 0, 0, 0, 1, 1]") == Mask{true, false, false, false});
}

TEST_CASE("ops json: op names without regard to case, and the names in brackets") {
    CHECK(std::holds_alternative<StridedSliceSpec>(
        parse_ops_json(R"({"op": "STRIDED_SLICE", "begin": [], "end": []})")[0].spec));
    CHECK(std::holds_alternative<StridedSliceSpec>(
        parse_ops_json(R"({"op": "stridedslice", "begin": [], "end": []})")[0].spec));
    CHECK(std::holds_alternative<SliceSpec>(parse_ops_json(R"({"op": "Slice", "starts": [], "ends": []})")[0].spec));
    CHECK(std::holds_alternative<SliceSpec>(parse_ops_json(R"({"op": "SLICE", "starts": [], "ends": []})")[0].spec));
    for (const char* name : {"slice1", "Slice1", "DML_SLICE1", "dml_slice1"})
        CHECK(std::holds_alternative<Slice1Spec>(
            parse_ops_json(std::string(R"({"op": ")") + name + R"(", "offsets": [], "sizes": [], "strides": []})")[0]
                .spec));
    CHECK(std::holds_alternative<GatherSpec>(parse_ops_json(R"({"op": "Gather", "indices": 0})")[0].spec));
    CHECK(std::holds_alternative<IndexSpec>(parse_ops_json(R"({"op": "INDEX", "expr": "..."})")[0].spec));
}

TEST_CASE("ops json: a single op is 'op', a list is 'ops[i]'") {
    auto ops = parse_ops_json(R"({"op": "slice", "starts": [0], "ends": [1]})");
    REQUIRE(ops.size() == 1);
    CHECK(ops[0].path == "op");
    ops = parse_ops_json(R"([{"op": "slice", "starts": [0], "ends": [1]}, {"op": "index", "expr": "::-1"}])");
    REQUIRE(ops.size() == 2);
    CHECK(ops[0].path == "ops[0]");
    CHECK(ops[1].path == "ops[1]");
    CHECK(std::holds_alternative<IndexSpec>(ops[1].spec));
    // No ops: the input unchanged.
    CHECK(parse_ops_json("[]").empty());
    CHECK(parse_ops_json(" \n[ ]\n").empty());
}

TEST_CASE("ops json: slice") {
    auto spec = only<SliceSpec>(R"({"op": "slice", "starts": [1, 0], "ends": [2, 3], "axes": [0, -1], "steps": [1, 2]})");
    CHECK(spec.starts == Ints{1, 0});
    CHECK(spec.ends == Ints{2, 3});
    CHECK(spec.axes == Ints{0, -1});
    CHECK(spec.steps == Ints{1, 2});
    // Opset 1: no steps; axes left out.
    spec = only<SliceSpec>(R"({"op": "slice", "starts": [0, 1], "ends": [-1, 1000]})");
    CHECK(!spec.axes);
    CHECK(!spec.steps);
}

TEST_CASE("ops json: slice1") {
    auto spec = only<Slice1Spec>(
        R"({"op": "DML_SLICE1", "offsets": [0, 0, 0, 1], "sizes": [1, 1, 4, 3], "strides": [1, 1, -2, 2]})");
    CHECK(spec.offsets == Ints{0, 0, 0, 1});
    CHECK(spec.sizes == Ints{1, 1, 4, 3});
    CHECK(spec.strides == Ints{1, 1, -2, 2});
    CHECK(!spec.output_sizes);
    spec = only<Slice1Spec>(R"({"op": "slice1", "offsets": [1], "sizes": [2], "strides": [1], "output_sizes": [1]})");
    CHECK(spec.output_sizes == Ints{1});
}

TEST_CASE("ops json: gather indices inline, scalar and as a file") {
    auto spec = only<GatherSpec>(R"({"op": "gather", "indices": [[0, 2], [1, -1]], "axis": 1, "batch_dims": -1})");
    REQUIRE(spec.indices);
    CHECK(spec.indices->shape == Ints{2, 2});
    CHECK(spec.indices->values == Ints{0, 2, 1, -1});
    CHECK(spec.axis == 1);
    CHECK(spec.batch_dims == -1);
    CHECK(!spec.indices_path);

    spec = only<GatherSpec>(R"({"op": "gather", "indices": 3})");
    CHECK(spec.indices->shape.empty());
    CHECK(spec.indices->values == Ints{3});
    CHECK(spec.axis == 0);
    CHECK(spec.batch_dims == 0);

    spec = only<GatherSpec>(R"({"op": "gather", "indices": [[[1], [2]], [[3], [4]], [[5], [6]]]})");
    CHECK(spec.indices->shape == Ints{3, 2, 1});
    CHECK(spec.indices->values == Ints{1, 2, 3, 4, 5, 6});

    CHECK(only<GatherSpec>(R"({"op": "gather", "indices": []})").indices->shape == Ints{0});
    CHECK(only<GatherSpec>(R"({"op": "gather", "indices": [[], []]})").indices->shape == Ints{2, 0});
    CHECK(only<GatherSpec>(R"({"op": "gather", "indices": [[[]]]})").indices->shape == Ints{1, 1, 0});

    spec = only<GatherSpec>(R"({"op": "gather", "indices": "data/idx.npy", "axis": -2})");
    CHECK(!spec.indices);
    CHECK(spec.indices_path == "data/idx.npy");
    CHECK(spec.axis == -2);
}

TEST_CASE("ops json: index parses its expression") {
    const auto spec = only<IndexSpec>(R"({"op": "index", "expr": "[1:, ..., ::-1]"})");
    CHECK(spec.expr.items.size() == 3);
    CHECK(spec.expr.text == "[1:, ..., ::-1]");
}

TEST_CASE("ops json: an expression error keeps its caret and gains the path") {
    const ExprError error = thrown_by<ExprError>([] {
        parse_ops_json(R"([{"op": "slice", "starts": [], "ends": []}, {"op": "index", "expr": "[1:, ..., ::x]"}])");
    });
    CHECK(std::string(error.what()).rfind("ops[1].expr: ", 0) == 0);
    CHECK(error.expression() == "[1:, ..., ::x]");
    CHECK(error.column() == 12);
    CHECK(error.exit_code() == 2);
}

TEST_CASE("ops json: integers are 64-bit") {
    CHECK(only<SliceSpec>(R"({"op": "slice", "starts": [-9223372036854775808], "ends": [9223372036854775807]})").ends ==
          Ints{std::numeric_limits<std::int64_t>::max()});
    CHECK(error_of(R"([{"op": "slice", "starts": [0], "ends": [18446744073709551615]}])") ==
          "ops[0].ends[0]: 18446744073709551615 does not fit in a 64-bit integer");
    CHECK(error_of(R"([{"op": "slice", "starts": [0], "ends": [9223372036854775808]}])") ==
          "ops[0].ends[0]: 9223372036854775808 does not fit in a 64-bit integer");
    CHECK(error_of(R"([{"op": "slice", "starts": [0], "ends": [18446744073709551616]}])") ==
          "ops[0].ends[0]: 18446744073709551616 does not fit in a 64-bit integer");
    CHECK(error_of(R"({"op": "slice", "starts": [-9223372036854775809], "ends": [0]})") ==
          "op.starts[0]: -9223372036854775809 does not fit in a 64-bit integer");
    CHECK(error_of(R"({"op": "slice", "starts": [0], "ends": [100000000000000000000000000000000000000000]})") ==
          "op.ends[0]: 100000000000000000000000000000000000000000 does not fit in a 64-bit integer");
    CHECK(error_of(R"({"op": "gather", "indices": 0, "axis": 9223372036854775808})") ==
          "op.axis: 9223372036854775808 does not fit in a 64-bit integer");
    CHECK(error_of(R"({"op": "gather", "indices": [[1, 99999999999999999999]]})") ==
          "op.indices[0][1]: 99999999999999999999 does not fit in a 64-bit integer");
    CHECK(error_of(R"({"op": "strided_slice", "begin": [0], "end": [1], "begin_mask": 9223372036854775808})") ==
          "op.begin_mask: 9223372036854775808 does not fit in a 64-bit integer");
}

TEST_CASE("ops json: not integers") {
    const struct {
        const char* json;
        const char* message;
    } cases[] = {
        {R"([{"op": "slice", "starts": [0], "ends": [1]}, {"op": "strided_slice", "begin": "3", "end": [1]}])",
         R"(ops[1].begin: expected a list of integers, got "3")"},
        {R"({"op": "strided_slice", "begin": [0, 1.0], "end": [1, 2]})",
         "op.begin[1]: expected an integer, got 1.0"},
        {R"({"op": "strided_slice", "begin": [0, 1e3], "end": [1, 2]})",
         "op.begin[1]: expected an integer, got 1e3"},
        {R"({"op": "strided_slice", "begin": [true], "end": [1]})", "op.begin[0]: expected an integer, got true"},
        {R"({"op": "strided_slice", "begin": [null], "end": [1]})", "op.begin[0]: expected an integer, got null"},
        {R"({"op": "strided_slice", "begin": ["1"], "end": [1]})", R"(op.begin[0]: expected an integer, got "1")"},
        {R"({"op": "strided_slice", "begin": [[1]], "end": [1]})", "op.begin[0]: expected an integer, got [1]"},
        {R"({"op": "strided_slice", "begin": 3, "end": [1]})", "op.begin: expected a list of integers, got 3"},
        {R"({"op": "strided_slice", "begin": {"a": 1}, "end": [1]})",
         R"(op.begin: expected a list of integers, got {"a": 1})"},
        {R"({"op": "slice", "starts": [0], "ends": [1], "axes": [0.5]})", "op.axes[0]: expected an integer, got 0.5"},
        {R"({"op": "slice", "starts": [0], "ends": [1], "steps": false})",
         "op.steps: expected a list of integers, got false"},
        {R"({"op": "slice1", "offsets": [0], "sizes": [1], "strides": [1], "output_sizes": [-0.0]})",
         "op.output_sizes[0]: expected an integer, got -0.0"},
        {R"({"op": "gather", "indices": 0, "axis": "1"})", R"(op.axis: expected an integer, got "1")"},
        {R"({"op": "gather", "indices": 0, "batch_dims": 1.0})", "op.batch_dims: expected an integer, got 1.0"},
        {R"({"op": "gather", "indices": [0, 1.5]})", "op.indices[1]: expected an integer, got 1.5"},
        {R"({"op": "gather", "indices": true})",
         "op.indices: expected an integer, a nested list of integers or the path of an integer .npy file, got true"},
        {R"({"op": "gather", "indices": ""})", R"(op.indices: expected the path of an integer .npy file, got "")"},
        {R"({"op": "index", "expr": 3})",
         R"(op.expr: expected an index expression as a string, such as "[1:, ..., ::-1]", got 3)"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.json);
        CHECK(error_of(c.json) == c.message);
    }
}

TEST_CASE("ops json: masks that are not bitfields or 0/1 lists") {
    const struct {
        const char* mask;
        const char* message;
    } cases[] = {
        {"-1", "op.end_mask: a bitfield cannot be negative, got -1"},
        {"[0, 2]", "op.end_mask[1]: expected 0 or 1, got 2"},
        {"[0, -1]", "op.end_mask[1]: expected 0 or 1, got -1"},
        {"[true]", "op.end_mask[0]: expected an integer, got true"},
        {"\"0,1\"", R"(op.end_mask: expected an integer bitfield or a list of 0/1, got "0,1")"},
        {"1.0", "op.end_mask: expected an integer bitfield or a list of 0/1, got 1.0"},
        {"true", "op.end_mask: expected an integer bitfield or a list of 0/1, got true"},
        {"18446744073709551615", "op.end_mask: 18446744073709551615 does not fit in a 64-bit integer"},
        // Checked even where the list is longer than the entries.
        {"[0, 0, 5]", "op.end_mask[2]: expected 0 or 1, got 5"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.mask);
        CHECK(error_of(std::string(R"({"op": "strided_slice", "begin": [0, 0], "end": [1, 1], "end_mask": )") +
                       c.mask + "}") == c.message);
    }
}

TEST_CASE("ops json: lengths that do not match") {
    CHECK(error_of(R"({"op": "strided_slice", "begin": [0, 0], "end": [1]})") ==
          "op.end: has 1 entries but begin has 2; begin, end and strides must have the same length");
    CHECK(error_of(R"({"op": "strided_slice", "begin": [0], "end": [1], "strides": [1, 1]})") ==
          "op.strides: has 2 entries but begin has 1; begin, end and strides must have the same length");
    CHECK(error_of(R"({"op": "strided_slice", "begin": [0], "end": [1], "stride": []})") ==
          "op.stride: has 0 entries but begin has 1; begin, end and stride must have the same length");
    CHECK(error_of(R"({"op": "slice", "starts": [0], "ends": [1, 2]})") ==
          "op.ends: has 2 entries but starts has 1; starts, ends, axes and steps must have the same length");
    CHECK(error_of(R"({"op": "slice", "starts": [0], "ends": [1], "axes": []})") ==
          "op.axes: has 0 entries but starts has 1; starts, ends, axes and steps must have the same length");
    CHECK(error_of(R"({"op": "slice", "starts": [0], "ends": [1], "steps": [1, 1]})") ==
          "op.steps: has 2 entries but starts has 1; starts, ends, axes and steps must have the same length");
    const std::string slice1_rule =
        "; offsets, sizes, strides and output_sizes must have the same length (one per dimension)";
    CHECK(error_of(R"({"op": "slice1", "offsets": [0], "sizes": [1, 1], "strides": [1]})") ==
          "op.sizes: has 2 entries but offsets has 1" + slice1_rule);
    CHECK(error_of(R"({"op": "slice1", "offsets": [0], "sizes": [1], "strides": []})") ==
          "op.strides: has 0 entries but offsets has 1" + slice1_rule);
    CHECK(error_of(R"({"op": "slice1", "offsets": [0], "sizes": [1], "strides": [1], "output_sizes": [1, 1]})") ==
          "op.output_sizes: has 2 entries but offsets has 1" + slice1_rule);
}

TEST_CASE("ops json: op objects and fields") {
    const std::string ss_fields =
        "op, begin, end, strides (or stride), begin_mask, end_mask, new_axis_mask, shrink_axis_mask, ellipsis_mask";
    const std::string known =
        "strided_slice (StridedSlice), slice (Slice), slice1 (Slice1, DML_SLICE1), gather (Gather), index";
    CHECK(error_of(R"({"op": "strided_slice", "begin": [0], "end": [1], "begn": [0]})") ==
          "op.begn: unknown field for strided_slice; the fields are " + ss_fields);
    CHECK(error_of(R"([{"op": "slice", "starts": [0], "ends": [1], "stride": [1]}])") ==
          "ops[0].stride: unknown field for slice; the fields are op, starts, ends, axes, steps");
    CHECK(error_of(R"({"op": "index", "expr": "1", "my key": 1})") ==
          R"(op["my key"]: unknown field for index; the fields are op, expr)");
    CHECK(error_of(R"({"op": "strided_slice", "begin": [0]})") ==
          "op: missing field \"end\", which strided_slice requires; the fields are " + ss_fields);
    CHECK(error_of(R"({"op": "slice1", "offsets": [0], "sizes": [1]})") ==
          "op: missing field \"strides\", which slice1 requires; the fields are op, offsets, sizes, strides, "
          "output_sizes");
    CHECK(error_of(R"({"op": "gather", "axis": 1})") ==
          "op: missing field \"indices\", which gather requires; the fields are op, indices, axis, batch_dims");
    CHECK(error_of(R"({"op": "index"})") ==
          "op: missing field \"expr\", which index requires; the fields are op, expr");
    CHECK(error_of(R"({"begin": [0], "end": [1]})") == "op: missing field \"op\", the op's name: " + known);
    CHECK(error_of(R"([{"op": "slice", "starts": [], "ends": []}, {"op": 3}])") ==
          "ops[1].op: expected the op's name as a string, got 3");
    CHECK(error_of(R"({"op": "slyce", "starts": [0], "ends": [1]})") ==
          "op.op: unknown op \"slyce\"; the ops are " + known);
    CHECK(error_of(R"({"op": "strided_slice", "begin": [0], "end": [1], "begin": [1]})") == "op.begin: given twice");
    CHECK(error_of(R"({"op": "strided_slice", "begin": [0], "end": [1], "strides": [1], "stride": [1]})") ==
          "op.stride: give strides or its alias stride, not both");
    CHECK(error_of(R"([{"op": "slice", "starts": [], "ends": []}, 3])") ==
          R"(ops[1]: expected an op object such as {"op": "slice", "starts": [1], "ends": [3]}, got 3)");
    CHECK(error_of(R"("slice")") ==
          R"(--op: expected an op object or a list of them, such as {"op": "slice", "starts": [1], "ends": [3]}, got "slice")");
}

TEST_CASE("ops json: ragged gather indices") {
    CHECK(error_of(R"({"op": "gather", "indices": [[0, 1], [2]]})") ==
          "op.indices[1]: the indices must be rectangular: expected a list of 2 like op.indices[0], got [2]");
    CHECK(error_of(R"({"op": "gather", "indices": [[0, 1], 2]})") ==
          "op.indices[1]: the indices must be rectangular: expected a list of 2, got 2");
    CHECK(error_of(R"({"op": "gather", "indices": [0, [1]]})") ==
          "op.indices[1]: the indices must be rectangular: expected an integer, got [1]");
    CHECK(error_of(R"({"op": "gather", "indices": [[[0], [1]], [[2], [3, 4]]]})") ==
          "op.indices[1][1]: the indices must be rectangular: expected a list of 1 like op.indices[0][0], got [3, 4]");
    CHECK(error_of(R"({"op": "gather", "indices": [[], [1]]})") ==
          "op.indices[1]: the indices must be rectangular: expected a list of 0 like op.indices[0], got [1]");
}

TEST_CASE("ops json: JSON syntax errors give line and column") {
    CHECK(error_of("[1, ]") == "--op: invalid JSON at line 1, column 5: unexpected ']'; expected '[', '{', or a literal");
    CHECK(error_of("{\"op\": \"slice\",\n \"starts\": [0]\n \"ends\": [1]}") ==
          "--op: invalid JSON at line 3, column 2: unexpected string literal; expected '}'");
    CHECK(error_of("") == "--op: invalid JSON at line 1, column 1: unexpected end of input; expected '[', '{', or a literal");
    CHECK(error_of("{\"op\": \"slice\"} x").rfind("--op: invalid JSON at line 1, column 17: ", 0) == 0);
    CHECK(error_of("[1e999]") == "--op: invalid JSON at line 1, column 2: the number '1e999' is too large");
}

TEST_CASE("ops json: absurd sizes and nesting are refused") {
    std::string deep(65, '[');
    deep += std::string(65, ']');
    CHECK(error_of(deep) == "--op: invalid JSON at line 1, column 65: lists and objects are nested deeper than 64 levels");
    // 64 levels parse (and fail later, for what they are).
    std::string ok = "{\"op\": \"gather\", \"indices\": " + std::string(63, '[') + "1" + std::string(63, ']') + "}";
    CHECK(only<GatherSpec>(ok).indices->shape == Ints(63, 1));
    // Brackets inside strings do not count.
    const std::string brackets = std::string(70, '[') + std::string(70, '}');
    CHECK(only<GatherSpec>(R"({"op": "gather", "indices": ")" + brackets + "\"}").indices_path == brackets);

    std::string many = R"({"op": "slice", "starts": [)";
    for (int i = 0; i < 1'000'001; ++i) many += i ? ",0" : "0";
    many += R"(], "ends": []})";
    CHECK(error_of(many) == "op.starts: 1000001 entries is too many (at most 1000000)");

    // Two million values besides plain integer lists; a list of integers that turns into
    // one of mixed values counts its integers as such.
    std::string mixed = R"({"op": "gather", "indices": [)";
    for (int i = 0; i < 2'000'000; ++i) mixed += "0,";
    mixed += R"("x"]})";
    CHECK(error_of(mixed) ==
          "--op: the op spec is too large (more than 2000000 values); give large indices as an .npy file");
}

TEST_CASE("ops json: @FILE reads the spec from a file") {
    const std::string path = "/tmp/tslice_test_ops_json_spec.json";
    {
        std::ofstream out(path);
        out << R"([{"op": "slice", "starts": [1], "ends": [3]}])";
    }
    const auto ops = parse_op_argument("@" + path);
    REQUIRE(ops.size() == 1);
    CHECK(std::get<SliceSpec>(ops[0].spec).starts == Ints{1});
    std::remove(path.c_str());

    // Inline text is JSON itself.
    CHECK(parse_op_argument(R"({"op": "index", "expr": "0"})").size() == 1);

    CHECK(message_of(ErrorKind::Input, [] { parse_op_argument("@/nonexistent/spec.json"); }) ==
          "--op @/nonexistent/spec.json: cannot read '/nonexistent/spec.json': No such file or directory");
    CHECK(message_of(ErrorKind::Input, [] { parse_op_argument("@/tmp"); }) ==
          "--op @/tmp: cannot read '/tmp': Is a directory");
    {
        std::ofstream out(path);
        out << "[\n{\"op\": \"slice\",}]";
    }
    CHECK(message_of(ErrorKind::Usage, [&] { parse_op_argument("@" + path); }) ==
          "--op @" + path + ": invalid JSON at line 2, column 16: unexpected '}'; expected string literal");
    std::remove(path.c_str());
}

TEST_CASE("ops json: long values are shortened in messages") {
    const std::string message =
        error_of(R"({"op": "strided_slice", "begin": "a very long string that goes on and on and on and on and on", "end": []})");
    CHECK(message == R"(op.begin: expected a list of integers, got "a very long string that goes on and on and on and on and on...)");
}

TEST_CASE("ops json: a NUL byte is an error where it stands, not the end of the text") {
    using namespace std::string_literals;
    const std::string nul_message = ": a NUL byte (0x00), which JSON text may not hold (in a string, write it as \\u0000)";
    // After a whole spec, in the middle of one, inside a string, first, on a later line.
    CHECK(error_of("{\"op\":\"slice\",\"starts\":[1],\"ends\":[3]}\0garbage{{{"s) ==
          "--op: invalid JSON at line 1, column 39" + nul_message);
    CHECK(error_of("{\"op\":\"slice\",\"starts\":[1\0],\"ends\":[3]}"s) == "--op: invalid JSON at line 1, column 26" + nul_message);
    CHECK(error_of("{\"op\":\"index\",\"expr\":\"0\0\"}"s) == "--op: invalid JSON at line 1, column 24" + nul_message);
    CHECK(error_of("\0"s) == "--op: invalid JSON at line 1, column 1" + nul_message);
    CHECK(error_of("[\n{\"op\":\"index\",\"expr\":\"0\"}\n]\0"s) == "--op: invalid JSON at line 3, column 2" + nul_message);
    // Written as an escape, U+0000 is a character of the string like any other.
    CHECK(error_of(R"({"op":"index","expr":"\u0000"})").find("NUL byte") == std::string::npos);

    const std::string path = "/tmp/tslice_test_ops_json_nul.json";
    {
        std::ofstream out(path, std::ios::binary);
        out << "{\"op\":\"slice\",\"starts\":[1],\"ends\":[3]}\0garbage{{{"s;
    }
    CHECK(message_of(ErrorKind::Usage, [&] { parse_op_argument("@" + path); }) ==
          "--op @" + path + ": invalid JSON at line 1, column 39" + nul_message);
    std::remove(path.c_str());
}
