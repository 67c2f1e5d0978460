#include "tslice/steps.hpp"

#include <algorithm>

#include "tslice/copy.hpp"
#include "tslice/error.hpp"

namespace tslice {
namespace {

std::vector<std::int64_t> shape_of(const Plan& plan) {
    return std::visit([](const auto& p) { return p.output_shape(); }, plan);
}

const char* op_name(const OpSpec& op) {
    static constexpr const char* kNames[] = {"strided_slice", "slice", "slice1", "gather", "index"};
    return kNames[op.spec.index()];
}

Plan plan_op(const OpSpec& op, const std::vector<std::int64_t>& shape) {
    struct Planner {
        const std::vector<std::int64_t>& shape;
        const std::string& path;
        Plan operator()(const StridedSliceSpec& spec) const { return plan_strided_slice(spec, shape, path); }
        Plan operator()(const SliceSpec& spec) const { return plan_slice(spec, shape, path); }
        Plan operator()(const Slice1Spec& spec) const { return plan_slice1(spec, shape, path); }
        Plan operator()(const GatherSpec& spec) const { return plan_gather(spec, shape, path); }
        Plan operator()(const IndexSpec& spec) const {
            try {
                return plan_expression(spec.expr, shape);
            } catch (const ExprError& error) {
                throw ExprError(path + ".expr: " + error.what(), error.expression(), error.column());
            }
        }
    };
    return std::visit(Planner{shape, op.path}, op.spec);
}

// A gathered view copied into a buffer of its own, as a C-order view of it.
Result materialise(const Result& result, const std::string& label) {
    std::int64_t bytes = 0;
    const bool overflows =
        __builtin_mul_overflow(result.view.element_count(), static_cast<std::int64_t>(result.view.itemsize), &bytes);
    if (overflows || bytes > kMaxIntermediateBytes)
        throw Error(ErrorKind::Usage,
                    label + ": gathers from a gathered result of shape " + format_shape(result.view.shape) +
                        ", which would have to be held in memory (" +
                        (overflows ? std::string("more than 2^63 bytes") : std::to_string(bytes) + " bytes") +
                        "); tslice holds at most " + std::to_string(kMaxIntermediateBytes) +
                        " bytes there: gather less, or write the first result with -o and gather from that file");
    Result dense;
    // At least one byte, so that the data pointer is never null: a gather from an empty
    // result can still have elements (OpenVINO's zeros), and its view's offsets are applied to
    // this pointer, which must point somewhere.
    dense.owned = std::make_shared<std::vector<std::byte>>(std::max<std::size_t>(static_cast<std::size_t>(bytes), 1));
    copy_view(result.data, result.view, dense.owned->data(), 0, result.view.element_count());
    dense.data = dense.owned->data();
    dense.view = View::contiguous(result.view.shape, result.view.itemsize);
    return dense;
}

}  // namespace

Plan plan_expression(const IndexExpr& expr, const std::vector<std::int64_t>& shape) {
    if (has_advanced(expr)) return plan_advanced_index(expr, shape);
    return plan_index(expr, shape);
}

std::vector<std::int64_t> Pipeline::output_shape() const {
    return steps.empty() ? input_shape : shape_of(steps.back().plan);
}

Pipeline plan_pipeline(const std::vector<std::int64_t>& input_shape, const std::vector<OpSpec>& ops,
                       const std::optional<IndexExpr>& expr) {
    Pipeline pipeline;
    pipeline.input_shape = input_shape;
    for (const auto& op : ops) {
        Plan plan = plan_op(op, pipeline.output_shape());
        pipeline.steps.push_back(Step{op.path + " " + op_name(op), std::move(plan)});
    }
    if (expr) pipeline.steps.push_back(Step{expr->text, plan_expression(*expr, pipeline.output_shape())});
    return pipeline;
}

Result apply_pipeline(const Pipeline& pipeline, const std::byte* data, const View& input) {
    Result result{data, input, nullptr};
    for (const auto& step : pipeline.steps) {
        if (const auto* slice = std::get_if<SlicePlan>(&step.plan)) {
            result.view = apply_plan(*slice, result.view);
            continue;
        }
        if (result.view.has_table()) result = materialise(result, step.label);
        result.view = apply_gather(std::get<GatherPlan>(step.plan), result.view);
    }
    return result;
}

}  // namespace tslice
