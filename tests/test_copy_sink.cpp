// The sink that streams the copy's output: a row's whole output lines straight from a kernel that
// streams its own stores, the part lines at either end through the stage; reversed rows of every
// item size, output misalignment and element range against the element-by-element reference.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "copy_fixture.hpp"
#include "copy/copy_plan.hpp"
#include "copy/copy_sink.hpp"
#include "kernel_sets_fixture.hpp"
#include "tslice/copy.hpp"
#include "tslice/expr.hpp"
#include "tslice/plan.hpp"

using namespace tslice;
using namespace copy_fixture;

TEST_CASE("copy: reversed rows streamed straight from their kernel give the reference's bytes") {
    // Streaming, a reversed row's whole output lines go from the kernel to the output and the
    // part lines at either end through the stage: every item size, output misalignment (so
    // that the first line boundary falls between elements too), row length and element range.
    std::mt19937_64 rng(20261127);
    const std::size_t itemsizes[] = {1, 2, 3, 4, 8, 12, 16};
    kernel_sets_fixture::KernelTally tally;
    set_stream_choice(StreamChoice::Always);
    for (int round = 0; round < 300; ++round) {
        const std::size_t itemsize = itemsizes[round % std::size(itemsizes)];
        const Shape shape{std::uniform_int_distribution<std::int64_t>(1, 4)(rng),
                          std::uniform_int_distribution<std::int64_t>(1, 3000)(rng)};
        const std::string text = round % 2 ? "[:, ::-1]" : "[::-1, ::-1]";
        CAPTURE(itemsize);
        CAPTURE(shape[1]);
        CAPTURE(text);
        const View view = apply_plan(plan_index(parse_index_expr(text), shape), View::contiguous(shape, itemsize));
        const auto data = numbered_bytes(static_cast<std::size_t>(shape[0] * shape[1]) * itemsize);
        const auto expected = reference_copy(data.data(), view);
        const std::int64_t count = view.element_count();
        const auto size = static_cast<std::int64_t>(itemsize);
        const std::size_t misalign = rng() % 64;
        for (const auto& set : available_kernel_sets()) {
            CAPTURE(set);
            force_kernel_set(set);
            if (set != "scalar") tally.count(set, "streamed", plan_copy(view).row.streamed != nullptr);
            std::vector<std::byte> buffer(expected.size() + 64, std::byte{0x5A});
            const auto shift = (64 - reinterpret_cast<std::uintptr_t>(buffer.data()) % 64 + misalign) % 64;
            std::byte* out = buffer.data() + shift;
            for (std::int64_t first = 0; first < count;) {
                const std::int64_t n = round % 3 == 0 ? count
                                                      : std::min<std::int64_t>(
                                                            count - first, 1 + static_cast<std::int64_t>(rng() % 5000));
                copy_view(data.data(), view, out + first * size, first, n);
                first += n;
            }
            CHECK(std::equal(expected.begin(), expected.end(), out));
        }
        force_kernel_set("auto");
    }
    set_stream_choice(StreamChoice::Chosen);
    tally.check_each_set("streamed", 100);
}

namespace {

// A row kernel for Sink's test: reverses elements of 4 bytes; its streamed form records each
// call and whether the call kept Sink::put_row's promise (dst on a line, whole lines).
struct StreamedCalls {
    int calls = 0;
    bool promise_kept = true;
};
StreamedCalls streamed_calls;

void reverse4(const kernels::RowKernel&, const std::byte* src, std::byte* dst, std::int64_t count, std::int64_t) {
    for (std::int64_t i = 0; i < count; ++i) std::memcpy(dst + 4 * i, src - 4 * i, 4);
}
void reverse4_streamed(const kernels::RowKernel& kernel, const std::byte* src, std::byte* dst, std::int64_t count,
                       std::int64_t slack) {
    ++streamed_calls.calls;
    streamed_calls.promise_kept &= reinterpret_cast<std::uintptr_t>(dst) % 64 == 0 && count * 4 % 64 == 0;
    reverse4(kernel, src, dst, count, slack);
}
void plain_stream_copy(std::byte* dst, const std::byte* src, std::size_t bytes) { std::memcpy(dst, src, bytes); }
void no_fence() {}

}  // namespace

TEST_CASE("copy: streaming, the sink hands a row's whole output lines to a kernel that streams its own stores") {
    const kernels::KernelSet set{"test", nullptr, nullptr, plain_stream_copy, no_fence, false};
    kernels::RowKernel row;
    row.fn = reverse4;
    row.streamed = reverse4_streamed;
    row.stride = -4;
    row.itemsize = 4;
    std::mt19937_64 rng(20261128);
    for (int round = 0; round < 500; ++round) {
        const std::int64_t rows = std::uniform_int_distribution<std::int64_t>(1, 5)(rng);
        const std::int64_t length = std::uniform_int_distribution<std::int64_t>(1, 700)(rng);
        const auto data = numbered_bytes(static_cast<std::size_t>(rows * length) * 4);
        std::vector<std::byte> expected;
        for (std::int64_t r = 0; r < rows; ++r)
            for (std::int64_t i = length; i-- > 0;)
                expected.insert(expected.end(), data.begin() + (r * length + i) * 4, data.begin() + (r * length + i + 1) * 4);
        std::vector<std::byte> buffer(expected.size() + 128, std::byte{0x5A});
        const auto misalign = static_cast<std::size_t>(rng() % 64);  // 0 mod 4 or not
        std::byte* out = buffer.data() + (64 - reinterpret_cast<std::uintptr_t>(buffer.data()) % 64 + misalign) % 64;
        streamed_calls = {};
        {
            Sink sink(out, rows * length, 4, set, true);
            for (std::int64_t r = 0; r < rows; ++r) sink.put_row(row, data.data() + (r * length + length - 1) * 4, length);
            sink.finish();
        }
        CAPTURE(rows);
        CAPTURE(length);
        CAPTURE(misalign);
        CHECK(std::equal(expected.begin(), expected.end(), out));
        CHECK(streamed_calls.promise_kept);
        // A row with a whole line after its first line boundary, in an output whose boundaries
        // fall between elements, goes to the streamed kernel.
        const std::int64_t gap = static_cast<std::int64_t>((64 - reinterpret_cast<std::uintptr_t>(out) % 64) % 64);
        if (gap % 4 == 0 && length * 4 >= gap + 64) CHECK(streamed_calls.calls > 0);
        if (gap % 4 != 0) CHECK(streamed_calls.calls == 0);
    }
}
