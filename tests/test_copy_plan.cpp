// The copy's plan: the prefetch distance, a setting in lines, in rows ahead and in a long row's
// own elements ahead; short rows in bands; each plan's bytes against the element-by-element
// reference, on every kernel set, either input memory and any split into element ranges.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "copy_fixture.hpp"
#include "copy/copy_plan.hpp"
#include "kernel_sets_fixture.hpp"
#include "tslice/copy.hpp"
#include "tslice/expr.hpp"
#include "tslice/gather.hpp"
#include "tslice/plan.hpp"

using namespace tslice;
using namespace copy_fixture;

TEST_CASE("copy: rows stepping over several elements within a line prefetch as far as the machine says") {
    // Every 5th float32 of every other 4 KiB row: 64 lines a row.
    View view = View::contiguous({1000, 2048}, 4);
    view.shape = {1000, 205};
    view.byte_strides = {8192, 20};
    const bool prefetches = plan_copy(view).set->prefetch;
    const std::int64_t factor = stream_settings().resident_stepped_prefetch_factor;
    // Read from memory the process holds, as far as the machine's factor; from a mapping, 64 lines.
    CHECK(plan_copy(view, InputMemory::Resident).prefetch_ahead == (prefetches ? factor : 0));
    CHECK(plan_copy(view, InputMemory::Mapped).prefetch_ahead == (prefetches ? 1 : 0));
    // Rows of 190 such elements, 60 lines: the rows within the distance, or, where the machine
    // rounds up in memory held, the first row at least that far.
    view.shape = {1000, 190};
    const std::int64_t lines = 64 * factor;
    CHECK(plan_copy(view, InputMemory::Resident).prefetch_ahead ==
          (prefetches ? (lines + (stream_settings().resident_rows_ahead_round_up ? 59 : 0)) / 60 : 0));
    CHECK(plan_copy(view, InputMemory::Mapped).prefetch_ahead == (prefetches ? 1 : 0));
    // Every 5th float32 of each 4 KiB row: the copy reads memory in order, and where the plain
    // loop copies the rows, it leaves the prefetching to the hardware.
    view.shape = {1000, 205};
    view.byte_strides = {4096, 20};
    for (const InputMemory memory : {InputMemory::Resident, InputMemory::Mapped}) {
        const CopyPlan in_order = plan_copy(view, memory);
        if (!prefetches) continue;
        const std::string kernel = in_order.row.name;
        CHECK(in_order.row.per_element == (kernel != "stepped" && kernel != "merged"));
        CHECK(in_order.prefetch_ahead ==
              (in_order.row.per_element ? 0 : memory == InputMemory::Resident ? factor : 1));
    }
    // Every other element does not step further: 64 lines, the next row.
    view.shape = {1000, 512};
    view.byte_strides = {8192, 8};
    CHECK(plan_copy(view, InputMemory::Resident).prefetch_ahead == (prefetches ? 1 : 0));
}

TEST_CASE("copy: rows of fewer lines than the distance are prefetched the whole distance ahead where the machine says") {
    // Rows of 800 float32 (50 lines) 4 KiB apart: 64 lines ahead is 1.28 rows.
    View view = View::contiguous({1000, 1024}, 4);
    view.shape = {1000, 800};
    const bool prefetches = plan_copy(view).set->prefetch;
    const bool round_up = stream_settings().resident_rows_ahead_round_up;
    CHECK(plan_copy(view, InputMemory::Resident).prefetch_ahead == (prefetches ? (round_up ? 2 : 1) : 0));
    // A file mapping's copy faults its pages in as it goes: the nearest row, whatever the machine.
    CHECK(plan_copy(view, InputMemory::Mapped).prefetch_ahead == (prefetches ? 1 : 0));
    // Rows of 16 lines, 64 lines ahead: four rows either way.
    view.shape = {1000, 256};
    CHECK(plan_copy(view, InputMemory::Resident).prefetch_ahead == (prefetches ? 4 : 0));
}

TEST_CASE("copy: int16 and float32 rows of elements 10 to 14 bytes apart, read in order, take the plain loop where the machine says") {
    // Where the machine takes the plain loop for such rows: views spanning more input than
    // this (plans only: no data is read).
    const std::size_t above = stream_settings().plain_loop_10_to_14_bytes_apart_above;
    const auto view_of = [](const Shape& cube, std::size_t itemsize, const std::string& text) {
        return apply_plan(plan_index(parse_index_expr(text), cube), View::contiguous(cube, itemsize));
    };
    // What the kernel set itself takes for such a row.
    const auto own_kernel = [](const View& view, InputMemory memory) {
        const CopyPlan plan = plan_copy(view, memory);
        kernels::RowKernel own;
        plan.set->prepare_row(own, plan.inner_stride, plan.layout.itemsize, plan.row_length,
                              memory == InputMemory::Resident);
        return std::string(own.name);
    };
    const auto kernel_of = [](const View& view, InputMemory memory) {
        return std::string(plan_copy(view, memory).row.name);
    };
    const auto resident = InputMemory::Resident;
    struct Case {
        std::size_t itemsize;
        Shape large, small;  // 1 GiB, and 512 KiB
        std::vector<std::string> steps;
    };
    const Case cases[] = {{2, {512, 1024, 1024}, {4, 64, 1024}, {"5", "6", "7"}},
                          {4, {256, 1024, 1024}, {2, 64, 1024}, {"3"}}};
    for (const Case& c : cases) {
        CAPTURE(c.itemsize);
        // Rows of 1024 elements, whole or cut short, each starting a few bytes after the last
        // one's end (in order).
        for (const std::string& step : c.steps) {
            for (const std::string& text : {"[:, :, ::" + step + "]", "[:, :, :1020:" + step + "]"}) {
                CAPTURE(text);
                const View in_order = view_of(c.large, c.itemsize, text);
                const bool plain = above > 0 && above < (std::size_t{1} << 30);
                CHECK(kernel_of(in_order, resident) == (plain ? "strided" : own_kernel(in_order, resident)));
                if (plain) CHECK(plan_copy(in_order, resident).row.per_element);
                // Input the last-level cache can hold, a file mapping's copy, and rows not read
                // in order (every other row) keep the set's choice.
                const View small = view_of(c.small, c.itemsize, text);
                CHECK(kernel_of(small, resident) == own_kernel(small, resident));
                CHECK(kernel_of(in_order, InputMemory::Mapped) == own_kernel(in_order, InputMemory::Mapped));
                const View every_other = view_of(c.large, c.itemsize, "[:, ::2, " + text.substr(7));
                CHECK(kernel_of(every_other, resident) == own_kernel(every_other, resident));
                // The bench's "loop flipped" and "kernel flipped" get the set's loops, not this one.
                kernels::set_unrolled_choice(kernels::UnrolledChoice::Always);
                CHECK(kernel_of(in_order, resident) == own_kernel(in_order, resident));
                kernels::set_unrolled_choice(kernels::UnrolledChoice::Chosen);
                kernels::set_stepped_choice(kernels::SteppedChoice::Always);
                CHECK(kernel_of(in_order, resident) == own_kernel(in_order, resident));
                kernels::set_stepped_choice(kernels::SteppedChoice::Chosen);
            }
        }
    }
    // One row alone is read in order too.
    const View one_row = view_of(Shape{std::int64_t{1} << 29}, 2, "[::6]");
    REQUIRE(plan_copy(one_row, resident).layout.rank() == 1);
    CHECK(kernel_of(one_row, resident) == (above > 0 ? "strided" : own_kernel(one_row, resident)));
    // int16 every 8th (16 bytes apart), every 4th (8) and every 6th backwards, uint8 every
    // 12th, float32 every 4th (16) and float64 every 2nd (16) keep the set's choice.
    const std::pair<std::size_t, const char*> others[] = {
        {2, "[:, :, ::8]"}, {2, "[:, :, ::4]"}, {2, "[:, :, ::-6]"}, {1, "[:, :, ::12]"}, {4, "[:, :, ::4]"}, {8, "[:, :, ::2]"}};
    for (const auto& [itemsize, text] : others) {
        CAPTURE(itemsize);
        CAPTURE(text);
        const View view = view_of({128, 1024, 1024}, itemsize, text);
        CHECK(kernel_of(view, resident) == own_kernel(view, resident));
    }
}

TEST_CASE("copy: the prefetch distance is a setting in lines, and none is no prefetching at all") {
    // Rows of 3 float32 8 bytes apart, 32 bytes from row to row: one line a row.
    View view = View::contiguous({1000, 8}, 4);
    view.shape = {1000, 3};
    view.byte_strides = {32, 8};
    const std::int64_t initial = prefetch_lines();
    const bool prefetches = plan_copy(view).set->prefetch;
    CHECK(plan_copy(view).prefetch_ahead == (prefetches ? 64 : 0));  // 64 lines: at most 64 rows
    CHECK(plan_copy(view).lines_ahead == 0);
    set_prefetch_lines(5);
    CHECK(plan_copy(view).prefetch_ahead == (prefetches ? 5 : 0));
    set_prefetch_lines(1);
    CHECK(plan_copy(view).prefetch_ahead == (prefetches ? 1 : 0));  // at least the next row
    set_prefetch_lines(0);
    CHECK(plan_copy(view).prefetch_ahead == 0);
    std::vector<std::byte> input(1000 * 32);
    for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<std::byte>(i * 7);
    std::vector<std::byte> out(1000 * 12);
    copy_view(input.data(), view, out.data(), 0, 3000);
    CHECK(out == reference_copy(input.data(), view));
    set_prefetch_lines(initial);
    CHECK(plan_copy(view).prefetch_ahead == (prefetches ? 64 : 0));

    // Rows of 16 float32 256 bytes apart (every other 4 KiB) read a line an element: 4 rows
    // make 64 lines; where such rows go into L2 (Zen 4), twice as far: 8 rows.
    View sparse = View::contiguous({100, 2, 16, 64}, 4);
    sparse.shape = {100, 16};
    sparse.byte_strides = {8192, 256};
    const bool to_l2 = stream_settings().prefetch_sparse_bands_to_l2;
    CHECK(plan_copy(sparse).prefetch_ahead == (prefetches ? (to_l2 ? 8 : 4) : 0));
    CHECK(plan_copy(sparse).prefetch_to_l1 == !to_l2);
    // 400 bytes apart: where the hardware follows such rows (AMD), not prefetched at all,
    // unless they go into L2: 128 lines are 11.6 rows of 11, rounded up in memory held.
    View further = sparse;
    further.shape = {100, 11};
    further.byte_strides = {8192, 400};
    const std::int64_t into_l2 = stream_settings().resident_rows_ahead_round_up ? 12 : 11;
    CHECK(plan_copy(further).prefetch_ahead ==
          (!prefetches ? 0 : to_l2 ? into_l2 : stream_settings().prefetch_strided_bands ? 5 : 0));
    CHECK(plan_copy(sparse).lines_ahead == 0);
    // Rows of elements two lines apart or less, and 1 KiB or more, keep L1 either way.
    View two_lines = sparse;
    two_lines.byte_strides = {8192, 128};
    CHECK(plan_copy(two_lines).prefetch_to_l1);
    CHECK(plan_copy(two_lines).prefetch_ahead == (prefetches ? 4 : 0));
    View falling = sparse;
    falling.byte_offset = 15 * 132;
    falling.byte_strides = {8192, -132};
    CHECK(plan_copy(falling).prefetch_to_l1 == !to_l2);
    View kib = sparse;
    kib.shape = {100, 4};
    kib.byte_strides = {8192, 1024};
    CHECK(plan_copy(kib).prefetch_to_l1);
    // The bench's "level flipped": the other level, and nothing else.
    set_prefetch_level_choice(PrefetchLevelChoice::Other);
    CHECK_FALSE(plan_copy(kib).prefetch_to_l1);
    CHECK(plan_copy(sparse).prefetch_to_l1 == to_l2);
    CHECK(plan_copy(sparse).prefetch_ahead == (prefetches ? (to_l2 ? 8 : 4) : 0));
    set_prefetch_level_choice(PrefetchLevelChoice::Chosen);
    CHECK(plan_copy(kib).prefetch_to_l1);

    // Short rows go in bands; dense ones of more than two lines (128 bytes) are left to the
    // hardware's prefetchers there, shorter ones are prefetched.
    const Shape cube{4, 100, 1024};
    const View dense = apply_plan(plan_index(parse_index_expr("[:, :, :64]"), cube), View::contiguous(cube, 4));
    CHECK(plan_copy(dense).bands == prefetches);
    CHECK(plan_copy(dense).prefetch_ahead == 0);
    const View longer = apply_plan(plan_index(parse_index_expr("[:, :, :33]"), cube), View::contiguous(cube, 4));
    CHECK(plan_copy(longer).prefetch_ahead == 0);
    if (prefetches)
        CHECK(describe_copy(longer, InputMemory::Mapped).find("rows of 33 elements 4 bytes apart: contiguous row kernel "
                                                              "(kernel set ") == 0);
    // (The (4, 100) outer axes merge: one plane of 400 rows.)
    CHECK((describe_copy(longer).find("), a plane of 400 rows at a time") != std::string::npos) == prefetches);
    CHECK(describe_copy(longer).find("prefetching") == std::string::npos);
    const View shorter = apply_plan(plan_index(parse_index_expr("[:, :, :32]"), cube), View::contiguous(cube, 4));
    CHECK(plan_copy(shorter).bands == prefetches);
    CHECK(plan_copy(shorter).prefetch_ahead == (prefetches ? 32 : 0));  // 2 lines a row
    const View stepped = apply_plan(plan_index(parse_index_expr("[:, :, :1000:16]"), cube), View::contiguous(cube, 4));
    CHECK(plan_copy(stepped).bands == prefetches);
    // 63 lines a row, a line apart, copied by the plain loop: every line read, left to the
    // hardware's prefetchers as dense rows are.
    CHECK(plan_copy(stepped).row.per_element);
    CHECK(plan_copy(stepped).prefetch_ahead == 0);
    CHECK(plan_copy(stepped, InputMemory::Mapped).prefetch_ahead == 0);
    // Where the rules that leave rows to the hardware are set aside (the bench's copy choices),
    // the same rows are prefetched: 64 lines, a row of 63 lines.
    set_prefetch_choice(PrefetchChoice::Always);
    CHECK(plan_copy(stepped, InputMemory::Mapped).prefetch_ahead == (prefetches ? 1 : 0));
    CHECK(plan_copy(dense).prefetch_ahead == (prefetches ? 16 : 0));  // rows of 4 lines
    set_prefetch_choice(PrefetchChoice::Chosen);
    CHECK(plan_copy(stepped, InputMemory::Mapped).prefetch_ahead == 0);
    // Backwards, they keep their prefetches.
    const View backwards = apply_plan(plan_index(parse_index_expr("[:, :, :24:-16]"), cube), View::contiguous(cube, 4));
    CHECK(plan_copy(backwards, InputMemory::Mapped).prefetch_ahead == (prefetches ? 1 : 0));

    // A gather's rows are prefetched for twice the lines: 8 rows of 1 KiB where a slice of
    // such rows takes 4; a row of 64 float32 4 rows ahead rather than 2.
    GatherSpec spec;
    spec.indices = IntArray{{5}, {7, 2, 99, 0, 50}};
    const Shape rows{100, 256};
    const View gathered = apply_gather(plan_gather(spec, rows, "op"), View::contiguous(rows, 4));
    CHECK(plan_copy(gathered).method == CopyPlan::Method::TableRows);
    CHECK(plan_copy(gathered).prefetch_ahead == (prefetches ? 8 : 0));
    const Shape wider{100, 512};
    const View sliced = apply_plan(plan_index(parse_index_expr("[:, :256]"), wider), View::contiguous(wider, 4));
    CHECK(plan_copy(sliced).prefetch_ahead == (prefetches ? 4 : 0));
    set_prefetch_lines(128);
    CHECK(plan_copy(gathered).prefetch_ahead == (prefetches ? 16 : 0));
    set_prefetch_lines(initial);
    std::vector<std::byte> table_input(100 * 1024);
    for (std::size_t i = 0; i < table_input.size(); ++i) table_input[i] = static_cast<std::byte>(i * 5 + (i >> 10));
    std::vector<std::byte> table_out(5 * 1024);
    copy_view(table_input.data(), gathered, table_out.data(), 0, 5 * 256);
    CHECK(table_out == reference_copy(table_input.data(), gathered));
}

TEST_CASE("copy: long rows of elements 1 KiB or more apart prefetch their own elements ahead") {
    // One float32 of every 256, forwards and backwards, as one row or in rows of 100, 64, 65
    // or 7 elements (each row 512 bytes past where the last one ended, so they stay rows).
    std::mt19937_64 rng(7);
    std::vector<std::byte> input(std::size_t{8} << 20);
    for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<std::byte>(i * 13 + (i >> 12));
    const bool prefetches = plan_copy(View::contiguous({4, 4}, 4)).set->prefetch;
    for (std::int64_t row : {std::int64_t{4096}, std::int64_t{100}, std::int64_t{64}, std::int64_t{65}, std::int64_t{7}}) {
        for (const std::int64_t direction : {1, -1}) {
            View view = View::contiguous({4096}, 4);
            view.shape = {4096 / row, row};
            view.byte_strides = {(row * 1024 + 512) * direction, 1024 * direction};
            view.byte_offset = direction > 0 ? 12 : static_cast<std::int64_t>(input.size()) - 1024 + 12;
            CAPTURE(row);
            CAPTURE(direction);
            CHECK(plan_copy(view).lines_ahead == (prefetches ? 32 : 0));
            CHECK((describe_copy(view).find(", prefetching 1 rows ahead and 32 elements ahead in the row") !=
                   std::string::npos) == (prefetches && row > 32));
            const std::vector<std::byte> expected = reference_copy(input.data(), view);
            std::vector<std::byte> out(expected.size());
            copy_view(input.data(), view, out.data(), 0, view.element_count());
            CHECK(out == expected);
            // In parts that start and end inside rows, as the writer's chunks do.
            std::fill(out.begin(), out.end(), std::byte{0});
            const std::int64_t count = view.element_count();
            for (std::int64_t first = 0; first < count;) {
                const std::int64_t n = std::min<std::int64_t>(count - first, 1 + static_cast<std::int64_t>(rng() % 300));
                copy_view(input.data(), view, out.data() + first * 4, first, n);
                first += n;
            }
            CHECK(out == expected);
        }
    }

    // The block of a gather: a column of each gathered (300, 256) float32 matrix, one of them
    // out of range (zeros).
    GatherSpec spec;
    spec.indices = IntArray{{4}, {2, 9, 0, 5}};
    const Shape shape{6, 300, 256};
    const View gathered = apply_gather(plan_gather(spec, shape, "op"), View::contiguous(shape, 4));
    const View column = apply_plan(plan_index(parse_index_expr("[:, ::-1, 3]"), gathered.shape), gathered);
    const CopyPlan plan = plan_copy(column);
    CHECK(plan.method == CopyPlan::Method::TableRows);
    CHECK(plan.row_length == 300);
    CHECK(plan.lines_ahead == (prefetches ? 32 : 0));
    const std::vector<std::byte> expected = reference_copy(input.data(), column);
    std::vector<std::byte> out(expected.size(), std::byte{1});
    copy_view(input.data(), column, out.data(), 0, column.element_count());
    CHECK(out == expected);
    CHECK(std::all_of(out.begin() + 1200, out.begin() + 2400, [](std::byte b) { return b == std::byte{0}; }));
}

TEST_CASE("copy: short rows go in bands, on either input memory, and give the reference's bytes") {
    // Planes of 64 rows or more, of rows of at most 64 elements after slicing: the band
    // loop, with every kernel (contiguous, stepped, reversed, strided and unrolled) and any
    // split into element ranges; streamed too, where the band writes in place.
    std::mt19937_64 rng(20261126);
    const std::size_t itemsizes[] = {1, 2, 3, 4, 8, 16};
    kernel_sets_fixture::KernelTally tally;
    for (int round = 0; round < 400; ++round) {
        const std::size_t itemsize = itemsizes[round % std::size(itemsizes)];
        const Shape shape{std::uniform_int_distribution<std::int64_t>(1, 3)(rng),
                          std::uniform_int_distribution<std::int64_t>(64, 150)(rng),
                          std::uniform_int_distribution<std::int64_t>(1, 200)(rng)};
        const std::int64_t step = std::uniform_int_distribution<std::int64_t>(-13, 13)(rng);
        const std::string text = std::string("[:, ") + (round % 3 == 0 ? "::-1" : ":") + ", ::" +
                                 std::to_string(step == 0 ? 1 : step) + "]";
        CAPTURE(itemsize);
        CAPTURE(shape[2]);
        CAPTURE(text);
        const View view = apply_plan(plan_index(parse_index_expr(text), shape), View::contiguous(shape, itemsize));
        const auto data = numbered_bytes(static_cast<std::size_t>(shape[0] * shape[1] * shape[2]) * itemsize);
        const InputMemory memory = round % 2 ? InputMemory::Resident : InputMemory::Mapped;
        const auto expected = reference_copy(data.data(), view);
        const std::int64_t count = view.element_count();
        const auto size = static_cast<std::int64_t>(itemsize);
        for (const auto& set : available_kernel_sets()) {
            CAPTURE(set);
            force_kernel_set(set);
            const CopyPlan plan = plan_copy(view, memory);
            // Only the sets that prefetch copy short rows in bands.
            if (plan.set->prefetch) tally.count(set, "banded", plan.bands);
            // (Rows of one element are dropped, and whole rows read forwards merge: then the
            // plane is another one, or none.)
            const std::size_t rank = plan.layout.rank();
            if (rank >= 2 && plan.layout.shape[rank - 2] >= 64)
                CHECK(plan.bands == (plan.set->prefetch && plan.row_length <= 64));
            for (const auto stream : {StreamChoice::Chosen, StreamChoice::Always}) {
                set_stream_choice(stream);
                std::vector<std::byte> out(expected.size(), std::byte{0x5A});
                for (std::int64_t first = 0; first < count;) {
                    const std::int64_t n = round % 4 == 0 ? count
                                                          : std::min<std::int64_t>(
                                                                count - first, 1 + static_cast<std::int64_t>(rng() % 2000));
                    copy_view(data.data(), view, out.data() + first * size, first, n, memory);
                    first += n;
                }
                CHECK(out == expected);
            }
            set_stream_choice(StreamChoice::Chosen);
        }
        force_kernel_set("auto");
    }
    tally.check_each_set("banded", 50);
}
