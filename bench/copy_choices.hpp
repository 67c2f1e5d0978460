// tslice's copy choices measured on this CPU: each in-process case copied on one thread as
// tslice chooses, and with each choice changed: its stores streamed where they are not (or
// not where they are), its prefetches flipped (none where it prefetches; where a rule leaves its
// rows to the hardware's prefetchers, prefetched as without the rule), the input prefetched
// twice and four times as far, its rows copied by the other kernel where two can (the stepped
// kernel or the plain loop), by the plain loop unrolled where it is not (or not where it is),
// and, where it prefetches rows ahead, their lines prefetched into the other cache level (L2
// where they go into L1, L1 where they go into L2).
// Where a choice was fixed by measuring one machine, this table shows on any other whether
// it still holds there.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "copy/copy_plan.hpp"
#include "copy/cpu_caches.hpp"
#include "copy/kernels.hpp"

namespace tslice::bench {

// One changed choice, in force for the lifetime of the object.
class CopyAlternative {
public:
    static constexpr int kCount = 7;
    // The two that may not apply: the other row kernel (the stepped kernel or the plain
    // loop), and the plain loop unrolled or not.
    static constexpr int kKernel = 4;
    static constexpr int kLoop = 5;
    // Where the copy prefetches rows ahead: their lines into the other cache level.
    static constexpr int kLevel = 6;
    static const char* name(int which) {
        static const char* const names[kCount] = {"stores flipped", "prefetch flipped", "prefetch x2", "prefetch x4",
                                                  "kernel flipped", "loop flipped", "level flipped"};
        return names[which];
    }

    // What tslice chose for the case: whether it streams, whether it prefetches, and the name
    // of its row kernel.
    struct Chosen {
        bool streams = false;
        bool prefetches = false;
        std::string kernel;
    };

    CopyAlternative(int which, const Chosen& chosen) : prefetch_(prefetch_lines()) {
        const std::string& chosen_kernel = chosen.kernel;
        if (which == 0) set_stream_choice(chosen.streams ? StreamChoice::Never : StreamChoice::Always);
        if (which == 1) {
            if (chosen.prefetches)
                set_prefetch_lines(0);
            else
                set_prefetch_choice(PrefetchChoice::Always);
        }
        if (which == 2) set_prefetch_lines(2 * prefetch_);
        if (which == 3) set_prefetch_lines(4 * prefetch_);
        if (which == kKernel)
            kernels::set_stepped_choice(chosen_kernel == "stepped" || chosen_kernel == "merged"
                                            ? kernels::SteppedChoice::Never
                                            : kernels::SteppedChoice::Always);
        if (which == kLoop)
            kernels::set_unrolled_choice(chosen_kernel == "unrolled" ? kernels::UnrolledChoice::Never
                                                                     : kernels::UnrolledChoice::Always);
        if (which == kLevel) set_prefetch_level_choice(PrefetchLevelChoice::Other);
    }
    ~CopyAlternative() {
        set_stream_choice(StreamChoice::Chosen);
        set_prefetch_lines(prefetch_);
        set_prefetch_choice(PrefetchChoice::Chosen);
        kernels::set_stepped_choice(kernels::SteppedChoice::Chosen);
        kernels::set_unrolled_choice(kernels::UnrolledChoice::Chosen);
        set_prefetch_level_choice(PrefetchLevelChoice::Chosen);
    }
    CopyAlternative(const CopyAlternative&) = delete;
    CopyAlternative& operator=(const CopyAlternative&) = delete;

private:
    std::int64_t prefetch_;
};

struct ChoiceRow {
    std::string label;
    bool streams = false;
    std::int64_t prefetch_rows = 0;
    std::int64_t lines_ahead = 0;  // in the row itself (rows of sparse elements)
    std::string kernel;            // the row kernel tslice chose
    bool via_memcpy = false;       // streamed by handing its contiguous run to memcpy
    // Whether each alternative applies (the kernel and loop flips only where they change the
    // row kernel).
    std::array<bool, CopyAlternative::kCount> applies{};
    double chosen = 0;                          // median seconds
    std::array<double, CopyAlternative::kCount> changed{};  // the same, per alternative
    // Per alternative, the median of its time over that of the copy as chosen timed beside it.
    std::array<double, CopyAlternative::kCount> ratio{};
    // Alternatives that leave the copy as it was (copy_does): shown, not judged.
    std::array<bool, CopyAlternative::kCount> same{};
    bool rows_to_l1 = false;  // the rows ahead prefetched into L1 (else L2)
};

// What a one-thread copy of the whole of `view` does under the settings in force, as far as
// the alternatives can change it. Two settings that give the same copy are not two choices:
// timing one against the other measures only the machine's noise (on the Xeon, "prefetch
// x4" of the column gather, whose elements are prefetched a row ahead whatever the distance,
// came out 9% from the chosen copy in a run of three). Mirrors CopyRun (copy.cpp): a copy
// prefetches rows ahead only where there are rows ahead, in a band only within it, and
// elements ahead in a row only in rows longer than the distance.
struct CopyDoes {
    CopyPlan::Method method{};
    std::string kernel;
    bool streams = false, via_memcpy = false, bands = false;
    std::int64_t rows_ahead = 0, elements_ahead = 0;
    bool rows_ahead_to_l1 = false;  // where rows_ahead > 0
    bool operator==(const CopyDoes&) const = default;
};

inline CopyDoes copy_does(const View& view) {
    const CopyPlan plan = plan_copy(view);
    CopyDoes does;
    does.method = plan.method;
    if (plan.method == CopyPlan::Method::Element) return does;
    const std::int64_t count = view.element_count(), itemsize = static_cast<std::int64_t>(plan.layout.itemsize);
    does.kernel = plan.row.name;
    does.bands = plan.bands;
    does.streams = copy_streams(plan, count);
    does.via_memcpy = does.streams && plan.row.stride == itemsize &&
                      static_cast<std::size_t>(std::min(plan.row_length, count) * itemsize) >= memcpy_run_bytes();
    const std::size_t rank = plan.layout.rank();
    const std::int64_t rows = plan.bands ? plan.layout.shape[rank - 2] : count / plan.row_length;
    if (plan.method != CopyPlan::Method::Tiles && plan.prefetch_ahead > 0 && rows > plan.prefetch_ahead) {
        does.rows_ahead = plan.prefetch_ahead;
        does.rows_ahead_to_l1 = plan.prefetch_to_l1;
    }
    if (plan.lines_ahead > 0 && plan.row_length > plan.lines_ahead) does.elements_ahead = plan.lines_ahead;
    return does;
}

// Whether alternative `which` applies to the case: the stores, the prefetches always; the
// kernel and the loop where the flip gives the rows another kernel; the cache level where the
// copy prefetches rows ahead.
inline bool alternative_applies(const View& view, int which) {
    if (which == CopyAlternative::kLevel) return copy_does(view).rows_ahead > 0;
    if (which != CopyAlternative::kKernel && which != CopyAlternative::kLoop) return true;
    const std::string chosen = plan_copy(view).row.name;
    const CopyAlternative flipped(which, {false, false, chosen});
    return plan_copy(view).row.name != chosen;
}

// The CPU as /proc/cpuinfo names it.
inline std::string cpu_model() {
    std::FILE* file = std::fopen("/proc/cpuinfo", "r");
    if (!file) return "unknown (no /proc/cpuinfo)";
    char line[512];
    std::string model = "unknown";
    while (std::fgets(line, sizeof line, file)) {
        const std::string text = line;
        if (text.rfind("model name", 0) != 0) continue;
        const std::size_t colon = text.find(':');
        if (colon != std::string::npos) model = text.substr(colon + 2, text.find_last_not_of("\n") - colon - 1);
        break;
    }
    std::fclose(file);
    return model;
}

// What tslice chose for this machine, and why: printed above the table.
inline void print_machine_choices() {
    const StreamSettings& settings = stream_settings();
    const kernels::KernelSet& set = kernels::active_set();
    std::string merged;
    const char* const sizes[4] = {"1", "2", "4", "8"};
    for (int i = 0; i < 4; ++i)
        if (set.merged[i] && set.stepped_most[i] > 0) merged += std::string(merged.empty() ? "" : ", ") + sizes[i];
    std::printf("\nCPU: %s; kernel set %s (stepped kernel up to steps of %lld, %lld, %lld, %lld bytes for "
                "1-, 2-, 4-, 8-byte items; %s)\n",
                cpu_model().c_str(), set.name, static_cast<long long>(set.stepped_most[0]),
                static_cast<long long>(set.stepped_most[1]), static_cast<long long>(set.stepped_most[2]),
                static_cast<long long>(set.stepped_most[3]),
                merged.empty() ? "no merged kernel" : ("merged for " + merged + "-byte items").c_str());
    const double mib = static_cast<double>(stream_threshold()) / (1 << 20);
    std::printf("streaming: a call writing %.1f MiB or more streams its stores (%s), if its rows are 1 KiB "
                "or more, %s\n",
                mib, settings.stream_why.c_str(), settings.streamed_step_why.c_str());
    std::printf("contiguous runs of a streamed copy go to memcpy: %s\n", settings.memcpy_why.c_str());
    const std::optional<std::size_t> glibc = glibc_non_temporal_threshold(read_glibc_facts());
    if (glibc) {
        std::printf("glibc's memcpy streams runs of %zu bytes (0x%zx) or more, as tslice computes it (glibc's "
                    "own threshold for 2.26 to 2.37, a bound above it from 2.38)\n",
                    *glibc, *glibc);
    } else {
        std::printf("glibc's memcpy streams from: not known to tslice (not glibc 2.26 or later on Intel or AMD)\n");
    }
    std::printf("prefetch: %lld lines ahead (rows holding that many, twice as many for gathered rows)%s\n",
                static_cast<long long>(prefetch_lines()), settings.prefetch_why.c_str());
    if (!settings.kernel_why.empty()) std::printf("row kernels: %s\n", settings.kernel_why.c_str());
}

// The table, judged: a case passes if no alternative is more than 5% faster than tslice's
// choice, by the median ratio of each alternative's time to that of the chosen copy timed
// beside it. Returns the number of misses.
inline int print_choices(const std::vector<ChoiceRow>& rows, bool quick) {
    print_machine_choices();
    std::printf("copy choices on this CPU (tslice on one thread, median ms, and for each change the median "
                "ratio of its\n  time to the chosen copy's timed beside it; streams: yes = tslice's own streaming "
                "loop, memcpy = handed to memcpy, which streams it;\n  * = a change that leaves the copy as it "
                "was, not judged: its ratio's distance from 1 is the run's noise)\n");
    std::printf("%-24s %-9s %12s %-10s %9s %15s %13s %13s %13s %15s %15s %14s | %s\n", "case", "streams",
                "prefetch", "kernel", "chosen", CopyAlternative::name(0), CopyAlternative::name(1),
                CopyAlternative::name(2), CopyAlternative::name(3), CopyAlternative::name(4), CopyAlternative::name(5),
                CopyAlternative::name(6), "best changed / chosen beside it (>= 0.95)");
    int pass = 0, miss = 0, unjudged = 0;
    for (const ChoiceRow& row : rows) {
        double best = 0;
        int best_at = -1;
        char cells[CopyAlternative::kCount][32];
        for (int which = 0; which < CopyAlternative::kCount; ++which) {
            if (!row.applies[which]) {
                std::snprintf(cells[which], sizeof cells[which], "n/a");
                continue;
            }
            std::snprintf(cells[which], sizeof cells[which], "%.2f %.2f%s", row.changed[which] * 1e3, row.ratio[which],
                          row.same[which] ? "*" : "");
            if (!row.same[which] && (best_at < 0 || row.ratio[which] < best)) best = row.ratio[which], best_at = which;
        }
        char prefetch[32];
        if (row.lines_ahead > 0) {
            std::snprintf(prefetch, sizeof prefetch, "%lld el.", static_cast<long long>(row.lines_ahead));
        } else {
            std::snprintf(prefetch, sizeof prefetch, "%lld rows%s", static_cast<long long>(row.prefetch_rows),
                          row.prefetch_rows > 0 ? (row.rows_to_l1 ? " L1" : " L2") : "");
        }
        char verdict[96];
        if (best_at < 0) {
            ++unjudged;
            std::snprintf(verdict, sizeof verdict, "n/a: no change alters this copy");
        } else {
            const bool ok = best >= 0.95;
            (ok ? pass : miss) += 1;
            std::snprintf(verdict, sizeof verdict, "%.2f %s%s%s", best, ok ? "PASS" : "MISS", ok ? "" : ": faster with ",
                          ok ? "" : CopyAlternative::name(best_at));
        }
        std::printf("%-24s %-9s %12s %-10s %9.2f %15s %13s %13s %13s %15s %15s %14s | %s\n", row.label.c_str(),
                    row.via_memcpy ? "memcpy" : row.streams ? "yes" : "no", prefetch, row.kernel.c_str(), row.chosen * 1e3,
                    cells[0], cells[1], cells[2], cells[3], cells[4], cells[5], cells[6], verdict);
    }
    std::printf("copy choices: %d PASS, %d MISS", pass, miss);
    if (unjudged > 0) std::printf(", %d with no alternative", unjudged);
    std::printf("%s\n", quick ? " (quick mode: not judged)" : "");
    return miss;
}

}  // namespace tslice::bench
