// The last-level cache as the kernel describes it (sysfs), read from a made-up directory.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "copy/cpu_caches.hpp"

namespace fs = std::filesystem;
using tslice::last_level_cache_bytes;

namespace {

struct CacheDir {
    fs::path root;
    CacheDir() {
        char name[] = "/tmp/tslice_caches_XXXXXX";
        REQUIRE(::mkdtemp(name) != nullptr);
        root = name;
    }
    ~CacheDir() { fs::remove_all(root); }
    void add(const std::string& index, const std::string& level, const std::string& type, const std::string& size) {
        const fs::path dir = root / index;
        fs::create_directories(dir);
        std::ofstream(dir / "level") << level << "\n";
        std::ofstream(dir / "type") << type << "\n";
        if (!size.empty()) std::ofstream(dir / "size") << size << "\n";
    }
};

}  // namespace

TEST_CASE("cpu_caches: the highest level of data or unified cache, in kernel units") {
    CacheDir dir;
    dir.add("index0", "1", "Data", "48K");
    dir.add("index1", "1", "Instruction", "32K");
    dir.add("index2", "2", "Unified", "1024K");
    dir.add("index3", "3", "Unified", "32768K");
    CHECK(last_level_cache_bytes(dir.root.string()) == std::size_t{32} << 20);
}

TEST_CASE("cpu_caches: an instruction cache never counts, and a machine without L3 gives its L2") {
    CacheDir dir;
    dir.add("index0", "1", "Data", "32K");
    dir.add("index1", "2", "Unified", "2M");
    dir.add("index2", "3", "Instruction", "64M");
    CHECK(last_level_cache_bytes(dir.root.string()) == std::size_t{2} << 20);
}

TEST_CASE("cpu_caches: nothing when the kernel says nothing usable") {
    CHECK_FALSE(last_level_cache_bytes("/nonexistent/tslice/cache").has_value());
    CacheDir dir;
    CHECK_FALSE(last_level_cache_bytes(dir.root.string()).has_value());
    dir.add("index0", "3", "Unified", "");         // no size file
    dir.add("index1", "3", "Unified", "lots");     // not a size
    dir.add("index2", "3K", "Unified", "8M");      // not a level
    dir.add("index3", "2", "Unified", "0K");       // no cache
    dir.add("index4", "2", "Unified", "12345678901234567890K");  // beyond any cache
    dir.add("index5", "2", "Unified", "4X");       // unknown unit
    CHECK_FALSE(last_level_cache_bytes(dir.root.string()).has_value());
    dir.add("other", "4", "Unified", "1G");        // not a cache index
    CHECK_FALSE(last_level_cache_bytes(dir.root.string()).has_value());
}

TEST_CASE("cpu_caches: how many CPUs share the last-level cache, from its shared_cpu_list") {
    using tslice::count_cpu_list;
    CHECK(count_cpu_list("0") == 1u);
    CHECK(count_cpu_list("0-1") == 2u);
    CHECK(count_cpu_list("0-15") == 16u);
    CHECK(count_cpu_list("0,2,4-7") == 6u);
    CHECK(count_cpu_list("8-11,24-27") == 8u);
    CHECK_FALSE(count_cpu_list("").has_value());
    CHECK_FALSE(count_cpu_list("3-1").has_value());
    CHECK_FALSE(count_cpu_list("0,").has_value());
    CHECK_FALSE(count_cpu_list("0-").has_value());
    CHECK_FALSE(count_cpu_list("a").has_value());

    CacheDir dir;
    dir.add("index2", "2", "Unified", "2048K");
    dir.add("index3", "3", "Unified", "307200K");
    std::ofstream(dir.root / "index2" / "shared_cpu_list") << "0\n";
    std::ofstream(dir.root / "index3" / "shared_cpu_list") << "0-15\n";
    const auto cache = tslice::last_level_cache(dir.root.string());
    REQUIRE(cache.has_value());
    CHECK(cache->bytes == std::size_t{300} << 20);
    CHECK(cache->sharing_cpus == 16u);
    std::ofstream(dir.root / "index3" / "shared_cpu_list") << "garbage\n";
    CHECK(tslice::last_level_cache(dir.root.string())->sharing_cpus == 0u);
}
