// Choosing the kernel set, once: the best set this build has and this CPU runs, unless the
// environment variable TSLICE_KERNEL names one (scalar, sse4.2, avx2, avx512, avx512vbmi). A
// name that is unknown, or that this CPU does not run, gives a warning (kernel_set_warning,
// for the front end to show: a library does not print) and the best set is used instead: an
// environment variable is a tuning knob, and a wrong one must not stop a copy (nor make a
// library exit its process). force_kernel_set, for tests and benchmarks, throws instead.
//
// TSLICE_KERNEL_CAP (a set's name) makes the process behave as if the CPU ran no set above
// it: the sets above are not available, listed, chosen or forced. A machine with AVX-512 so
// proves that everything (the tests too) also holds on a CPU with AVX2 or SSE4.2 only, the
// CPUs many users have. An unknown name gives a warning and caps nothing.
//
// The CPU is asked with __builtin_cpu_supports, which also checks that the operating system
// saves the wider registers (xsimd 8.1's own cpuid reads AVX from the wrong leaf and checks
// neither). A set's accessor is called only after its check: its file is compiled for its
// instruction set.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>
#include <string_view>

#include "copy/kernels.hpp"
#include "tslice/copy.hpp"
#include "tslice/error.hpp"

namespace tslice {
namespace kernels {
namespace {

// The sets this build has and this CPU runs, from worst to best (scalar always first).
struct Supported {
    const KernelSet* sets[5] = {};
    int count = 0;
    std::string capped_at;    // TSLICE_KERNEL_CAP when it names a set, else empty
    std::string cap_warning;  // why TSLICE_KERNEL_CAP was not followed

    Supported() {
        sets[count++] = &scalar_set();
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
        __builtin_cpu_init();
        const bool sse42 = __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("ssse3");
        const bool avx2 = sse42 && __builtin_cpu_supports("avx2");
        const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                            __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
                            __builtin_cpu_supports("avx512vl");
        if (sse42 && sse42_set()) sets[count++] = sse42_set();
        if (avx2 && avx2_set()) sets[count++] = avx2_set();
        const bool avx512vbmi = avx512 && __builtin_cpu_supports("avx512vbmi");
        if (avx512 && avx512_set()) sets[count++] = avx512_set();
        if (avx512vbmi && avx512vbmi_set()) sets[count++] = avx512vbmi_set();
#endif
        apply_cap(std::getenv("TSLICE_KERNEL_CAP"));
    }

    // Drops the sets above `cap`, in the order of all sets a build can have.
    void apply_cap(const char* cap) {
        if (cap == nullptr || *cap == '\0') return;
        static constexpr std::string_view order[] = {"scalar", "sse4.2", "avx2", "avx512", "avx512vbmi"};
        const auto rank = [](std::string_view name) {
            for (std::size_t i = 0; i < std::size(order); ++i)
                if (order[i] == name) return static_cast<int>(i);
            return -1;
        };
        const int cap_rank = rank(cap);
        if (cap_rank < 0) {
            cap_warning = "TSLICE_KERNEL_CAP=" + std::string(cap) +
                          " is not a kernel set (scalar, sse4.2, avx2, avx512, avx512vbmi); nothing is capped";
            return;
        }
        int kept = 0;
        for (int i = 0; i < count; ++i)
            if (rank(sets[i]->name) <= cap_rank) sets[kept++] = sets[i];
        count = kept;
        capped_at = cap;
    }

    const KernelSet* find(std::string_view name) const {
        for (int i = 0; i < count; ++i)
            if (name == sets[i]->name) return sets[i];
        return nullptr;
    }
    const KernelSet* best() const { return sets[count - 1]; }
    std::string names() const {
        std::string text;
        for (int i = 0; i < count; ++i) text += (i ? ", " : "") + std::string(sets[i]->name);
        return text;
    }
};

const Supported& supported() {
    static const Supported sets;
    return sets;
}

struct InitialChoice {
    const KernelSet* set = nullptr;
    std::string warning;  // why TSLICE_KERNEL was not followed; empty if it was, or is unset
};

// TSLICE_KERNEL, or the best set.
InitialChoice initial_choice() {
    const Supported& sets = supported();
    const char* wanted = std::getenv("TSLICE_KERNEL");
    if (wanted == nullptr || *wanted == '\0' || std::string_view(wanted) == "auto") return {sets.best(), sets.cap_warning};
    if (const KernelSet* set = sets.find(wanted)) return {set, sets.cap_warning};
    std::string warning = "TSLICE_KERNEL=" + std::string(wanted) + " is not a kernel set this CPU runs (it runs: " +
                          sets.names() + (sets.capped_at.empty() ? "" : ", capped by TSLICE_KERNEL_CAP") + "); using " +
                          sets.best()->name;
    if (!sets.cap_warning.empty()) warning = sets.cap_warning + "; " + warning;
    return {sets.best(), warning};
}

const InitialChoice& initial() {
    static const InitialChoice choice = initial_choice();
    return choice;
}

const KernelSet* chosen() { return initial().set; }

std::atomic<const KernelSet*> forced{nullptr};

}  // namespace

const KernelSet& active_set() {
    const KernelSet* set = forced.load(std::memory_order_acquire);
    return set ? *set : *chosen();
}

namespace {
std::atomic<SteppedChoice> stepped_choice_setting{SteppedChoice::Chosen};
}  // namespace

SteppedChoice stepped_choice() { return stepped_choice_setting.load(std::memory_order_relaxed); }
void set_stepped_choice(SteppedChoice choice) { stepped_choice_setting.store(choice); }

}  // namespace kernels

std::vector<std::string> available_kernel_sets() {
    const auto& sets = kernels::supported();
    std::vector<std::string> names;
    for (int i = 0; i < sets.count; ++i) names.emplace_back(sets.sets[i]->name);
    return names;
}

std::string kernel_set_warning() { return kernels::initial().warning; }

std::string kernel_set_cap() { return kernels::supported().capped_at; }

std::string active_kernel_set() { return kernels::active_set().name; }

void force_kernel_set(std::string_view name) {
    if (name.empty() || name == "auto") {
        kernels::forced.store(nullptr, std::memory_order_release);
        return;
    }
    const kernels::KernelSet* set = kernels::supported().find(name);
    if (set == nullptr)
        fail_usage("kernel set '" + std::string(name) +
                   "' is not one this CPU runs (it runs: " + kernels::supported().names() + ")");
    kernels::forced.store(set, std::memory_order_release);
}

}  // namespace tslice
