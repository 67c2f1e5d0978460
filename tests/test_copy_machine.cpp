// The copy's machine-dependent choices (copy_machine.hpp), on machines made up from the facts
// of the three CPUs tslice was measured on and of others.
#include <doctest/doctest.h>

#include <cstddef>

#include "copy/copy_machine.hpp"
#include "copy/copy_plan.hpp"

using tslice::choose_stream_settings;
using tslice::GlibcFacts;
using tslice::glibc_non_temporal_threshold;
using tslice::MachineFacts;

namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

// The development machine's cpuid as glibc 2.36 reads it (a 2-CPU VM on an AMD EPYC, Zen 4):
// `ld.so --list-tunables` printed x86_non_temporal_threshold 0xf000000 (240 MiB) there.
GlibcFacts zen4_vm() {
    GlibcFacts facts;
    facts.major = 2;
    facts.minor = 36;
    facts.vendor = GlibcFacts::Vendor::Amd;
    facts.family = 0x19;
    facts.l2_bytes = 1 << 20;
    facts.l3_bytes = 320L << 20;  // the package's L3, as cpuid 0x80000006 says
    facts.htt = true;
    facts.logical = 2;
    facts.amd_l3_sharing = 2;
    return facts;
}

// A 16-CPU Intel VM: leaf 4 says up to 128 logical processors share the L3 and 2 the L2,
// leaf 11 that a core holds 2 and the package 16.
GlibcFacts xeon_vm() {
    GlibcFacts facts;
    facts.major = 2;
    facts.minor = 36;
    facts.vendor = GlibcFacts::Vendor::Intel;
    facts.family = 6;
    facts.l2_bytes = 2L << 20;
    facts.l3_bytes = 300L << 20;
    facts.htt = true;
    facts.logical = 16;
    facts.leaf4 = true;
    facts.leaf4_l2_sharing = 1;
    facts.leaf4_l3_sharing = 127;
    facts.l3_inclusive = false;
    facts.leaf11 = true;
    facts.leaf11_smt = 2;
    facts.leaf11_core = 16;
    return facts;
}

}  // namespace

TEST_CASE("copy_machine: glibc 2.36's streaming threshold on AMD, as glibc printed it") {
    CHECK(glibc_non_temporal_threshold(zen4_vm()) == 240 * kMiB);
    GlibcFacts facts = zen4_vm();
    facts.amd_l3_sharing = 16;  // a host that passes its core complex's 16 threads through
    CHECK(glibc_non_temporal_threshold(facts) == 160 * kMiB * 16 * 3 / 4);
    facts.htt = false;  // one logical processor: the L3 is not divided
    CHECK(glibc_non_temporal_threshold(facts) == 320 * kMiB * 16 * 3 / 4);
    facts = zen4_vm();
    facts.l3_bytes = 0;  // no L3: the L2
    CHECK(glibc_non_temporal_threshold(facts) == kMiB * 3 / 4);
    facts = zen4_vm();
    facts.family = 0x15;  // before Zen glibc divides otherwise: not modelled
    CHECK_FALSE(glibc_non_temporal_threshold(facts).has_value());
}

TEST_CASE("copy_machine: glibc 2.36's streaming threshold on Intel: one thread's share plus its L2") {
    // Leaf 11 masks 128 down to the package's 16: 300 MiB / 16 + a non-inclusive L2 / 2.
    CHECK(glibc_non_temporal_threshold(xeon_vm()) == (300 * kMiB / 16 + kMiB) * 3 / 4);
    GlibcFacts facts = xeon_vm();
    facts.l3_inclusive = true;  // an inclusive L3 holds the L2's lines already
    CHECK(glibc_non_temporal_threshold(facts) == 300 * kMiB / 16 * 3 / 4);
    facts.leaf11 = false;  // leaf 4's range alone
    CHECK(glibc_non_temporal_threshold(facts) == 300 * kMiB / 128 * 3 / 4);
    facts = xeon_vm();
    facts.leaf4 = false;  // all logical processors share it
    facts.l3_inclusive = true;
    CHECK(glibc_non_temporal_threshold(facts) == 300 * kMiB / 16 * 3 / 4);
}

TEST_CASE("copy_machine: GLIBC_TUNABLES overrides, newer glibc gives a bound, unknown C libraries nothing") {
    GlibcFacts facts = zen4_vm();
    facts.tunables = "glibc.malloc.check=0:glibc.cpu.x86_non_temporal_threshold=0x400000";
    CHECK(glibc_non_temporal_threshold(facts) == 4 * kMiB);
    facts.tunables = "glibc.cpu.x86_non_temporal_threshold=1048576:glibc.malloc.check=0";
    CHECK(glibc_non_temporal_threshold(facts) == kMiB);
    facts.tunables = "glibc.cpu.x86_non_temporal_threshold=0";  // glibc ignores 0
    CHECK(glibc_non_temporal_threshold(facts) == 240 * kMiB);
    facts.tunables = "glibc.cpu.x86_non_temporal_threshold=lots";
    CHECK(glibc_non_temporal_threshold(facts) == 240 * kMiB);
    facts.tunables.clear();
    facts.minor = 39;  // a fraction of the L3 that depends on the model: at most 3/4 of L3 and L2
    CHECK(glibc_non_temporal_threshold(facts) == (320 + 1) * kMiB * 3 / 4);
    facts = xeon_vm();
    facts.minor = 39;  // (glibc 2.39 printed 151 MiB on the 16-core Xeon)
    CHECK(glibc_non_temporal_threshold(facts) == (300 + 2) * kMiB * 3 / 4);
    CHECK(*glibc_non_temporal_threshold(facts) >= 151 * kMiB);
    facts.tunables = "glibc.cpu.x86_non_temporal_threshold=0x400000";
    CHECK(glibc_non_temporal_threshold(facts) == 4 * kMiB);
    facts.tunables.clear();
    facts.l3_bytes = 0;
    CHECK_FALSE(glibc_non_temporal_threshold(facts).has_value());
    facts = zen4_vm();
    facts.major = 0;  // not glibc
    CHECK_FALSE(glibc_non_temporal_threshold(facts).has_value());
    facts = zen4_vm();
    facts.vendor = GlibcFacts::Vendor::Other;
    CHECK_FALSE(glibc_non_temporal_threshold(facts).has_value());
}

TEST_CASE("copy_machine: a copy streams from half a thread's share of the last-level cache") {
    MachineFacts facts;
    facts.llc_bytes = 300 * kMiB;  // the 16-core Xeon: all 16 CPUs share it
    facts.llc_sharing_cpus = 16;
    CHECK(choose_stream_settings(facts).stream_bytes == 300 * kMiB / 16 / 2);
    facts.llc_bytes = 32 * kMiB;  // the development machine: a core complex's L3 for 2 CPUs
    facts.llc_sharing_cpus = 2;
    CHECK(choose_stream_settings(facts).stream_bytes == 8 * kMiB);
    facts.llc_sharing_cpus = 0;  // sharing not said: the whole cache
    CHECK(choose_stream_settings(facts).stream_bytes == 16 * kMiB);
    facts.llc_bytes = 8 * kMiB;  // a small cache: never below the writer's chunks
    facts.llc_sharing_cpus = 8;
    CHECK(choose_stream_settings(facts).stream_bytes == 4 * kMiB);
    facts.llc_bytes.reset();
    CHECK(choose_stream_settings(facts).stream_bytes == 16 * kMiB);
    CHECK(choose_stream_settings(facts).stream_why.find("fixed") != std::string::npos);
}

TEST_CASE("copy_machine: long contiguous runs go to memcpy where glibc streams them, but on Zen 4") {
    MachineFacts facts;
    facts.llc_bytes = 300 * kMiB;
    facts.llc_sharing_cpus = 16;
    facts.glibc_streams_from = 8 * kMiB;
    CHECK(choose_stream_settings(facts).memcpy_bytes == 8 * kMiB);
    facts.glibc_streams_from = 4096;  // a tiny threshold set by hand: runs of 1 MiB and more
    CHECK(choose_stream_settings(facts).memcpy_bytes == kMiB);
    facts.glibc_streams_from.reset();  // not known: tslice's own loop
    CHECK(choose_stream_settings(facts).memcpy_bytes == ~std::size_t{0});
    facts.glibc_streams_from = 240 * kMiB;
    facts.own_stream_loop_faster = true;  // AMD Zen 4: tslice's loop measured faster
    CHECK(choose_stream_settings(facts).memcpy_bytes == ~std::size_t{0});
    CHECK(choose_stream_settings(facts).memcpy_why.find("Zen 4") != std::string::npos);
}

TEST_CASE("copy_machine: the running machine's settings are self-consistent") {
    const tslice::StreamSettings& settings = tslice::stream_settings();
    CHECK(settings.stream_bytes >= 4 * kMiB);
    CHECK(settings.stream_bytes <= std::size_t{1} << 30);
    CHECK_FALSE(settings.stream_why.empty());
    CHECK_FALSE(settings.memcpy_why.empty());
}

TEST_CASE("copy_machine: streaming forced either way never hands a run to memcpy") {
    tslice::set_memcpy_run_bytes(4096);
    CHECK(tslice::memcpy_run_bytes() == 4096);
    tslice::set_stream_choice(tslice::StreamChoice::Always);
    CHECK(tslice::memcpy_run_bytes() == ~std::size_t{0});
    tslice::set_stream_choice(tslice::StreamChoice::Never);
    CHECK(tslice::memcpy_run_bytes() == ~std::size_t{0});
    tslice::set_stream_choice(tslice::StreamChoice::Chosen);
    tslice::set_memcpy_run_bytes(tslice::kMachineMemcpyRunBytes);
    CHECK(tslice::memcpy_run_bytes() == tslice::stream_settings().memcpy_bytes);
}

TEST_CASE("copy_machine: rows of every other element stream their stores, but on Intel") {
    MachineFacts facts;
    facts.llc_bytes = 32 * kMiB;
    CHECK(choose_stream_settings(facts).streamed_step_items == 2);
    facts.streamed_stores_share_fill_buffers = true;  // Intel
    CHECK(choose_stream_settings(facts).streamed_step_items == 1);
    CHECK(choose_stream_settings(facts).streamed_step_why.find("Intel") != std::string::npos);
}

TEST_CASE("copy_machine: short rows of elements several lines apart are prefetched, but on AMD") {
    MachineFacts facts;
    CHECK(choose_stream_settings(facts).prefetch_strided_bands);
    facts.hardware_follows_strided_rows = true;  // AMD
    CHECK_FALSE(choose_stream_settings(facts).prefetch_strided_bands);
    CHECK(choose_stream_settings(facts).prefetch_why.find("AMD") != std::string::npos);
}

TEST_CASE("copy_machine: on Zen 4, rows stepping over several elements within a line stream and prefetch further") {
    MachineFacts facts;
    facts.llc_bytes = 32 * kMiB;
    CHECK(choose_stream_settings(facts).streamed_stepped_row_bytes == 0);
    CHECK(choose_stream_settings(facts).resident_stepped_prefetch_factor == 1);
    facts.stepped_rows_gain_streams_and_further_prefetch = true;  // AMD family 0x19 with AVX-512
    const auto settings = choose_stream_settings(facts);
    CHECK(settings.streamed_stepped_row_bytes == 256);
    CHECK(settings.resident_stepped_prefetch_factor == 2);
    CHECK(settings.streamed_step_why.find("Zen 4") != std::string::npos);
    CHECK(settings.prefetch_why.find("Zen 4") != std::string::npos);
}

TEST_CASE("copy_machine: on Zen 4, short rows of elements more than two lines apart are prefetched into L2") {
    MachineFacts facts;
    facts.llc_bytes = 32 * kMiB;
    facts.hardware_follows_strided_rows = true;  // AMD
    CHECK_FALSE(choose_stream_settings(facts).prefetch_sparse_bands_to_l2);
    CHECK(choose_stream_settings(facts).prefetch_why.find("on AMD the hardware follows them") != std::string::npos);
    facts.sparse_band_rows_gain_l2_prefetch = true;  // AMD family 0x19 with AVX-512
    const auto settings = choose_stream_settings(facts);
    CHECK(settings.prefetch_sparse_bands_to_l2);
    CHECK(settings.prefetch_why.find("into L2, twice as far: faster so on AMD Zen 4") != std::string::npos);
    // The reason for leaving such rows unprefetched is not given where they are prefetched.
    CHECK(settings.prefetch_why.find("on AMD the hardware follows them") == std::string::npos);
}

TEST_CASE("copy_machine: on Zen 4, rows ahead in memory tslice holds are counted rounding up") {
    MachineFacts facts;
    facts.llc_bytes = 32 * kMiB;
    CHECK_FALSE(choose_stream_settings(facts).resident_rows_ahead_round_up);
    facts.resident_rows_gain_whole_prefetch_distance = true;  // AMD family 0x19 with AVX-512
    const auto settings = choose_stream_settings(facts);
    CHECK(settings.resident_rows_ahead_round_up);
    CHECK(settings.prefetch_why.find("at least that far ahead") != std::string::npos);
}

TEST_CASE("copy_machine: on Zen 4, int16 and float32 rows stepping 10 to 14 bytes, read in order, go to the plain loop") {
    MachineFacts facts;
    facts.llc_bytes = 32 * kMiB;
    CHECK(choose_stream_settings(facts).plain_loop_10_to_14_bytes_apart_above == 0);
    CHECK(choose_stream_settings(facts).kernel_why.empty());
    facts.rows_10_to_14_bytes_apart_gain_plain_loop = true;  // AMD family 0x19 with AVX-512
    const auto settings = choose_stream_settings(facts);
    // Only inputs that the last-level cache cannot hold.
    CHECK(settings.plain_loop_10_to_14_bytes_apart_above == 32 * kMiB);
    CHECK(settings.kernel_why.find("by the plain loop where the input spans more than the last-level cache (32 MiB): "
                                   "faster so on AMD Zen 4") != std::string::npos);
    // No last-level cache found: never.
    facts.llc_bytes.reset();
    CHECK(choose_stream_settings(facts).plain_loop_10_to_14_bytes_apart_above == 0);
}
