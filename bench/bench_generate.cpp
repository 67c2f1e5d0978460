// `tslice_bench generate` (see bench_generate.hpp).
#include "bench_generate.hpp"

#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tslice/error.hpp"
#include "tslice/npy.hpp"
#include "tslice/write.hpp"

namespace tslice::bench {

namespace {

const std::vector<std::int64_t>& shape_of(const InputSpec& spec, bool quick) { return quick ? spec.quick : spec.full; }

std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

std::uint64_t seed_of(const char* name) {  // FNV-1a: the same data on every machine
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (const char* p = name; *p; ++p) h = (h ^ static_cast<unsigned char>(*p)) * 0x100000001b3ULL;
    return h;
}

bool already_there(const std::string& path, const tslice::DType& dtype, const std::vector<std::int64_t>& shape) {
    try {
        const tslice::NpyHeader header = tslice::NpyArray::read_header(path);
        struct stat st {};
        if (::stat(path.c_str(), &st) != 0) return false;
        return header.shape == shape && header.dtype == dtype && !header.fortran_order &&
               static_cast<std::size_t>(st.st_size) == header.data_offset + header.data_bytes();
    } catch (const std::exception&) {
        return false;
    }
}

// Writes DIR/name.npy through the library's write stage, `fill` producing `count` elements
// from element `first` into a chunk.
void write_npy_file(const std::string& path, const char* descr, const std::vector<std::int64_t>& shape,
                    const tslice::ChunkFiller& fill) {
    const tslice::DType dtype = tslice::parse_dtype_descr(descr);
    if (already_there(path, dtype, shape)) return;
    const auto start = std::chrono::steady_clock::now();
    try {
        tslice::write_npy(path, dtype, shape, fill);
    } catch (const tslice::Error& error) {
        die(error.what());
    }
    std::fprintf(stderr, "tslice_bench: wrote %s (%.1f MiB) in %.1f s\n", path.c_str(),
                 static_cast<double>(product(shape)) * static_cast<double>(dtype.itemsize) / (1 << 20),
                 seconds_since(start));
}

}  // namespace

// Data values: a hash of the element index, so that every misplaced element shows. Floats
// are whole numbers (exact, never NaN); integers take the hash's low bits.
void generate(const Options& options) {
    ::mkdir(options.dir.c_str(), 0777);
    const auto in_process_uses = [](const std::string& name) {
        for (const CaseSpec& c : tslice::bench::cases())
            if (name == c.input || name == c.indices) return true;
        return false;
    };
    for (const auto& spec : tslice::bench::inputs()) {
        if (options.in_process && !in_process_uses(spec.name)) continue;
        const std::uint64_t seed = seed_of(spec.name);
        const std::string kind = spec.descr;
        write_npy_file(path_of(options, spec.name), spec.descr, shape_of(spec, options.quick),
                       [&](std::byte* dst, std::int64_t first, std::int64_t count) {
                           for (std::int64_t i = 0; i < count; ++i) {
                               const std::uint64_t h = splitmix64(seed + static_cast<std::uint64_t>(first + i));
                               if (kind == "'<f4'") {
                                   const float v = static_cast<float>(h >> 40);
                                   std::memcpy(dst + i * 4, &v, 4);
                               } else if (kind == "'<f8'") {
                                   const double v = static_cast<double>(h >> 11);
                                   std::memcpy(dst + i * 8, &v, 8);
                               } else if (kind == "'|u1'") {
                                   dst[i] = static_cast<std::byte>(h);
                               } else if (kind == "'<i2'") {
                                   const auto v = static_cast<std::int16_t>(h);
                                   std::memcpy(dst + i * 2, &v, 2);
                               } else {
                                   die("no generator for " + kind);
                               }
                           }
                       });
    }
    for (const auto& spec : tslice::bench::indices_files()) {
        if (options.in_process && !in_process_uses(spec.name)) continue;
        // The bound: the gathered axis of the data file of the case that uses these indices.
        std::int64_t bound = 0;
        std::vector<CaseSpec> gathers = tslice::bench::cases();
        for (const CaseSpec& c : tslice::bench::whole_process_gathers()) gathers.push_back(c);
        for (const auto& c : gathers)
            if (spec.name == std::string(c.indices))
                bound = shape_of(input_spec(c.input), options.quick)[static_cast<std::size_t>(c.gather_axis)];
        if (bound <= 0) die(std::string("no case uses the indices ") + spec.name);
        const std::uint64_t seed = seed_of(spec.name);
        const std::int64_t count = options.quick ? spec.quick_count : spec.full_count;
        write_npy_file(path_of(options, spec.name), "'<i8'", {count},
                       [&](std::byte* dst, std::int64_t first, std::int64_t n) {
                           for (std::int64_t i = 0; i < n; ++i) {
                               const auto v = static_cast<std::int64_t>(
                                   splitmix64(seed + static_cast<std::uint64_t>(first + i)) %
                                   static_cast<std::uint64_t>(bound));
                               std::memcpy(dst + i * 8, &v, 8);
                           }
                       });
    }
}

}  // namespace tslice::bench
