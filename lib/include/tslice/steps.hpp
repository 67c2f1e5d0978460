// The pipeline of a run: each op (and the expression, last) planned against the shape the
// previous one produces, then applied to the input's layout one after another. Planning is
// pure, so --shape and --explain stop before the data; a real run adds the copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "tslice/expr.hpp"
#include "tslice/fields.hpp"
#include "tslice/gather.hpp"
#include "tslice/ops.hpp"
#include "tslice/plan.hpp"
#include "tslice/view.hpp"

namespace tslice {

using Plan = std::variant<SlicePlan, GatherPlan, FieldPlan>;

struct Step {
    std::string label;  // what the user wrote, for --explain: "ops[0] strided_slice", "[1:, ::-1]"
    Plan plan;
};

struct Pipeline {
    std::vector<std::int64_t> input_shape;
    DType input_dtype;
    std::vector<Step> steps;
    std::vector<std::int64_t> output_shape() const;
    // The input's dtype, or what the last field selection made of it.
    const DType& output_dtype() const;
};

// One subscript of numpy indexing (its `chained` ones are not looked at): a SlicePlan for
// basic indexing, a GatherPlan when it has an integer list, a mask or a boolean, a FieldPlan
// for field names (which need the `dtype`).
Plan plan_expression(const IndexExpr& expr, const std::vector<std::int64_t>& input_shape, const DType& dtype = {});

// Plans `ops` left to right, then `expr` if given, a step per subscript ("[0][1]" is two).
// Throws what the planners throw.
Pipeline plan_pipeline(const std::vector<std::int64_t>& input_shape, const std::vector<OpSpec>& ops,
                       const std::optional<IndexExpr>& expr, const DType& input_dtype = {});

// The result as a view over some bytes: the input's data, or a buffer the pipeline made when
// a gather had to read from a gathered view (the only case where a step cannot compose).
struct Result {
    const std::byte* data = nullptr;
    View view;
    std::shared_ptr<std::vector<std::byte>> owned;  // keeps an intermediate buffer alive
};

// A gather that reads a gathered result needs that result in memory: apply_pipeline copies it
// into a buffer, of at most this many bytes; a larger one is Error(Usage), before allocating.
constexpr std::int64_t kMaxIntermediateBytes = std::int64_t{1} << 30;

Result apply_pipeline(const Pipeline& pipeline, const std::byte* data, const View& input);

}  // namespace tslice
