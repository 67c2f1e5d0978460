// The copy's machine-dependent choices (see copy_machine.hpp), and why. What each choice
// gained, and on which CPUs, is in docs/performance-log.md ("Copy choices that follow the
// machine"), where it can be measured again.
//
// Streaming threshold. A copy reads at least as many bytes as it writes, so a result of more
// than half the cache a thread can count on cannot stay in it together with its input: its
// lines would only be read for ownership, then evicted. Streamed (non-temporal) stores skip
// both. The cache a thread can count on is its share of the last-level cache: the cache's
// size over the CPUs the kernel says share it (shared_cpu_list), since when every CPU
// copies, as tslice's worker pool does, each gets about that much. Each copy_view call
// decides for itself, and a pool of N threads splits a result into N calls, so the rule asks
// the same of the whole result: stream when it outgrows half the share of the threads that
// copy it. The earlier rule, half the whole cache, left a gather of a third of a large
// shared cache unstreamed, and streaming it was faster on each of the three CPUs measured.
// At least 4 MiB, above the writer's 1 MiB chunks, which are read back right away and should
// stay cached.
//
// Contiguous runs. glibc's memcpy streams large copies itself, from its "non-temporal
// threshold" on, in a loop that copies 2 or 4 pages at a time, a line of each in turn, with
// prefetches; tslice's own streaming loop goes straight through. On an Intel Xeon and on an
// AMD EPYC with AVX2 only, glibc's loop was the faster on one long run; on AMD Zen 4 with
// AVX-512 tslice's was, although glibc streams there too. So a run that glibc streams goes
// to memcpy, except on AMD CPUs of family 0x19 or later with AVX-512 (Zen 4 and later), the
// one kind measured the other way; a run glibc would not stream (its threshold unknown, or
// above the run) keeps tslice's loop, which beat cached stores everywhere it was measured.
#include "copy/copy_machine.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "copy/cpu_caches.hpp"

#if defined(__x86_64__) && defined(__GLIBC__)
#include <cpuid.h>
#include <gnu/libc-version.h>
#endif

namespace tslice {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

// The value GLIBC_TUNABLES gives glibc.cpu.x86_non_temporal_threshold ("name=value:name=value";
// decimal or 0x hex); nothing when unset, 0 or unreadable (glibc ignores 0).
std::optional<std::size_t> tunable_threshold(std::string_view tunables) {
    constexpr std::string_view name = "glibc.cpu.x86_non_temporal_threshold=";
    std::optional<std::size_t> found;
    while (!tunables.empty()) {
        const std::size_t end = tunables.find(':');
        const std::string_view item = tunables.substr(0, end);
        if (item.substr(0, name.size()) == name) {
            const std::string value(item.substr(name.size()));
            char* stop = nullptr;
            const unsigned long long number = std::strtoull(value.c_str(), &stop, 0);
            found = (!value.empty() && *stop == '\0' && number != 0) ? std::optional<std::size_t>(number) : std::nullopt;
        }
        if (end == std::string_view::npos) break;
        tunables.remove_prefix(end + 1);
    }
    return found;
}

// All ones up to the highest set bit of `value` (7 for 4 to 7).
unsigned ones_through_top_bit(unsigned value) {
    unsigned mask = 0;
    while (mask < value) mask = mask * 2 + 1;
    return mask;
}

// Intel: how many threads glibc divides the L3 among, and the L2 among. Leaf 4 gives the
// most logical processors that could share each cache (an APIC ID range); where leaf 11 says
// how many a core and a package hold, glibc keeps that number, masked to leaf 4's range.
void intel_sharing(const GlibcFacts& facts, unsigned& l3_threads, unsigned& l2_threads) {
    l3_threads = l2_threads = 0;
    if (!facts.htt) return;
    if (!facts.leaf4) {
        l3_threads = facts.logical;
        return;
    }
    unsigned l2 = facts.leaf4_l2_sharing, l3 = facts.leaf4_l3_sharing;
    if (facts.leaf11 && facts.leaf11_smt > 0) {
        if (l2 > 0) l2 = (facts.leaf11_smt - 1) & ones_through_top_bit(l2);
        if (l3 > 0 && facts.leaf11_core > 0) l3 = (facts.leaf11_core - 1) & ones_through_top_bit(l3);
    }
    l2_threads = l2 > 0 ? l2 + 1 : 0;
    l3_threads = l3 > 0 ? l3 + 1 : 0;
}

}  // namespace

std::optional<std::size_t> glibc_non_temporal_threshold(const GlibcFacts& facts) {
    if (facts.major != 2 || facts.minor < 26) return std::nullopt;
    if (const std::optional<std::size_t> set = tunable_threshold(facts.tunables)) return set;
    if (facts.vendor == GlibcFacts::Vendor::Other) return std::nullopt;
    if (facts.minor >= 38) {
        // From 2.38 glibc takes a fraction of the whole L3 (a quarter, or as much as a half on
        // some Intel models), plus the L2 where the L3 does not hold it, but never less than
        // three quarters of a thread's share: at most three quarters of L3 and L2 together,
        // which is what tslice takes (runs that long are streamed by glibc for certain; the
        // bound lies above glibc's own figure on the Xeon of the performance log).
        if (facts.l3_bytes <= 0) return std::nullopt;
        return static_cast<std::size_t>(facts.l3_bytes + std::max(facts.l2_bytes, 0L)) * 3 / 4;
    }
    long shared = facts.l3_bytes;
    if (facts.vendor == GlibcFacts::Vendor::Intel) {
        if (shared <= 0) return std::nullopt;  // (glibc then shares the L2: not modelled)
        unsigned l3_threads = 0, l2_threads = 0;
        intel_sharing(facts, l3_threads, l2_threads);
        if (l3_threads > 0) shared /= l3_threads;
        if (!facts.l3_inclusive) shared += l2_threads > 0 ? facts.l2_bytes / l2_threads : facts.l2_bytes;
    } else if (facts.vendor == GlibcFacts::Vendor::Amd) {
        // (Before Zen, glibc divides by the APIC ID range instead: not modelled.)
        if (facts.family < 0x17) return std::nullopt;
        if (shared <= 0) {
            shared = facts.l2_bytes;
        } else {
            const unsigned threads = facts.htt ? facts.logical : 0;
            if (threads > 0) shared /= threads;
            shared *= facts.amd_l3_sharing;
        }
    }
    if (shared <= 0) return std::nullopt;
    return static_cast<std::size_t>(shared) * 3 / 4;
}

GlibcFacts read_glibc_facts() {
    GlibcFacts facts;
#if defined(__x86_64__) && defined(__GLIBC__)
    {
        const std::string_view version = gnu_get_libc_version();
        const std::size_t dot = version.find('.');
        if (dot != std::string_view::npos) {
            facts.major = std::atoi(std::string(version.substr(0, dot)).c_str());
            facts.minor = std::atoi(std::string(version.substr(dot + 1)).c_str());
        }
    }
    if (const char* tunables = std::getenv("GLIBC_TUNABLES")) facts.tunables = tunables;
    facts.l2_bytes = ::sysconf(_SC_LEVEL2_CACHE_SIZE);
    facts.l3_bytes = ::sysconf(_SC_LEVEL3_CACHE_SIZE);
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) == 0) return facts;
    const unsigned max_leaf = eax;
    if (ebx == 0x756e6547 && edx == 0x49656e69 && ecx == 0x6c65746e) facts.vendor = GlibcFacts::Vendor::Intel;
    if (ebx == 0x68747541 && edx == 0x69746e65 && ecx == 0x444d4163) facts.vendor = GlibcFacts::Vendor::Amd;
    __cpuid(1, eax, ebx, ecx, edx);
    facts.family = (eax >> 8) & 0xf;
    if (facts.family == 0xf) facts.family += (eax >> 20) & 0xff;
    facts.htt = (edx >> 28) & 1;
    facts.logical = (ebx >> 16) & 0xff;
    if (facts.vendor == GlibcFacts::Vendor::Intel && max_leaf >= 4) {
        bool l2 = false, l3 = false;
        for (unsigned sub = 0; sub < 16 && !(l2 && l3); ++sub) {
            __cpuid_count(4, sub, eax, ebx, ecx, edx);
            if ((eax & 0x1f) == 0) break;
            const unsigned level = (eax >> 5) & 7;
            if (level == 2 && !l2) {
                facts.leaf4_l2_sharing = (eax >> 14) & 0x3ff;
                l2 = true;
            } else if (level == 3 && !l3) {
                facts.leaf4_l3_sharing = (eax >> 14) & 0x3ff;
                facts.l3_inclusive = (edx & 2) != 0;
                l3 = true;
            }
        }
        facts.leaf4 = l2 || l3;
        if (max_leaf >= 11) {
            facts.leaf11 = true;
            for (unsigned sub = 0; sub < 4; ++sub) {
                __cpuid_count(11, sub, eax, ebx, ecx, edx);
                const unsigned shipped = ebx & 0xff, type = (ecx >> 8) & 0xff;
                if (shipped == 0 || type == 0) break;
                if (type == 1) facts.leaf11_smt = shipped;
                if (type == 2) facts.leaf11_core = shipped;
            }
        }
    }
    if (facts.vendor == GlibcFacts::Vendor::Amd && facts.family >= 0x17) {
        __cpuid(0x80000000, eax, ebx, ecx, edx);
        if (eax >= 0x8000001D) {
            __cpuid_count(0x8000001D, 3, eax, ebx, ecx, edx);
            facts.amd_l3_sharing = ((eax >> 14) & 0xfff) + 1;
        }
    }
#endif
    return facts;
}

MachineFacts read_machine_facts() {
    MachineFacts facts;
    if (const std::optional<LastLevelCache> cache = last_level_cache()) {
        facts.llc_bytes = cache->bytes;
        facts.llc_sharing_cpus = cache->sharing_cpus;
    }
    const GlibcFacts glibc = read_glibc_facts();
    facts.glibc_streams_from = glibc_non_temporal_threshold(glibc);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    facts.own_stream_loop_faster =
        glibc.vendor == GlibcFacts::Vendor::Amd && glibc.family >= 0x19 && __builtin_cpu_supports("avx512f");
    facts.stepped_rows_gain_streams_and_further_prefetch = facts.own_stream_loop_faster;
    facts.resident_rows_gain_whole_prefetch_distance = facts.own_stream_loop_faster;
    facts.sparse_band_rows_gain_l2_prefetch = facts.own_stream_loop_faster;
    facts.rows_10_to_14_bytes_apart_gain_plain_loop = facts.own_stream_loop_faster;
#endif
    facts.streamed_stores_share_fill_buffers = glibc.vendor == GlibcFacts::Vendor::Intel;
    facts.hardware_follows_strided_rows = glibc.vendor == GlibcFacts::Vendor::Amd;
    return facts;
}

StreamSettings choose_stream_settings(const MachineFacts& facts) {
    StreamSettings settings;
    const auto mib = [](std::size_t bytes) {
        return bytes % kMiB == 0 ? std::to_string(bytes / kMiB)
                                 : std::to_string(static_cast<double>(bytes) / static_cast<double>(kMiB)).substr(0, 5);
    };
    if (!facts.llc_bytes) {
        settings.stream_bytes = 16 * kMiB;
        settings.stream_why = "the kernel does not say the last-level cache: a fixed 16 MiB";
    } else {
        const unsigned sharing = std::max(facts.llc_sharing_cpus, 1u);
        const std::size_t share = *facts.llc_bytes / sharing;
        settings.stream_bytes = std::clamp(share / 2, 4 * kMiB, std::size_t{1} << 30);
        settings.stream_why = "half a thread's share of the last-level cache: " + mib(*facts.llc_bytes) + " MiB / " +
                              std::to_string(sharing) + " CPUs sharing it / 2, at least 4 MiB";
    }
    if (facts.own_stream_loop_faster) {
        settings.memcpy_why = "never: on AMD Zen 4 and later tslice's own streaming loop measured faster than glibc's";
    } else if (!facts.glibc_streams_from) {
        settings.memcpy_why = "never: the C library's streaming threshold is not known";
    } else {
        settings.memcpy_bytes = std::max(*facts.glibc_streams_from, kMiB);
        settings.memcpy_why = "runs of " + mib(settings.memcpy_bytes) +
                              " MiB or more, which glibc's memcpy streams itself (its threshold " +
                              mib(*facts.glibc_streams_from) + " MiB)";
    }
    // A row of every other element reads two lines for each line it writes. Streaming its
    // stores spares the reads of the output lines, but on Intel each streamed line waits for
    // its write in a line fill buffer, the buffers the row's twice as many loads wait in: on
    // the 16-core Xeon float32 [:, :, ::2] of 1 GiB (one thread) took 131 ms streamed against
    // 113 not, 148 against 133 and 0.91x in two runs before, one run the other way (144
    // against 148); on AMD, whose write-combining buffers are the stores' own, it stays
    // streamed: 1.2x faster on Zen 4, 166 against 186 ms on the EPYC with AVX2.
    if (facts.streamed_stores_share_fill_buffers) {
        settings.streamed_step_items = 1;
        settings.streamed_step_why = "dense rows only: on Intel streamed stores wait in the fill buffers a stepped "
                                     "row's loads need";
    } else {
        settings.streamed_step_why = "rows stepping by at most two elements";
    }
    // Rows that step over more elements within a line (float32 [:, :, ::3], [:, :, ::5],
    // [:, :, ::-8], float64 [:, :, ::3]) read every line and write a fraction of it. On Zen 4
    // their streamed stores, which spare reading the output lines, were faster in each case
    // (float64 [:, :, ::3] 43.5-45.0 ms against 62.0-67.1, float32 [:, :, ::5] 44.4-46.3
    // against 52.1-56.4, [:, :, ::3] 55.5-61.2 against 64.0-66.3, [:, :, ::-8] 38.9-42.4
    // against 41.8-44.4; uint8 [:, :, ::7] and [:, :, ::40] the same either way; an earlier
    // sweep had every third float32 1.36x slower streamed, which no longer holds). On the EPYC
    // with AVX2 some were slower streamed ([:, ::3, 1::4] 50.3 against 45.8 ms, uint8
    // [:, :, ::7] 187 against 146); on the Xeon float32 [:, :, ::5] and [:, :, ::-8] were
    // faster (0.86 to 0.98) but uint8 [:, :, ::7] 7% slower. So only Zen 4 and later stream
    // them, rows of 256 bytes or more (shorter ones are bound by their loads' latency).
    if (facts.stepped_rows_gain_streams_and_further_prefetch) {
        settings.streamed_stepped_row_bytes = 256;
        settings.streamed_step_why += "; on AMD Zen 4, rows of 256 bytes or more stepping further within a line too";
    }
    // Rows of a few elements each several lines apart, within a page (float32 [:, :, ::100]:
    // rows of 11 elements 400 bytes apart, 4 KiB from one row to the next): on AMD the
    // software prefetches of the rows ahead only cost, the hardware's own following them
    // already (Zen 4, one thread: 16.5-17.0 ms without against 24.1-26.7 with, and 0.69-0.70
    // in four runs before; the EPYC with AVX2 17% faster without; the tool 45.4 against 49.4
    // ms on one thread, and [:, :, 3::200] 31.9 against 34.1); on the Xeon they gain 4-8%
    // (25.9 against 24.2 ms).
    // (Where they go into L2 instead, below, the reason does not apply.)
    if (facts.hardware_follows_strided_rows) {
        settings.prefetch_strided_bands = false;
        if (!facts.sparse_band_rows_gain_l2_prefetch)
            settings.prefetch_why =
                "; not for short rows of elements 257 bytes to 1 KiB apart: on AMD the hardware follows them";
    }
    // The same rows (float32 [:, :, ::5], uint8 [:, :, ::7], [:, ::3, 1::4], [:, :, ::-8])
    // wait on their loads. On Zen 4 (this project's development VM), from memory the process
    // holds, prefetching them 128 lines ahead instead of 64 was 5 to 14% faster in three of
    // the four, three alternating rounds of the bench before streaming them (float32
    // [:, :, ::5] 50.7-52.9 ms against 54.7-57.8, [:, ::3, 1::4] 21.5-26.3 against 24.2-29.0,
    // [:, :, ::-8] 41.1-42.9 against 47.0-48.3; uint8 [:, :, ::7] within the noise), and with
    // both changes 12 to 25% faster in all four (float32 [:, :, ::5] 44.3-46.2 against
    // 56.6-62.0, uint8 [:, :, ::7] 55.7-56.2 against 64.2-67.2), while the reversals, which
    // step by one element, were as fast or faster at 64 (uint8 [:, :, ::-1] 48.0 against
    // 53.0). Four times as far was slower on the Xeon (float32 [:, :, ::5] 110.7 against
    // 92.3 ms) and on the EPYC with AVX2 (109.8 against 103.9; uint8 [:, :, ::7] 186.1
    // against 145.8), so only Zen 4 and later go further. A file mapping's copy keeps 64: its
    // faults dominate, and 128 lines made the tool slower there (copy_plan.cpp).
    if (facts.stepped_rows_gain_streams_and_further_prefetch) {
        settings.resident_stepped_prefetch_factor = 2;
        settings.prefetch_why += "; twice as far for rows stepping over 3 or more elements within a line, in memory "
                                 "tslice holds: faster so on AMD Zen 4";
    }
    // Rows of 50 lines (float32 [:, 100:900, 100:900], 3200 bytes a row, 4 KiB apart, each
    // within its page, where the hardware's prefetchers stop): 64 lines ahead is one row, 1.28
    // rows rounded down. From memory the process holds, two rows ahead (rounded up) was 10 to
    // 13% faster on Zen 4 (one thread, medians of 5 to 7 copies in the bench's alternating
    // rounds: 41.9-44.0 ms against 48.4-49.6); the tool, whose copy faults the file's pages in
    // as it goes, was 5 to 8% slower so (whole process, 12 alternating runs: median 221-232 ms
    // against 210-214), and keeps rounding down. On the Xeon that row was faster prefetched
    // twice as far in one of its five runs of the copy choices (0.91) and not in the others;
    // the EPYC with AVX2 had no faster distance for it; neither was measured with the round-up,
    // so only Zen 4 and later round up.
    // Short rows of elements more than two lines apart, in bands (float32 [:, :, ::40] to
    // [:, :, ::255], rows of 26 down to 5 elements 160 to 1020 bytes apart; uint8
    // [:, :, ::200], int16 [:, :, ::-100], float64 [:, :, ::20] and [:, :, ::50]): each
    // element a line of its own, a few of every page. On Zen 4 (one thread, 1 GiB inputs in
    // memory the process holds, medians of 5 to 7 copies alternating with numpy's on the same
    // buffers) prefetching the rows ahead into L2 (prefetcht2) 128 lines ahead made them 1.3
    // to 2.5 times faster than either prefetching them into L1 64 lines ahead or, from 257
    // bytes apart, not prefetching them (float32 [:, :, ::40] 25.1 ms against 43.2 into L1,
    // numpy 51.4; [:, :, ::100] 9.3-10.4 against 14.7-15.4 unprefetched, numpy 14.5-15.3;
    // [:, :, ::200] 4.3 against 9.1; uint8 [:, :, ::200] 29.1 against 46.6 into L1, numpy 30.4;
    // int16 [:, :, ::-100] 15.9 against 39.8); 64 lines ahead into L2 was as fast or slower
    // than 128 but for every 50th float32 (21.0 against 21.5 ms) and, in one process of two,
    // every 255th (4.6 against 4.8; in the other neither beat no prefetch). Rows of elements
    // closer together were as fast or slower prefetched into L2 (96 to 112 bytes apart, and
    // 128 bytes backwards: 1.0 to 1.3 times slower), so they keep L1. Not measured on other CPUs:
    // only Zen 4 and later (docs/performance-log.md: "Loads of their own for a row's first
    // elements, and sparse rows prefetched into L2").
    if (facts.sparse_band_rows_gain_l2_prefetch) {
        settings.prefetch_sparse_bands_to_l2 = true;
        settings.prefetch_why += "; short rows of elements 129 bytes to 1 KiB apart into L2, twice as far: faster so "
                                 "on AMD Zen 4";
    }
    if (facts.resident_rows_gain_whole_prefetch_distance) {
        settings.resident_rows_ahead_round_up = true;
        settings.prefetch_why += "; in memory tslice holds, the first row at least that far ahead: faster so on AMD "
                                 "Zen 4";
    }
    // int16 every 5th to 7th element and float32 every 3rd (10 to 14 bytes apart), rows read
    // in order: on Zen 4 the plain loop, one load walking the lines in turn, beat both the
    // merged kernel and the unrolled loop the kernel set takes for memory the process holds.
    // One thread, 1 GiB inputs in memory held, the output streamed, the kernels' loops aligned
    // (see CMakeLists.txt), medians of 7 copies beside the chosen one in the bench's copy
    // choices: int16 [:, :, ::5] 47.1 ms against 63.1 merged and 65.0 unrolled (numpy 52.9),
    // [:, :, ::6] 43.5 against 52.8 unrolled (numpy 51.1), float32 [:, :, ::3] 44.7 against
    // 48.1 unrolled (numpy 47.6). In numpy's process, on its arrays (a harness around the
    // library, medians of 9, two layouts of the buffers): int16 [:, :, ::7] 38.5-40.0 against
    // 44.9-47.3 unrolled; one long row (the whole array as one axis), every 6th 39.7 against
    // 42.4, every 7th 37.1 against 41.4, every 5th 38.8 against 39.3 merged; float32 every 3rd
    // 43.5 against 45.8. Every 8th int16 (16 bytes) gained less (0.94 to 0.96 of the unrolled
    // loop's time, where the stepped kernel took 0.93), uint8 every 10th to 14th was within 2%
    // either way, and rows not in order lost (int16, every other row, every 6th element: 1.01
    // and 1.48 times slower), so none of those changes. From the last-level cache the
    // unrolled loop and the merged kernel were the faster (int16 inputs of 16 and 32 MiB, 32
    // MiB of L3: every 5th 1.12 to 1.13 times slower in the plain loop, every 6th 0.92 to
    // 0.94), so only views spanning more input than the last-level cache holds take it (64
    // MiB: every 5th 0.76, every 6th 0.80). Not measured on other CPUs, nor on a file
    // mapping, whose rows keep the kernel set's choice (docs/performance-log.md: "The copy
    // kernels' loops aligned, and the plain loop for rows 10 to 14 bytes apart").
    if (facts.rows_10_to_14_bytes_apart_gain_plain_loop && facts.llc_bytes && *facts.llc_bytes > 0) {
        settings.plain_loop_10_to_14_bytes_apart_above = *facts.llc_bytes;
        settings.kernel_why = "int16 and float32 rows of elements 10 to 14 bytes apart, read in order from memory "
                              "tslice holds, by the plain loop where the input spans more than the last-level cache (" +
                              std::to_string(*facts.llc_bytes >> 20) + " MiB): faster so on AMD Zen 4";
    }
    return settings;
}

}  // namespace tslice
