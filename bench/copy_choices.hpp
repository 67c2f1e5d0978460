// tslice's copy choices measured on this CPU: each in-process case copied on one thread as
// tslice chooses, and with each choice changed: its stores streamed where they are not (or
// not where they are), nothing prefetched, the input prefetched four times as far, and its
// rows copied by the other kernel where two can (the stepped kernel or the plain loop).
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
    static constexpr int kCount = 4;
    static constexpr int kKernel = 3;  // the one that may not apply
    static const char* name(int which) {
        static const char* const names[kCount] = {"stores flipped", "no prefetch", "prefetch x4", "kernel flipped"};
        return names[which];
    }

    // `chosen_stepped`: whether tslice chose the stepped kernel for the case's rows.
    CopyAlternative(int which, bool chosen_streams, bool chosen_stepped) : prefetch_(prefetch_lines()) {
        if (which == 0) set_stream_choice(chosen_streams ? StreamChoice::Never : StreamChoice::Always);
        if (which == 1) set_prefetch_lines(0);
        if (which == 2) set_prefetch_lines(4 * prefetch_);
        if (which == kKernel)
            kernels::set_stepped_choice(chosen_stepped ? kernels::SteppedChoice::Never : kernels::SteppedChoice::Always);
    }
    ~CopyAlternative() {
        set_stream_choice(StreamChoice::Chosen);
        set_prefetch_lines(prefetch_);
        kernels::set_stepped_choice(kernels::SteppedChoice::Chosen);
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
    bool kernel_flips = false;     // whether another kernel can copy these rows
    double chosen = 0;                          // median seconds
    std::array<double, CopyAlternative::kCount> changed{};  // the same, per alternative
};

// Whether the case's rows have another kernel, and so whether the kernel flips: the plan's
// row kernel with the stepped choice flipped.
inline bool kernel_flips(const View& view) {
    const std::string chosen = plan_copy(view).row.name;
    const CopyAlternative flipped(CopyAlternative::kKernel, false, chosen == "stepped");
    return plan_copy(view).row.name != chosen;
}

// The table, judged: a case passes if no alternative is more than 5% faster than tslice's
// choice. Returns the number of misses.
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
    std::printf("\nCPU: %s; kernel set %s (stepped kernel up to steps of %lld, %lld, %lld, %lld bytes for "
                "1-, 2-, 4-, 8-byte items)\n",
                cpu_model().c_str(), set.name, static_cast<long long>(set.stepped_most[0]),
                static_cast<long long>(set.stepped_most[1]), static_cast<long long>(set.stepped_most[2]),
                static_cast<long long>(set.stepped_most[3]));
    const double mib = static_cast<double>(stream_threshold()) / (1 << 20);
    std::printf("streaming: a call writing %.1f MiB or more streams its stores (%s), if its rows are 1 KiB "
                "or more and step by at most two elements\n",
                mib, settings.stream_why.c_str());
    std::printf("contiguous runs of a streamed copy go to memcpy: %s\n", settings.memcpy_why.c_str());
    const std::optional<std::size_t> glibc = glibc_non_temporal_threshold(read_glibc_facts());
    if (glibc) {
        std::printf("glibc's memcpy streams runs of %zu bytes (0x%zx) or more, as tslice computes it (glibc's "
                    "own threshold for 2.26 to 2.37, a bound above it from 2.38)\n",
                    *glibc, *glibc);
    } else {
        std::printf("glibc's memcpy streams from: not known to tslice (not glibc 2.26 or later on Intel or AMD)\n");
    }
    std::printf("prefetch: %lld lines ahead (rows holding that many, twice as many for gathered rows)\n",
                static_cast<long long>(prefetch_lines()));
}

inline int print_choices(const std::vector<ChoiceRow>& rows, bool quick) {
    print_machine_choices();
    std::printf("copy choices on this CPU (tslice on one thread, median ms; streams: yes = tslice's own "
                "streaming loop, memcpy = handed to memcpy, which streams it)\n");
    std::printf("%-24s %-9s %9s %-10s %9s %14s %12s %12s %15s | %s\n", "case", "streams", "prefetch", "kernel",
                "chosen", CopyAlternative::name(0), CopyAlternative::name(1), CopyAlternative::name(2),
                CopyAlternative::name(3), "best changed / chosen (>= 0.95)");
    int pass = 0, miss = 0;
    for (const ChoiceRow& row : rows) {
        double best = row.changed[0];
        int best_at = 0;
        for (int which = 1; which < CopyAlternative::kCount; ++which)
            if ((which != CopyAlternative::kKernel || row.kernel_flips) && row.changed[which] < best)
                best = row.changed[which], best_at = which;
        const double ratio = best / row.chosen;
        const bool ok = ratio >= 0.95;
        (ok ? pass : miss) += 1;
        char prefetch[32];
        if (row.lines_ahead > 0) {
            std::snprintf(prefetch, sizeof prefetch, "%lld el.", static_cast<long long>(row.lines_ahead));
        } else {
            std::snprintf(prefetch, sizeof prefetch, "%lld rows", static_cast<long long>(row.prefetch_rows));
        }
        char flipped[32] = "n/a";
        if (row.kernel_flips) std::snprintf(flipped, sizeof flipped, "%.2f", row.changed[CopyAlternative::kKernel] * 1e3);
        std::printf("%-24s %-9s %9s %-10s %9.2f %14.2f %12.2f %12.2f %15s | %.2f %s%s%s\n", row.label.c_str(),
                    row.via_memcpy ? "memcpy" : row.streams ? "yes" : "no", prefetch, row.kernel.c_str(), row.chosen * 1e3, row.changed[0] * 1e3,
                    row.changed[1] * 1e3, row.changed[2] * 1e3, flipped, ratio, ok ? "PASS" : "MISS",
                    ok ? "" : ": faster with ", ok ? "" : CopyAlternative::name(best_at));
    }
    std::printf("copy choices: %d PASS, %d MISS%s\n", pass, miss, quick ? " (quick mode: not judged)" : "");
    return miss;
}

}  // namespace tslice::bench
