// What the parts of tslice_bench share (see bench_common.hpp).
#include "bench_common.hpp"

#include <sys/mman.h>

#include <cstdio>
#include <cstring>

namespace tslice::bench {

[[noreturn]] void die(const std::string& message) {
    std::fprintf(stderr, "tslice_bench: %s\n", message.c_str());
    std::exit(1);
}

std::int64_t product(const std::vector<std::int64_t>& shape) {
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
}

const InputSpec& input_spec(const std::string& name) {
    for (const auto& spec : tslice::bench::inputs())
        if (name == spec.name) return spec;
    die("no input named " + name);
}

std::string path_of(const Options& options, const std::string& name) { return options.dir + "/" + name + ".npy"; }

std::int64_t huge_pages_mib() {
    std::FILE* file = std::fopen("/proc/self/smaps_rollup", "r");
    if (file == nullptr) return -1;
    char line[256];
    long long kib = -1;
    while (std::fgets(line, sizeof line, file))
        if (std::sscanf(line, "AnonHugePages: %lld kB", &kib) == 1) break;
    std::fclose(file);
    return kib < 0 ? -1 : kib / 1024;
}

Buffer::Buffer(std::size_t size) : size_(size) {
    constexpr std::size_t kHuge = std::size_t{2} << 20;
    const std::size_t rounded = std::max(kHuge, (size + kHuge - 1) / kHuge * kHuge);
    void* p = std::aligned_alloc(kHuge, rounded);
    if (p == nullptr) die("out of memory allocating " + std::to_string(size) + " bytes");
    ::madvise(p, rounded, MADV_HUGEPAGE);
    std::memset(p, 0, rounded);
    data_.reset(static_cast<std::byte*>(p));
}

}  // namespace tslice::bench
