// Fuzz target: --astype's names, the conversions and --stats' reduction.
//
// Input: the --astype text up to the first newline, then a byte choosing the source type, then
// the source elements' bytes (any bits: NaNs, infinities, huge values, unused bool bytes).
// Checks, besides "no crash, no sanitizer report (float to integer of any value included),
// only tslice::Error":
//   - a name that parses names a type whose own name parses to the same type;
//   - converting all the elements at once gives the bytes of converting them one by one (the
//     swap blocks, the F16C tails and the lookup tables against the single-element path);
//   - the statistics count every element, NaNs and infinities at most that, min <= max, and a
//     finite mean lies between them.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_common.hpp"
#include "tslice/convert.hpp"
#include "tslice/error.hpp"
#include "tslice/stats.hpp"

using namespace tslice;

namespace {

constexpr const char* kSources[] = {"bool", "i1",  "u1",  "<i2", ">i2", "<u2", ">u4", "<i4", "<i8", ">u8",
                                    "<f2",  ">f2", "<f4", ">f4", "<f8", ">f8", "f16", "<c8", ">c16", "bf16",
                                    "f8_e4m3", "f8_e5m2", "f8_e8m0"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const std::size_t newline = input.find('\n');
    const std::string_view name = input.substr(0, newline);
    const std::string_view rest = newline == std::string_view::npos ? std::string_view() : input.substr(newline + 1);
    ElementType target;
    try {
        target = parse_astype(name);
    } catch (const Error& error) {
        TSLICE_FUZZ_CHECK(error.kind() == ErrorKind::Usage);
        return 0;
    }
    TSLICE_FUZZ_CHECK(parse_astype(target.name()) == target);

    tslice_fuzz::ByteReader reader(reinterpret_cast<const std::uint8_t*>(rest.data()), rest.size());
    const ElementType source = parse_astype(kSources[reader.range(0, sizeof kSources / sizeof *kSources - 1)]);
    const std::string_view bytes = reader.rest();
    const std::size_t count = bytes.size() / source.itemsize();
    const auto* src = reinterpret_cast<const std::byte*>(bytes.data());

    const Conversion conversion(source, target);
    std::vector<std::byte> all(count * target.itemsize()), one(count * target.itemsize());
    conversion.run(src, all.data(), static_cast<std::int64_t>(count));
    for (std::size_t i = 0; i < count; ++i)
        conversion.run(src + i * source.itemsize(), one.data() + i * target.itemsize(), 1);
    if (all != one) tslice_fuzz::finding("%s -> %s: converting at once differs from one by one",
                                         source.name().c_str(), target.name().c_str());

    try {
        check_stats_type(source, target);
    } catch (const Error&) {
        return 0;  // complex: refused
    }
    const ArrayStats stats = compute_stats(src, View::contiguous({static_cast<std::int64_t>(count)}, source.itemsize()),
                                           source, target, {}, 2);
    TSLICE_FUZZ_CHECK(stats.count == static_cast<std::int64_t>(count));
    TSLICE_FUZZ_CHECK(stats.nan + stats.posinf + stats.neginf <= stats.count);
    TSLICE_FUZZ_CHECK(stats.min.has_value() == (stats.nan < stats.count));
    if (stats.min && std::holds_alternative<double>(*stats.min)) {
        const double lo = std::get<double>(*stats.min), hi = std::get<double>(*stats.max);
        TSLICE_FUZZ_CHECK(lo <= hi);
        if (std::isfinite(*stats.mean) && std::isfinite(lo) && std::isfinite(hi))
            TSLICE_FUZZ_CHECK(*stats.mean >= lo - 1e-9 * std::fabs(lo) && *stats.mean <= hi + 1e-9 * std::fabs(hi));
    }
    return 0;
}
