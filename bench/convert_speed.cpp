// tslice_convert_speed [--quick]: the --astype kernels in process, one thread, against memcpy
// of the bytes they write: each pair converts a 64 MiB output (4 MiB with --quick), well past
// the caches, from a buffer of varied values; the median of 7 runs of the thread's CPU time.
// Target: memcpy time / conversion time >= 0.8.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "tslice/convert.hpp"

namespace {

// This thread's CPU time in ms: on a machine other processes keep busy, the wall time of a
// run is mostly its waits for a core, the CPU time what the run itself costs.
double thread_ms() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) * 1e-6;
}

double median_ms(const std::function<void()>& body) {
    std::vector<double> times;
    body();  // warm: the pages are faulted in
    for (int i = 0; i < 7; ++i) {
        const double start = thread_ms();
        body();
        times.push_back(thread_ms() - start);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
    const std::size_t out_bytes = quick ? std::size_t{4} << 20 : std::size_t{64} << 20;
    const char* pairs[][2] = {{"f4", "f2"}, {"f2", "f4"}, {"f4", "bf16"}, {"bf16", "f4"}, {"f8_e4m3", "f4"},
                              {"f8_e4m3", "f2"}, {"f8_e5m2", "f4"}, {"i4", "f4"}, {"i2", "f4"}, {"f8", "f4"},
                              {"f4", "f8"}, {"u1", "f4"}, {"f4", "f8_e4m3"}};
    std::mt19937_64 rng(1);
    std::printf("--astype kernels, one thread, %zu MiB written each: CPU ms of the thread (median of 7), memcpy of the bytes written, "
                "memcpy/kernel (target >= 0.8)\n", out_bytes >> 20);
    int misses = 0;
    for (const auto& pair : pairs) {
        const tslice::ElementType from = tslice::parse_astype(pair[0]), to = tslice::parse_astype(pair[1]);
        const tslice::Conversion conversion(from, to);
        const std::size_t count = out_bytes / to.itemsize();
        std::vector<std::byte> src(count * from.itemsize()), dst(out_bytes), copy(out_bytes);
        // Values the types hold: float32 normals made narrower where the source is narrow.
        std::vector<float> values(count);
        // Spread over about 2^-8 .. 2^8, both signs (a cheap generator: the values only need to vary).
        std::uint64_t state = rng();
        for (float& v : values) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            const auto top = static_cast<std::uint32_t>(state >> 32);
            v = std::ldexp(static_cast<float>(top & 0xffffff) / 16777216.0f + 0.5f, static_cast<int>(top >> 24) % 17 - 8) *
                ((top & 0x800000) ? -1.0f : 1.0f);
        }
        const tslice::Conversion make(tslice::parse_astype("f4"), from);
        make.run(reinterpret_cast<const std::byte*>(values.data()), src.data(), static_cast<std::int64_t>(count));
        const double t_kernel = median_ms([&] { conversion.run(src.data(), dst.data(), static_cast<std::int64_t>(count)); });
        const double t_copy = median_ms([&] { std::memcpy(copy.data(), dst.data(), out_bytes); });
        const double ratio = t_copy / t_kernel;
        misses += ratio < 0.8;
        std::printf("  %-8s -> %-8s %8.1f ms  memcpy %8.1f ms  %.2f %s\n", pair[0], pair[1], t_kernel, t_copy, ratio,
                    ratio >= 0.8 ? "PASS" : "MISS");
    }
    std::printf("  %d MISS\n", misses);
    return 0;
}
