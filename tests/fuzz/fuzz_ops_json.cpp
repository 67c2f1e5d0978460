// Fuzz target: the JSON op parser (--op), and the pipeline it plans.
//
// Input: the JSON text of --op (the corpus files are plain JSON).
// Checks, besides "no crash, no sanitizer report, only tslice::Error":
//   - a parse error is Error(Usage) (exit 2), as the contract says for an invalid spec;
//   - the strided_slice and slice specs that read write back (to_json, as --explain prints
//     them) and read again as the same spec;
//   - the pipeline, planned against a few shapes, reads only inside the input, its steps'
//     shapes chain, and applying and copying it works (outputs up to a bound; an absurd
//     output must be refused by the planner, which the bound would hide, so the bound is
//     far above what the corpus needs and an allocation failure above it is a finding).
// A gather whose indices name a file is parsed but not planned: the fuzzer must not read
// files (or /dev/stdin) on its own.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_common.hpp"
#include "fuzz_views.hpp"
#include "tslice/copy.hpp"
#include "tslice/error.hpp"
#include "tslice/explain.hpp"
#include "tslice/npy.hpp"
#include "tslice/ops.hpp"
#include "tslice/steps.hpp"

using namespace tslice;
using tslice_fuzz::finding;

namespace {

using Shape = std::vector<std::int64_t>;

template <typename Spec>
void check_round_trip(const Spec& spec) {
    const std::string text = to_json(spec);
    std::vector<OpSpec> again;
    try {
        again = parse_ops_json(text);
    } catch (const Error& error) {
        finding("to_json gives %s, which does not read back: %s", text.c_str(), error.what());
    }
    TSLICE_FUZZ_CHECK(again.size() == 1);
    const auto* read = std::get_if<Spec>(&again[0].spec);
    if (!read || !(*read == spec)) finding("to_json gives %s, which reads back as another spec", text.c_str());
}

// A step per op, but an "index" op's expression plans a step per subscript of its chain.
std::size_t expected_steps(const std::vector<OpSpec>& ops) {
    std::size_t steps = 0;
    for (const auto& op : ops) {
        const auto* index = std::get_if<IndexSpec>(&op.spec);
        steps += index ? 1 + index->expr.chained.size() : 1;
    }
    return steps;
}

std::int64_t product(const Shape& shape) {
    std::int64_t count = 1;
    for (auto dim : shape) count *= dim;
    return count;
}

void run_pipeline(const std::vector<OpSpec>& ops, const Shape& shape) {
    Pipeline pipeline;
    try {
        pipeline = plan_pipeline(shape, ops, std::nullopt);
    } catch (const ExprError& error) {
        TSLICE_FUZZ_CHECK(error.kind() == ErrorKind::Usage);
        (void)error.describe();
        return;
    } catch (const Error& error) {
        TSLICE_FUZZ_CHECK(error.kind() == ErrorKind::Usage);
        return;
    }
    TSLICE_FUZZ_CHECK(pipeline.steps.size() == expected_steps(ops));
    Shape previous = shape;
    for (const auto& step : pipeline.steps) {
        const Shape input = std::visit([](const auto& p) { return p.input_shape; }, step.plan);
        TSLICE_FUZZ_CHECK(input == previous);
        previous = std::visit([](const auto& p) { return p.output_shape(); }, step.plan);
        for (auto dim : previous) TSLICE_FUZZ_CHECK(dim >= 0);
        // Outputs this large are legitimate (within the planners' limits) but too slow to
        // copy here; they are still planned and explained.
        if (product(previous) > (1 << 20)) {
            (void)explain(pipeline, parse_dtype_descr("'<f4'"), std::nullopt);
            return;
        }
    }
    (void)explain(pipeline, parse_dtype_descr("'<f4'"), std::nullopt);

    constexpr std::size_t kItemsize = 4;
    const auto input_bytes = static_cast<std::size_t>(product(shape)) * kItemsize;
    // new[]: an empty input is a real zero-byte allocation, as the CLI's mapping is.
    const std::unique_ptr<std::byte[]> input(new std::byte[input_bytes]);
    for (std::size_t i = 0; i < input_bytes; ++i) input[i] = static_cast<std::byte>(i * 7 + 1);
    const Result result = apply_pipeline(pipeline, input.get(), View::contiguous(shape, kItemsize));
    TSLICE_FUZZ_CHECK(result.view.shape == pipeline.output_shape());
    const std::int64_t readable = result.owned ? static_cast<std::int64_t>(result.owned->size())
                                               : static_cast<std::int64_t>(input_bytes);
    tslice_fuzz::check_inside(result.view, readable, 4096);
    std::vector<std::byte> output(static_cast<std::size_t>(result.view.element_count()) * kItemsize);
    copy_view(result.data, result.view, output.data(), 0, result.view.element_count());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::vector<OpSpec> ops;
    try {
        ops = parse_ops_json(text);
    } catch (const ExprError& error) {
        TSLICE_FUZZ_CHECK(error.column() <= error.expression().size());
        (void)error.describe();
        return 0;
    } catch (const Error& error) {
        if (error.kind() != ErrorKind::Usage) finding("an invalid spec is not a usage error: %s", error.what());
        return 0;
    }
    for (auto& op : ops) {
        if (const auto* spec = std::get_if<StridedSliceSpec>(&op.spec)) check_round_trip(*spec);
        if (const auto* spec = std::get_if<SliceSpec>(&op.spec)) check_round_trip(*spec);
        // Planning reads no file, so a gather that names one is planned with indices standing
        // in for the file's: their length from the path's, so the fuzzer can vary it.
        if (auto* gather = std::get_if<GatherSpec>(&op.spec); gather && gather->indices_path) {
            const auto length = static_cast<std::int64_t>(gather->indices_path->size() % 7);
            IntArray stand_in{{length}, {}};
            for (std::int64_t i = 0; i < length; ++i) stand_in.values.push_back(i * 3 - 5);
            gather->indices = stand_in;
        }
    }
    static const std::vector<Shape> shapes = {{}, {5}, {2, 3, 4}, {0, 3}, {3, 1, 2, 1, 2}};
    for (const auto& shape : shapes) run_pipeline(ops, shape);
    return 0;
}
