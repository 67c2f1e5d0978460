// The command line's reports, each from the one preparation (tslice/reports.hpp).
#include "tslice/reports.hpp"

#include <nlohmann/json.hpp>

#include "tslice/convert.hpp"
#include "tslice/explain.hpp"
#include "tslice/gguf.hpp"
#include "tslice/output_format.hpp"
#include "tslice/stats.hpp"

namespace tslice {

namespace {

std::string shape_line(const std::vector<std::int64_t>& shape, const ElementType& type, bool json) {
    return json ? shape_json(shape, shown_dtype(type)) : format_shape(shape);
}

// A name as a JSON string (bytes that are not UTF-8 replaced), or null for a plain .npy.
std::string json_name(const std::optional<std::string>& name) {
    return name ? nlohmann::json(*name).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                : std::string("null");
}

}  // namespace

DType shown_dtype(const ElementType& type) {
    DType shown = type.dtype;
    if (!type.safetensors_only.empty()) shown.descr = shown.type_string = type.safetensors_only;
    return shown;
}

std::string list_report(const Prepared& prepared, bool json) {
    if (!prepared.chosen().empty()) {
        std::vector<ArrayInFile> shown;
        for (const ArrayInFile* array : prepared.chosen()) shown.push_back(*array);
        return format_array_list(shown, json);
    }
    std::string list = format_array_list(prepared.arrays(), json);
    const InputBytes& input = prepared.input();
    if (json && detect_format(input.data(), input.size()) == ContainerFormat::Gguf)
        list = "{\"arrays\": " + list.substr(0, list.size() - 1) +
               ", \"metadata\": " + gguf_metadata_json(input.data(), input.size()) + "}\n";
    return list;
}

std::string shape_report(const Prepared& prepared, const std::optional<ElementType>& astype, bool json) {
    const std::vector<PlannedArray>& planned = prepared.planned();
    if (planned.size() == 1)
        return shape_line(planned[0].pipeline.output_shape(), converted_type(planned[0].type, astype), json) + "\n";
    std::string out = json ? "[" : "";
    for (std::size_t i = 0; i < planned.size(); ++i) {
        const std::string line =
            shape_line(planned[i].pipeline.output_shape(), converted_type(planned[i].type, astype), json);
        if (json)
            out += (i ? ", " : "") + std::string("{\"name\": ") + json_name(planned[i].array->name) + ", " +
                   line.substr(1);
        else
            out += shown_name(*planned[i].array->name) + ": " + line + "\n";
    }
    return json ? out + "]\n" : out;
}

std::string explain_report(const Prepared& prepared, const std::optional<IndexExpr>& expr,
                           const std::optional<ElementType>& astype, bool json) {
    const PlannedArray& planned = prepared.planned().at(0);
    const ArrayInFile& array = *planned.array;
    (void)converted_type(planned.type, astype);  // Error(Usage) where the types do not convert
    const DType shown = shown_dtype(array.type);
    return json ? explain_json(planned.pipeline, shown, expr, array.fortran_order, array.strides) + "\n"
                : explain(planned.pipeline, shown, expr, array.fortran_order, array.strides);
}

std::string values_report(const Prepared& prepared, std::size_t i, const std::optional<ElementType>& astype,
                          const PrintOptions& options, unsigned threads) {
    const PlannedArray& planned = prepared.planned().at(i);
    const ElementType type = converted_type(planned.type, astype);
    const ViewedArray viewed = prepared.view(i, {threads, false});
    std::vector<std::byte> converted;
    Result printed = viewed.result;
    if (astype) {
        converted = convert_view(printed.data, printed.view, Conversion(planned.type, type), threads);
        printed = Result{converted.data(), View::contiguous(printed.view.shape, type.itemsize()), nullptr};
    }
    const std::string heading = prepared.planned().size() > 1 ? shown_name(*planned.array->name) + ":\n" : "";
    if (type.safetensors_only.empty()) return heading + format_array(printed.data, printed.view, type.dtype, options) + "\n";
    return heading + format_narrow_float_array(printed.data, printed.view, type, options) + "\n";
}

void check_stats_types(const Prepared& prepared, const std::optional<ElementType>& astype) {
    for (const PlannedArray& planned : prepared.planned()) check_stats_type(planned.type, astype);
}

std::string stats_report(const Prepared& prepared, std::size_t i, const std::optional<ElementType>& astype, bool json,
                         unsigned threads) {
    const PlannedArray& planned = prepared.planned().at(i);
    const ElementType type = converted_type(planned.type, astype);
    const ViewedArray viewed = prepared.view(i, {threads, false});
    const Result& result = viewed.result;
    const ArrayStats stats = compute_stats(result.data, result.view, planned.type, astype, viewed.pages(), threads);
    return json ? stats_json(stats, planned.array->name, type, result.view.shape)
                : stats_line(stats, planned.array->name, type, result.view.shape);
}

}  // namespace tslice
