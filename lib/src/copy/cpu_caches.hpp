// What tslice knows of the caches of the CPU it runs on, for choices that depend on them
// (copy_plan.cpp: from what size a copy streams its stores past the caches).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace tslice {

// The size of the last-level data cache of the first CPU, as the kernel describes it in
// `cache_dir` (one `indexN` directory per cache, with `level`, `type` and `size`); nothing
// if it does not say. For a cache shared by a group of cores (an L3 per core complex), the
// size of that group's cache, not of all the caches of that level on the machine.
std::optional<std::size_t> last_level_cache_bytes(const std::string& cache_dir = "/sys/devices/system/cpu/cpu0/cache");

// That cache and how many CPUs share it (its `shared_cpu_list`, e.g. "0-15" or "0,2,4-7";
// 0 when the kernel does not say): the share of it one copying thread can count on is its
// size over that count (copy_machine.cpp).
struct LastLevelCache {
    std::size_t bytes = 0;
    unsigned sharing_cpus = 0;
};
std::optional<LastLevelCache> last_level_cache(const std::string& cache_dir = "/sys/devices/system/cpu/cpu0/cache");

// The number of CPUs in a kernel CPU list ("0-3,8,10-11": 7); nothing if it is not one.
std::optional<unsigned> count_cpu_list(const std::string& text);

}  // namespace tslice
