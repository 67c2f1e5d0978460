// The preparation every run shares: open, list, choose, plan, view (tslice/prepare.hpp).
#include "tslice/prepare.hpp"

#include <utility>

#include "tslice/error.hpp"
#include "tslice/gguf.hpp"
#include "tslice/reach.hpp"
#include "tslice/threads.hpp"
#include "source/region_bands.hpp"
#include "source/region_rows.hpp"

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

// A region source's array whose result walks its box's first axis: read a band at a
// time as the copy reaches it (region_bands.hpp); a gather of rows of its first axis: those
// rows only (region_rows.hpp); instead of the whole box first.
std::optional<ViewedArray> Prepared::view_in_parts(const PlannedArray& planned, const ViewOptions& options) const {
    const ArrayInFile& array = *planned.array;
    // A gather from a gathered result copies the first one out of the data: it needs it whole.
    int gathers = 0;
    for (const auto& step : planned.pipeline.steps) gathers += std::holds_alternative<GatherPlan>(step.plan);
    if (gathers > 1) return std::nullopt;
    const Box box = reached_box(planned.pipeline, array.type.itemsize());
    // Views only: nothing reads the (null) data.
    Result result = apply_pipeline(planned.pipeline, nullptr, ArrayData::region_view(array, box));
    const unsigned threads = options.threads ? options.threads : default_thread_count();
    if (std::optional<GatheredRows> rows = gathered_rows(result.view, box, array.type.itemsize(), kBandsLimitBytes)) {
        // A gather of rows: those rows only, each chunk row read once.
        std::vector<std::byte> bytes = about_file(path_, [&] {
            return read_rows(*input_.region(), array, box, rows->rows, input_.region()->chunk_shape(array), threads);
        });
        ArrayData data = ArrayData::of_bytes(std::move(bytes), array, array_what(array));
        Result gathered{data.data(), std::move(rows->view), nullptr};
        return ViewedArray{std::move(data), std::move(gathered)};
    }
    if (gathers > 0 || !options.bands) return std::nullopt;
    const std::vector<std::int64_t> chunks = input_.region()->chunk_shape(array);
    const std::optional<BandLayout> layout =
        band_layout(result.view, box, array.type.itemsize(), chunks, threads,
                    bands_limit_bytes(chunks, array.type.itemsize(), threads));
    if (!layout) return std::nullopt;
    auto bands = std::make_shared<RegionBands>(input_.region(), array, box, *layout, threads, path_);
    ArrayData data = ArrayData::open_in_bands(std::move(bands), array, box, array_what(array));
    return ViewedArray{std::move(data), std::move(result)};
}

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

ViewedArray Prepared::view(std::size_t i, const ViewOptions& options) const {
    const PlannedArray& planned = planned_.at(i);
    const ArrayInFile& array = *planned.array;
    if (array.bytes.kind == ArrayBytes::Kind::Region && array.error.empty())
        if (std::optional<ViewedArray> banded = view_in_parts(planned, options)) return std::move(*banded);
    ArrayData data = about_file(path_, [&] {
        return ArrayData::open(input_, array, array_what(array),
                               [&] { return reached_box(planned.pipeline, array.type.itemsize()); }, options.threads);
    });
    Result result = apply_pipeline(planned.pipeline, data.data(), data.view());
    return ViewedArray{std::move(data), std::move(result)};
}

}  // namespace tslice
