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
//
// This file is the one place that asks the CPU: the conversion and statistics kernels ask it
// too, through active_set_reaches and cpu_has, so that TSLICE_KERNEL and TSLICE_KERNEL_CAP
// rule them as they rule the copy.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>
#include <string_view>

#include "copy/kernels.hpp"
#include "tslice/copy.hpp"
#include "tslice/error.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif

namespace tslice {
namespace kernels {
namespace {

// Every set a build can have, from worst to best: the order of TSLICE_KERNEL_CAP and of
// active_set_reaches.
constexpr std::string_view kOrder[] = {"scalar", "sse4.2", "avx2", "avx512", "avx512vbmi"};

int set_rank(std::string_view name) {
    for (std::size_t i = 0; i < std::size(kOrder); ++i)
        if (kOrder[i] == name) return static_cast<int>(i);
    return -1;
}

// The sets this build has and this CPU runs, from worst to best (scalar always first).
struct Supported {
    const KernelSet* sets[5] = {};
    int count = 0;
    std::string capped_at;    // TSLICE_KERNEL_CAP when it names a set, else empty
    std::string cap_warning;  // why TSLICE_KERNEL_CAP was not followed
    bool fma = false, f16c = false;  // the extensions of kernels.hpp's Extension, before the cap

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
        fma = __builtin_cpu_supports("fma");
        // (clang 14's __builtin_cpu_supports does not know "f16c": cpuid leaf 1 says, ECX bit
        // 29; "avx" says that the operating system saves the registers it uses.)
        unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
        f16c = __builtin_cpu_supports("avx") && __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_F16C) != 0;
#endif
        apply_cap(std::getenv("TSLICE_KERNEL_CAP"));
    }

    // Drops the sets above `cap`, in the order of all sets a build can have.
    void apply_cap(const char* cap) {
        if (cap == nullptr || *cap == '\0') return;
        const int cap_rank = set_rank(cap);
        if (cap_rank < 0) {
            cap_warning = "TSLICE_KERNEL_CAP=" + std::string(cap) +
                          " is not a kernel set (scalar, sse4.2, avx2, avx512, avx512vbmi); nothing is capped";
            return;
        }
        int kept = 0;
        for (int i = 0; i < count; ++i)
            if (set_rank(sets[i]->name) <= cap_rank) sets[kept++] = sets[i];
        count = kept;
        capped_at = cap;
        // FMA and F16C came with AVX2 (Haswell, Zen): a CPU capped below it is taken to lack them.
        if (cap_rank < set_rank("avx2")) fma = f16c = false;
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
std::atomic<UnrolledChoice> unrolled_choice_setting{UnrolledChoice::Chosen};
}  // namespace

bool active_set_reaches(std::string_view name) { return set_rank(active_set().name) >= set_rank(name); }

bool cpu_runs(std::string_view name) { return supported().find(name) != nullptr; }

bool cpu_has(Extension extension) {
    switch (extension) {
        case Extension::Fma: return supported().fma;
        case Extension::F16c: return supported().f16c;
    }
    return false;
}

SteppedChoice stepped_choice() { return stepped_choice_setting.load(std::memory_order_relaxed); }
void set_stepped_choice(SteppedChoice choice) { stepped_choice_setting.store(choice); }
UnrolledChoice unrolled_choice() { return unrolled_choice_setting.load(std::memory_order_relaxed); }
void set_unrolled_choice(UnrolledChoice choice) { unrolled_choice_setting.store(choice); }

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
