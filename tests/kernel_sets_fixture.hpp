// Counting which kernels the kernel sets choose, set by set. A test that random cases reached
// every kernel often enough checks each set on its own: a count summed over the sets a CPU
// runs would hold only where it runs all of them (an AVX2-only CPU has two SIMD sets, not
// four), so the outcome would depend on the machine, not on the code. The sets this build has
// but this CPU (or TSLICE_KERNEL_CAP) leaves out are named in the unit tests' output as
// skipped (test_main.cpp).
#pragma once

#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "tslice/copy.hpp"

namespace kernel_sets_fixture {

// Every set a build on x86-64 can have, worst to best.
inline const std::vector<std::string>& all_kernel_sets() {
    static const std::vector<std::string> sets = {"scalar", "sse4.2", "avx2", "avx512", "avx512vbmi"};
    return sets;
}

// The sets of all_kernel_sets() that this process cannot run.
inline std::vector<std::string> skipped_kernel_sets() {
    const auto available = tslice::available_kernel_sets();
    std::vector<std::string> skipped;
    for (const auto& set : all_kernel_sets()) {
        bool found = false;
        for (const auto& name : available) found = found || name == set;
        if (!found) skipped.push_back(set);
    }
    return skipped;
}

// How often each set chose each kernel (or anything else worth counting).
class KernelTally {
public:
    void count(const std::string& set, const std::string& what, bool happened = true) {
        counts_[set][what] += happened ? 1 : 0;
    }
    // Each set counted (the sets this CPU runs) chose `what` more than `least` times.
    void check_each_set(const std::string& what, int least) const {
        for (const auto& [set, counts] : counts_) {
            const auto found = counts.find(what);
            const int seen = found == counts.end() ? 0 : found->second;
            INFO("kernel set " << set << " chose '" << what << "' " << seen << " times");
            CHECK(seen > least);
        }
    }
    // Each set that chose `chose` at all chose `what` more than `least` times (a kernel that
    // not every set has: its cases are checked where it is).
    void check_each_set_choosing(const std::string& chose, const std::string& what, int least) const {
        for (const auto& [set, counts] : counts_) {
            const auto chosen = counts.find(chose);
            if (chosen == counts.end() || chosen->second == 0) continue;
            const auto found = counts.find(what);
            const int seen = found == counts.end() ? 0 : found->second;
            INFO("kernel set " << set << " chose '" << chose << "' and '" << what << "' " << seen << " times");
            CHECK(seen > least);
        }
    }
    bool empty() const { return counts_.empty(); }
    // "avx2: reversed 120, stepped 900; sse4.2: ..." for a test's output.
    std::string describe() const {
        std::string text;
        for (const auto& [set, counts] : counts_) {
            text += (text.empty() ? "" : "; ") + set + ":";
            for (const auto& [what, seen] : counts) text += " " + what + " " + std::to_string(seen);
        }
        return text;
    }

private:
    std::map<std::string, std::map<std::string, int>> counts_;
};

}  // namespace kernel_sets_fixture
