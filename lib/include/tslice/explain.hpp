// --explain: the resolved plan as a table, and for an expression the equivalent JSON specs.
#pragma once

#include <optional>
#include <string>

#include "tslice/expr.hpp"
#include "tslice/npy.hpp"
#include "tslice/ops.hpp"
#include "tslice/plan.hpp"
#include "tslice/steps.hpp"

namespace tslice {

// The strided_slice spec that does what a basic expression does (entry by entry: '...' the
// ellipsis bit, None the new-axis bit, an integer the shrink bit, a slice its parts with the
// begin/end mask bits for the parts left out), for one subscript (its chained ones are not
// looked at). None for a subscript with integer lists, masks, booleans or field names.
std::optional<StridedSliceSpec> strided_slice_equivalent(const IndexExpr& expr);

// The ONNX slice spec with the same result as `plan`, from its resolved numbers; None when
// the plan inserts or removes axes (ONNX Slice keeps the rank).
std::optional<SliceSpec> onnx_slice_equivalent(const SlicePlan& plan);

// The whole report: input, one table per step (a row per output axis: source axis, kind,
// start, stop, step, length after clamping; shrunk axes and index arrays listed below it),
// the result, and for a trailing expression its strided_slice and ONNX slice equivalents (a
// JSON list of specs, one per subscript, for chained subscripts; "none" and why where there is
// none). `dtype` is the input's; a field selection's result has its own.
// `fortran_order`: the input's elements are stored in Fortran order (for the copy line);
// `strides`: or with these strides, in elements (a strided torch tensor; ArrayInFile::strides).
std::string explain(const Pipeline& pipeline, const DType& dtype, const std::optional<IndexExpr>& expr,
                    bool fortran_order = false, const std::vector<std::int64_t>& strides = {});

// The same report as one JSON object: "input", "steps" (each with its "label", "kind" and
// "axes"), "result" (its shape, dtype, "nbytes", and a structured dtype's "fields": name,
// dtype, offset, and shape for a sub-array field), "copy", and for an expression
// "strided_slice" and "onnx_slice" (the specs, or null where none exists).
std::string explain_json(const Pipeline& pipeline, const DType& dtype, const std::optional<IndexExpr>& expr,
                         bool fortran_order = false, const std::vector<std::int64_t>& strides = {});

// --shape --json: {"shape": [...], "dtype": "<f4"}, as the command line's contract fixes it
// (the byte count and a structured dtype's fields are in explain_json's "result").
std::string shape_json(const std::vector<std::int64_t>& shape, const DType& dtype);

}  // namespace tslice
