// Field selection: plan_fields against numpy 1.24's results and errors, the view of one
// field, and the packing of a selection of several.
#include <doctest/doctest.h>

#include <cstring>

#include "thrown_error.hpp"
#include "tslice/error.hpp"
#include "tslice/expr.hpp"
#include "tslice/fields.hpp"
#include "tslice/npy.hpp"

using namespace tslice;
using namespace tslice_test;

namespace {

using Shape = std::vector<std::int64_t>;

// numpy's dtype([('x', '<f4'), ('y', '<i2', (2, 3)), ('z', '>f8'), ('n', [('a', 'u1'), ('b', '<i4')])]):
// x at 0, y at 4 (12 bytes), z at 16, n at 24 (a at 0, b at 1 of it); 29 bytes.
const DType& record() {
    static const DType dtype = parse_dtype_descr(
        "[('x', '<f4'), ('y', '<i2', (2, 3)), ('z', '>f8'), ('n', [('a', '|u1'), ('b', '<i4')])]");
    return dtype;
}

std::string error_of(const char* text, const DType& dtype) {
    INFO("the expression: " << text);
    const ExprError error = thrown_by<ExprError>([&] { plan_fields(parse_index_expr(text), {5}, dtype); });
    CHECK(error.column() == 1);
    return error.what();
}

}  // namespace

TEST_CASE("fields: one field is a view of its bytes, with its own dtype") {
    REQUIRE(record().itemsize == 29);
    const FieldPlan x = plan_fields(parse_index_expr("['x']"), {5}, record());
    CHECK(x.dtype.type_string == "<f4");
    CHECK(x.output_shape() == Shape{5});
    const View view = apply_fields(x, View::contiguous({5}, 29));
    CHECK(view.itemsize == 4);
    CHECK(view.byte_strides == Shape{29});

    // A sub-array field adds its axes after the array's, C order inside the element.
    const FieldPlan y = plan_fields(parse_index_expr("['y']"), {4, 5}, record());
    CHECK(y.output_shape() == Shape{4, 5, 2, 3});
    const View yv = apply_fields(y, View::contiguous({4, 5}, 29));
    CHECK(yv.byte_offset == 4);
    CHECK(yv.byte_strides == Shape{145, 29, 6, 2});
    CHECK(yv.itemsize == 2);

    // A nested structured field keeps its fields; selecting in it again adds the offsets.
    const FieldPlan n = plan_fields(parse_index_expr("['n']"), {5}, record());
    CHECK(n.dtype.structured);
    const FieldPlan b = plan_fields(parse_index_expr("['b']"), {5}, n.dtype);
    CHECK(apply_fields(b, apply_fields(n, View::contiguous({5}, 29))).byte_offset == 25);
}

TEST_CASE("fields: a list keeps the elements whole and is written packed, in the order given") {
    const FieldPlan plan = plan_fields(parse_index_expr("[['z', 'y']]"), {5}, record());
    CHECK(plan.dtype.descr == "[('z', '>f8'), ('y', '<i2', (2, 3))]");  // numpy's repack_fields descr
    CHECK(plan.dtype.itemsize == 29);
    CHECK(plan.dtype.packed_itemsize == 20);
    CHECK(plan.dtype.file_itemsize() == 20);
    CHECK(apply_fields(plan, View::contiguous({5}, 29)) == View::contiguous({5}, 29));

    std::vector<std::byte> elements(2 * 29);
    for (std::size_t i = 0; i < elements.size(); ++i) elements[i] = static_cast<std::byte>(i);
    std::vector<std::byte> packed(2 * 20);
    pack_elements(plan.dtype, elements.data(), 2, packed.data());
    for (std::size_t e = 0; e < 2; ++e) {
        CHECK(std::memcmp(&packed[e * 20], &elements[e * 29 + 16], 8) == 0);     // z
        CHECK(std::memcmp(&packed[e * 20 + 8], &elements[e * 29 + 4], 12) == 0);  // y
    }
    // A field of a selection is still found at its place in the element.
    const FieldPlan y = plan_fields(parse_index_expr("['y']"), {5}, plan.dtype);
    CHECK(y.byte_offset == 4);
}

TEST_CASE("fields: numpy's errors") {
    CHECK(error_of("['w']", record()) == "no field of name w; the fields are 'x', 'y', 'z', 'n'");
    CHECK(error_of("[['x', 'w']]", record()) == "no field of name w; the fields are 'x', 'y', 'z', 'n'");
    CHECK(error_of("[['x', 'x']]", record()) == "duplicate field of name 'x'");
    CHECK(error_of("['x']", parse_dtype_descr("'<f4'")).find("only integers, slices (`:`)") == 0);
    // numpy's padding fields (named '') are not fields.
    CHECK(error_of("['']", parse_dtype_descr("[('a', '<i4'), ('', '|V4')]")).find("no field of name ;") == 0);
}
