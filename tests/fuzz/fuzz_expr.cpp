// Fuzz target: the index-expression parser and the planners behind it.
//
// Input: the expression text, as a user would type it (the corpus files are plain text).
// Checks, besides "no crash, no sanitizer report, only tslice::Error":
//   - an error's column lies inside the expression, and its description renders;
//   - to_string() of a parsed expression parses again to the same items (round trip);
//   - planned against a few shapes, every element of the result lies inside the input, and
//     each axis's length is what Python's slice.indices() gives;
//   - the strided_slice spec --explain prints for a basic expression, and the ONNX slice spec
//     for its plan, select exactly the elements the expression selects (errors alike).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_common.hpp"
#include "fuzz_views.hpp"
#include "tslice/error.hpp"
#include "tslice/explain.hpp"
#include "tslice/expr.hpp"
#include "tslice/npy.hpp"
#include "tslice/plan.hpp"
#include "tslice/steps.hpp"

using namespace tslice;
using tslice_fuzz::finding;

namespace {

using Shape = std::vector<std::int64_t>;

// Items without their columns, and with the overflow flags dropped (to_string() writes the
// saturated value, which parses back without the flag).
// The items of every subscript, chained ones included, without the overflow flags.
std::vector<std::vector<IndexItem>> bare_items(const IndexExpr& expr) {
    std::vector<std::vector<IndexItem>> subscripts;
    const auto add = [&](const IndexExpr& subscript) {
        std::vector<IndexItem>& items = subscripts.emplace_back();
        for (const auto& entry : subscript.items) {
            IndexItem item = entry.item;
            if (auto* integer = std::get_if<IntItem>(&item)) integer->overflows = false;
            if (auto* list = std::get_if<IntListItem>(&item)) list->overflows = false;
            items.push_back(item);
        }
    };
    add(expr);
    for (const auto& next : expr.chained) add(next);
    return subscripts;
}

// len(range(start, stop, step)), written out independently of the planner.
std::int64_t range_length(std::int64_t start, std::int64_t stop, std::int64_t step) {
    if (step > 0) return start < stop ? (stop - start - 1) / step + 1 : 0;
    return start > stop ? (start - stop - 1) / -step + 1 : 0;
}

void check_slice_plan(const SlicePlan& plan, const Shape& shape) {
    TSLICE_FUZZ_CHECK(plan.input_shape == shape);
    for (const auto& axis : plan.axes) {
        if (axis.source_axis < 0) {
            TSLICE_FUZZ_CHECK(axis.length == 1);
            continue;
        }
        TSLICE_FUZZ_CHECK(static_cast<std::size_t>(axis.source_axis) < shape.size());
        const std::int64_t dim = shape[static_cast<std::size_t>(axis.source_axis)];
        TSLICE_FUZZ_CHECK(axis.step != 0);
        TSLICE_FUZZ_CHECK(axis.length == range_length(axis.start, axis.stop, axis.step));
        if (axis.length > 0) {
            TSLICE_FUZZ_CHECK(axis.start >= 0 && axis.start < dim);
            const std::int64_t last = axis.start + (axis.length - 1) * axis.step;
            TSLICE_FUZZ_CHECK(last >= 0 && last < dim);
        }
    }
    for (const auto& shrunk : plan.shrunk) {
        TSLICE_FUZZ_CHECK(static_cast<std::size_t>(shrunk.source_axis) < shape.size());
        TSLICE_FUZZ_CHECK(shrunk.index >= 0 && shrunk.index < shape[static_cast<std::size_t>(shrunk.source_axis)]);
    }
}

// The elements a plan selects from a C-order input of `shape`, as byte offsets.
std::optional<std::vector<std::int64_t>> selected(const Plan& plan, const Shape& shape) {
    const View input = View::contiguous(shape, 2);
    const View view = std::holds_alternative<SlicePlan>(plan) ? apply_plan(std::get<SlicePlan>(plan), input)
                                                               : apply_gather(std::get<GatherPlan>(plan), input);
    std::int64_t count = 1;
    for (auto dim : shape) count *= dim;
    tslice_fuzz::check_inside(view, count * 2);
    if (view.element_count() > (1 << 16)) return std::nullopt;
    return tslice_fuzz::element_offsets(view);
}

void check_equivalent(const char* what, const std::string& text, const Shape& shape, const Plan& expected,
                      const std::function<Plan()>& plan_other) {
    Plan other;
    try {
        other = plan_other();
    } catch (const Error& error) {
        finding("%s of \"%s\" on %s fails: %s", what, text.c_str(), format_shape(shape).c_str(), error.what());
    }
    const auto want = selected(expected, shape);
    const auto got = selected(other, shape);
    if (want != got || std::visit([](const auto& p) { return p.output_shape(); }, expected) !=
                           std::visit([](const auto& p) { return p.output_shape(); }, other))
        finding("%s of \"%s\" on %s selects other elements", what, text.c_str(), format_shape(shape).c_str());
}

void plan_against(const IndexExpr& expr, const Shape& shape) {
    Plan plan;
    try {
        plan = plan_expression(expr, shape);
    } catch (const ExprError& error) {
        TSLICE_FUZZ_CHECK(error.column() <= expr.text.size());
        (void)error.describe();
        return;
    } catch (const Error&) {
        return;
    }
    if (const auto* slice = std::get_if<SlicePlan>(&plan)) check_slice_plan(*slice, shape);
    (void)selected(plan, shape);

    // What --explain prints must do the same.
    if (const auto spec = strided_slice_equivalent(expr))
        check_equivalent("the strided_slice equivalent", expr.text, shape, plan,
                         [&] { return Plan{plan_strided_slice(*spec, shape, "op")}; });
    if (const auto* slice = std::get_if<SlicePlan>(&plan))
        if (const auto spec = onnx_slice_equivalent(*slice))
            check_equivalent("the ONNX slice equivalent", expr.text, shape, plan,
                             [&] { return Plan{plan_slice(*spec, shape, "op")}; });

}

// --explain of the whole expression, chained subscripts included, as the command line plans it.
void explain_against(const IndexExpr& expr, const Shape& shape) {
    static const DType dtype = parse_dtype_descr("'<i2'");
    Pipeline pipeline;
    try {
        pipeline = plan_pipeline(shape, {}, expr, dtype);
    } catch (const Error&) {
        return;
    }
    (void)explain(pipeline, dtype, expr);
    (void)explain_json(pipeline, dtype, expr);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    IndexExpr expr;
    try {
        expr = parse_index_expr(text);
    } catch (const ExprError& error) {
        TSLICE_FUZZ_CHECK(error.column() <= text.size());
        TSLICE_FUZZ_CHECK(error.expression() == text);
        (void)error.describe();
        return 0;
    } catch (const Error& error) {
        // Only an expression over the length limit (1 MiB) is refused without a column.
        if (size <= (std::size_t{1} << 20)) finding("parse_index_expr threw an Error without a column: %s", error.what());
        return 0;
    }
    TSLICE_FUZZ_CHECK(expr.text == text);
    for (const auto& item : expr.items) TSLICE_FUZZ_CHECK(item.column < text.size());

    // The canonical text reads back as the same expression.
    {
        const std::string canonical = to_string(expr);
        IndexExpr again;
        try {
            again = parse_index_expr(canonical);
        } catch (const Error& error) {
            finding("to_string gives \"%s\", which does not parse: %s", canonical.c_str(), error.what());
        }
        if (bare_items(again) != bare_items(expr)) finding("\"%s\" does not parse back to the same items", canonical.c_str());
        TSLICE_FUZZ_CHECK(to_string(again) == canonical);
    }

    static const std::vector<Shape> shapes = {{}, {5}, {2, 3, 4}, {0, 3}, {3, 1, 2, 1, 2}, {7, 0, 2}};
    for (const auto& shape : shapes) {
        plan_against(expr, shape);
        explain_against(expr, shape);
    }
    return 0;
}
