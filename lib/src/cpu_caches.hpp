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

}  // namespace tslice
