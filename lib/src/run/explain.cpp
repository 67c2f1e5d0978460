#include "base/python_text.hpp"
#include "read/row_reads.hpp"
#include "read/read_sizes.hpp"
#include "tslice/copy.hpp"
#include "tslice/error.hpp"
#include "tslice/explain.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>

namespace tslice {
namespace {

constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

// Right-aligned columns, as a terminal table.
class Table {
public:
    explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
    void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
    std::string render(const std::string& indent) const {
        std::vector<std::size_t> widths(rows_.front().size(), 0);
        for (const auto& row : rows_)
            for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
        std::string text;
        for (const auto& row : rows_) {
            std::string line = indent;
            for (std::size_t c = 0; c < row.size(); ++c) {
                if (c) line += "  ";
                line += std::string(widths[c] - row[c].size(), ' ') + row[c];
            }
            while (!line.empty() && line.back() == ' ') line.pop_back();
            text += line + "\n";
        }
        return text;
    }

private:
    std::vector<std::vector<std::string>> rows_;
};

std::string number(std::int64_t value) { return std::to_string(value); }
std::string axis_text(int axis) { return axis < 0 ? "-" : std::to_string(axis); }


std::string explain_slice_plan(const SlicePlan& plan) {
    Table table({"axis", "source", "kind", "start", "stop", "step", "length"});
    for (std::size_t i = 0; i < plan.axes.size(); ++i) {
        const OutputAxis& axis = plan.axes[i];
        if (axis.source_axis < 0) {
            table.add({number(static_cast<std::int64_t>(i)), "-", "new axis", "", "", "", "1"});
            continue;
        }
        table.add({number(static_cast<std::int64_t>(i)), axis_text(axis.source_axis), "slice", number(axis.start),
                   number(axis.stop), number(axis.step), number(axis.length)});
    }
    for (const auto& shrunk : plan.shrunk)
        table.add({"-", axis_text(shrunk.source_axis), "shrunk", number(shrunk.index), "", "", ""});
    return table.render("  ");
}

std::string explain_gather_plan(const GatherPlan& plan) {
    Table table({"axis", "source", "kind", "start", "stop", "step", "length", "table axis"});
    for (std::size_t i = 0; i < plan.axes.size(); ++i) {
        const GatherAxis& axis = plan.axes[i];
        const bool walks_data = axis.source_axis >= 0;
        table.add({number(static_cast<std::int64_t>(i)), axis_text(axis.source_axis), kind_name(axis.kind),
                   walks_data ? number(axis.start) : "", walks_data ? number(axis.stop) : "",
                   walks_data ? number(axis.step) : "", number(axis.length), axis_text(axis.table_axis)});
    }
    std::string text = table.render("  ");
    if (plan.axis >= 0)
        text += "  gather along axis " + number(plan.axis) + ", batch_dims " + number(plan.batch_dims) + "\n";
    text += "  index table " + format_shape(plan.table_shape) + "\n";
    for (const auto& indices : plan.indices)
        text += "  indices " + format_shape(indices.shape) +
                (indices.source_axis < 0 ? std::string(" add an axis (True or False), selecting along none")
                                         : " select along input axis " + number(indices.source_axis)) +
                "\n";
    return text;
}

std::string dtype_text(const DType& dtype) { return dtype.structured ? dtype.descr : dtype.type_string; }

std::string field_names_text(const FieldPlan& plan) {
    std::string names;
    for (const auto& name : plan.names) names += (names.empty() ? "" : ", ") + str_repr_utf8(name);
    return names;
}

std::string explain_field_plan(const FieldPlan& plan) {
    if (plan.list)
        return "  fields " + field_names_text(plan) + ", kept where they are in each element of " +
               number(static_cast<std::int64_t>(plan.dtype.itemsize)) + " bytes and written packed in " +
               number(static_cast<std::int64_t>(plan.dtype.packed_itemsize)) + "\n  dtype " + plan.dtype.descr + "\n";
    std::string text = "  field " + field_names_text(plan) + " at byte " + number(static_cast<std::int64_t>(plan.byte_offset)) +
                       " of each element, dtype " + dtype_text(plan.dtype);
    if (!plan.subshape.empty()) text += ", its sub-array axes " + format_shape(plan.subshape) + " added last";
    return text + "\n";
}

// The subscripts of an expression, the first and the chained ones.
std::vector<const IndexExpr*> subscripts_of(const IndexExpr& expr) {
    std::vector<const IndexExpr*> all{&expr};
    for (const auto& next : expr.chained) all.push_back(&next);
    return all;
}

// The equivalent ops of the expression (the last steps of the pipeline): one spec's JSON, or
// a list of them for chained subscripts; nullopt and why not when there is none.
struct Equivalents {
    std::optional<std::string> strided_slice, onnx;
    std::string strided_slice_none, onnx_none;
};

Equivalents equivalents(const Pipeline& pipeline, const IndexExpr& expr) {
    const auto subscripts = subscripts_of(expr);
    if (pipeline.steps.size() < subscripts.size())
        throw Error(ErrorKind::Internal, "internal: --explain was given a pipeline without a step per subscript");
    const std::size_t first_step = pipeline.steps.size() - subscripts.size();
    Equivalents out;
    std::vector<std::string> strided, onnx;
    for (std::size_t k = 0; k < subscripts.size(); ++k) {
        const IndexExpr& subscript = *subscripts[k];
        if (field_selection(subscript)) {
            out.strided_slice_none = out.onnx_none = "none (selecting fields changes the dtype; no slicing op does)";
            return out;
        }
        if (const auto spec = strided_slice_equivalent(subscript))
            strided.push_back(to_json(*spec));
        else if (out.strided_slice_none.empty())
            out.strided_slice_none = "none (integer-list and boolean indexing is a gather)";
        const auto* plan = std::get_if<SlicePlan>(&pipeline.steps[first_step + k].plan);
        if (const auto spec = plan ? onnx_slice_equivalent(*plan) : std::nullopt)
            onnx.push_back(to_json(*spec));
        else if (out.onnx_none.empty())
            out.onnx_none = plan ? "none (ONNX Slice neither inserts nor removes axes)"
                                 : "none (integer-list and boolean indexing is a gather)";
    }
    const auto joined = [](const std::vector<std::string>& specs) {
        if (specs.size() == 1) return specs.front();
        std::string text = "[";
        for (std::size_t i = 0; i < specs.size(); ++i) text += (i ? ", " : "") + specs[i];
        return text + "]";
    };
    if (out.strided_slice_none.empty()) out.strided_slice = joined(strided);
    if (out.onnx_none.empty()) out.onnx = joined(onnx);
    return out;
}

}  // namespace

std::optional<StridedSliceSpec> strided_slice_equivalent(const IndexExpr& expr) {
    if (has_advanced(expr) || field_selection(expr)) return std::nullopt;
    StridedSliceSpec spec;
    for (const auto& entry : expr.items) {
        std::int64_t begin = 0, end = 0, stride = 1;
        bool begin_masked = false, end_masked = false, new_axis = false, shrink = false, ellipsis = false;
        if (const auto* slice = std::get_if<SliceItem>(&entry.item)) {
            begin_masked = !slice->start;
            end_masked = !slice->stop;
            begin = slice->start.value_or(0);
            end = slice->stop.value_or(0);
            stride = slice->step.value_or(1);
        } else if (const auto* integer = std::get_if<IntItem>(&entry.item)) {
            // The end of a shrunk entry is not read (TensorFlow sets it to begin + 1 itself).
            shrink = true;
            begin = integer->value;
            end = begin == std::numeric_limits<std::int64_t>::max() ? begin : begin + 1;
        } else if (std::holds_alternative<NewAxisItem>(entry.item)) {
            new_axis = true;
        } else {
            ellipsis = true;
        }
        spec.begin.push_back(begin);
        spec.end.push_back(end);
        spec.strides.push_back(stride);
        spec.begin_mask.push_back(begin_masked);
        spec.end_mask.push_back(end_masked);
        spec.new_axis_mask.push_back(new_axis);
        spec.shrink_axis_mask.push_back(shrink);
        spec.ellipsis_mask.push_back(ellipsis);
    }
    return spec;
}

std::optional<SliceSpec> onnx_slice_equivalent(const SlicePlan& plan) {
    if (!plan.shrunk.empty()) return std::nullopt;
    SliceSpec spec;
    spec.axes.emplace();
    spec.steps.emplace();
    for (const auto& axis : plan.axes) {
        if (axis.source_axis < 0) return std::nullopt;
        const std::int64_t dim = plan.input_shape[axis.source_axis];
        if (axis.step == 1 && axis.start == 0 && axis.length == dim) continue;  // taken whole
        std::int64_t start = axis.start, end = axis.stop;
        if (axis.length == 0) {
            // Python may resolve an empty reverse slice to start -1, which ONNX would read as
            // the last element; 0:0 is empty under both clampings.
            start = end = 0;
        } else if (axis.step < 0 && end < 0) {
            end = kInt64Min;  // before element 0: ONNX clamps it to -1
        }
        spec.starts.push_back(start);
        spec.ends.push_back(end);
        spec.axes->push_back(axis.source_axis);
        spec.steps->push_back(axis.step);
    }
    if (spec.starts.empty() && !plan.input_shape.empty()) {
        // Nothing is cut: say so with axis 0 taken whole rather than with empty lists.
        spec.starts = {0};
        spec.ends = {std::numeric_limits<std::int64_t>::max()};
        spec.axes = std::vector<std::int64_t>{0};
        spec.steps = std::vector<std::int64_t>{1};
    }
    return spec;
}

namespace {

// The result's layout over the input, as apply_pipeline makes it (a gather of a gathered
// result reads a contiguous copy of it), and how copy_view will copy it. Gathers contribute
// their layout only: a dry run builds no offset table.
std::string copy_description(const Pipeline& pipeline, std::size_t itemsize, bool fortran_order,
                             const std::vector<std::int64_t>& strides) {
    View view = View::contiguous(pipeline.input_shape, itemsize, fortran_order);
    if (strides.size() == view.rank())
        for (std::size_t k = 0; k < strides.size(); ++k) view.byte_strides[k] = strides[k] * static_cast<std::int64_t>(itemsize);
    for (const auto& step : pipeline.steps) {
        if (const auto* slice = std::get_if<SlicePlan>(&step.plan)) {
            view = apply_plan(*slice, view);
            continue;
        }
        if (const auto* fields = std::get_if<FieldPlan>(&step.plan)) {
            view = apply_fields(*fields, view);
            continue;
        }
        if (view.has_table()) view = View::contiguous(view.shape, view.itemsize);
        view = gather_layout(std::get<GatherPlan>(step.plan), view);
    }
    // The tool copies from the file's mapping (a piped input is the exception).
    std::string text = describe_copy(view, InputMemory::Mapped);
    // The write stage's choice for an input read from a file (row_reads.hpp).
    const std::int64_t row_bytes = gathered_row_bytes(view);
    const ReadSizes sizes = read_sizes();
    if (row_bytes > 0 && row_bytes >= sizes.read_row_bytes)
        text += "; from a file, rows are read where they lie (pread, in the order of their offsets), not mapped";
    else if (row_bytes > 0)
        text += "; from a file, if it reads from more than " + std::to_string(sizes.scattered_gather_bytes >> 20) +
                " MiB of the input, copied " + std::to_string(sizes.gather_window_bytes >> 20) +
                " MiB of the result at a time, in the order of the input";
    return text;
}

}  // namespace

namespace {

// The result's dtype as --explain shows it: `shown` (the input's, under the name the user
// knows) unless a field selection changed it.
const DType& result_dtype(const Pipeline& pipeline, const DType& shown) {
    const bool selects_fields = std::any_of(pipeline.steps.begin(), pipeline.steps.end(),
                                            [](const Step& step) { return std::holds_alternative<FieldPlan>(step.plan); });
    return selects_fields ? pipeline.output_dtype() : shown;
}

}  // namespace

std::string explain(const Pipeline& pipeline, const DType& dtype, const std::optional<IndexExpr>& expr,
                    bool fortran_order, const std::vector<std::int64_t>& strides) {
    std::string text = "input: shape " + format_shape(pipeline.input_shape) + ", dtype " + dtype_text(dtype) + "\n";
    for (const auto& step : pipeline.steps) {
        text += "\n" + step.label + "\n";
        if (const auto* slice = std::get_if<SlicePlan>(&step.plan))
            text += explain_slice_plan(*slice);
        else if (const auto* fields = std::get_if<FieldPlan>(&step.plan))
            text += explain_field_plan(*fields);
        else
            text += explain_gather_plan(std::get<GatherPlan>(step.plan));
    }
    text += "\nresult: shape " + format_shape(pipeline.output_shape()) + ", dtype " +
            dtype_text(result_dtype(pipeline, dtype)) + "\n";
    text += "copy: " + copy_description(pipeline, dtype.itemsize, fortran_order, strides) + "\n";
    if (!expr) return text;
    const Equivalents equivalent = equivalents(pipeline, *expr);
    text += "\nas strided_slice: " + equivalent.strided_slice.value_or(equivalent.strided_slice_none) + "\n";
    text += "as ONNX slice: " + equivalent.onnx.value_or(equivalent.onnx_none) + "\n";
    return text;
}

namespace {

using Json = nlohmann::ordered_json;

// JSON as Python's json.dumps writes it by default (", " and ": "), as --list --json does.
std::string dumps(const Json& value) {
    if (value.is_array()) {
        std::string out = "[";
        for (std::size_t i = 0; i < value.size(); ++i) out += (i ? ", " : "") + dumps(value[i]);
        return out + "]";
    }
    if (value.is_object()) {
        std::string out = "{";
        bool first = true;
        for (const auto& [key, item] : value.items()) {
            out += (first ? "" : ", ") + Json(key).dump() + ": " + dumps(item);
            first = false;
        }
        return out + "}";
    }
    return value.dump();
}

Json axes_json(const SlicePlan& plan) {
    Json axes = Json::array();
    for (const OutputAxis& axis : plan.axes) {
        if (axis.source_axis < 0) {
            axes.push_back({{"source", nullptr}, {"kind", "new axis"}, {"length", 1}});
            continue;
        }
        axes.push_back({{"source", axis.source_axis}, {"kind", "slice"}, {"start", axis.start}, {"stop", axis.stop},
                        {"step", axis.step}, {"length", axis.length}});
    }
    return axes;
}

Json step_json(const Step& step) {
    Json out = {{"label", step.label}};
    if (const auto* fields = std::get_if<FieldPlan>(&step.plan)) {
        out["kind"] = "fields";
        out["names"] = fields->names;
        out["list"] = fields->list;
        out["dtype"] = dtype_text(fields->dtype);
        if (!fields->list) {
            out["offset"] = fields->byte_offset;
            out["subshape"] = fields->subshape;
        }
        return out;
    }
    if (const auto* slice = std::get_if<SlicePlan>(&step.plan)) {
        out["kind"] = "slice";
        out["axes"] = axes_json(*slice);
        Json shrunk = Json::array();
        for (const auto& axis : slice->shrunk) shrunk.push_back({{"source", axis.source_axis}, {"index", axis.index}});
        out["shrunk"] = shrunk;
        return out;
    }
    const auto& gather = std::get<GatherPlan>(step.plan);
    out["kind"] = "gather";
    Json axes = Json::array();
    for (const GatherAxis& axis : gather.axes) {
        Json entry = {{"source", axis.source_axis >= 0 ? Json(axis.source_axis) : Json(nullptr)},
                      {"kind", kind_name(axis.kind)}};
        if (axis.source_axis >= 0) {
            entry["start"] = axis.start;
            entry["stop"] = axis.stop;
            entry["step"] = axis.step;
        }
        entry["length"] = axis.length;
        entry["table_axis"] = axis.table_axis >= 0 ? Json(axis.table_axis) : Json(nullptr);
        axes.push_back(entry);
    }
    out["axes"] = axes;
    if (gather.axis >= 0) {
        out["axis"] = gather.axis;
        out["batch_dims"] = gather.batch_dims;
    }
    out["table_shape"] = gather.table_shape;
    Json indices = Json::array();
    for (const auto& array : gather.indices) indices.push_back({{"shape", array.shape}, {"source", array.source_axis}});
    out["indices"] = indices;
    return out;
}

std::int64_t byte_count(const std::vector<std::int64_t>& shape, std::size_t itemsize) {
    std::int64_t count = static_cast<std::int64_t>(itemsize);
    for (const auto dim : shape) count *= dim;  // the planners checked it fits
    return count;
}

}  // namespace

namespace {

Json dtype_value(const DType& dtype) {
    if (!dtype.structured) return dtype.type_string;
    Json fields = Json::array();
    // A selection of fields is written packed: the offsets a file has.
    const std::vector<FieldBytes> packed = dtype.packed_itemsize ? packed_fields(dtype) : std::vector<FieldBytes>{};
    std::size_t packed_offset = 0;
    for (std::size_t i = 0; i < dtype.fields.size(); ++i) {
        const auto& field = dtype.fields[i];
        const std::size_t offset = packed.empty() ? field.offset : packed_offset;
        if (!packed.empty()) packed_offset += packed[i].size;
        Json entry = {{"name", field.name}, {"offset", offset}, {"dtype", dtype_value(*field.type)}};
        if (!field.subshape.empty()) entry["shape"] = field.subshape;
        fields.push_back(entry);
    }
    return Json{{"descr", dtype.descr}, {"itemsize", dtype.file_itemsize()}, {"fields", fields}};
}

}  // namespace

std::string shape_json(const std::vector<std::int64_t>& shape, const DType& dtype) {
    return dumps(Json{{"shape", shape}, {"dtype", dtype_text(dtype)}});
}

std::string explain_json(const Pipeline& pipeline, const DType& dtype, const std::optional<IndexExpr>& expr,
                         bool fortran_order, const std::vector<std::int64_t>& strides) {
    Json out;
    out["input"] = {{"shape", pipeline.input_shape}, {"dtype", dtype_text(dtype)},
                    {"fortran_order", fortran_order}};
    Json steps = Json::array();
    for (const auto& step : pipeline.steps) steps.push_back(step_json(step));
    out["steps"] = steps;
    const DType& result = result_dtype(pipeline, dtype);
    out["result"] = {{"shape", pipeline.output_shape()}, {"dtype", dtype_text(result)},
                     {"nbytes", byte_count(pipeline.output_shape(), result.file_itemsize())}};
    if (result.structured) out["result"]["fields"] = dtype_value(result)["fields"];
    out["copy"] = copy_description(pipeline, dtype.itemsize, fortran_order, strides);
    if (expr) {
        const Equivalents equivalent = equivalents(pipeline, *expr);
        out["strided_slice"] = equivalent.strided_slice ? Json::parse(*equivalent.strided_slice) : Json(nullptr);
        out["onnx_slice"] = equivalent.onnx ? Json::parse(*equivalent.onnx) : Json(nullptr);
    }
    return dumps(out);
}

}  // namespace tslice
