// The kernel's description of the CPU caches (sysfs), read instead of asking the CPU
// (cpuid) or glibc (sysconf(_SC_LEVEL3_CACHE_SIZE)): in the VMs tslice was measured on,
// glibc reported 384 MiB of L3, the sum over the host's core complexes, where the cores
// this process runs on share 32 MiB, which is what sysfs says.
#include "copy/cpu_caches.hpp"

#include <dirent.h>

#include <cctype>
#include <fstream>
#include <memory>

namespace tslice {
namespace {

std::optional<std::string> first_word(const std::string& path) {
    std::ifstream file(path);
    std::string word;
    if (!(file >> word)) return std::nullopt;
    return word;
}

// "32768K", "1M", "512": the kernel writes kibibytes with a K; other suffixes are read too.
std::optional<std::size_t> parse_size(const std::string& text) {
    std::size_t value = 0, at = 0;
    for (; at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])); ++at) {
        if (value > (std::size_t{1} << 40)) return std::nullopt;
        value = value * 10 + static_cast<std::size_t>(text[at] - '0');
    }
    if (at == 0) return std::nullopt;
    const std::string suffix = text.substr(at);
    if (suffix.empty()) return value;
    if (suffix == "K") return value << 10;
    if (suffix == "M") return value << 20;
    if (suffix == "G") return value << 30;
    return std::nullopt;
}

}  // namespace

std::optional<unsigned> count_cpu_list(const std::string& text) {
    unsigned count = 0;
    std::size_t at = 0;
    const auto number = [&]() -> std::optional<unsigned> {
        const std::size_t start = at;
        unsigned value = 0;
        for (; at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])); ++at) {
            if (value > 1000000) return std::nullopt;
            value = value * 10 + static_cast<unsigned>(text[at] - '0');
        }
        if (at == start) return std::nullopt;
        return value;
    };
    while (at < text.size()) {
        const std::optional<unsigned> first = number();
        if (!first) return std::nullopt;
        unsigned last = *first;
        if (at < text.size() && text[at] == '-') {
            ++at;
            const std::optional<unsigned> end = number();
            if (!end || *end < *first) return std::nullopt;
            last = *end;
        }
        count += last - *first + 1;
        if (at == text.size()) break;
        if (text[at] != ',' || at + 1 == text.size()) return std::nullopt;
        ++at;
    }
    if (count == 0) return std::nullopt;
    return count;
}

std::optional<std::size_t> last_level_cache_bytes(const std::string& cache_dir) {
    const std::optional<LastLevelCache> cache = last_level_cache(cache_dir);
    if (!cache) return std::nullopt;
    return cache->bytes;
}

std::optional<LastLevelCache> last_level_cache(const std::string& cache_dir) {
    const std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(cache_dir.c_str()), ::closedir);
    if (!dir) return std::nullopt;
    int best_level = 0;
    std::optional<std::size_t> best;
    std::string best_dir;
    while (const dirent* entry = ::readdir(dir.get())) {
        const std::string name = entry->d_name;
        if (name.rfind("index", 0) != 0) continue;
        const std::string base = cache_dir + "/" + name + "/";
        const std::optional<std::string> type = first_word(base + "type");
        if (!type || (*type != "Data" && *type != "Unified")) continue;
        const std::optional<std::string> level_text = first_word(base + "level");
        const std::optional<std::string> size_text = first_word(base + "size");
        if (!level_text || !size_text || level_text->size() != 1 || !std::isdigit(static_cast<unsigned char>((*level_text)[0])))
            continue;
        const int level_number = (*level_text)[0] - '0';
        const std::optional<std::size_t> size = parse_size(*size_text);
        if (!size || *size == 0) continue;
        if (level_number > best_level || (level_number == best_level && *size > *best)) {
            best_level = level_number;
            best = size;
            best_dir = base;
        }
    }
    if (!best) return std::nullopt;
    LastLevelCache cache{*best, 0};
    if (const std::optional<std::string> list = first_word(best_dir + "shared_cpu_list"))
        cache.sharing_cpus = count_cpu_list(*list).value_or(0);
    return cache;
}

}  // namespace tslice
