// The kernel sets: every set this CPU runs gives the scalar set's bytes, kernel by kernel
// (rows of every item size and step, tiles, streaming copies; sources sized exactly, so that
// a sanitizer build catches a read past a row, and guard bytes around every output) and
// through copy_view over random plans (long rows, steps -5..5, reversed and Fortran inputs,
// unaligned buffers, random element ranges, streaming, table views).
#include <doctest/doctest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "kernel_sets_fixture.hpp"
#include "library_internals.hpp"
#include "tslice/copy.hpp"
#include "tslice/error.hpp"
#include "tslice/expr.hpp"
#include "tslice/gather.hpp"
#include "tslice/plan.hpp"

using namespace tslice;
using kernel_sets_fixture::KernelTally;

namespace {

using Shape = std::vector<std::int64_t>;
using Bytes = std::vector<std::byte>;

constexpr std::byte kGuard{0xA5};
constexpr std::size_t kGuardBytes = 80;

Bytes random_bytes(std::mt19937_64& rng, std::size_t count) {
    Bytes bytes(count);
    for (auto& byte : bytes) byte = static_cast<std::byte>(rng() & 0xFF);
    return bytes;
}

// The SIMD sets this CPU runs (the scalar set is what they are checked against).
std::vector<const kernels::KernelSet*> simd_sets() {
    std::vector<const kernels::KernelSet*> sets;
    for (const auto& name : available_kernel_sets()) {
        force_kernel_set(name);
        if (name != "scalar") sets.push_back(&kernels::active_set());
    }
    force_kernel_set("auto");
    return sets;
}

// An output buffer with guard bytes on both sides, at a chosen misalignment; the `slack` bytes
// after the output are the kernel's to overwrite, and not guarded.
struct Output {
    Bytes buffer;
    std::size_t at, size, slack;
    Output(std::size_t size, std::size_t misalign, std::size_t slack = 0)
        : buffer(size + slack + 2 * kGuardBytes + 64, kGuard), at(kGuardBytes + misalign), size(size), slack(slack) {}
    std::byte* data() { return buffer.data() + at; }
    Bytes bytes() const { return Bytes(buffer.begin() + static_cast<std::ptrdiff_t>(at), buffer.begin() + static_cast<std::ptrdiff_t>(at + size)); }
    bool guards_intact() const {
        for (std::size_t i = 0; i < buffer.size(); ++i)
            if ((i < at || i >= at + size + slack) && buffer[i] != kGuard) return false;
        return true;
    }
};

// A row of `count` elements `stride` bytes apart in a buffer of exactly the bytes it spans.
struct Row {
    Bytes data;
    std::size_t first;  // where element 0 is
    Row(std::mt19937_64& rng, std::int64_t count, std::int64_t stride, std::size_t itemsize) {
        const std::int64_t reach = (count - 1) * std::abs(stride);
        data = random_bytes(rng, static_cast<std::size_t>(reach) + itemsize);
        first = stride < 0 ? static_cast<std::size_t>(reach) : 0;
    }
};

Bytes run_row(const kernels::KernelSet& set, const Row& row, std::int64_t stride, std::size_t itemsize,
              std::int64_t count, std::size_t misalign, bool& guards, std::size_t slack = 0, bool resident = false) {
    kernels::RowKernel kernel;
    set.prepare_row(kernel, stride, itemsize, count, resident);
    Output out(static_cast<std::size_t>(count) * itemsize, misalign, slack);
    kernel(row.data.data() + row.first, out.data(), count, static_cast<std::int64_t>(slack));
    guards = out.guards_intact();
    return out.bytes();
}

}  // namespace

TEST_CASE("kernels: the scalar set is always there, and forcing a set is checked") {
    const auto names = available_kernel_sets();
    REQUIRE(!names.empty());
    CHECK(names.front() == "scalar");
    force_kernel_set("scalar");
    CHECK(active_kernel_set() == "scalar");
    force_kernel_set("auto");
    CHECK(active_kernel_set() == names.back());  // test_main.cpp clears TSLICE_KERNEL
    CHECK_THROWS_AS(force_kernel_set("avx1024"), Error);
    CHECK(active_kernel_set() == names.back());
#if defined(__x86_64__) || defined(_M_X64)
    // Every x86-64 CPU of the last fifteen years runs SSE4.2: finding no SIMD set there means
    // the detection is broken, and the SIMD-equals-scalar tests below would compare nothing.
    if (kernel_set_cap() != "scalar") CHECK_MESSAGE(names.size() >= 2, "no SIMD kernel set found on an x86-64 CPU");
#endif
    MESSAGE("kernel sets on this machine: " << [&] {
        std::string text;
        for (const auto& name : names) text += name + " ";
        return text;
    }());
}

TEST_CASE("kernels: every set's row kernels give the scalar set's bytes") {
    std::mt19937_64 rng(20261201);
    const auto sets = simd_sets();
    const std::size_t itemsizes[] = {1, 2, 3, 4, 8, 12, 16};
    // Slack after the row: none, less than a register, a register or more.
    const std::size_t slacks[] = {0, 1, 15, 63, 64, 65, 200};
    KernelTally tally;
    for (int round = 0; round < 6000; ++round) {
        const std::size_t itemsize = itemsizes[round % std::size(itemsizes)];
        const auto size = static_cast<std::int64_t>(itemsize);
        // Steps in elements: the interesting small ones mostly, some large, some not whole.
        std::int64_t step = std::uniform_int_distribution<std::int64_t>(-17, 17)(rng);
        if (round % 11 == 0) step = std::uniform_int_distribution<std::int64_t>(-300, 300)(rng);
        std::int64_t stride = step * size;
        if (round % 17 == 0) stride += std::uniform_int_distribution<std::int64_t>(1, size)(rng) % size;
        // Rows of thousands, of hundreds, and of a few elements (under two registers' worth, or
        // fewer than the unrolled loop's eight).
        const std::int64_t most = round % 5 == 0 ? 5000 : round % 5 == 1 ? 16 : 300;
        const std::int64_t count = std::uniform_int_distribution<std::int64_t>(1, most)(rng);
        const std::size_t misalign = rng() % 64;
        const std::size_t slack = slacks[rng() % std::size(slacks)];
        const bool resident = round % 2 == 0;  // the unrolled plain loop, or the plain one
        CAPTURE(itemsize);
        CAPTURE(stride);
        CAPTURE(count);
        CAPTURE(misalign);
        CAPTURE(slack);
        CAPTURE(resident);
        const Row row(rng, count, stride, itemsize);
        bool guards = true;
        const Bytes expected = run_row(kernels::scalar_set(), row, stride, itemsize, count, misalign, guards);
        for (const auto* set : sets) {
            CAPTURE(set->name);
            kernels::RowKernel kernel;
            set->prepare_row(kernel, stride, itemsize, count, resident);
            const std::string name = kernel.name;
            tally.count(set->name, name);
            const bool shuffles = name == "stepped" || name == "merged";
            tally.count(set->name, "stepped or merged", shuffles);
            tally.count(set->name, "stepped with slack", name == "stepped" && slack >= 64);
            // The unrolled loop's elements before the first eight, each count of them, on each
            // of its paths: the switch alone (rows under 8), the switch before eight (rows of 8
            // to 15), the loop (rows of 16 or more).
            if (name == "unrolled")
                tally.count(set->name, "unrolled, " + std::to_string(count % 8) +
                                           (count < 8 ? " by the switch alone" : count < 16 ? " by the switch" : " in the loop"));
            // The merged kernel's last output register, loaded and stored in part: rows whose
            // elements do not fill a whole number of registers.
            tally.count(set->name, "merged, ending in part",
                        name == "merged" && count * size % 64 != 0);
            CHECK(run_row(*set, row, stride, itemsize, count, misalign, guards, slack, resident) == expected);
            CHECK(guards);
        }
    }
    // Per set, so that the same counts are asked of an AVX2-only CPU as of one with AVX-512.
    tally.check_each_set("unrolled", 500);
    for (int head = 1; head < 8; ++head) {
        tally.check_each_set("unrolled, " + std::to_string(head) + " by the switch alone", 3);
        tally.check_each_set("unrolled, " + std::to_string(head) + " by the switch", 3);
        tally.check_each_set("unrolled, " + std::to_string(head) + " in the loop", 20);
    }
    tally.check_each_set("stepped or merged", 150);
    tally.check_each_set_choosing("stepped", "stepped with slack", 40);
    tally.check_each_set_choosing("merged", "merged, ending in part", 100);
    tally.check_each_set("reversed", 60);
    MESSAGE("row kernels chosen: " << tally.describe());
}

TEST_CASE("kernels: rows of elements more than half a line and at most a line apart take the plain loop, not unrolled") {
    for (const auto* set : simd_sets()) {
        CAPTURE(set->name);
        // (stride, item size, kernel on memory held)
        const std::tuple<std::int64_t, std::size_t, const char*> rows[] = {
            {64, 4, "strided"},   {48, 4, "strided"},  {40, 1, "strided"},   {-64, 8, "strided"},
            {32, 4, "unrolled"}, {400, 4, "unrolled"}, {128, 4, "unrolled"}, {24, 8, "unrolled"}};
        for (const auto& [stride, itemsize, held] : rows) {
            CAPTURE(stride);
            CAPTURE(itemsize);
            kernels::RowKernel kernel;
            set->prepare_row(kernel, stride, itemsize, 100, true);
            CHECK(std::string(kernel.name) == held);
            CHECK(kernel.per_element);
            set->prepare_row(kernel, stride, itemsize, 100, false);
            CHECK(std::string(kernel.name) == "strided");
            // Forced either way, for the bench's table of copy choices.
            for (const auto choice : {kernels::UnrolledChoice::Always, kernels::UnrolledChoice::Never}) {
                kernels::set_unrolled_choice(choice);
                set->prepare_row(kernel, stride, itemsize, 100, choice == kernels::UnrolledChoice::Never);
                CHECK(std::string(kernel.name) == (choice == kernels::UnrolledChoice::Always ? "unrolled" : "strided"));
            }
            kernels::set_unrolled_choice(kernels::UnrolledChoice::Chosen);
        }
        // The kernels that load whole registers do not count as a load an element.
        kernels::RowKernel kernel;
        set->prepare_row(kernel, 4, 4, 100, true);
        CHECK_FALSE(kernel.per_element);
        set->prepare_row(kernel, -4, 4, 100, true);
        CHECK_FALSE(kernel.per_element);
    }
}

TEST_CASE("kernels: the merged kernel takes the stepped kernel's rows on the sets that have it") {
    // (stride, item size, kernel on memory held, kernel on a mapping), per set.
    using Expect = std::tuple<std::int64_t, std::size_t, const char*, const char*>;
    const std::vector<std::pair<std::string, std::vector<Expect>>> expected = {
        {"avx512vbmi",
         {{7, 1, "merged", "merged"}, {-9, 1, "merged", "merged"}, {10, 1, "unrolled", "merged"},
          {12, 1, "unrolled", "merged"}, {13, 1, "unrolled", "strided"}, {10, 2, "merged", "merged"},
          {-8, 4, "merged", "merged"}, {12, 4, "unrolled", "strided"}, {16, 8, "unrolled", "strided"}}},
        // Bytes without VBMI are shuffled lane by lane, by the stepped kernel.
        {"avx512", {{7, 1, "stepped", "stepped"}, {10, 2, "merged", "merged"}, {8, 4, "merged", "merged"}}},
        {"avx2", {{5, 1, "stepped", "stepped"}, {8, 4, "stepped", "stepped"}}},
    };
    int checked = 0;
    for (const auto* set : simd_sets()) {
        for (const auto& [name, rows] : expected) {
            if (name != set->name) continue;
            ++checked;
            for (const auto& [stride, itemsize, held, mapped] : rows) {
                CAPTURE(set->name);
                CAPTURE(stride);
                CAPTURE(itemsize);
                kernels::RowKernel kernel;
                set->prepare_row(kernel, stride, itemsize, 1000, true);
                CHECK(std::string(kernel.name) == held);
                set->prepare_row(kernel, stride, itemsize, 1000, false);
                CHECK(std::string(kernel.name) == mapped);
            }
        }
    }
    MESSAGE("sets checked: " << checked << " of the " << expected.size()
                             << " named (the others are not run by this CPU: see the skipped sets)");
}

TEST_CASE("kernels: forcing the stepped (or merged) kernel or the plain loop changes the kernel, not the bytes") {
    std::mt19937_64 rng(20261125);
    const auto sets = simd_sets();
    const std::size_t itemsizes[] = {1, 2, 4, 8};
    KernelTally tally;
    for (int round = 0; round < 1500; ++round) {
        const std::size_t itemsize = itemsizes[round % std::size(itemsizes)];
        const auto size = static_cast<std::int64_t>(itemsize);
        std::int64_t step = std::uniform_int_distribution<std::int64_t>(2, 12)(rng) * (rng() % 2 ? 1 : -1);
        const std::int64_t stride = step * size;
        const std::int64_t count = std::uniform_int_distribution<std::int64_t>(1, 700)(rng);
        const std::size_t misalign = rng() % 64, slack = rng() % 2 ? 0 : 64;
        CAPTURE(itemsize);
        CAPTURE(stride);
        CAPTURE(count);
        const Row row(rng, count, stride, itemsize);
        bool guards = true;
        const Bytes expected = run_row(kernels::scalar_set(), row, stride, itemsize, count, misalign, guards);
        for (const auto* set : sets) {
            CAPTURE(set->name);
            std::string names[2];
            for (const auto choice : {kernels::SteppedChoice::Always, kernels::SteppedChoice::Never}) {
                kernels::set_stepped_choice(choice);
                kernels::RowKernel kernel;
                set->prepare_row(kernel, stride, itemsize, count, false);
                names[choice == kernels::SteppedChoice::Never] = kernel.name;
                CHECK(run_row(*set, row, stride, itemsize, count, misalign, guards, slack) == expected);
                CHECK(guards);
            }
            kernels::set_stepped_choice(kernels::SteppedChoice::Chosen);
            CHECK(names[1] == "strided");
            tally.count(set->name, "stepped when forced", names[0] == "stepped" || names[0] == "merged");
        }
    }
    tally.check_each_set("stepped when forced", 1000);
}

TEST_CASE("kernels: no row kernel reads past its row's ends, even where the next page is not mapped") {
    // The merged kernel loads its last registers in part, with masks: a byte past the row's
    // first or last element would fault here, where a sanitizer build may not see a masked
    // load. Each row lies against an inaccessible page, once ending at it (forwards, the last
    // element; backwards, the first) and once starting at it.
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t pages = 8;
    void* mapped = ::mmap(nullptr, (pages + 2) * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(mapped != MAP_FAILED);
    auto* low = static_cast<std::byte*>(mapped) + page;  // the accessible pages: [low, high)
    std::byte* high = low + pages * page;
    REQUIRE(::mprotect(mapped, page, PROT_NONE) == 0);
    REQUIRE(::mprotect(high, page, PROT_NONE) == 0);
    std::mt19937_64 rng(20261129);
    for (std::byte* at = low; at < high; ++at) *at = static_cast<std::byte>(rng() & 0xFF);
    const auto sets = simd_sets();
    const std::size_t itemsizes[] = {1, 2, 4, 8};
    KernelTally tally;
    for (int round = 0; round < 3000; ++round) {
        const std::size_t itemsize = itemsizes[round % std::size(itemsizes)];
        const auto size = static_cast<std::int64_t>(itemsize);
        const std::int64_t step = std::uniform_int_distribution<std::int64_t>(2, 16)(rng) * (rng() % 2 ? 1 : -1);
        const std::int64_t stride = step * size;
        const std::int64_t most = static_cast<std::int64_t>(pages * page - itemsize) / std::abs(stride) + 1;
        const std::int64_t count = std::uniform_int_distribution<std::int64_t>(1, std::min<std::int64_t>(most, 600))(rng);
        const std::int64_t span = (count - 1) * std::abs(stride) + size;
        const bool against_high = round % 2 == 0;
        std::byte* lowest = against_high ? high - span : low;  // the row's lowest byte
        const std::byte* first = stride > 0 ? lowest : lowest + span - size;
        CAPTURE(itemsize);
        CAPTURE(stride);
        CAPTURE(count);
        CAPTURE(against_high);
        Bytes expected(static_cast<std::size_t>(count) * itemsize);
        for (std::int64_t e = 0; e < count; ++e)
            std::memcpy(expected.data() + e * size, first + e * stride, itemsize);
        for (const auto* set : sets) {
            CAPTURE(set->name);
            for (const auto choice : {kernels::SteppedChoice::Chosen, kernels::SteppedChoice::Always}) {
                kernels::set_stepped_choice(choice);
                kernels::RowKernel kernel;
                set->prepare_row(kernel, stride, itemsize, count, round % 4 < 2);
                tally.count(set->name, kernel.name);
                Output out(expected.size(), rng() % 64);
                kernel(first, out.data(), count, 0);
                CHECK(out.bytes() == expected);
                CHECK(out.guards_intact());
            }
            kernels::set_stepped_choice(kernels::SteppedChoice::Chosen);
        }
    }
    ::munmap(mapped, (pages + 2) * page);
    MESSAGE("row kernels chosen against unmapped pages: " << tally.describe());
}

TEST_CASE("kernels: the reversed and merged kernels' streamed copies give the scalar set's bytes, the rest have none") {
    std::mt19937_64 rng(20261126);
    const auto sets = simd_sets();
    const std::size_t itemsizes[] = {1, 2, 4, 8, 16};
    KernelTally tally;
    for (int round = 0; round < 800; ++round) {
        const std::size_t itemsize = itemsizes[round % std::size(itemsizes)];
        const auto size = static_cast<std::int64_t>(itemsize);
        // Reversed rows, and rows of every 2nd to 8th element either way.
        const std::int64_t step = round % 2 == 0 ? -1 : std::uniform_int_distribution<std::int64_t>(2, 8)(rng) * (rng() % 2 ? 1 : -1);
        const std::int64_t stride = step * size;
        // Whole lines only, as Sink::put_row hands them: 64 to 8192 bytes, to a 64-byte boundary.
        const std::int64_t lines = std::uniform_int_distribution<std::int64_t>(1, 128)(rng);
        const std::int64_t count = lines * 64 / size;
        CAPTURE(itemsize);
        CAPTURE(stride);
        CAPTURE(count);
        const Row row(rng, count, stride, itemsize);
        bool guards = true;
        const Bytes expected = run_row(kernels::scalar_set(), row, stride, itemsize, count, 0, guards);
        for (const auto* set : sets) {
            CAPTURE(set->name);
            kernels::RowKernel kernel;
            set->prepare_row(kernel, stride, itemsize, count, rng() % 2 == 0);
            const std::string name = kernel.name;
            CAPTURE(name);
            tally.count(set->name, name + " streamed", bool(kernel.streamed));
            if (name != "reversed" && name != "merged") {
                CHECK_FALSE(bool(kernel.streamed));
                continue;
            }
            REQUIRE(bool(kernel.streamed));
            Output out(static_cast<std::size_t>(count) * itemsize, 0);
            out.at += (64 - reinterpret_cast<std::uintptr_t>(out.data()) % 64) % 64;  // the buffer has 64 to spare
            REQUIRE(reinterpret_cast<std::uintptr_t>(out.data()) % 64 == 0);
            kernel.streamed(kernel, row.data.data() + row.first, out.data(), count, 0);
            set->stream_fence();
            CHECK(out.bytes() == expected);
            CHECK(out.guards_intact());
            // A prepared kernel forgets it: the plain loop has none.
            set->prepare_row(kernel, 100 * size, itemsize, count, false);
            CHECK_FALSE(bool(kernel.streamed));
        }
    }
    tally.check_each_set("reversed streamed", 100);
    tally.check_each_set_choosing("merged", "merged streamed", 20);
    MESSAGE("streamed row kernels: " << tally.describe());
    kernels::RowKernel scalar;
    kernels::scalar_set().prepare_row(scalar, -4, 4, 1000, false);
    CHECK_FALSE(bool(scalar.streamed));
}

TEST_CASE("kernels: every set's tiles give the elements row by row") {
    std::mt19937_64 rng(20261202);
    const auto sets = simd_sets();
    const std::size_t itemsizes[] = {1, 2, 3, 4, 8, 12, 16};
    for (int round = 0; round < 600; ++round) {
        const std::size_t itemsize = itemsizes[round % std::size(itemsizes)];
        const auto size = static_cast<std::int64_t>(itemsize);
        const std::int64_t rows = std::uniform_int_distribution<std::int64_t>(1, 150)(rng);
        const std::int64_t cols = std::uniform_int_distribution<std::int64_t>(1, 150)(rng);
        // Rows close together, columns far apart (a transpose), either way round.
        const std::int64_t row_step = std::uniform_int_distribution<std::int64_t>(1, 3)(rng);
        const std::int64_t row_stride = (rng() % 2 ? 1 : -1) * row_step * size;
        const std::int64_t col_stride = (rng() % 2 ? 1 : -1) * (rows * row_step + rng() % 3) * size;
        const std::int64_t row_reach = (rows - 1) * std::abs(row_stride), col_reach = (cols - 1) * std::abs(col_stride);
        const Bytes data = random_bytes(rng, static_cast<std::size_t>(row_reach + col_reach) + itemsize);
        const std::byte* origin = data.data() + (row_stride < 0 ? row_reach : 0) + (col_stride < 0 ? col_reach : 0);
        CAPTURE(itemsize);
        CAPTURE(rows);
        CAPTURE(cols);
        CAPTURE(row_stride);
        CAPTURE(col_stride);
        Bytes expected(static_cast<std::size_t>(rows * cols) * itemsize);
        for (std::int64_t r = 0; r < rows; ++r)
            for (std::int64_t c = 0; c < cols; ++c)
                std::memcpy(expected.data() + (r * cols + c) * size, origin + r * row_stride + c * col_stride, itemsize);
        for (const auto* set : sets) {
            CAPTURE(set->name);
            REQUIRE(bool(set->tile));
            Output out(expected.size(), rng() % 64);
            set->tile(origin, row_stride, col_stride, out.data(), rows, cols, itemsize);
            CHECK(out.bytes() == expected);
            CHECK(out.guards_intact());
        }
    }
}

TEST_CASE("kernels: every set's streaming copy is a memcpy") {
    std::mt19937_64 rng(20261203);
    for (const auto* set : simd_sets()) {
        CAPTURE(set->name);
        REQUIRE(bool(set->stream_copy));
        for (int round = 0; round < 400; ++round) {
            const std::size_t bytes = round % 4 == 0 ? rng() % 100000 : rng() % 600;
            const Bytes data = random_bytes(rng, bytes);
            Output out(bytes, rng() % 64);
            set->stream_copy(out.data(), data.data(), bytes);
            set->stream_fence();
            CHECK(out.bytes() == data);
            CHECK(out.guards_intact());
        }
    }
}

namespace {

std::string random_slice(std::mt19937_64& rng, std::int64_t dim) {
    std::uniform_int_distribution<std::int64_t> bound(-dim - 2, dim + 2);
    const int kind = std::uniform_int_distribution<int>(0, 5)(rng);
    if (kind == 0) return ":";
    if (kind == 1) return "::-1";
    std::string text;
    if (rng() % 3 == 0) text += std::to_string(bound(rng));
    text += ":";
    if (rng() % 3 == 0) text += std::to_string(bound(rng));
    std::int64_t step = std::uniform_int_distribution<std::int64_t>(-5, 5)(rng);
    return text + ":" + std::to_string(step == 0 ? 1 : step);
}

// A random view of a random array: a few axes, one of them possibly long, C or Fortran order,
// sliced with steps -5..5; now and then a gather or integer lists on top (a table view).
View random_view(std::mt19937_64& rng, std::size_t itemsize, std::int64_t& input_elements) {
    const std::size_t rank = std::uniform_int_distribution<std::size_t>(1, 4)(rng);
    Shape shape;
    std::int64_t budget = 24000;
    for (std::size_t axis = 0; axis < rank; ++axis) {
        const bool long_axis = rng() % 4 == 0;
        std::int64_t dim = long_axis ? std::uniform_int_distribution<std::int64_t>(1, 5000)(rng)
                                     : std::uniform_int_distribution<std::int64_t>(1, 9)(rng);
        dim = std::max<std::int64_t>(1, std::min(dim, budget));
        budget = std::max<std::int64_t>(1, budget / dim);
        shape.push_back(dim);
    }
    std::shuffle(shape.begin(), shape.end(), rng);
    const View input = View::contiguous(shape, itemsize, rng() % 4 == 0);
    input_elements = input.element_count();
    std::string text = "[";
    for (std::size_t axis = 0; axis < rank; ++axis) text += random_slice(rng, shape[axis]) + ",";
    text += "]";
    View view = apply_plan(plan_index(parse_index_expr(text), shape), input);
    if (rng() % 6 == 0 && view.rank() > 0) {
        // A gather along a random axis, some indices out of range (zeros).
        const auto view_rank = static_cast<std::int64_t>(view.rank());
        const std::int64_t axis = std::uniform_int_distribution<std::int64_t>(0, view_rank - 1)(rng);
        const std::int64_t dim = view.shape[static_cast<std::size_t>(axis)];
        const std::int64_t n = std::uniform_int_distribution<std::int64_t>(0, 6)(rng);
        std::vector<std::int64_t> values;
        for (std::int64_t i = 0; i < n; ++i) values.push_back(std::uniform_int_distribution<std::int64_t>(-dim - 1, dim)(rng));
        GatherSpec spec;
        spec.indices = IntArray{{n}, values};
        spec.axis = axis;
        view = apply_gather(plan_gather(spec, view.shape, "op"), view);
        if (view.rank() > 0) {
            std::string after = "[";
            for (std::size_t k = 0; k < view.rank(); ++k) after += random_slice(rng, view.shape[k]) + ",";
            view = apply_plan(plan_index(parse_index_expr(after + "]"), view.shape), view);
        }
    }
    return view;
}

}  // namespace

TEST_CASE("kernels: copy_view with every set gives the scalar set's bytes over random plans") {
    std::mt19937_64 rng(20261204);
    const auto names = available_kernel_sets();
    const std::size_t itemsizes[] = {1, 2, 3, 4, 8, 12, 16};
    const std::size_t threshold = stream_threshold();
    int views = 0;
    for (int round = 0; round < 2500; ++round) {
        const std::size_t itemsize = itemsizes[round % std::size(itemsizes)];
        std::int64_t input_elements = 0;
        const View view = random_view(rng, itemsize, input_elements);
        const std::int64_t count = view.element_count();
        const std::size_t misalign = rng() % 64;
        const Bytes data = random_bytes(rng, static_cast<std::size_t>(input_elements) * itemsize + 64);
        const std::byte* src = data.data() + misalign;
        // Split into up to three element ranges, as the writer's chunks and threads do; a third
        // of the rounds stream (the threshold lowered so that small copies do).
        std::int64_t cuts[4] = {0, 0, 0, count};
        if (count > 1) {
            cuts[1] = std::uniform_int_distribution<std::int64_t>(0, count)(rng);
            cuts[2] = std::uniform_int_distribution<std::int64_t>(cuts[1], count)(rng);
        } else {
            cuts[1] = cuts[2] = count;
        }
        // (and whatever their rows: the stream choice forced).
        set_stream_threshold(round % 3 == 0 ? std::uniform_int_distribution<std::size_t>(0, 30000)(rng) : threshold);
        set_stream_choice(round % 3 == 0 ? StreamChoice::Always : StreamChoice::Chosen);
        Bytes expected;
        const std::size_t out_misalign = rng() % 64;
        for (const auto& name : names) {
            CAPTURE(name);
            force_kernel_set(name);
            Output out(static_cast<std::size_t>(count) * itemsize, out_misalign);
            for (int part = 0; part < 3; ++part)
                copy_view(src, view, out.data() + cuts[part] * static_cast<std::int64_t>(itemsize), cuts[part],
                          cuts[part + 1] - cuts[part]);
            CHECK(out.guards_intact());
            if (name == "scalar") {
                expected = out.bytes();
            } else {
                CHECK(out.bytes() == expected);
            }
        }
        ++views;
    }
    set_stream_threshold(threshold);
    set_stream_choice(StreamChoice::Chosen);
    force_kernel_set("auto");
    CHECK(views == 2500);
}

TEST_CASE("kernels: copies past the default streaming threshold give the scalar set's bytes") {
    // Outputs of 16-48 MiB, streamed from 8 MiB (the default follows this CPU's cache), so
    // that whole copies and both parts of a split one stream, over the full-size paths (the
    // random plans above stream small ones): steps, reversals, odd item sizes, a 2-D
    // transpose (tiles) and a gather with out-of-range indices (a table view).
    const std::size_t threshold = stream_threshold();
    set_stream_threshold(std::size_t{8} << 20);
    set_stream_choice(StreamChoice::Always);  // the transpose's rows would not stream by choice
    std::mt19937_64 rng(20261125);
    constexpr std::int64_t kInputBytes = std::int64_t{48} << 20;
    Bytes data(static_cast<std::size_t>(kInputBytes));
    for (std::size_t at = 0; at < data.size(); at += 8) {
        const std::uint64_t word = rng();
        std::memcpy(data.data() + at, &word, 8);
    }
    const auto sliced = [](std::size_t itemsize, const Shape& shape, const std::string& expr) {
        return apply_plan(plan_index(parse_index_expr(expr), shape), View::contiguous(shape, itemsize));
    };
    std::vector<std::pair<std::string, View>> views = {
        {"u4 [:, 1000:5500]", sliced(4, {2048, 6144}, "[:, 1000:5500]")},
        {"u1 [3::2]", sliced(1, {kInputBytes}, "[3::2]")},
        {"u8 [::2, ::-1, 3:1000]", sliced(8, {6, 1024, 1024}, "[::2, ::-1, 3:1000]")},
        {"12-byte [::-2]", sliced(12, {kInputBytes / 12}, "[::-2]")},
    };
    View transposed = View::contiguous({4096, 6144}, 2);
    transposed.shape = {3000, 3000};
    transposed.byte_strides = {2, 6144 * 2};
    views.emplace_back("u2 transposed", transposed);
    GatherSpec gather;
    std::vector<std::int64_t> rows;
    for (int i = 0; i < 3000; ++i) rows.push_back(static_cast<std::int64_t>(rng() % 8200) - 4);
    gather.indices = IntArray{{3000}, rows};
    gather.axis = 0;
    views.emplace_back("u4 gather of rows", apply_gather(plan_gather(gather, {8192, 1536}, "op"),
                                                         View::contiguous({8192, 1536}, 4)));

    for (const auto& [name, view] : views) {
        CAPTURE(name);
        const std::int64_t count = view.element_count();
        const std::size_t bytes = static_cast<std::size_t>(count) * view.itemsize;
        REQUIRE(bytes >= stream_threshold());
        const std::int64_t cut = count / 2 + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(count / 4));
        force_kernel_set("scalar");
        Output reference(bytes, 0);
        copy_view(data.data(), view, reference.data(), 0, count);
        const Bytes expected = reference.bytes();
        for (const auto& set : available_kernel_sets()) {
            if (set == "scalar") continue;
            CAPTURE(set);
            force_kernel_set(set);
            Output whole(bytes, rng() % 64);
            copy_view(data.data(), view, whole.data(), 0, count);
            CHECK(whole.guards_intact());
            CHECK(whole.bytes() == expected);
            // The first part alone streams (at least half of 16 MiB); the rest after it.
            Output parts(bytes, rng() % 64);
            copy_view(data.data(), view, parts.data(), 0, cut);
            copy_view(data.data(), view, parts.data() + cut * static_cast<std::int64_t>(view.itemsize), cut, count - cut);
            CHECK(parts.guards_intact());
            CHECK(parts.bytes() == expected);
            // Streamed by choice, with contiguous runs of 4 KiB or more handed to memcpy (as
            // where glibc streams them), in the same parts: the runs cut by the parts and the
            // gather's zero rows go through the stage between memcpy's runs.
            set_stream_choice(StreamChoice::Chosen);
            set_memcpy_run_bytes(4096);
            Output handed(bytes, rng() % 64);
            copy_view(data.data(), view, handed.data(), 0, cut);
            copy_view(data.data(), view, handed.data() + cut * static_cast<std::int64_t>(view.itemsize), cut, count - cut);
            CHECK(handed.guards_intact());
            CHECK(handed.bytes() == expected);
            set_memcpy_run_bytes(kMachineMemcpyRunBytes);
            set_stream_choice(StreamChoice::Always);
        }
        force_kernel_set("auto");
    }
    set_stream_threshold(threshold);
    set_stream_choice(StreamChoice::Chosen);
}

TEST_CASE("kernels: which copies stream by choice, and forcing it either way") {
    const auto sliced = [](std::size_t itemsize, const Shape& shape, const std::string& expr) {
        return apply_plan(plan_index(parse_index_expr(expr), shape), View::contiguous(shape, itemsize));
    };
    const std::int64_t big = std::int64_t{1} << 40;  // elements: past any threshold
    const auto streams = [&](const View& view) { return copy_streams(plan_copy(view), big); };
    const bool can = bool(kernels::active_set().stream_copy);
    // Rows of 1 KiB and more, dense or (but on Intel: copy_machine.cpp) stepping by two elements.
    CHECK(streams(sliced(4, {64, 1024, 1024}, "[1:-1]")) == can);
    CHECK(streams(sliced(4, {64, 1024, 1024}, "[:, :, ::-1]")) == can);
    CHECK(streams(sliced(4, {64, 1024, 1024}, "[:, :, ::2]")) == (can && stream_settings().streamed_step_items >= 2));
    CHECK(streams(sliced(4, {64, 1024, 1024}, "[:, :, 100:900]")) == can);
    // Short rows, or sparse ones, are bound by their reads: not streamed; rows stepping over
    // more elements within a line, only where the machine gains from it (copy_machine.cpp).
    CHECK_FALSE(streams(sliced(4, {64, 1024, 1024}, "[:, :, 0:64]")));
    CHECK_FALSE(streams(sliced(4, {64, 1024, 1024}, "[:, :, ::20]")));
    const std::size_t stepped_from = stream_settings().streamed_stepped_row_bytes;
    CHECK(streams(sliced(4, {64, 1024, 1024}, "[:, :, ::3]")) == (can && stepped_from > 0 && stepped_from <= 342 * 4));
    CHECK(streams(sliced(4, {64, 1024, 1024}, "[:, :, ::-8]")) == (can && stepped_from > 0 && stepped_from <= 128 * 4));
    CHECK_FALSE(streams(sliced(1, {64, 1024, 1024}, "[:, :, ::40]")));  // rows of 26 bytes
    // Below the threshold, nothing streams.
    CHECK_FALSE(copy_streams(plan_copy(sliced(4, {64, 1024, 1024}, "[1:-1]")), 1000));
    set_stream_choice(StreamChoice::Always);
    CHECK(streams(sliced(4, {64, 1024, 1024}, "[:, :, ::3]")) == can);
    CHECK(copy_streams(plan_copy(sliced(4, {64, 1024, 1024}, "[1:-1]")), 1000) == can);
    set_stream_choice(StreamChoice::Never);
    CHECK_FALSE(streams(sliced(4, {64, 1024, 1024}, "[1:-1]")));
    set_stream_choice(StreamChoice::Chosen);
}
