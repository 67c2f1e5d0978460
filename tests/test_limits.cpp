// Hostile input: the limits that keep a header, an expression or a spec from
// crashing tslice or making it allocate without bound, each with the finding that led to it.
// The command-line side of the same cases is in tests/cli/cases/ (file_*, expr_*, op_json_*),
// the fuzzers' in tests/fuzz/regressions/.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "thrown_error.hpp"
#include "tslice/copy.hpp"
#include "tslice/error.hpp"
#include "tslice/expr.hpp"
#include "tslice/gather.hpp"
#include "tslice/npy.hpp"
#include "tslice/ops.hpp"
#include "tslice/plan.hpp"
#include "tslice/steps.hpp"

using namespace tslice;
using namespace tslice_test;

namespace {

using Shape = std::vector<std::int64_t>;

// A version 2.0 .npy header holding `dict`, padded as numpy pads it, then `data`.
std::string npy_v2(const std::string& dict, const std::string& data = {}) {
    std::string header = dict;
    while ((12 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::string out = "\x93NUMPY\x02";
    out += '\0';
    for (int k = 0; k < 4; ++k) out += static_cast<char>((header.size() >> (8 * k)) & 0xFF);
    return out + header + data;
}

NpyHeader parse(const std::string& bytes) {
    return parse_npy_header(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size());
}

std::string repeat(const std::string& text, int times) {
    std::string out;
    for (int i = 0; i < times; ++i) out += text;
    return out;
}

std::string shape_of(int dims) { return "(" + repeat("1, ", dims) + ")"; }

}  // namespace

TEST_CASE("limits: at most 32 dimensions, numpy's NPY_MAXDIMS") {
    // Found by hand: a header of 100,000 dimensions, or an expression of 20,000 None, made the
    // printer recurse until the stack overflowed (and 5,000,000 dimensions took 24 GB).
    CHECK(parse(npy_v2("{'descr': '<f8', 'fortran_order': False, 'shape': " + shape_of(32) + "}", std::string(8, '\0')))
              .shape.size() == 32);
    CHECK_THROWS_WITH_AS(parse(npy_v2("{'descr': '<f8', 'fortran_order': False, 'shape': " + shape_of(33) + "}")),
                         "the .npy header's shape has 33 dimensions; numpy arrays have at most 32", Error);
    CHECK_THROWS_WITH_AS(parse(npy_v2("{'descr': [('a', '<f8', " + shape_of(33) + ")], 'fortran_order': False, "
                                      "'shape': (1,)}")),
                         doctest::Contains("has a sub-array of 33 dimensions"), Error);

    // Expressions: numpy's words and order of checks (too many indices first, bounds after).
    const Shape shape{2, 3, 4};
    CHECK(plan_index(parse_index_expr(repeat("None, ", 29)), shape).axes.size() == 32);
    CHECK_THROWS_WITH_AS(plan_index(parse_index_expr(repeat("None, ", 30)), shape),
                         "number of dimensions must be within [0, 32], indexing result would have 33", ExprError);
    const ExprError error =
        thrown_by<ExprError>([&] { (void)plan_index(parse_index_expr(repeat("None, ", 40) + "5"), shape); });
    CHECK(std::string(error.what()) == "number of dimensions must be within [0, 32], indexing result would have 42");
    CHECK(error.column() == 6 * 32);  // the None that makes axis 33
    CHECK_THROWS_WITH_AS(plan_index(parse_index_expr(repeat("None, ", 40) + "0, 0, 0, 0"), shape),
                         doctest::Contains("too many indices"), ExprError);
    // Integer lists: the broadcast arrays count as many axes as the longest shape has.
    const std::string deep_list = repeat("[", 30) + "0" + repeat("]", 30);  // 30 dimensions
    CHECK(std::get<GatherPlan>(plan_expression(parse_index_expr(deep_list + ", [0], None"), shape)).axes.size() == 32);
    CHECK_THROWS_WITH_AS(plan_expression(parse_index_expr(deep_list + ", None, None"), shape),
                         "number of dimensions must be within [0, 32], indexing result would have 34", ExprError);
    // Three one-dimensional lists are one axis of the result, not three.
    CHECK(std::get<GatherPlan>(plan_expression(parse_index_expr("[0], [0], [0], " + repeat("None, ", 31)), shape))
              .axes.size() == 32);
    // The ops that add axes.
    StridedSliceSpec many_new_axes;
    for (int i = 0; i < 30; ++i) {
        many_new_axes.begin.push_back(0);
        many_new_axes.end.push_back(0);
        many_new_axes.strides.push_back(1);
        for (auto* mask : {&many_new_axes.begin_mask, &many_new_axes.end_mask, &many_new_axes.shrink_axis_mask,
                           &many_new_axes.ellipsis_mask})
            mask->push_back(false);
        many_new_axes.new_axis_mask.push_back(true);
    }
    CHECK_THROWS_WITH_AS(plan_strided_slice(many_new_axes, shape, "op"),
                         "op.new_axis_mask: the result would have 33 dimensions; numpy arrays have at most 32 "
                         "(number of dimensions must be within [0, 32])",
                         Error);
    GatherSpec deep_indices;
    deep_indices.indices = IntArray{Shape(31, 1), {0}};
    CHECK_THROWS_WITH_AS(plan_gather(deep_indices, shape, "op"),
                         "op.indices: the result would have 33 dimensions; numpy arrays have at most 32", Error);
}

TEST_CASE("limits: a header of many fields parses in linear time, duplicates still found") {
    // Found by hand: the duplicate-name check compared every field with every other, so a
    // header of 500,000 fields (8.9 MB, under the 16 MiB limit of then) took 4 minutes. Now it
    // is a hash set, and the header limit is 1 MiB: some 60,000 short fields.
    std::string fields;
    for (int i = 0; i < 60000; ++i) fields += (i ? ",('" : "('") + std::to_string(i) + "','u1')";
    const NpyHeader header = parse(npy_v2("{'descr': [" + fields + "], 'fortran_order': False, 'shape': (0,)}"));
    CHECK(header.dtype.fields.size() == 60000);
    CHECK(header.dtype.itemsize == 60000);
    CHECK_THROWS_WITH_AS(parse(npy_v2("{'descr': [" + fields + ",('59999','u1')], 'fortran_order': False, 'shape': (0,)}")),
                         doctest::Contains("the dtype uses '59999' twice as a field name or title"), Error);
}

TEST_CASE("limits: a header of at most 1 MiB") {
    const std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (1,)}";
    // 12 bytes of magic, version and length, then a header of 2^20 - 12 bytes (dict, spaces, '\n'):
    // the longest one that keeps the data on a 64-byte boundary.
    const std::string one_mib = npy_v2(dict + std::string((1 << 20) - 13 - dict.size(), ' '), std::string(8, '\0'));
    CHECK(parse(one_mib).data_offset == (1 << 20));
    CHECK(parse(one_mib).shape == Shape{1});
    CHECK_THROWS_WITH_AS(parse(npy_v2(dict + std::string(1 << 20, ' '), std::string(8, '\0'))),
                         doctest::Contains("tslice reads headers of at most 1 MiB"), Error);
}

TEST_CASE("limits: an endless stream that is not a .npy is refused after its first bytes") {
    // Found by hand: tslice /dev/zero (or - < /dev/zero) read until memory ran out; a stream
    // is now read only as far as its header and the data the header promises.
    CHECK_THROWS_WITH_AS(NpyArray::open("/dev/zero"), doctest::Contains("'/dev/zero': not a .npy file: wrong magic"),
                         Error);
}

TEST_CASE("limits: expressions of at most 1 MiB; longer ones are refused without a caret") {
    const std::string fits = "0" + std::string((1 << 20) - 1, ' ');
    CHECK(parse_index_expr(fits).items.size() == 1);
    try {
        (void)parse_index_expr(fits + " ");
        FAIL("no error");
    } catch (const ExprError&) {
        FAIL("an ExprError would show the whole megabyte under its caret");
    } catch (const Error& error) {
        CHECK(error.kind() == ErrorKind::Usage);
        CHECK(std::string(error.what()) == "the index expression is 1048577 bytes long; tslice reads expressions of at "
                                           "most 1048576 bytes (give large index arrays to a gather op as an .npy file)");
    }
    // In a spec, the message names the field.
    CHECK_THROWS_WITH_AS(parse_ops_json("{\"op\": \"index\", \"expr\": \"0" + std::string(1 << 20, ' ') + "\"}"),
                         doctest::Contains("op.expr: the index expression is 1048577 bytes long"), Error);
}

TEST_CASE("limits: a spec holds at most 2^24 integers in lists") {
    // 100 million inline gather indices took 2.3 GB; 2^24 stay near 0.4 GB.
    const auto spec = [](std::size_t count) {
        std::string text = "{\"op\": \"gather\", \"indices\": [";
        text.reserve(2 * count + 64);
        for (std::size_t i = 0; i < count; ++i) text += i ? ",0" : "0";
        return text + "]}";
    };
    const auto ops = parse_ops_json(spec(std::size_t{1} << 24));
    CHECK(std::get<GatherSpec>(ops[0].spec).indices->values.size() == (std::size_t{1} << 24));
    CHECK_THROWS_WITH_AS(parse_ops_json(spec((std::size_t{1} << 24) + 1)),
                         doctest::Contains("the op spec is too large (more than 16777216 integers in lists)"), Error);
}

TEST_CASE("limits: --op @FILE reads at most 256 MiB") {
    // Found by hand: --op @/dev/zero read until memory ran out.
    CHECK_THROWS_WITH_AS(parse_op_argument("@/dev/zero"),
                         "--op @/dev/zero: the spec is larger than 256 MiB, more than tslice reads (give large "
                         "indices as an .npy file)",
                         Error);
}

TEST_CASE("limits: gathers are bounded in their table, their result and what they hold in memory") {
    // The table: 2^27 entries (1 GiB), checked before the indices are touched.
    GatherSpec spec;
    spec.indices = IntArray{{std::int64_t{1} << 14, (std::int64_t{1} << 13) + 1}, {}};
    CHECK_THROWS_WITH_AS(plan_gather(spec, {4}, "op"), doctest::Contains("op.indices: indices of shape (16384, 8193) are more than a gather may use (134217728 indices)"), Error);
    // The result: 2^40 elements, however few the indices (a (1, 2^20) input repeated 2^20 + 1 times).
    spec.indices = IntArray{{(std::int64_t{1} << 20) + 1}, std::vector<std::int64_t>((1 << 20) + 1, 0)};
    CHECK_THROWS_WITH_AS(plan_gather(spec, {1, std::int64_t{1} << 20}, "op"),
                         "op.indices: the result of shape (1048577, 1048576) has 1099512676352 elements, more than a "
                         "gather may produce (1099511627776)",
                         Error);
    spec.indices = IntArray{{1 << 20}, std::vector<std::int64_t>(1 << 20, 0)};
    CHECK(plan_gather(spec, {1, std::int64_t{1} << 20}, "op").output_shape() == Shape{1 << 20, 1 << 20});
    // numpy's index arrays: the same limits, in numpy's words for the rest.
    CHECK_THROWS_WITH_AS(plan_advanced_index(parse_index_expr("[" + repeat("0, ", 1 << 17) + "], :"),
                                             {1, std::int64_t{1} << 24}),
                         doctest::Contains("for a result of shape (131072, 16777216): more than tslice gathers at once"),
                         ExprError);

    // A gather of a gathered result holds that result in memory: at most 1 GiB, refused before
    // anything is allocated or copied.
    std::vector<std::byte> row(1 << 20);
    const View input = View::contiguous({1, 1 << 20}, 1);
    GatherSpec repeat_rows, pick_column;
    repeat_rows.indices = IntArray{{1025}, std::vector<std::int64_t>(1025, 0)};
    pick_column.indices = IntArray{{1}, {0}};
    pick_column.axis = -1;
    const Pipeline pipeline = plan_pipeline({1, 1 << 20}, {OpSpec{repeat_rows, "ops[0]"}, OpSpec{pick_column, "ops[1]"}},
                                            std::nullopt);
    CHECK(pipeline.output_shape() == Shape{1025, 1});
    CHECK_THROWS_WITH_AS(apply_pipeline(pipeline, row.data(), input),
                         doctest::Contains("ops[1] gather: gathers from a gathered result of shape (1025, 1048576), "
                                           "which would have to be held in memory (1074790400 bytes); tslice holds at "
                                           "most 1073741824 bytes there"),
                         Error);
    repeat_rows.indices = IntArray{{1024}, std::vector<std::int64_t>(1024, 0)};
    const Pipeline fits = plan_pipeline({1, 4}, {OpSpec{repeat_rows, "ops[0]"}, OpSpec{pick_column, "ops[1]"}}, std::nullopt);
    CHECK(apply_pipeline(fits, row.data(), View::contiguous({1, 4}, 1)).view.shape == Shape{1024, 1});
}

TEST_CASE("limits: a gather from an empty gathered result reads zeros, through a real pointer") {
    // Found by fuzz_copy_differential (regressions/.../gather_from_empty_gathered_result): the
    // empty intermediate buffer had a null data pointer, to which the second gather's view
    // added offsets (undefined behaviour, reported by UBSan in copy_view).
    std::vector<std::byte> data(24, std::byte{7});
    GatherSpec none, two;
    none.indices = IntArray{{0}, {}};
    two.indices = IntArray{{2}, {0, 1}};
    const Pipeline pipeline =
        plan_pipeline({2, 3, 4}, {OpSpec{none, "ops[0]"}, OpSpec{two, "ops[1]"}}, std::nullopt);
    CHECK(pipeline.output_shape() == Shape{2, 3, 4});
    const Result result = apply_pipeline(pipeline, data.data(), View::contiguous({2, 3, 4}, 1));
    CHECK(result.data != nullptr);
    std::vector<std::byte> out(24, std::byte{1});
    copy_view(result.data, result.view, out.data(), 0, 24);
    CHECK(out == std::vector<std::byte>(24, std::byte{0}));
}
