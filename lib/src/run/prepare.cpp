// The preparation every run shares: open, list, choose, plan, view (tslice/prepare.hpp).
#include "tslice/prepare.hpp"

#include <utility>

#include "tslice/error.hpp"
#include "tslice/gguf.hpp"
#include "tslice/reach.hpp"

namespace tslice {

namespace {

// Runs `step`, naming `path` in the error it throws.
template <typename Step>
auto about_file(const std::string& path, Step step) -> decltype(step()) {
    try {
        return step();
    } catch (const Error& error) {
        throw error_about_file(error, path);
    }
}

}  // namespace

InputPages ViewedArray::pages() const { return result.data == data.data() ? data.pages() : InputPages{}; }

Prepared Prepared::open(const std::string& path, bool headers_only) {
    Prepared prepared;
    prepared.path_ = path;
    prepared.headers_only_ = headers_only;
    prepared.input_ = about_file(path, [&] { return InputBytes::open(path, headers_only); });
    prepared.arrays_ = about_file(path, [&] { return list_arrays(prepared.input_); });
    return prepared;
}

void Prepared::choose(const std::vector<std::string>& keys, const ChooseOptions& options) {
    planned_.clear();
    chosen_.clear();
    if (options.converting)
        for (ArrayInFile& array : arrays_) array = dequantized(array);
    chosen_ = about_file(path_, [&] { return select_arrays(arrays_, keys, !options.listing); });
}

void Prepared::plan(std::vector<OpSpec> ops, const std::optional<IndexExpr>& expr, const PlanOptions& options) {
    read_indices_files(ops, headers_only_);
    planned_.clear();
    for (const ArrayInFile* array : chosen_) {
        if (options.refuse_unsliceable) about_file(path_, [&] { require_sliceable(*array, array_what(*array)); });
        PlannedArray planned;
        planned.array = array;
        planned.pipeline = plan_pipeline(array->shape, ops, expr, array->type.dtype);
        planned.type = ElementType{planned.pipeline.output_dtype(), array->type.safetensors_only};
        planned_.push_back(std::move(planned));
    }
    // `ops` goes here: the plans hold the indices now, and a large gather's would be resident twice.
}

ViewedArray Prepared::view(std::size_t i) const {
    const PlannedArray& planned = planned_.at(i);
    const ArrayInFile& array = *planned.array;
    ArrayData data = about_file(path_, [&] {
        return ArrayData::open(input_, array, array_what(array),
                               [&] { return reached_box(planned.pipeline, array.type.itemsize()); });
    });
    Result result = apply_pipeline(planned.pipeline, data.data(), data.view());
    return ViewedArray{std::move(data), std::move(result)};
}

}  // namespace tslice
