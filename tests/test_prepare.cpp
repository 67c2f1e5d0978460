// The preparation every run shares: open, choose, plan, view.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "run_fixture.hpp"
#include "thrown_error.hpp"
#include "tslice/error.hpp"
#include "tslice/prepare.hpp"

using namespace tslice;
using namespace tslice_test;

namespace {

// The int32 values of a viewed result (1-D or 2-D), in C order, through its element offsets
// (an affine view or a gather's table alike).
std::vector<std::int32_t> values_of(const ViewedArray& viewed) {
    const View& view = viewed.result.view;
    REQUIRE((view.rank() == 1 || view.rank() == 2));
    const std::int64_t rows = view.rank() == 2 ? view.shape[0] : 1;
    std::vector<std::int32_t> values;
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t c = 0; c < view.shape.back(); ++c) {
            std::int32_t value;
            const std::vector<std::int64_t> index = view.rank() == 2 ? std::vector<std::int64_t>{r, c}
                                                                     : std::vector<std::int64_t>{c};
            std::memcpy(&value, viewed.result.data + view.element_offset(index), 4);
            values.push_back(value);
        }
    return values;
}

}  // namespace

TEST_CASE("prepare: a .npy opened, chosen, planned and viewed") {
    RunFiles files;
    Prepared prepared = Prepared::open(files.npy);
    REQUIRE(prepared.arrays().size() == 1);
    prepared.choose({});
    REQUIRE(prepared.chosen().size() == 1);
    CHECK(prepared.chosen()[0] == &prepared.arrays()[0]);
    prepared.plan({}, parse_index_expr("[::-1, 1:]"));
    REQUIRE(prepared.planned().size() == 1);
    const PlannedArray& planned = prepared.planned()[0];
    CHECK(planned.array == &prepared.arrays()[0]);
    CHECK(planned.pipeline.output_shape() == std::vector<std::int64_t>{2, 2});
    CHECK(planned.type.dtype.type_string == "<i4");
    const ViewedArray viewed = prepared.view(0);
    CHECK(values_of(viewed) == std::vector<std::int32_t>{4, 5, 1, 2});
    // A file in place: the result is viewed in the input's mapping, not copied.
    CHECK(viewed.result.data >= prepared.input().data());
    CHECK(viewed.result.data < prepared.input().data() + prepared.input().size());
}

TEST_CASE("prepare: keys and globs choose arrays in the file's order; ops run before the expression") {
    RunFiles files;
    Prepared prepared = Prepared::open(files.npz);
    CHECK(prepared.arrays().size() == 2);
    prepared.choose({"b", "a"});
    REQUIRE(prepared.chosen().size() == 2);
    CHECK(*prepared.chosen()[0]->name == "a");
    CHECK(*prepared.chosen()[1]->name == "b");
    prepared.choose({"?"});  // choosing again starts over
    CHECK(prepared.chosen().size() == 2);
    prepared.plan(parse_op_argument(R"({"op": "gather", "indices": [2, 0], "axis": 0})"), parse_index_expr("[::-1]"));
    REQUIRE(prepared.planned().size() == 2);
    // The deflated member is inflated, the stored one mapped: the same values either way.
    CHECK(values_of(prepared.view(0)) == std::vector<std::int32_t>{0, 2});
    CHECK(values_of(prepared.view(1)) == std::vector<std::int32_t>{0, 2});
    const ViewedArray inflated = prepared.view(1);
    const std::byte* const input = prepared.input().data();
    CHECK((inflated.result.data < input || inflated.result.data >= input + prepared.input().size()));
    prepared.choose({"a"});
    CHECK(prepared.planned().empty());  // the plans were of the arrays chosen before
}

TEST_CASE("prepare: a moved preparation still points into its own arrays") {
    RunFiles files;
    Prepared first = Prepared::open(files.npz);
    first.choose({"b"});
    first.plan({}, parse_index_expr("[1:]"));
    const Prepared moved = std::move(first);
    CHECK(moved.chosen()[0] == &moved.arrays()[1]);
    CHECK(moved.planned()[0].array == &moved.arrays()[1]);
    CHECK(values_of(moved.view(0)) == std::vector<std::int32_t>{1, 2});
}

TEST_CASE("prepare: forget_plan drops a plan once viewed; the view stands on its own") {
    RunFiles files;
    Prepared prepared = Prepared::open(files.npy);
    prepared.choose({});
    prepared.plan({}, parse_index_expr("[[1, 0], :]"));
    const ViewedArray viewed = prepared.view(0);
    prepared.forget_plan(0);
    CHECK(prepared.planned()[0].pipeline.steps.empty());
    CHECK(values_of(viewed) == std::vector<std::int32_t>{3, 4, 5, 0, 1, 2});
}

TEST_CASE("prepare: errors name the input file") {
    RunFiles files;
    const std::string missing = (files.dir.path / "missing.npy").string();
    CHECK(input_error([&] { Prepared::open(missing); }).find("missing.npy") != std::string::npos);

    Prepared prepared = Prepared::open(files.npz);
    // Two arrays and no key: which one is meant is a usage error, about this file.
    const Error none = thrown_by([&] { prepared.choose({}); });
    CHECK(none.kind() == ErrorKind::Usage);
    CHECK(std::string(none.what()).find("two.npz") != std::string::npos);
    const Error unknown = thrown_by([&] { prepared.choose({"c"}); });
    CHECK(unknown.kind() == ErrorKind::Usage);
    CHECK(std::string(unknown.what()).find("two.npz") != std::string::npos);

    // A plan error is the expression's, not the file's.
    prepared.choose({"a"});
    const Error out_of_range = thrown_by([&] { prepared.plan({}, parse_index_expr("[6]")); });
    CHECK(std::string(out_of_range.what()).find("two.npz") == std::string::npos);
}

TEST_CASE("prepare: a dry run reads an indices file only as far as its shape") {
    RunFiles files;
    const std::string indices = (files.dir.path / "idx.npy").string();
    write_file(indices, npy_int32(2, "(2,)"));  // 0, 1
    const std::string spec = R"({"op": "gather", "indices": ")" + indices + R"(", "axis": 1})";

    Prepared dry = Prepared::open(files.npy, true);
    CHECK(dry.headers_only());
    dry.choose({});
    dry.plan(parse_op_argument(spec), std::nullopt);
    CHECK(dry.planned()[0].pipeline.output_shape() == std::vector<std::int64_t>{2, 2});

    Prepared real = Prepared::open(files.npy);
    real.choose({});
    real.plan(parse_op_argument(spec), std::nullopt);
    CHECK(values_of(real.view(0)) == std::vector<std::int32_t>{0, 1, 3, 4});
}

TEST_CASE("prepare: an unreadable array is refused when chosen to read, and chosen to be listed") {
    RunFiles files;
    const std::string path = (files.dir.path / "mixed.npz").string();
    write_file(path, make_zip({{"a.npy", npy_counting(2)}, {"notes.npy", "not a .npy"}}));
    Prepared prepared = Prepared::open(path);
    CHECK(input_error([&] { prepared.choose({"*"}); }).find("notes") != std::string::npos);
    prepared.choose({"*"}, {.listing = true});
    CHECK(prepared.chosen().size() == 2);
}

TEST_CASE("prepare: a quantized tensor is planned for a dry run, refused before a write, read after --astype") {
    const std::string gguf = std::string(TSLICE_SOURCE_DIR) + "/data/tiny.gguf";
    Prepared dry = Prepared::open(gguf, true);
    dry.choose({"blk.0.attn_q.weight"});
    dry.plan({}, parse_index_expr("[1, ::2]"));
    CHECK(dry.planned()[0].pipeline.output_shape() == std::vector<std::int64_t>{16});

    Prepared writing = Prepared::open(gguf);
    writing.choose({"blk.0.attn_q.weight"});
    CHECK(message_of(ErrorKind::Usage, [&] {
              writing.plan({}, parse_index_expr("[1]"), {.refuse_unsliceable = true});
          }).find("quantized ggml type Q8_0") != std::string::npos);
    // Without the check the plan is made, and reading the array is what fails.
    writing.plan({}, parse_index_expr("[1]"));
    CHECK(message_of(ErrorKind::Usage, [&] { writing.view(0); }).find("Q8_0") != std::string::npos);

    Prepared converting = Prepared::open(gguf);
    converting.choose({"blk.0.attn_q.weight"}, {.converting = true});
    converting.plan({}, parse_index_expr("[1]"), {.refuse_unsliceable = true});
    CHECK(converting.planned()[0].type.dtype.type_string == "<f4");
    CHECK(converting.view(0).result.view.shape == std::vector<std::int64_t>{32});
}
