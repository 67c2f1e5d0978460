// The copy's choices that follow the machine it runs on: from which size a copy streams its
// stores, and whether a long contiguous run is handed to the C library's memcpy, which then
// streams it itself. Each is a pure function of facts (the cache the kernel describes, what
// the CPU reports, the C library's version and tunables), so that tests can give it any
// machine; the facts of the running machine are read once (copy_plan.cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace tslice {

// What glibc reads from the CPU to decide from which size its memcpy streams (its
// "non-temporal threshold"), as numbers, so that the same arithmetic can be run on any
// machine's values. Filled by read_glibc_facts() on x86-64; a test sets them by hand.
struct GlibcFacts {
    int major = 0, minor = 0;  // gnu_get_libc_version(); 0.0 when not glibc
    enum class Vendor { Other, Intel, Amd } vendor = Vendor::Other;
    unsigned family = 0;   // cpuid 1's family, with the extended family added (0x19: Zen 3/4)
    long l2_bytes = 0;     // sysconf(_SC_LEVEL2_CACHE_SIZE): glibc's own reading of cpuid
    long l3_bytes = 0;     // sysconf(_SC_LEVEL3_CACHE_SIZE); on AMD the whole package's
    bool htt = false;      // cpuid 1 EDX bit 28: more than one logical processor per package
    unsigned logical = 0;  // cpuid 1 EBX bits 16-23: logical processors per package
    // Intel: cpuid leaf 4's "logical processors sharing this cache" fields (bits 14-25 of
    // EAX, minus one, as the CPU gives them) for L2 and L3, whether L3 includes L2 (EDX bit
    // 1), and leaf 11's logical processors at the SMT and the core level (0: not reported).
    bool leaf4 = false;
    unsigned leaf4_l2_sharing = 0, leaf4_l3_sharing = 0;
    bool l3_inclusive = true;
    bool leaf11 = false;
    unsigned leaf11_smt = 0, leaf11_core = 0;
    // AMD: cpuid 0x8000001D subleaf 3's threads sharing the L3 of a core complex (bits 14-25
    // of EAX, plus one).
    unsigned amd_l3_sharing = 0;
    // GLIBC_TUNABLES, which may set the threshold (glibc.cpu.x86_non_temporal_threshold).
    std::string tunables;
};

GlibcFacts read_glibc_facts();

// A size from which glibc's memcpy streams its stores, as the running glibc computes it: its
// setting in GLIBC_TUNABLES; or glibc 2.26 to 2.37's arithmetic (Debian 12 has 2.36, Ubuntu
// 22.04 2.35): three quarters of "one thread's share" of the L3; or, from 2.38 on, whose
// arithmetic depends on the CPU model, a bound it never exceeds. Nothing for other C
// libraries and CPUs: then tslice does not rely on it.
std::optional<std::size_t> glibc_non_temporal_threshold(const GlibcFacts& facts);

// Everything the choices depend on.
struct MachineFacts {
    std::optional<std::size_t> llc_bytes;  // the last-level cache the first CPU uses (sysfs)
    unsigned llc_sharing_cpus = 0;         // CPUs sharing it (0: not said)
    std::optional<std::size_t> glibc_streams_from;  // glibc_non_temporal_threshold
    // An AMD CPU of family 0x19 or later with AVX-512 (Zen 4 and later): tslice's own
    // streaming loop measured faster than glibc's (see copy_machine.cpp).
    bool own_stream_loop_faster = false;
    // An Intel CPU: its streamed (non-temporal) stores wait in the line fill buffers that the
    // loads' misses use too.
    bool streamed_stores_share_fill_buffers = false;
    // An AMD CPU: its hardware prefetchers follow short rows of elements several lines apart.
    bool hardware_follows_strided_rows = false;
    // An AMD CPU of family 0x19 or later with AVX-512 (Zen 4 and later): rows that step over
    // several elements within a line copied faster with streamed stores, and, read from memory
    // the process holds, prefetched further ahead.
    bool stepped_rows_gain_streams_and_further_prefetch = false;
    // An AMD CPU of family 0x19 or later with AVX-512 (Zen 4 and later): rows of fewer lines
    // than the prefetch distance, read from memory the process holds, copied faster with the
    // row prefetched the whole distance ahead rather than the nearest row short of it.
    bool resident_rows_gain_whole_prefetch_distance = false;
    // An AMD CPU of family 0x19 or later with AVX-512 (Zen 4 and later): short rows of
    // elements more than two lines apart, copied in bands, faster with the rows ahead
    // prefetched into L2, twice as far, than into L1 or not at all.
    bool sparse_band_rows_gain_l2_prefetch = false;
    // An AMD CPU of family 0x19 or later with AVX-512 (Zen 4 and later): int16 and float32
    // rows of elements 10 to 14 bytes apart, read in order from memory the process holds,
    // copied faster by the plain loop, not unrolled, than by the merged kernel or the
    // unrolled loop.
    bool rows_10_to_14_bytes_apart_gain_plain_loop = false;
};

MachineFacts read_machine_facts();

struct StreamSettings {
    std::size_t stream_bytes = 0;  // a copy_view call writing this many bytes or more streams
    std::string stream_why;
    // A contiguous run of this many bytes or more, in a copy that streams, goes to memcpy
    // (which streams it itself, in its own loop); SIZE_MAX: never.
    std::size_t memcpy_bytes = ~std::size_t{0};
    std::string memcpy_why;
    // Rows that step over at most this many elements may stream (1: dense rows only).
    int streamed_step_items = 2;
    // Rows that step over more elements, at most a line apart, stream too where their output
    // rows hold this many bytes or more (0: never).
    std::size_t streamed_stepped_row_bytes = 0;
    std::string streamed_step_why;
    // Whether short rows of elements more than 256 bytes (but under 1 KiB) apart, copied in
    // bands, are prefetched in software.
    bool prefetch_strided_bands = true;
    // Whether short rows of elements more than two lines (128 bytes) and under 1 KiB apart,
    // copied in bands, are prefetched into L2 (prefetcht2), twice prefetch_lines() ahead,
    // whatever prefetch_strided_bands says; otherwise into L1, as other rows with a line an
    // element.
    bool prefetch_sparse_bands_to_l2 = false;
    // How many times prefetch_lines() ahead rows are prefetched whose elements lie more than
    // two elements and at most a line apart (every line read), in memory the process holds
    // (InputMemory::Resident; a file mapping's copy faults its pages in as it goes, and
    // prefetches further ahead then only fault sooner).
    int resident_stepped_prefetch_factor = 1;
    // Whether, in memory the process holds, the row prefetched is the first at least the
    // distance ahead (rounded up) rather than the last within it (rounded down).
    bool resident_rows_ahead_round_up = false;
    std::string prefetch_why;
    // int16 and float32 rows of elements 10 to 14 bytes apart, read in order (in bands, or
    // each row starting within a line of the last one's end) from memory the process holds,
    // go to the plain loop, not unrolled, whatever the kernel set would choose, where the view
    // spans more than this many bytes of input (0: never).
    std::size_t plain_loop_10_to_14_bytes_apart_above = 0;
    std::string kernel_why;  // empty, or why the row kernels differ from the kernel set's choice
};

StreamSettings choose_stream_settings(const MachineFacts& facts);

}  // namespace tslice
