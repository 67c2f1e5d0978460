// Fuzz target: the whole path from plan to bytes, against a plain element-by-element reference.
//
// The fuzzer's bytes choose an input (rank 0-5, small dimensions with empty axes, one longer
// axis sometimes so that the SIMD row kernels engage; an item size from 1 to 32 bytes,
// including odd ones; C or Fortran order), then up to three ops written as the user writes
// them (JSON for strided_slice, slice, slice1, gather and index; the trailing expression as
// text, basic or with integer lists), with bounds near the axes and at the int64 extremes.
// What tslice rejects (tslice::Error) ends the case. Otherwise the pipeline is applied
// (apply_plan / apply_gather, composing views, materialising a gathered view that is
// gathered again) and copied (copy_view) with every kernel set this CPU runs, in one call and
// split into three element ranges, and each result must equal the reference.
//
// The reference reads the plans, never the views: for each output element (C order) it walks
// the steps backwards, turning an output index into the input index of that step (a slice
// axis: start + i * step; a shrunk axis: its index; a gather: the index arrays' values,
// broadcast to the table shape, or zeros for OpenVINO's out-of-range indices), and copies
// the element from the input with the input's own C or Fortran strides.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include "fake_pages.hpp"
#include "fuzz_common.hpp"
#include "tslice/copy.hpp"
#include "tslice/error.hpp"
#include "tslice/expr.hpp"
#include "tslice/ops.hpp"
#include "tslice/steps.hpp"
#include "tslice/view.hpp"
#include "tslice/write.hpp"
#include "read/read_sizes.hpp"

using namespace tslice;
using tslice_fuzz::ByteReader;
using tslice_fuzz::finding;

namespace {

using Shape = std::vector<std::int64_t>;

constexpr std::int64_t kMaxInputBytes = 256 << 10;
constexpr std::int64_t kMaxOutputElements = 1 << 16;
constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

// ------------------------------------------------------------------------------- generation

// A bound or index for an axis of length `dim`: mostly near the axis, sometimes extreme.
std::int64_t bound(ByteReader& in, std::int64_t dim) {
    const std::uint8_t choice = in.byte();
    if (choice < 216) return in.range(-dim - 2, dim + 2);
    static constexpr std::int64_t kExtremes[] = {kInt64Min, kInt64Max,        kInt64Min + 1, kInt64Max - 1,
                                                 -(std::int64_t{1} << 62), std::int64_t{1} << 62,
                                                 -1000000000000000000,     1000000000000000000};
    return kExtremes[choice % 8];
}

std::int64_t step(ByteReader& in) {
    const std::uint8_t choice = in.byte();
    if (choice < 4) return 0;  // an error, reported as one
    if (choice < 12) return choice % 2 ? kInt64Max : kInt64Min + (choice % 4 == 0);
    const std::int64_t magnitude = 1 + choice % 4;
    return choice & 0x10 ? -magnitude : magnitude;
}

std::string json_list(const std::vector<std::int64_t>& values) {
    std::string text = "[";
    for (std::size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
    return text + "]";
}

// A nested list of indices for an axis of length `dim`, of a random shape; written as JSON
// (numpy's expression syntax is the same).
std::string index_list(ByteReader& in, std::int64_t dim, int depth, std::int64_t& budget) {
    const std::int64_t length = in.range(0, depth == 0 ? 5 : 3);
    std::string text = "[";
    const bool nested = depth < 2 && in.byte() < 48;
    for (std::int64_t i = 0; i < length && budget > 0; ++i) {
        if (i) text += ", ";
        if (nested) {
            text += index_list(in, dim, depth + 1, budget);
        } else {
            --budget;
            text += std::to_string(in.byte() < 240 ? in.range(-dim - 1, dim) : bound(in, dim));
        }
    }
    return text + "]";
}

// A numpy expression for `shape`, mostly valid.
std::string expression(ByteReader& in, const Shape& shape, bool lists) {
    const auto rank = static_cast<std::int64_t>(shape.size());
    const std::int64_t items = in.range(0, rank + 2);
    std::string text = in.coin() ? "[" : "";
    const bool bracketed = !text.empty();
    std::int64_t axis = 0;
    std::int64_t budget = 64;
    bool ellipsis = false;
    for (std::int64_t i = 0; i < items; ++i) {
        if (i) text += in.byte() < 16 ? "," : ", ";
        const std::int64_t dim = axis < rank ? shape[static_cast<std::size_t>(axis)] : 3;
        const std::uint8_t kind = in.byte();
        if (kind < 20) {
            text += "None";
        } else if (kind < 36 && !ellipsis) {
            text += "...";
            ellipsis = true;
            axis = std::max(axis, rank - (items - i - 1));
        } else if (kind < 80) {
            text += std::to_string(bound(in, dim));
            ++axis;
        } else if (kind < 112 && lists) {
            text += index_list(in, dim, 0, budget);
            ++axis;
        } else {
            const std::uint8_t parts = in.byte();
            if (parts & 1) text += std::to_string(bound(in, dim));
            text += ":";
            if (parts & 2) text += std::to_string(bound(in, dim));
            if (parts & 4) {
                text += ":";
                if (parts & 8) text += std::to_string(step(in));
            }
            ++axis;
        }
    }
    if (items == 0) text += "...";
    if (in.byte() < 32) text += ",";
    return bracketed ? text + "]" : text;
}

std::int64_t mask(ByteReader& in, std::size_t entries) {
    if (entries == 0 || in.byte() < 96) return 0;
    return in.range(0, (std::int64_t{1} << std::min<std::size_t>(entries, 16)) - 1);
}

// One op as JSON, for an input of `shape` (the shape before the op, as far as it is known).
std::string op_json(ByteReader& in, const Shape& shape) {
    const auto rank = static_cast<std::int64_t>(shape.size());
    const auto dim_of = [&](std::int64_t axis) {
        return axis >= 0 && axis < rank ? shape[static_cast<std::size_t>(axis)] : 3;
    };
    switch (in.byte() % 5) {
        case 0: {  // strided_slice
            const auto entries = static_cast<std::size_t>(in.range(0, rank + 2));
            std::vector<std::int64_t> begin, end, strides;
            for (std::size_t i = 0; i < entries; ++i) {
                begin.push_back(bound(in, dim_of(static_cast<std::int64_t>(i))));
                end.push_back(bound(in, dim_of(static_cast<std::int64_t>(i))));
                strides.push_back(step(in));
            }
            std::int64_t ellipsis = mask(in, entries);
            if (in.byte() < 200) ellipsis &= -ellipsis;  // mostly one bit at most
            return "{\"op\": \"strided_slice\", \"begin\": " + json_list(begin) + ", \"end\": " + json_list(end) +
                   ", \"strides\": " + json_list(strides) + ", \"begin_mask\": " + std::to_string(mask(in, entries)) +
                   ", \"end_mask\": " + std::to_string(mask(in, entries)) +
                   ", \"new_axis_mask\": " + std::to_string(mask(in, entries)) +
                   ", \"shrink_axis_mask\": " + std::to_string(mask(in, entries)) +
                   ", \"ellipsis_mask\": " + std::to_string(ellipsis) + "}";
        }
        case 1: {  // ONNX slice
            const auto entries = static_cast<std::size_t>(in.range(0, rank));
            std::vector<std::int64_t> starts, ends, axes, steps;
            for (std::size_t i = 0; i < entries; ++i) {
                const std::int64_t axis = in.range(-rank, rank - 1);
                axes.push_back(axis);
                const std::int64_t dim = dim_of(axis < 0 ? axis + rank : axis);
                starts.push_back(bound(in, dim));
                ends.push_back(bound(in, dim));
                steps.push_back(step(in));
            }
            std::string text = "{\"op\": \"slice\", \"starts\": " + json_list(starts) + ", \"ends\": " + json_list(ends);
            if (in.coin()) text += ", \"axes\": " + json_list(axes);
            if (in.coin()) text += ", \"steps\": " + json_list(steps);
            return text + "}";
        }
        case 2: {  // DirectML slice1
            std::vector<std::int64_t> offsets, sizes, strides, output_sizes;
            for (std::int64_t axis = 0; axis < rank; ++axis) {
                const std::int64_t dim = dim_of(axis);
                const std::int64_t offset = in.byte() < 240 ? in.range(0, dim) : bound(in, dim);
                const std::int64_t size = in.byte() < 240 ? in.range(0, dim - std::clamp<std::int64_t>(offset, 0, dim) + 1) : bound(in, dim);
                offsets.push_back(offset);
                sizes.push_back(size);
                std::int64_t stride = in.range(1, 3);
                if (in.coin()) stride = -stride;
                if (in.byte() < 8) stride = step(in);
                strides.push_back(stride);
                output_sizes.push_back(in.range(0, 4));
            }
            std::string text = "{\"op\": \"slice1\", \"offsets\": " + json_list(offsets) + ", \"sizes\": " +
                               json_list(sizes) + ", \"strides\": " + json_list(strides);
            if (in.byte() < 64) text += ", \"output_sizes\": " + json_list(output_sizes);
            return text + "}";
        }
        case 3: {  // OpenVINO gather
            const std::int64_t axis = in.range(-rank, std::max<std::int64_t>(rank - 1, 0));
            std::int64_t budget = 64;
            const std::string indices = in.byte() < 32 ? std::to_string(in.range(-3, 3))
                                                       : index_list(in, dim_of(axis < 0 ? axis + rank : axis), 0, budget);
            std::string text = "{\"op\": \"gather\", \"indices\": " + indices + ", \"axis\": " + std::to_string(axis);
            if (in.byte() < 96) text += ", \"batch_dims\": " + std::to_string(in.range(-2, 2));
            return text + "}";
        }
        default:  // an expression inside the spec
            return "{\"op\": \"index\", \"expr\": \"" + expression(in, shape, in.coin()) + "\"}";
    }
}

// ------------------------------------------------------------------------------- reference

// Turns an output index of `plan` into its input index; false for a gathered zero.
bool to_input(const SlicePlan& plan, const Shape& out, Shape& in) {
    in.assign(plan.input_shape.size(), 0);
    for (std::size_t k = 0; k < plan.axes.size(); ++k) {
        const OutputAxis& axis = plan.axes[k];
        if (axis.source_axis >= 0) in[static_cast<std::size_t>(axis.source_axis)] = axis.start + out[k] * axis.step;
    }
    for (const auto& shrunk : plan.shrunk) in[static_cast<std::size_t>(shrunk.source_axis)] = shrunk.index;
    return true;
}

bool to_input(const GatherPlan& plan, const Shape& out, Shape& in) {
    in.assign(plan.input_shape.size(), 0);
    Shape table(plan.table_shape.size(), 0);
    for (std::size_t k = 0; k < plan.axes.size(); ++k) {
        const GatherAxis& axis = plan.axes[k];
        if (axis.source_axis >= 0) in[static_cast<std::size_t>(axis.source_axis)] = axis.start + out[k] * axis.step;
        if (axis.table_axis >= 0) table[static_cast<std::size_t>(axis.table_axis)] = out[k];
    }
    for (const auto& array : plan.indices) {
        // The array's shape is right-aligned against the table shape and broadcast to it.
        const std::size_t shift = table.size() - array.shape.size();
        std::int64_t position = 0;
        for (std::size_t k = 0; k < array.shape.size(); ++k)
            position = position * array.shape[k] + (array.shape[k] == 1 ? 0 : table[shift + k]);
        const std::int64_t value = array.values->at(static_cast<std::size_t>(position));
        if (value == View::kZeroElement) return false;
        if (array.source_axis >= 0) in[static_cast<std::size_t>(array.source_axis)] = value;  // -1: True/False
    }
    return true;
}

// Expressions are planned without a dtype here, so no step selects fields.
bool to_input(const FieldPlan&, const Shape&, Shape&) {
    finding("a field selection was planned without a structured dtype");
    return false;
}

std::vector<std::byte> reference(const Pipeline& pipeline, const std::byte* input, const View& layout) {
    const Shape shape = pipeline.output_shape();
    const std::size_t itemsize = layout.itemsize;
    std::int64_t count = 1;
    for (auto dim : shape) count *= dim;
    std::vector<std::byte> out(static_cast<std::size_t>(count) * itemsize);
    Shape index(shape.size(), 0), current, previous;
    for (std::int64_t n = 0; n < count; ++n) {
        current = index;
        bool zero = false;
        for (std::size_t s = pipeline.steps.size(); s-- > 0 && !zero;) {
            zero = !std::visit([&](const auto& plan) { return to_input(plan, current, previous); }, pipeline.steps[s].plan);
            current.swap(previous);
        }
        std::byte* dst = out.data() + static_cast<std::size_t>(n) * itemsize;
        if (zero) {
            std::memset(dst, 0, itemsize);
        } else {
            std::int64_t offset = layout.byte_offset;
            for (std::size_t k = 0; k < current.size(); ++k) {
                if (current[k] < 0 || current[k] >= layout.shape[k])
                    finding("the plan reads index %lld of input axis %zu, of length %lld", static_cast<long long>(current[k]),
                            k, static_cast<long long>(layout.shape[k]));
                offset += current[k] * layout.byte_strides[k];
            }
            std::memcpy(dst, input + offset, itemsize);
        }
        for (std::size_t k = shape.size(); k-- > 0;) {
            if (++index[k] < shape[k]) break;
            index[k] = 0;
        }
    }
    return out;
}

// The write stage over the same result, with chunk, thread and release sizes small enough
// for these arrays to cross several of each: the input is copied into pages of its own, and
// every page the writer says it will not read again (InputPages::release) is made unreadable,
// so a later read of it is a crash, not a silent re-read. A read ahead must ask for bytes the
// copy still reads: its first and last bytes are read when it asks on the copy's thread (a
// crash if released); a
// gather's rows read as pread would read them come from those pages too, and a gather copied
// window by window (scattered_gather.hpp) reads them through the mapping. The
// output goes into a memfd through its /proc name (written into the descriptor) and must hold
// the reference's bytes.
void check_writer(ByteReader& in, const Pipeline& pipeline, const std::byte* input, std::size_t input_bytes,
                  const View& layout, const std::vector<std::byte>& want) {
    static const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t mapped_bytes = std::max<std::size_t>(page, (input_bytes + page - 1) / page * page);
    void* pages = ::mmap(nullptr, mapped_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages == MAP_FAILED) finding("mmap of %zu bytes failed", mapped_bytes);
    auto* base = static_cast<std::byte*>(pages);
    if (input_bytes) std::memcpy(base, input, input_bytes);
    const auto base_address = reinterpret_cast<std::uintptr_t>(base);

    // The read stage's one test hook: every size a multiple of a chunk of 16 bytes to 1 KiB, so
    // that these arrays cross many chunks, release pieces, read aheads, gather windows and
    // regions; read aheads asked on the copy's thread.
    const ReadSizes sizes(static_cast<std::size_t>(in.range(1, 64)) * 16);
    set_read_chunk_for_tests(sizes.chunk_bytes);
    WriteOptions options;
    options.threads = static_cast<unsigned>(in.range(1, 3));

    const Result result = apply_pipeline(pipeline, base, layout);
    FakePages fake(base);
    InputPages input_pages;
    if (result.data == base) {
        input_pages = fake.pages();
        fake.on_release = [&](std::int64_t begin, std::int64_t end) {
            if (begin >= end) return;  // an empty range (the writer's spans may cross at the end)
            if (begin < 0 || end > static_cast<std::int64_t>(input_bytes))
                finding("release of bytes [%lld, %lld) outside the input's %zu", static_cast<long long>(begin),
                        static_cast<long long>(end), input_bytes);
            // Only pages wholly inside the range: the writer may still read the rest of a page.
            const std::uintptr_t from = (base_address + static_cast<std::uintptr_t>(begin) + page - 1) / page * page;
            const std::uintptr_t to = (base_address + static_cast<std::uintptr_t>(end)) / page * page;
            if (from < to) ::mprotect(reinterpret_cast<void*>(from), to - from, PROT_NONE);
        };
        fake.on_read_ahead = [&](std::int64_t begin, std::int64_t end) {
            if (begin < 0 || begin >= end || end > static_cast<std::int64_t>(input_bytes))
                finding("read ahead of bytes [%lld, %lld) outside the input's %zu", static_cast<long long>(begin),
                        static_cast<long long>(end), input_bytes);
            // Asked for on the copy's thread, the bytes are still there; from the asking thread,
            // a request may come after the copy has moved on (advice: harmless).
            if (sizes.read_ahead_thread) return;
            volatile std::byte first = base[begin], last = base[end - 1];
            (void)first;
            (void)last;
        };
        // Pages a scattered gather is done with for now: it may read them again.
        fake.on_unmap = [&](std::int64_t begin, std::int64_t end) {
            if (begin < 0 || begin >= end || end > static_cast<std::int64_t>(input_bytes))
                finding("unmap of bytes [%lld, %lld) outside the input's %zu", static_cast<long long>(begin),
                        static_cast<long long>(end), input_bytes);
        };
        // A gather's rows read as pread would: a released page is a crash here too.
        fake.on_read = [&](std::int64_t begin, std::int64_t bytes, std::byte* dst) {
            if (begin < 0 || bytes <= 0 || begin + bytes > static_cast<std::int64_t>(input_bytes))
                finding("read of bytes [%lld, %lld) outside the input's %zu", static_cast<long long>(begin),
                        static_cast<long long>(begin + bytes), input_bytes);
            std::memcpy(dst, base + begin, static_cast<std::size_t>(bytes));
        };
        // A page cache that holds only some of what is asked: reads from an odd 64-byte line
        // stop halfway, so the cached, missing and asked-ahead paths all run.
        fake.on_read_cached = [&](std::int64_t begin, std::int64_t bytes, std::byte* dst) {
            if (begin < 0 || bytes <= 0 || begin + bytes > static_cast<std::int64_t>(input_bytes))
                finding("cached read of bytes [%lld, %lld) outside the input's %zu", static_cast<long long>(begin),
                        static_cast<long long>(begin + bytes), input_bytes);
            const std::int64_t got = (begin / 64) % 2 == 0 ? bytes : bytes / 2;
            std::memcpy(dst, base + begin, static_cast<std::size_t>(got));
            return got;
        };
    }
    const int fd = ::memfd_create("tslice-fuzz-output", MFD_CLOEXEC);
    if (fd < 0) finding("memfd_create failed");
    try {
        write_view("/proc/self/fd/" + std::to_string(fd), OutputFraming{"<", 0, {}}, result.data, result.view,
                   input_pages, options);
    } catch (const Error& error) {
        finding("write_view of a planned result failed: %s", error.what());
    }
    set_read_chunk_for_tests(0);
    std::vector<std::byte> got(want.size() + 1);
    const ssize_t read = ::pread(fd, got.data(), got.size(), 0);
    ::close(fd);
    ::munmap(pages, mapped_bytes);
    if (read != static_cast<ssize_t>(got.size()) || got[0] != std::byte{'<'} ||
        !std::equal(want.begin(), want.end(), got.begin() + 1))
        finding("write_view (chunks of %zu bytes, %u threads) differs from the reference", sizes.chunk_bytes,
                options.threads);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    ByteReader in(data, size);

    // The input.
    static constexpr std::size_t kItemsizes[] = {1, 2, 4, 8, 3, 16, 5, 12, 6, 32, 7, 24, 9, 2, 4, 1};
    const std::size_t itemsize = kItemsizes[in.byte() % 16];
    const bool fortran = in.byte() < 64;
    const auto rank = static_cast<std::size_t>(in.range(0, 5));
    Shape shape;
    std::int64_t elements = 1;
    for (std::size_t k = 0; k < rank; ++k) {
        const std::uint8_t choice = in.byte();
        std::int64_t dim = choice < 24 ? 0 : choice < 220 ? 1 + choice % 6 : 7 + (choice * 37) % 250;
        if (elements * dim * static_cast<std::int64_t>(itemsize) > kMaxInputBytes) dim = 1;
        elements *= dim == 0 ? 1 : dim;
        shape.push_back(dim);
    }
    // Allocated with new[], so that an empty input is still a real (zero-byte) allocation, as
    // the CLI's mapping is, not a null pointer.
    const auto input_bytes = static_cast<std::size_t>(View::contiguous(shape, itemsize).element_count()) * itemsize;
    const std::unique_ptr<std::byte[]> input(new std::byte[input_bytes]);
    for (std::size_t i = 0; i < input_bytes; ++i) input[i] = static_cast<std::byte>((i * 131 + i / 251 + 1) & 0xFF);
    const View layout = View::contiguous(shape, itemsize, fortran);

    // The ops and the expression, written as text and read by tslice's own parsers.
    std::vector<OpSpec> ops;
    std::optional<IndexExpr> expr;
    std::string json, expr_text;
    const auto op_count = static_cast<std::size_t>(in.range(0, 3));
    if (op_count > 0) {
        json = "[";
        // The shape after each op is not known here; later ops are written for the input's.
        for (std::size_t i = 0; i < op_count; ++i) json += (i ? ", " : "") + op_json(in, shape);
        json += "]";
    }
    const bool has_expr = op_count == 0 || in.coin();
    if (has_expr) expr_text = expression(in, shape, in.byte() < 96);
    // TSLICE_FUZZ_PRINT=1 shows the case as a command line (to name a regression file).
    if (std::getenv("TSLICE_FUZZ_PRINT"))
        std::fprintf(stderr, "input %s itemsize %zu %s order\n  --op '%s' '%s'\n", format_shape(shape).c_str(), itemsize,
                     fortran ? "Fortran" : "C", json.c_str(), has_expr ? expr_text.c_str() : "(no expression)");
    try {
        if (op_count > 0) ops = parse_ops_json(json);
        if (has_expr) expr = parse_index_expr(expr_text);
    } catch (const Error&) {
        return 0;
    }

    Pipeline pipeline;
    try {
        pipeline = plan_pipeline(shape, ops, expr);
    } catch (const Error&) {
        return 0;
    }
    std::int64_t count = 1;
    for (auto dim : pipeline.output_shape()) {
        TSLICE_FUZZ_CHECK(dim >= 0);
        if (__builtin_mul_overflow(count, dim, &count) || count > kMaxOutputElements) return 0;
    }
    // A gather of a gather materialises the first; keep those small too.
    for (const auto& step : pipeline.steps) {
        std::int64_t step_count = 1;
        for (auto dim : std::visit([](const auto& p) { return p.output_shape(); }, step.plan))
            if (__builtin_mul_overflow(step_count, dim, &step_count) || step_count > kMaxOutputElements) return 0;
    }

    const std::vector<std::byte> want = reference(pipeline, input.get(), layout);
    const Result result = apply_pipeline(pipeline, input.get(), layout);
    if (result.view.shape != pipeline.output_shape()) finding("the applied view's shape is not the plan's");
    const std::int64_t first_split = count ? in.range(0, count) : 0;
    const std::int64_t second_split = count ? in.range(first_split, count) : 0;

    std::vector<std::byte> got(want.size());
    for (const std::string& kernels : available_kernel_sets()) {
        force_kernel_set(kernels);
        std::fill(got.begin(), got.end(), std::byte{0xA5});
        copy_view(result.data, result.view, got.data(), 0, count, InputMemory::Resident);
        if (got != want) finding("copy_view (%s kernels, resident input) differs from the reference", kernels.c_str());
        // In ranges, as from a file mapping: the other choice of the plain loop.
        std::fill(got.begin(), got.end(), std::byte{0x5A});
        copy_view(result.data, result.view, got.data(), 0, first_split, InputMemory::Mapped);
        copy_view(result.data, result.view, got.data() + first_split * static_cast<std::int64_t>(itemsize), first_split,
                  second_split - first_split, InputMemory::Mapped);
        copy_view(result.data, result.view, got.data() + second_split * static_cast<std::int64_t>(itemsize),
                  second_split, count - second_split, InputMemory::Mapped);
        if (got != want)
            finding("copy_view (%s kernels, mapped input) in ranges [0, %lld), [%lld, %lld), [%lld, %lld) differs from "
                    "the reference",
                    kernels.c_str(), static_cast<long long>(first_split), static_cast<long long>(first_split),
                    static_cast<long long>(second_split), static_cast<long long>(second_split),
                    static_cast<long long>(count));
    }
    force_kernel_set("auto");
    check_writer(in, pipeline, input.get(), input_bytes, layout, want);
    return 0;
}
