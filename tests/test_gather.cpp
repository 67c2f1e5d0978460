// Gathers: OpenVINO Gather-8 (seed 003's worked examples with their numbers, errata S003-*,
// validation, indices files of every integer dtype) and numpy's advanced indexing (golden
// cases whose expected values were printed by numpy 1.24 for np.arange(n).reshape(shape)).
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>

#include "thrown_error.hpp"
#include "tslice/copy.hpp"
#include "tslice/error.hpp"
#include "tslice/expr.hpp"
#include "tslice/gather.hpp"
#include "tslice/ops.hpp"
#include "tslice/npy.hpp"
#include "tslice/write.hpp"
#include "tslice/plan.hpp"

using namespace tslice;
using namespace tslice_test;

namespace {

using Shape = std::vector<std::int64_t>;
using Values = std::vector<std::int64_t>;

struct Result {
    Shape shape;
    Values values;
};

// Copies `view` of int64 `data` and reads the result back.
Values copy_int64(const Values& data, const View& view) {
    Values out(static_cast<std::size_t>(view.element_count()));
    copy_view(reinterpret_cast<const std::byte*>(data.data()), view, reinterpret_cast<std::byte*>(out.data()), 0,
              view.element_count());
    return out;
}

Result gather(const Values& data, const Shape& data_shape, const Values& indices, const Shape& indices_shape,
              std::int64_t axis, std::int64_t batch_dims) {
    GatherSpec spec;
    spec.indices = IntArray{indices_shape, indices};
    spec.axis = axis;
    spec.batch_dims = batch_dims;
    const GatherPlan plan = plan_gather(spec, data_shape, "ops[0]");
    const View view = apply_gather(plan, View::contiguous(data_shape, sizeof(std::int64_t)));
    CHECK(view.shape == plan.output_shape());
    return {plan.output_shape(), copy_int64(data, view)};
}

Values iota(std::int64_t count, std::int64_t first = 0) {
    Values values(static_cast<std::size_t>(count));
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = first + static_cast<std::int64_t>(i);
    return values;
}

// The spec with its indices file (if any) read, as the pipeline reads it before planning.
GatherSpec resolved(const GatherSpec& spec, bool shape_only = false) {
    std::vector<OpSpec> ops{OpSpec{spec, "ops[0]"}};
    read_indices_files(ops, shape_only);
    return std::get<GatherSpec>(ops[0].spec);
}

std::string gather_error(const GatherSpec& spec, const Shape& data_shape, ErrorKind kind = ErrorKind::Usage) {
    return message_of(kind, [&] { plan_gather(resolved(spec), data_shape, "ops[0]"); });
}

GatherSpec inline_spec(Shape shape, Values values, std::int64_t axis, std::int64_t batch_dims = 0) {
    GatherSpec spec;
    spec.indices = IntArray{std::move(shape), std::move(values)};
    spec.axis = axis;
    spec.batch_dims = batch_dims;
    return spec;
}

// A .npy file in /tmp with `raw` element bytes, for indices_path.
std::string write_npy_file(const std::string& name, const std::string& descr, const Shape& shape, bool fortran,
                           const std::string& raw) {
    std::string shape_text = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) shape_text += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? "," : "");
    shape_text += ")";
    std::string header = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                         ", 'shape': " + shape_text + ", }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::string bytes = "\x93NUMPY";
    bytes += '\x01';
    bytes += '\x00';
    bytes += static_cast<char>(header.size() & 0xFF);
    bytes += static_cast<char>(header.size() >> 8);
    bytes += header + raw;
    const std::string path = "/tmp/tslice_test_gather_" + name + ".npy";
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}

template <typename T>
std::string raw_bytes(const std::vector<T>& values, bool big_endian) {
    std::string raw;
    for (const T value : values) {
        char bytes[sizeof(T)];
        std::memcpy(bytes, &value, sizeof(T));
        if (big_endian) std::reverse(bytes, bytes + sizeof(T));
        raw.append(bytes, sizeof(T));
    }
    return raw;
}

Result advanced(const std::string& text, const Shape& shape) {
    const GatherPlan plan = plan_advanced_index(parse_index_expr(text), shape);
    std::int64_t count = 1;
    for (auto dim : shape) count *= dim;
    const Values data = iota(count);
    const View view = apply_gather(plan, View::contiguous(shape, sizeof(std::int64_t)));
    return {plan.output_shape(), copy_int64(data, view)};
}

}  // namespace

TEST_CASE("gather: seed 003 worked examples") {
    SUBCASE("example 1: default batch_dims") {
        const auto r = gather({1, 2, 3, 4, 5}, {5}, {0, 0, 4}, {3}, 0, 0);
        CHECK(r.shape == Shape{3});
        CHECK(r.values == Values{1, 1, 5});
    }
    SUBCASE("example 2: batch_dims 1, axis 1 (S003-1: axis is 0-based, the dimension of 5)") {
        const auto r = gather(iota(10, 1), {2, 5}, {0, 0, 4, 4, 0, 0}, {2, 3}, 1, 1);
        CHECK(r.shape == Shape{2, 3});
        CHECK(r.values == Values{1, 1, 5, 10, 6, 6});
    }
    SUBCASE("example 3: batch_dims 2, axis 2") {
        const auto r = gather(iota(20, 1), {2, 2, 5}, {0, 0, 4, 4, 0, 0, 1, 2, 4, 4, 3, 2}, {2, 2, 3}, 2, 2);
        CHECK(r.shape == Shape{2, 2, 3});
        CHECK(r.values == Values{1, 1, 5, 10, 6, 6, 12, 13, 15, 20, 19, 18});
    }
    SUBCASE("example 4: axis > batch_dims") {
        const auto r = gather(iota(40, 1), {2, 1, 5, 4}, {1, 2, 4, 4, 3, 2}, {2, 3}, 2, 1);
        CHECK(r.shape == Shape{2, 1, 3, 4});
        CHECK(r.values == Values{5, 6, 7, 8, 9, 10, 11, 12, 17, 18, 19, 20,
                                 37, 38, 39, 40, 33, 34, 35, 36, 29, 30, 31, 32});
    }
    SUBCASE("example 5: negative batch_dims is normalised with the indices rank") {
        const auto r = gather(iota(10, 1), {2, 5}, {0, 0, 4, 4, 0, 0}, {2, 3}, 1, -1);
        CHECK(r.shape == Shape{2, 3});
        CHECK(r.values == Values{1, 1, 5, 10, 6, 6});
        const GatherPlan plan = plan_gather(inline_spec({2, 3}, {0, 0, 4, 4, 0, 0}, 1, -1), {2, 5}, "ops[0]");
        CHECK(plan.batch_dims == 1);
        CHECK(plan.axis == 1);
    }
    SUBCASE("example 6: negative indices") {
        const auto r = gather({1, 2, 3, 4, 5}, {5}, {0, -2, -1}, {3}, 0, 0);
        CHECK(r.values == Values{1, 4, 5});
    }
    SUBCASE("example 7: out-of-range indices give zeros") {
        const auto r = gather({1, 2, 3, 4, 5}, {5}, {3, 10, -20}, {3}, 0, 0);
        CHECK(r.values == Values{4, 0, 0});
        // the edges of [-dim, dim - 1]
        CHECK(gather({1, 2, 3, 4, 5}, {5}, {-5, 4, -6, 5}, {4}, 0, 0).values == Values{1, 5, 0, 0});
    }
    SUBCASE("the IR example's shape (S003-2: the output port id is cosmetic)") {
        const GatherPlan plan = plan_gather(inline_spec({2, 32, 21}, Values(2 * 32 * 21, 0), 1, 1), {2, 64, 128}, "ops[0]");
        CHECK(plan.output_shape() == Shape{2, 32, 21, 128});
    }
}

TEST_CASE("gather: the plan says what every output axis is") {
    const GatherPlan plan = plan_gather(inline_spec({2, 3}, {1, 2, 4, 4, 3, 2}, -2, 1), {2, 1, 5, 4}, "ops[0]");
    CHECK(plan.axis == 2);
    CHECK(plan.batch_dims == 1);
    CHECK(plan.table_shape == Shape{2, 3});
    REQUIRE(plan.axes.size() == 4);
    CHECK(plan.axes[0] == GatherAxis{GatherAxisKind::Batch, 0, 0, 0, 2, 1, 2});
    CHECK(plan.axes[1] == GatherAxis{GatherAxisKind::Outer, 1, -1, 0, 1, 1, 1});
    CHECK(plan.axes[2] == GatherAxis{GatherAxisKind::Indices, -1, 1, 0, 3, 1, 3});
    CHECK(plan.axes[3] == GatherAxis{GatherAxisKind::Inner, 3, -1, 0, 4, 1, 4});
    REQUIRE(plan.indices.size() == 1);
    CHECK(plan.indices[0].source_axis == 2);
    CHECK(*plan.indices[0].values == Values{1, 2, 4, 4, 3, 2});
    CHECK(std::string(kind_name(GatherAxisKind::Batch)) == "batch");
    // Plans are values: equal when planned twice, different when anything differs.
    CHECK(plan == plan_gather(inline_spec({2, 3}, {1, 2, 4, 4, 3, 2}, 2, -1), {2, 1, 5, 4}, "ops[1]"));
    CHECK_FALSE(plan == plan_gather(inline_spec({2, 3}, {1, 2, 4, 4, 3, 1}, 2, 1), {2, 1, 5, 4}, "ops[0]"));
    // Out-of-range indices are marked once, in the plan.
    const GatherPlan zeros = plan_gather(inline_spec({3}, {3, 10, -20}, 0), {5}, "ops[0]");
    CHECK(*zeros.indices[0].values == Values{3, View::kZeroElement, View::kZeroElement});
}

TEST_CASE("gather: scalar indices, zero-size axes, gathering along the last axis") {
    // A scalar index removes the axis.
    auto r = gather(iota(6), {2, 3}, {-1}, {}, 1, 0);
    CHECK(r.shape == Shape{2});
    CHECK(r.values == Values{2, 5});
    r = gather(iota(6), {2, 3}, {1}, {}, 0, 0);
    CHECK(r.shape == Shape{3});
    CHECK(r.values == Values{3, 4, 5});
    // An axis of size 0: every index is out of range, so the output is zeros, not empty.
    r = gather({}, {0, 3}, {0, -1}, {2}, 0, 0);
    CHECK(r.shape == Shape{2, 3});
    CHECK(r.values == Values(6, 0));
    // Empty indices: an empty output.
    r = gather(iota(6), {2, 3}, {}, {0, 2}, 1, 0);
    CHECK(r.shape == Shape{2, 0, 2});
    // 2-D indices along the last axis: element by element through the table.
    r = gather(iota(6), {2, 3}, {2, 0, -1, 7}, {2, 2}, -1, 0);
    CHECK(r.shape == Shape{2, 2, 2});
    CHECK(r.values == Values{2, 0, 2, 0, 5, 3, 5, 0});
    // batch_dims equal to the indices rank: one index per batch.
    r = gather(iota(6), {2, 3}, {2, 0}, {2}, 1, 1);
    CHECK(r.shape == Shape{2});
    CHECK(r.values == Values{2, 3});
}

TEST_CASE("gather: errata S003-3: batch_dims is normalised with the indices rank only") {
    // data rank 2, indices rank 4: -3 is outside the seed's [-min(2, 4), ...] but OpenVINO
    // normalises it to 4 - 3 = 1 and accepts it.
    const GatherPlan plan = plan_gather(inline_spec({2, 1, 1, 3}, {0, 1, 4, 4, 3, 2}, 1, -3), {2, 5}, "ops[0]");
    CHECK(plan.batch_dims == 1);
    CHECK(plan.output_shape() == Shape{2, 1, 1, 3});
}

TEST_CASE("gather: invalid specs name the field") {
    CHECK(gather_error(inline_spec({2}, {0, 0}, 1, 2), {2, 3}) ==
          "ops[0].batch_dims: batch_dims 2 is out of range for indices of rank 1 (allowed -1..1)");
    CHECK(gather_error(inline_spec({2, 3}, Values(6, 0), 1, 2), {2, 3}) ==
          "ops[0].batch_dims: batch_dims 2 is greater than axis 1");
    CHECK(gather_error(inline_spec({2, 3}, Values(6, 0), -2, -1), {2, 3}) ==
          "ops[0].batch_dims: batch_dims -1 (1 after normalisation) is greater than axis -2 (0 after normalisation)");
    CHECK(gather_error(inline_spec({2}, {0, 0}, 2), {2, 3}) ==
          "ops[0].axis: axis 2 is out of range for data of rank 2 (allowed -2..1)");
    CHECK(gather_error(inline_spec({2}, {0, 0}, -3), {2, 3}) ==
          "ops[0].axis: axis -3 is out of range for data of rank 2 (allowed -2..1)");
    CHECK(gather_error(inline_spec({}, {0}, 0), {}).rfind("ops[0].axis: the data is 0-dimensional", 0) == 0);
    CHECK(gather_error(inline_spec({3, 2}, Values(6, 0), 1, 1), {2, 5}) ==
          "ops[0].indices: batch dimension 0 of the indices has size 3 but the data's has size 2 "
          "(batch_dims 1 needs data.shape[:1] == indices.shape[:1]: (2,) and (3,))");
    CHECK(gather_error(GatherSpec{}, {2, 3}).rfind("ops[0].indices: missing", 0) == 0);
    // Too large a table is refused before anything is allocated.
    CHECK(gather_error(inline_spec({65536, 65537}, {}, 0), {2}).rfind("ops[0].indices: indices of shape (65536, 65537) are more than", 0) == 0);
    CHECK(gather_error(inline_spec({1 << 20, 1 << 20, 1 << 20, 1 << 20}, {}, 0), {2}).rfind("ops[0].indices: indices of shape", 0) == 0);
    // An output beyond 64 bits (a zero-size data axis may come with a huge other one).
    CHECK(gather_error(inline_spec({2}, {0, 0}, 0), {0, std::int64_t{1} << 62, 4}).find("has more elements than fit in 64 bits") !=
          std::string::npos);
}

TEST_CASE("gather: indices from .npy files of every integer dtype") {
    const Values data = iota(12);
    auto run = [&](const std::string& path, std::int64_t axis = 1) {
        GatherSpec spec;
        spec.indices_path = path;
        spec.axis = axis;
        const GatherPlan plan = plan_gather(resolved(spec), {3, 4}, "ops[0]");
        // A dry run reads only the header, and plans the same shape.
        CHECK(resolved(spec, true).indices->values.empty());
        CHECK(plan_gather(resolved(spec, true), {3, 4}, "ops[0]").output_shape() == plan.output_shape());
        return Result{plan.output_shape(), copy_int64(data, apply_gather(plan, View::contiguous({3, 4}, 8)))};
    };
    const Values expected{3, 0, 0, 7, 4, 0, 11, 8, 0};  // indices [-1, 0, 9] along axis 1
    CHECK(run(write_npy_file("i1", "|i1", {3}, false, raw_bytes<std::int8_t>({-1, 0, 9}, false))).values == expected);
    CHECK(run(write_npy_file("u1", "|u1", {3}, false, raw_bytes<std::uint8_t>({3, 0, 255}, false))).values ==
          Values{3, 0, 0, 7, 4, 0, 11, 8, 0});
    CHECK(run(write_npy_file("i2", "<i2", {3}, false, raw_bytes<std::int16_t>({-1, 0, 9}, false))).values == expected);
    CHECK(run(write_npy_file("i2be", ">i2", {3}, false, raw_bytes<std::int16_t>({-1, 0, 9}, true))).values == expected);
    CHECK(run(write_npy_file("u2be", ">u2", {3}, false, raw_bytes<std::uint16_t>({3, 0, 300}, true))).values == expected);
    CHECK(run(write_npy_file("i4be", ">i4", {3}, false, raw_bytes<std::int32_t>({-1, 0, 9}, true))).values == expected);
    CHECK(run(write_npy_file("u4", "<u4", {3}, false, raw_bytes<std::uint32_t>({3, 0, 4000000000u}, false))).values == expected);
    CHECK(run(write_npy_file("i8", "<i8", {3}, false, raw_bytes<std::int64_t>({-1, 0, std::numeric_limits<std::int64_t>::min()}, false))).values == expected);
    CHECK(run(write_npy_file("u8be", ">u8", {3}, false, raw_bytes<std::uint64_t>({3, 0, ~std::uint64_t{0}}, true))).values == expected);
    // A scalar, and a Fortran-order 2-D file: [[0, 1, 2], [3, -1, -4]] stored column by column.
    auto r = run(write_npy_file("scalar", "<i8", {}, false, raw_bytes<std::int64_t>({-2}, false)), 0);
    CHECK(r.shape == Shape{4});
    CHECK(r.values == Values{4, 5, 6, 7});
    r = run(write_npy_file("fortran", "<i4", {2, 3}, true, raw_bytes<std::int32_t>({0, 3, 1, -1, 2, -4}, false)));
    CHECK(r.shape == Shape{3, 2, 3});
    CHECK(r.values == Values{0, 1, 2, 3, 3, 0, 4, 5, 6, 7, 7, 4, 8, 9, 10, 11, 11, 8});

    // Not integers: an invalid spec (exit 2), naming the file.
    GatherSpec spec;
    spec.indices_path = write_npy_file("f4", "<f4", {1}, false, std::string(4, '\0'));
    CHECK(gather_error(spec, {3, 4}) == "ops[0].indices: the indices file '" + *spec.indices_path +
                                            "' has dtype '<f4'; gather indices must be integers (int8 to int64 or uint8 to uint64)");
    spec.indices_path = write_npy_file("b1", "|b1", {1}, false, std::string(1, '\1'));
    CHECK(gather_error(spec, {3, 4}).find("has dtype '|b1'") != std::string::npos);
    // Unreadable: an input error (exit 1), naming the file.
    spec.indices_path = "/tmp/tslice_test_gather_does_not_exist.npy";
    const std::string message = gather_error(spec, {3, 4}, ErrorKind::Input);
    CHECK(message.rfind("ops[0].indices: ", 0) == 0);
    CHECK(message.find("tslice_test_gather_does_not_exist.npy") != std::string::npos);
    // Planning reads no file: a path nobody read is a broken invariant, not the user's error.
    GatherSpec unread;
    unread.indices_path = "/tmp/unread.npy";
    CHECK_THROWS_WITH_AS(plan_gather(unread, {3, 4}, "ops[0]"), doctest::Contains("not read before planning"), Error);
    CHECK(thrown_by([&] { plan_gather(unread, {3, 4}, "ops[0]"); }).exit_code() == 70);
    for (const char* name : {"i1", "u1", "i2", "i2be", "u2be", "i4be", "u4", "i8", "u8be", "scalar", "fortran", "f4", "b1"})
        std::remove(("/tmp/tslice_test_gather_" + std::string(name) + ".npy").c_str());
}

TEST_CASE("gather: a view of a view, and a slice of a gather") {
    // Gather from a reversed, strided input view.
    const Values data = iota(24);
    const View input = apply_plan(plan_index(parse_index_expr("[::-1, 1:, ::2]"), {2, 3, 4}), View::contiguous({2, 3, 4}, 8));
    GatherSpec spec = inline_spec({3}, {1, -1, 5}, 1);
    const GatherPlan plan = plan_gather(spec, input.shape, "ops[0]");
    const View gathered = apply_gather(plan, input);
    // numpy: a[::-1, 1:, ::2] is [[[16, 18], [20, 22]], [[4, 6], [8, 10]]]; take [1, -1, (5: zeros)] on axis 1
    CHECK(copy_int64(data, gathered) == Values{20, 22, 20, 22, 0, 0, 8, 10, 8, 10, 0, 0});
    // Slicing the table view slices the table too: [:, ::-1, -1] of the above.
    const View sliced = apply_plan(plan_index(parse_index_expr("[:, ::-1, -1]"), gathered.shape), gathered);
    CHECK(sliced.has_table());
    CHECK(copy_int64(data, sliced) == Values{0, 22, 22, 0, 10, 10});
    const View with_axis = apply_plan(plan_index(parse_index_expr("[None, 1, 1:, None]"), gathered.shape), gathered);
    CHECK(with_axis.shape == Shape{1, 2, 1, 2});
    CHECK(copy_int64(data, with_axis) == Values{8, 10, 0, 0});
    // The table is shared, and equal views compare equal by content.
    View copy = sliced;
    copy.table = std::make_shared<const std::vector<std::int64_t>>(*sliced.table);
    CHECK(copy == sliced);
    CHECK_FALSE(copy == gathered);
    CHECK_THROWS_AS(apply_gather(plan, gathered), Error);  // the glue materialises first
}

TEST_CASE("advanced: results equal numpy's") {
    struct Case {
        const char* text;
        Shape input, output;
        Values values;
    };
    // Printed by numpy 1.24 for np.arange(n).reshape(input)[index].
    const Case cases[] = {
        {"[[0, 2]]", {3}, {2}, {0, 2}},
        {"[[2, 0, -1], 1]", {3, 4}, {3}, {9, 1, 9}},
        {"[:, [1, 2], [0, 3]]", {2, 3, 4}, {2, 2}, {4, 11, 16, 23}},
        {"[:, [0, 1], 0]", {2, 3, 4}, {2, 2}, {0, 4, 12, 16}},
        {"[[0, 1], :, [1, 2]]", {2, 3, 4}, {2, 3}, {1, 5, 9, 14, 18, 22}},
        {"[:, [0], None, [0]]", {2, 3, 4, 5}, {1, 2, 1, 5}, {0, 1, 2, 3, 4, 60, 61, 62, 63, 64}},
        {"[:, [1], ..., [2], :]", {2, 3, 4, 5}, {1, 2, 5}, {30, 31, 32, 33, 34, 90, 91, 92, 93, 94}},
        {"[1, ..., [0, 2]]", {2, 3, 4}, {2, 3}, {12, 16, 20, 14, 18, 22}},
        {"[[[0], [1]], [0, 2, 1]]", {2, 3}, {2, 3}, {0, 2, 1, 3, 5, 4}},
        {"[::-1, [[2, 0], [1, 1]]]", {3, 4}, {3, 2, 2}, {10, 8, 9, 9, 6, 4, 5, 5, 2, 0, 1, 1}},
        {"[[-1, 0], 1:, None]", {3, 4}, {2, 3, 1}, {9, 10, 11, 1, 2, 3}},
        {"[None, [1], None, ::2, [0]]", {2, 5, 3}, {1, 1, 1, 3}, {15, 21, 27}},
        {"[[]]", {3, 2}, {0, 2}, {}},
        {"[[], 1]", {3, 2}, {0}, {}},
        {"[[[]], [1]]", {3, 2}, {1, 0}, {}},
        {"[[2, 1], 1:3, [0, 0]]", {3, 4, 2}, {2, 2}, {18, 20, 10, 12}},
        {"[1:, [0, 2, 1], ::-2]", {3, 3, 5}, {2, 3, 3}, {19, 17, 15, 29, 27, 25, 24, 22, 20, 34, 32, 30, 44, 42, 40, 39, 37, 35}},
        {"[[1, 0], [[0], [2]], [3]]", {2, 3, 4}, {2, 2}, {15, 3, 23, 11}},
        {"[[1, 0], ..., [[0], [2]]]", {2, 3, 4}, {2, 2, 3}, {12, 16, 20, 0, 4, 8, 14, 18, 22, 2, 6, 10}},
        {"[..., [1, 0]]", {2, 3}, {2, 2}, {1, 0, 4, 3}},
        {"[[9], []]", {2, 3}, {0}, {}},         // the arrays broadcast to nothing: 9 is never looked up
        {"[[0, 1], 1:1]", {2, 3}, {2, 0}, {}},
        {"[0, [1, 2], 0]", {2, 3, 4}, {2}, {4, 8}},
        // Masks (their nonzero() arrays), True and False, and booleans mixed into an integer list.
        {"[[True, False, True]]", {3}, {2}, {0, 2}},
        {"[:, [True, False, True]]", {2, 3}, {2, 2}, {0, 2, 3, 5}},
        {"[[[True, False, True], [False, True, True]]]", {2, 3, 2}, {4, 2}, {0, 1, 4, 5, 8, 9, 10, 11}},
        {"[[True, False], ..., [0, 2]]", {2, 3, 4}, {2, 3}, {0, 4, 8, 2, 6, 10}},
        {"[[True, True], :, [1, 3]]", {2, 3, 4}, {2, 3}, {1, 5, 9, 15, 19, 23}},
        {"[True]", {2, 3}, {1, 2, 3}, {0, 1, 2, 3, 4, 5}},
        {"[False]", {2, 3}, {0, 2, 3}, {}},
        {"[..., None, True]", {2}, {2, 1, 1}, {0, 1}},
        {"[True, :, 0]", {2, 3}, {1, 2}, {0, 3}},
        {"[:, True, 0]", {2, 3}, {2, 1}, {0, 3}},
        {"[[0, 1], :, True]", {2, 3}, {2, 3}, {0, 1, 2, 3, 4, 5}},
        {"[[True, 0]]", {3}, {2}, {1, 0}},
        {"[[False, False]]", {2, 3}, {0, 3}, {}},
        {"[True]", {}, {1}, {0}},
        {"[1, [False, True, True]]", {2, 3}, {2}, {4, 5}},
    };
    for (const auto& c : cases) {
        const std::string text = c.text;
        CAPTURE(text);
        const Result r = advanced(c.text, c.input);
        CHECK(r.shape == c.output);
        CHECK(r.values == c.values);
    }
}

TEST_CASE("advanced: errors in numpy's words and order, at the item") {
    struct Case {
        const char* text;
        Shape input;
        const char* message;  // numpy's, without its trailing space
        std::size_t column;
    };
    const Case cases[] = {
        {"[[0, 1], [0, 1, 2]]", {2, 3, 4}, "shape mismatch: indexing arrays could not be broadcast together with shapes (2,) (3,)", 9},
        {"[[0, 1], 0, [[0, 1, 2]], [0, 1, 2, 3]]", {2, 3, 4, 5}, "shape mismatch: indexing arrays could not be broadcast together with shapes (2,) (1,3) (4,)", 12},
        {"[[5], [0, 1, 2]]", {2, 3, 4}, "index 5 is out of bounds for axis 0 with size 2", 1},
        {"[[0, -3]]", {2, 3}, "index -3 is out of bounds for axis 0 with size 2", 1},
        {"[[0], 7, [9]]", {2, 3, 4}, "index 7 is out of bounds for axis 1 with size 3", 6},
        {"[[9], 7]", {2, 3}, "index 7 is out of bounds for axis 1 with size 3", 6},
        {"[[5, 0], [9, 0]]", {2, 3}, "index 5 is out of bounds for axis 0 with size 2", 1},
        {"[[5], [0, 1], [0, 1, 2]]", {2, 3, 4}, "shape mismatch: indexing arrays could not be broadcast together with shapes (1,) (2,) (3,)", 14},
        {"[7, [0, 1], [0, 1, 2]]", {2, 3, 4}, "index 7 is out of bounds for axis 0 with size 2", 1},
        {"[[0], ::0, 9]", {2, 3, 4}, "slice step cannot be zero", 8},
        {"[9, ::0, [0]]", {2, 3, 4}, "index 9 is out of bounds for axis 0 with size 2", 1},
        {"[[0], [0], [0]]", {2, 3}, "too many indices for array: array is 2-dimensional, but 3 were indexed", 11},
        {"[[9], ..., ...]", {2, 3}, "an index can only have a single ellipsis ('...')", 11},
        {"[[]]", {}, "too many indices for array: array is 0-dimensional, but 1 were indexed", 1},
        {"[[], 7]", {2, 3}, "index 7 is out of bounds for axis 1 with size 3", 5},
        // An empty result still checks the lists' values, as numpy 2 does (numpy 1.24 only warned).
        {"[[9]]", {2, 0}, "index 9 is out of bounds for axis 0 with size 2", 1},
        {"[[0, 1], 1:1, [3]]", {2, 3, 3}, "index 3 is out of bounds for axis 2 with size 3", 14},
        {"[[True, False]]", {3}, "boolean index did not match indexed array along axis 0; size of axis is 3 but size of corresponding boolean axis is 2", 1},
        {"[:, [True, False]]", {2, 3}, "boolean index did not match indexed array along axis 1; size of axis is 3 but size of corresponding boolean axis is 2", 4},
        {"[[True], ..., 9]", {2, 3, 4}, "boolean index did not match indexed array along axis 0; size of axis is 2 but size of corresponding boolean axis is 1", 1},
        {"[[True], 0:1:0]", {2, 3}, "boolean index did not match indexed array along axis 0; size of axis is 2 but size of corresponding boolean axis is 1", 1},
        {"[[True, False, True], 0, 0, 0]", {2, 3, 4}, "too many indices for array: array is 3-dimensional, but 4 were indexed", 28},
        {"[[[True, False]]]", {2, 3}, "boolean index did not match indexed array along axis 0; size of axis is 2 but size of corresponding boolean axis is 1", 1},
        {"[True, [0, 1, 2], [0, 1]]", {3, 3}, "shape mismatch: indexing arrays could not be broadcast together with shapes (1,) (3,) (2,)", 18},
        {"[[99999999999999999999], ..., ...]", {2, 3}, "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are valid indices; this integer does not fit in 64 bits", 1},
    };
    for (const auto& c : cases) {
        const std::string text = c.text;
        CAPTURE(text);
        const ExprError error = thrown_by<ExprError>([&] { plan_advanced_index(parse_index_expr(c.text), c.input); });
        CHECK(std::string(error.what()) == c.message);
        CHECK(error.column() == c.column);
    }
    // The broadcast table is bounded: 65536 x 65536 index combinations are refused.
    std::string column = "[", row = "[";
    for (int i = 0; i < 65536; ++i) {
        column += (i ? ", [0]" : "[0]");
        row += (i ? ", 0" : "0");
    }
    column += "]";
    row += "]";
    CHECK_THROWS_WITH_AS(plan_advanced_index(parse_index_expr(column + ", " + row), {2, 2}),
                         doctest::Contains("more than tslice gathers at once"), ExprError);
    // plan_index refuses lists: they are planned here.
    CHECK_THROWS_WITH_AS(plan_index(parse_index_expr("[[0]]"), {2}), doctest::Contains("plan_advanced_index"), Error);
}

TEST_CASE("advanced: the plan's axes") {
    const GatherPlan plan = plan_advanced_index(parse_index_expr("[1:, [[0], [2]], None, [1, 0]]"), {3, 4, 5});
    // apart (None between the lists): broadcast axes first
    CHECK(plan.output_shape() == Shape{2, 2, 2, 1});
    CHECK(plan.table_shape == Shape{2, 2});
    REQUIRE(plan.axes.size() == 4);
    CHECK(plan.axes[0] == GatherAxis{GatherAxisKind::Indices, -1, 0, 0, 2, 1, 2});
    CHECK(plan.axes[1] == GatherAxis{GatherAxisKind::Indices, -1, 1, 0, 2, 1, 2});
    CHECK(plan.axes[2] == GatherAxis{GatherAxisKind::Sliced, 0, -1, 1, 3, 1, 2});
    CHECK(plan.axes[3] == GatherAxis{GatherAxisKind::NewAxis, -1, -1, 0, 1, 1, 1});
    REQUIRE(plan.indices.size() == 2);
    CHECK(plan.indices[0].source_axis == 1);
    CHECK(plan.indices[0].shape == Shape{2, 1});
    CHECK(plan.indices[1].source_axis == 2);
    CHECK(*plan.indices[1].values == Values{1, 0});
    CHECK(plan.axis == -1);
}
