// tslice_bench: the in-process half of scripts/bench.sh (how to run it and what it prints: the
// comment at the top of that script). The cases are in bench/cases.hpp.
//
//   tslice_bench generate DIR [--quick] [--in-process]
//                                         writes the inputs into DIR (--in-process: only those of
//                                         the in-process table); a file already there with the
//                                         right header and size is kept
//   tslice_bench list DIR [--quick]       the whole-process jobs for bench/whole_process.py, one
//                                         per line, tab-separated
//   tslice_bench run DIR [--quick] [--reps N] [--threads N] [--python PATH] [--only TEXT]
//                                         the in-process table, one row per case
//
// Per case, in rounds so that a noisy machine slows every column alike: tslice's copy_view
// into a preallocated buffer on one thread and on --threads threads (copy_view_parallel over a
// WorkerPool, as app/main.cpp copies), memcpy of the output bytes, memcpy of the bytes read
// (every 64-byte line the slice touches, counted once), xtensor view assignment into a
// preallocated xt::xtensor, and numpy (bench/numpy_copy.py in its own /usr/bin/python3
// process, one copy in each of the same rounds). Times are medians; numpy/1T is the median of
// each round's ratio of numpy's copy to a tslice one-thread copy timed right before or after it.
//
// Every copy is checked, in quick mode too: tslice's output (one thread and all threads, each
// into a poisoned buffer) and xtensor's must equal a plain element-by-element reference
// computed from the plan's numbers (in bench_reference.cpp, not through copy_view), and numpy's
// result must have the same shape and the same sampled byte sum. A difference or an error
// exits 1; a missed target never does.
//
// The parts, each in a file of its own: bench_common.hpp (the options, the buffers and the
// helpers every part uses), bench_generate.cpp (generate), bench_reference.cpp (the reference
// copies and the bytes a copy reads), bench_contenders.cpp (xtensor and numpy). This file plans
// each case, runs the table, lists the whole-process jobs and reads the command line.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_common.hpp"
#include "bench_contenders.hpp"
#include "bench_generate.hpp"
#include "bench_reference.hpp"
#include "cases.hpp"
#include "copy_choices.hpp"
#include "tslice/copy.hpp"
#include "tslice/error.hpp"
#include "tslice/gather.hpp"
#include "tslice/npy.hpp"
#include "tslice/threads.hpp"
#include "tslice/plan.hpp"

namespace {

using tslice::View;
using tslice::bench::CaseSpec;
using tslice::bench::InputSpec;
using tslice::bench::Kind;

using tslice::bench::Buffer;
using tslice::bench::die;
using tslice::bench::input_spec;
using tslice::bench::Options;
using tslice::bench::path_of;
using tslice::bench::product;
using tslice::bench::seconds_since;

using tslice::bench::bytes_read;
using tslice::bench::generate;
using tslice::bench::NumpyResult;
using tslice::bench::reference_gather;
using tslice::bench::reference_slice;
using tslice::bench::NumpyServer;
using tslice::bench::sample_sum;
using tslice::bench::xtensor_runner;
using tslice::bench::XtRunner;

// ---------------------------------------------------------------------------------------------
// Small helpers

std::string label_of(const CaseSpec& spec, std::int64_t index_count) {
    if (spec.kind == Kind::GatherRows) {
        const std::string rows = std::string(spec.input) + " take " + std::to_string(index_count) + " rows";
        const InputSpec& input = input_spec(spec.input);
        const auto row_bytes = static_cast<std::int64_t>(input.itemsize) * input.full.back();
        // Rows too short for the write stage to read with pread (ReadSizes::read_row_bytes)
        // say so: the bench scripts judge the long-row gather by its label.
        return row_bytes < 512 ? rows + " of " + std::to_string(row_bytes) + " B" : rows;
    }
    if (spec.kind == Kind::GatherColumns)
        return std::string(spec.input) + " take " + std::to_string(index_count) + " cols";
    return std::string(spec.input) + " " + spec.expr;
}

double median(std::vector<double> values) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// ---------------------------------------------------------------------------------------------
// Planning a case

std::vector<std::int64_t> read_indices(const std::string& path) {
    const tslice::NpyArray array = tslice::NpyArray::open(path);
    if (array.header().dtype.type_string != "<i8" || array.header().shape.size() != 1)
        die(path + ": expected a 1-d '<i8' array");
    std::vector<std::int64_t> values(static_cast<std::size_t>(array.header().element_count()));
    std::memcpy(values.data(), array.data(), values.size() * 8);
    return values;
}

struct Planned {
    View view;                            // the result as a view of the input data
    std::optional<tslice::SlicePlan> slice;  // slices
    std::vector<std::int64_t> indices;    // gathers
    std::vector<std::int64_t> out_shape;
};

Planned plan_case(const Options& options, const CaseSpec& spec, const std::vector<std::int64_t>& input_shape,
                  const View& input_view) {
    Planned planned;
    if (spec.kind == Kind::GatherRows || spec.kind == Kind::GatherColumns) {
        planned.indices = read_indices(path_of(options, spec.indices));
        tslice::GatherSpec gather;
        gather.indices = tslice::IntArray{{static_cast<std::int64_t>(planned.indices.size())}, planned.indices};
        gather.axis = spec.gather_axis;
        const tslice::GatherPlan plan = tslice::plan_gather(gather, input_shape, "bench");
        planned.view = tslice::apply_gather(plan, input_view);
        planned.out_shape = plan.output_shape();
    } else {
        const tslice::IndexExpr expr = tslice::parse_index_expr(spec.expr);
        planned.slice = tslice::plan_index(expr, input_shape);
        planned.view = tslice::apply_plan(*planned.slice, input_view);
        planned.out_shape = planned.slice->output_shape();
    }
    if (planned.view.shape != planned.out_shape)
        die(std::string("view and plan disagree on the shape of ") + spec.expr);
    return planned;
}

// ---------------------------------------------------------------------------------------------
// run

struct Input {
    std::string name;
    tslice::NpyHeader header;
    View view;
    Buffer data;
};

// Copies the file's data into anonymous memory, as np.load does, so every contender reads
// the same memory and the page cache mapping is out of the picture.
std::unique_ptr<Input> load_input(const Options& options, const std::string& name) {
    const auto start = std::chrono::steady_clock::now();
    auto input = std::make_unique<Input>();
    const tslice::NpyArray array = tslice::NpyArray::open(path_of(options, name));
    input->name = name;
    input->header = array.header();
    input->view = array.view();
    input->data = Buffer(array.header().data_bytes());
    std::memcpy(input->data.data(), array.data(), array.header().data_bytes());
    if (const double took = seconds_since(start); took > 1)
        std::fprintf(stderr, "tslice_bench: loaded %s in %.1f s\n", name.c_str(), took);
    return input;
}

struct Target {
    const char* op;  // "<=" or ">="
    double bound;
    bool applies = false;
};

struct Tally {
    int pass = 0, miss = 0;
};

std::string ratio_cell(double value, const Target& target, Tally& tally) {
    char text[64];
    if (!(value > 0) || !std::isfinite(value)) return "n/a";
    if (!target.applies) {
        std::snprintf(text, sizeof text, "%.2f", value);
        return text;
    }
    const bool pass = target.op[0] == '<' ? value <= target.bound : value >= target.bound;
    (pass ? tally.pass : tally.miss) += 1;
    std::snprintf(text, sizeof text, "%.2f %s%g %s", value, target.op, target.bound, pass ? "PASS" : "MISS");
    return text;
}

std::string ms_cell(double seconds) {
    if (!(seconds > 0)) return "n/a";
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", seconds * 1e3);
    return text;
}

int run(const Options& options) {
    const int reps = options.reps > 0 ? options.reps : (options.quick ? 5 : 7);
    const char* kernel = std::getenv("TSLICE_KERNEL");
    std::printf("in-process copy (median of %d; times in ms; %u threads for 'all'; TSLICE_KERNEL=%s)%s\n", reps,
                options.threads, kernel ? kernel : "(unset)",
                options.quick ? "\nquick mode: sizes are 1/64 of the full ones and fit in cache; the numbers mean "
                                "nothing and a MISS does not fail"
                              : "");
    std::printf("  memcpy read: one memcpy of as many bytes as the 64-byte lines the copy touches; numpy: "
                "np.copyto(out, a[expr]), np.take(a, idx, axis, out=out) for gathers\n");
    std::printf("  mc outN: memcpy of the output bytes split over all threads; mc 1/N: how much faster that is than\n"
                "  one memcpy, the most threads can give on this machine\n"
                "  numpy/1T: the median, over the rounds, of numpy's copy's time over that of a tslice1 copy timed\n"
                "  beside it; >= 2 where numpy takes over 1.5x the memcpy the case is judged by (mc read for\n"
                "  stepped slices and column gathers, mc out for the rest), >= 1 elsewhere\n");
    std::printf("%-24s %8s %8s | %8s %8s %8s %8s %8s %8s %8s | %-17s %-17s %-16s %-16s %-7s | %s\n", "case",
                "out MiB", "read MiB", "tslice1", "tsliceN", "mc out", "mc outN", "mc read", "xtensor", "numpy",
                "1T/memcpy-out", "1T/memcpy-read", "numpy/1T", "1T/allT", "mc 1/N", "check");
    std::fflush(stdout);

    Tally tally;
    int failures = 0, checked = 0;
    std::vector<tslice::bench::ChoiceRow> choice_rows;
    std::vector<std::string> memory_notes;
    std::unique_ptr<Input> input;
    for (const CaseSpec& spec : tslice::bench::cases()) {
        const bool gather = spec.kind == Kind::GatherRows || spec.kind == Kind::GatherColumns;
        if (!options.only.empty()) {
            const std::string text = std::string(spec.input) + " " + (gather ? "take" : spec.expr);
            if (text.find(options.only) == std::string::npos) continue;
        }
        if (!input || input->name != spec.input) {
            input.reset();
            input = load_input(options, spec.input);
        }
        const std::size_t itemsize = input->header.dtype.itemsize;
        const Planned planned = plan_case(options, spec, input->header.shape, input->view);
        const std::string label = label_of(spec, static_cast<std::int64_t>(planned.indices.size()));
        const std::int64_t count = planned.view.element_count();
        const auto out_bytes = static_cast<std::size_t>(count) * itemsize;
        const std::size_t in_bytes = input->header.data_bytes();
        const auto read = static_cast<std::size_t>(bytes_read(planned.view, in_bytes));
        const std::byte* src = input->data.data();

        Buffer out(out_bytes), reference(out_bytes), read_target(read);
        if (planned.slice)
            reference_slice(src, *planned.slice, itemsize, reference.data());
        else
            reference_gather(src, input->header.shape, itemsize, spec.gather_axis, planned.indices, reference.data());
        const std::uint64_t reference_sample = sample_sum(reference.data(), out_bytes);
        std::optional<XtRunner> xt =
            xtensor_runner(spec, src, itemsize, input->header.shape, planned.out_shape, planned.indices);
        const bool has_xt = xt.has_value();

        // numpy's process loads its input while the checks run; it copies once in each round.
        NumpyServer numpy_server(options, spec);
        // Checks, before anything is timed: each copy into a poisoned buffer.
        std::string check;
        auto verify = [&](const char* who, const std::byte* data, std::size_t bytes) {
            if (bytes != out_bytes || std::memcmp(data, reference.data(), out_bytes) != 0) {
                check += std::string(check.empty() ? "" : ", ") + who + " DIFFERS";
                ++failures;
            }
        };
        std::memset(out.data(), 0xA5, out_bytes);
        tslice::copy_view(src, planned.view, out.data(), 0, count);
        verify("tslice 1T", out.data(), out_bytes);
        std::memset(out.data(), 0x5A, out_bytes);
        // tslice on all cores: the library's copy_view_parallel over a WorkerPool that lives for the
        // whole case, as app/main.cpp copies each chunk of a result.
        tslice::WorkerPool pool(options.threads);
        tslice::copy_view_parallel(pool, src, planned.view, out.data(), 0, count);
        verify("tslice allT", out.data(), out_bytes);
        using tslice::bench::CopyAlternative;
        const tslice::CopyPlan copy_plan = tslice::plan_copy(planned.view);
        // A streamed contiguous run long enough goes to memcpy; "stores flipped" then streams it
        // with tslice's own loop instead, as it does for a run tslice streams itself the reverse.
        const bool via_memcpy = tslice::copy_streams(copy_plan, count) &&
                                copy_plan.row.stride == static_cast<std::int64_t>(copy_plan.layout.itemsize) &&
                                static_cast<std::size_t>(std::min<std::int64_t>(copy_plan.row_length, count)) *
                                        copy_plan.layout.itemsize >=
                                    tslice::memcpy_run_bytes();
        const bool streams = tslice::copy_streams(copy_plan, count) && !via_memcpy;
        const tslice::bench::CopyDoes does = tslice::bench::copy_does(planned.view);
        const CopyAlternative::Chosen chosen{streams, does.rows_ahead > 0 || does.elements_ahead > 0,
                                             copy_plan.row.name};
        std::array<bool, CopyAlternative::kCount> applies{};
        for (int which = 0; which < CopyAlternative::kCount; ++which)
            applies[which] = tslice::bench::alternative_applies(planned.view, which);
        for (int which = 0; which < CopyAlternative::kCount; ++which) {
            if (!applies[which]) continue;
            const CopyAlternative alternative(which, chosen);
            std::memset(out.data(), 0x3C, out_bytes);
            tslice::copy_view(src, planned.view, out.data(), 0, count);
            verify(CopyAlternative::name(which), out.data(), out_bytes);
        }
        double xt_first = 0;
        if (xt) {
            const auto start = std::chrono::steady_clock::now();
            xt->run();
            xt_first = seconds_since(start);
            verify("xtensor", xt->data(), xt->bytes());
        }

        // Timed rounds; xtensor, often 10-30x slower, gets 3 rounds when it is slow.
        const int xt_reps = xt_first > 1.0 ? std::min(reps, 3) : reps;
        std::vector<double> t1, tn, mc_out, mc_out_n, mc_read, txt;
        std::array<std::vector<double>, CopyAlternative::kCount> changed, paired_ratios;
        std::vector<double> paired_chosen, beside_numpy, numpy_ratios;
        // memcpy of the output bytes in one part per thread, cut at 4 KiB pages.
        const unsigned parts = pool.size();
        auto split_memcpy = [&] {
            pool.run(parts, [&](unsigned part) {
                auto cut = [&](unsigned p) { return out_bytes * p / parts / 4096 * 4096; };
                const std::size_t begin = cut(part), end = part + 1 == parts ? out_bytes : cut(part + 1);
                std::memcpy(out.data() + begin, src + begin, end - begin);
            });
        };
        auto time = [](std::vector<double>& into, auto&& fn) {
            const auto start = std::chrono::steady_clock::now();
            fn();
            into.push_back(seconds_since(start));
        };
        for (int round = 0; round < reps; ++round) {
            // An untimed copy first: the round begins after numpy's process has copied, and
            // the first copy timed after it came out 2-13% slower than the same copy timed
            // later in the round (numpy_copy.py does the same before its own).
            tslice::copy_view(src, planned.view, out.data(), 0, count);
            time(t1, [&] { tslice::copy_view(src, planned.view, out.data(), 0, count); });
            time(tn, [&] { tslice::copy_view_parallel(pool, src, planned.view, out.data(), 0, count); });
            time(mc_out, [&] { std::memcpy(out.data(), src, out_bytes); });
            time(mc_out_n, split_memcpy);
            time(mc_read, [&] { std::memcpy(read_target.data(), src, read); });
            if (xt && round < xt_reps) time(txt, [&] { xt->run(); });
            // Each alternative beside a copy as chosen, in turn first and second, and judged by
            // the ratio of the two: on a shared machine two copies timed apart can differ by
            // 10% or more from the machine's drift alone, two timed together far less.
            for (int which = 0; which < CopyAlternative::kCount; ++which) {
                if (!applies[which]) continue;
                const auto as_chosen = [&] {
                    time(paired_chosen, [&] { tslice::copy_view(src, planned.view, out.data(), 0, count); });
                };
                if (round % 2 == 1) as_chosen();
                {
                    const CopyAlternative alternative(which, chosen);
                    time(changed[which], [&] { tslice::copy_view(src, planned.view, out.data(), 0, count); });
                }
                if (round % 2 == 0) as_chosen();
                paired_ratios[which].push_back(changed[which].back() / paired_chosen.back());
            }
            // numpy's copy in its own process, and one of tslice's one-thread copies timed
            // beside it (before it in even rounds, after it in odd ones), judged by the ratio of
            // the two as the copy choices are: two copies timed apart differ by the machine's
            // drift too.
            if (round % 2 == 0) time(beside_numpy, [&] { tslice::copy_view(src, planned.view, out.data(), 0, count); });
            const double numpy_copy = numpy_server.round();
            if (round % 2 == 1) {
                tslice::copy_view(src, planned.view, out.data(), 0, count);  // untimed, as at a round's start
                time(beside_numpy, [&] { tslice::copy_view(src, planned.view, out.data(), 0, count); });
            }
            numpy_ratios.push_back(numpy_copy / beside_numpy.back());
        }
        // Once more after the timing, so a copy that only goes wrong when warm shows too.
        std::memset(out.data(), 0xA5, out_bytes);
        tslice::copy_view(src, planned.view, out.data(), 0, count);
        verify("tslice 1T (warm)", out.data(), out_bytes);

        const std::int64_t own_huge_mib = tslice::bench::huge_pages_mib();
        out = Buffer();
        reference = Buffer();
        read_target = Buffer();
        xt.reset();
        const NumpyResult numpy = numpy_server.finish();
        if (numpy.shape != planned.out_shape) {
            check += std::string(check.empty() ? "" : ", ") + "numpy shape " + tslice::format_shape(numpy.shape);
            ++failures;
        } else if (numpy.sample_sum != reference_sample) {
            check += std::string(check.empty() ? "" : ", ") + "numpy DIFFERS";
            ++failures;
        }
        if (check.empty()) check = "ok";
        ++checked;

        const double m1 = median(t1), mn = median(tn), mo = median(mc_out), mon = median(mc_out_n),
                     mr = median(mc_read), mx = median(txt), mp = numpy.median;
        if (numpy.memmove_median > 0) {
            char note[320];
            std::snprintf(note, sizeof note,
                          "  %s: numpy's process: np.copyto %.2f ms, memmove of the same bytes %.2f ms (%lld MiB in "
                          "huge pages); this one: tslice1 %.2f ms, memcpy %.2f ms (%lld MiB in huge pages)",
                          label.c_str(), mp * 1e3, numpy.memmove_median * 1e3,
                          static_cast<long long>(numpy.huge_pages_mib), m1 * 1e3, mo * 1e3,
                          static_cast<long long>(own_huge_mib));
            memory_notes.emplace_back(note);
        }
        tslice::bench::ChoiceRow choice{label,      streams,      copy_plan.prefetch_ahead, copy_plan.lines_ahead,
                                        copy_plan.row.name, via_memcpy, applies, m1, {}};
        choice.rows_to_l1 = copy_plan.prefetch_to_l1;
        for (int which = 0; which < CopyAlternative::kCount; ++which) {
            if (changed[which].empty()) continue;
            choice.changed[which] = median(changed[which]);
            choice.ratio[which] = median(paired_ratios[which]);
            const CopyAlternative alternative(which, chosen);
            choice.same[which] = tslice::bench::copy_does(planned.view) == does;
        }
        choice_rows.push_back(choice);
        const bool large = out_bytes * 16 >= in_bytes;  // >= 64 MiB of a 1 GiB input
        const Target out_target{"<=",
                                spec.kind == Kind::Contiguous   ? 1.05
                                : spec.kind == Kind::Reversed   ? 1.3
                                : spec.kind == Kind::GatherRows ? 1.1
                                                                : 0,
                                spec.kind == Kind::Contiguous || spec.kind == Kind::Reversed ||
                                    spec.kind == Kind::GatherRows};
        const Target read_target_check{"<=", 1.2, spec.kind == Kind::Stepped};
        // Never slower than numpy; twice as fast where numpy's copy is slow, taking more than
        // 1.5x the memcpy the case is judged by (of the lines read, for a stepped slice or a
        // column gather; of the output bytes, otherwise).
        const double numpy_memcpy = mp / (spec.kind == Kind::Stepped || spec.kind == Kind::GatherColumns ? mr : mo);
        const Target numpy_target{">=", numpy_memcpy > 1.5 ? 2.0 : 1.0, true};
        const Target threads_target{">=", 1.6, large && options.threads > 1};
        char memcpy_scaling[16];
        std::snprintf(memcpy_scaling, sizeof memcpy_scaling, "%.2f", mo / mon);
        std::printf("%-24s %8.1f %8.1f | %8s %8s %8s %8s %8s %8s %8s | %-17s %-17s %-16s %-16s %-7s | %s\n",
                    label.c_str(), static_cast<double>(out_bytes) / (1 << 20), static_cast<double>(read) / (1 << 20),
                    ms_cell(m1).c_str(), ms_cell(mn).c_str(), ms_cell(mo).c_str(), ms_cell(mon).c_str(),
                    ms_cell(mr).c_str(),
                    has_xt ? ms_cell(mx).c_str() : "n/a",
                    ms_cell(mp).c_str(), ratio_cell(m1 / mo, out_target, tally).c_str(),
                    ratio_cell(m1 / mr, read_target_check, tally).c_str(),
                    ratio_cell(median(numpy_ratios), numpy_target, tally).c_str(),
                    ratio_cell(m1 / mn, threads_target, tally).c_str(), memcpy_scaling, check.c_str());
        std::fflush(stdout);
    }
    std::printf("in-process targets: %d PASS, %d MISS%s; copies checked in %d cases: %s\n", tally.pass, tally.miss,
                options.quick ? " (quick mode: not judged)" : "", checked,
                failures ? (std::to_string(failures) + " DIFFER").c_str() : "all equal to the reference");
    if (!memory_notes.empty()) {
        std::printf("contiguous slices, where numpy's copy is one memmove too: the same copy in each process, so a "
                    "gap between the two processes' memmoves is their memory, not their code\n");
        for (const std::string& note : memory_notes) std::printf("%s\n", note.c_str());
    }
    tslice::bench::print_choices(choice_rows, options.quick);
    return failures ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// list: the whole-process jobs, tab-separated:
//   kind  label  input  tslice-args(JSON list)  numpy-index  result-bytes  output-file-bytes  input-bytes
// kind is "case" (the table's cases), "small" (the 1 KiB file) or "shape" (--shape).

void list(const Options& options) {
    auto emit = [&](const char* kind, const std::string& label, const std::string& input,
                    const std::vector<std::string>& args, const std::string& numpy_index,
                    const std::vector<std::int64_t>& out_shape) {
        const tslice::NpyHeader header = tslice::NpyArray::read_header(input);
        const auto result = static_cast<std::size_t>(product(out_shape)) * header.dtype.itemsize;
        const std::size_t file = tslice::make_npy_header(header.dtype, out_shape).size() + result;
        std::printf("%s\t%s\t%s\t%s\t%s\t%zu\t%zu\t%zu\n", kind, label.c_str(), input.c_str(),
                    nlohmann::json(args).dump().c_str(), numpy_index.c_str(), result, file, header.data_bytes());
    };
    std::vector<CaseSpec> cases = tslice::bench::cases();
    for (const CaseSpec& spec : tslice::bench::whole_process_gathers()) cases.push_back(spec);
    for (const CaseSpec& spec : cases) {
        const std::string input = path_of(options, spec.input);
        const tslice::NpyHeader header = tslice::NpyArray::read_header(input);
        if (spec.kind == Kind::GatherRows || spec.kind == Kind::GatherColumns) {
            const std::string indices = path_of(options, spec.indices);
            const tslice::NpyHeader index_header = tslice::NpyArray::read_header(indices);
            std::vector<std::int64_t> out_shape = header.shape;
            out_shape[static_cast<std::size_t>(spec.gather_axis)] = index_header.shape.at(0);
            const std::string op =
                nlohmann::json{{"op", "gather"}, {"indices", indices}, {"axis", spec.gather_axis}}.dump();
            const std::string load = "np.load(" + nlohmann::json(indices).dump() + ")";
            emit("case", label_of(spec, index_header.shape.at(0)), input, {"--op", op},
                 spec.gather_axis == 0 ? "[" + load + "]" : "[:, " + load + "]", out_shape);
        } else {
            const auto plan = tslice::plan_index(tslice::parse_index_expr(spec.expr), header.shape);
            emit("case", label_of(spec, 0), input, {spec.expr}, spec.expr, plan.output_shape());
        }
    }
    {
        const std::string input = path_of(options, tslice::bench::kSmallInput);
        const auto shape = tslice::NpyArray::read_header(input).shape;
        const auto plan = tslice::plan_index(tslice::parse_index_expr(tslice::bench::kSmallExpr), shape);
        emit("small", std::string(tslice::bench::kSmallInput) + " " + tslice::bench::kSmallExpr, input,
             {tslice::bench::kSmallExpr}, tslice::bench::kSmallExpr, plan.output_shape());
    }
    {
        const std::string input = path_of(options, tslice::bench::kShapeInput);
        const auto shape = tslice::NpyArray::read_header(input).shape;
        const auto plan = tslice::plan_index(tslice::parse_index_expr(tslice::bench::kShapeExpr), shape);
        emit("shape", std::string(tslice::bench::kShapeInput) + " " + tslice::bench::kShapeExpr + " --shape", input,
             {tslice::bench::kShapeExpr, "--shape"}, tslice::bench::kShapeExpr, plan.output_shape());
    }
}

Options parse(int argc, char** argv) {
    Options options;
    std::vector<std::string> positional;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) die(arg + " needs a value");
            return argv[++i];
        };
        if (arg == "--quick")
            options.quick = true;
        else if (arg == "--reps")
            options.reps = std::stoi(value());
        else if (arg == "--threads")
            options.threads = static_cast<unsigned>(std::stoul(value()));
        else if (arg == "--python")
            options.python = value();
        else if (arg == "--only")
            options.only = value();
        else if (arg == "--in-process")
            options.in_process = true;
        else if (!arg.empty() && arg[0] == '-')
            die("unknown option " + arg);
        else
            positional.push_back(arg);
    }
    if (positional.size() != 2 || (positional[0] != "generate" && positional[0] != "list" && positional[0] != "run"))
        die("usage: tslice_bench generate|list|run DIR [--quick] [--in-process] [--reps N] [--threads N] "
            "[--python PATH] [--only TEXT]");
    options.command = positional[0];
    options.dir = positional[1];
    if (options.threads < 1) options.threads = 1;
    return options;
}

}  // namespace

int main(int argc, char** argv) {
    const Options options = parse(argc, argv);
    try {
        if (options.command == "generate") {
            generate(options);
            return 0;
        }
        if (options.command == "list") {
            list(options);
            return 0;
        }
        return run(options);
    } catch (const tslice::ExprError& error) {
        die(error.describe());
    } catch (const std::exception& error) {
        die(error.what());
    }
}
