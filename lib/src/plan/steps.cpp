#include "tslice/steps.hpp"

#include <algorithm>

#include "tslice/copy.hpp"
#include "tslice/error.hpp"

namespace tslice {
namespace {

std::vector<std::int64_t> shape_of(const Plan& plan) {
    return std::visit([](const auto& p) { return p.output_shape(); }, plan);
}

// A step per subscript of `expr` (and of its chained ones), each planned against the result
// of the one before. A lone subscript's step is labelled `op_label` (an "index" op's,
// "ops[2] index") or the expression as written; a chain's steps add each subscript's text.
// Errors of an op's expression start with `error_prefix` ("ops[2].expr: ").
void plan_subscripts(Pipeline& pipeline, const IndexExpr& expr, const std::optional<std::string>& op_label,
                     const std::string& error_prefix) {
    const auto plan_one = [&](const IndexExpr& subscript) {
        std::string label = op_label.value_or("");
        if (!expr.chained.empty()) label += (label.empty() ? "" : " ") + std::string(subscript.written());
        if (label.empty()) label = expr.text;
        try {
            Plan plan = plan_expression(subscript, pipeline.output_shape(), pipeline.output_dtype());
            pipeline.steps.push_back(Step{std::move(label), std::move(plan)});
        } catch (const ExprError& error) {
            if (error_prefix.empty()) throw;
            throw ExprError(error_prefix + error.what(), error.expression(), error.column(), error.problem(),
                            error.detail());
        }
    };
    plan_one(expr);
    for (const auto& next : expr.chained) plan_one(next);
}

const char* op_name(const OpSpec& op) {
    static constexpr const char* kNames[] = {"strided_slice", "slice", "slice1", "gather", "index"};
    return kNames[op.spec.index()];
}

// The op's steps: one, or one per subscript of an "index" op's expression.
void plan_op(Pipeline& pipeline, const OpSpec& op) {
    const std::string label = op.path + " " + op_name(op);
    if (const auto* index = std::get_if<IndexSpec>(&op.spec)) {
        plan_subscripts(pipeline, index->expr, label, op.path + ".expr: ");
        return;
    }
    struct Planner {
        const std::vector<std::int64_t>& shape;
        const std::string& path;
        Plan operator()(const StridedSliceSpec& spec) const { return plan_strided_slice(spec, shape, path); }
        Plan operator()(const SliceSpec& spec) const { return plan_slice(spec, shape, path); }
        Plan operator()(const Slice1Spec& spec) const { return plan_slice1(spec, shape, path); }
        Plan operator()(const GatherSpec& spec) const { return plan_gather(spec, shape, path); }
        Plan operator()(const IndexSpec&) const {
            throw Error(ErrorKind::Internal, "internal: an index op is planned a step per subscript");
        }
    };
    const std::vector<std::int64_t> shape = pipeline.output_shape();
    pipeline.steps.push_back(Step{label, std::visit(Planner{shape, op.path}, op.spec)});
}

// A gathered view copied into a buffer of its own, as a C-order view of it.
Result materialise(const Result& result, const std::string& label) {
    std::int64_t bytes = 0;
    const bool overflows =
        __builtin_mul_overflow(result.view.element_count(), static_cast<std::int64_t>(result.view.itemsize), &bytes);
    if (overflows || bytes > kMaxIntermediateBytes)
        fail_usage(label + ": gathers from a gathered result of shape " + format_shape(result.view.shape) +
                   ", which would have to be held in memory (" +
                   (overflows ? std::string("more than 2^63 bytes") : std::to_string(bytes) + " bytes") +
                   "); tslice holds at most " + std::to_string(kMaxIntermediateBytes) +
                   " bytes there: gather less, or write the first result with -o and gather from that file");
    Result dense;
    // At least one byte, so that the data pointer is never null: a gather from an empty
    // result can still have elements (OpenVINO's zeros), and its view's offsets are applied to
    // this pointer, which must point somewhere.
    dense.owned = std::make_shared<std::vector<std::byte>>(std::max<std::size_t>(static_cast<std::size_t>(bytes), 1));
    // A buffer made before is memory held; the input itself may be a file's mapping, not yet read.
    const InputMemory memory = result.owned ? InputMemory::Resident : InputMemory::Mapped;
    copy_view(result.data, result.view, dense.owned->data(), 0, result.view.element_count(), memory);
    dense.data = dense.owned->data();
    dense.view = View::contiguous(result.view.shape, result.view.itemsize);
    return dense;
}

}  // namespace

Plan plan_expression(const IndexExpr& expr, const std::vector<std::int64_t>& shape, const DType& dtype) {
    if (field_selection(expr)) return plan_fields(expr, shape, dtype);
    if (has_advanced(expr)) return plan_advanced_index(expr, shape);
    return plan_index(expr, shape);
}

std::vector<std::int64_t> Pipeline::output_shape() const {
    return steps.empty() ? input_shape : shape_of(steps.back().plan);
}

const DType& Pipeline::output_dtype() const {
    for (auto step = steps.rbegin(); step != steps.rend(); ++step)
        if (const auto* fields = std::get_if<FieldPlan>(&step->plan)) return fields->dtype;
    return input_dtype;
}

Pipeline plan_pipeline(const std::vector<std::int64_t>& input_shape, const std::vector<OpSpec>& ops,
                       const std::optional<IndexExpr>& expr, const DType& input_dtype) {
    Pipeline pipeline;
    pipeline.input_shape = input_shape;
    pipeline.input_dtype = input_dtype;
    for (const auto& op : ops) plan_op(pipeline, op);
    if (expr) plan_subscripts(pipeline, *expr, std::nullopt, "");
    return pipeline;
}

Result apply_pipeline(const Pipeline& pipeline, const std::byte* data, const View& input) {
    Result result{data, input, nullptr};
    for (const auto& step : pipeline.steps) {
        if (const auto* slice = std::get_if<SlicePlan>(&step.plan)) {
            result.view = apply_plan(*slice, result.view);
            continue;
        }
        if (const auto* fields = std::get_if<FieldPlan>(&step.plan)) {
            result.view = apply_fields(*fields, result.view);
            continue;
        }
        if (result.view.has_table()) result = materialise(result, step.label);
        result.view = apply_gather(std::get<GatherPlan>(step.plan), result.view);
    }
    return result;
}

}  // namespace tslice
