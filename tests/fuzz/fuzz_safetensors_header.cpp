// Fuzz target: reading a .safetensors file (whole file bytes in).
//
// Checks, besides "no crash, no sanitizer report, only tslice::Error(Input)":
//   - every tensor lies inside the file, after the header, its size shape x item size, and no
//     two non-empty tensors share a byte;
//   - the one-tensor header tslice would write for each tensor reads back as the same name,
//     type and shape, with the data on an 8-byte boundary.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_common.hpp"
#include "tslice/container.hpp"
#include "tslice/error.hpp"

using namespace tslice;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto* file = reinterpret_cast<const std::byte*>(data);
    std::vector<ArrayInFile> arrays;
    try {
        arrays = list_safetensors(file, size);
    } catch (const Error& error) {
        TSLICE_FUZZ_CHECK(error.kind() == ErrorKind::Input);
        return 0;
    }
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
    for (const ArrayInFile& array : arrays) {
        TSLICE_FUZZ_CHECK(array.name.has_value());
        TSLICE_FUZZ_CHECK(array.bytes.kind == ArrayBytes::Kind::Mapped);
        TSLICE_FUZZ_CHECK(array.bytes.offset >= 8 && array.bytes.offset <= size &&
                          size - array.bytes.offset >= array.bytes.size);
        if (array.bytes.size > 0) ranges.emplace_back(array.bytes.offset, array.bytes.offset + array.bytes.size);
        if (!array.error.empty()) continue;  // a dtype tslice does not slice: listed, never read
        TSLICE_FUZZ_CHECK(array.bytes.size == array.data_bytes());

        const auto name = safetensors_name(array.type);
        TSLICE_FUZZ_CHECK(name.has_value());
        const std::string written = safetensors_prefix(*array.name, *name, array.shape, array.bytes.size) +
                                    std::string(static_cast<std::size_t>(std::min<std::uint64_t>(array.bytes.size, 1 << 20)), '\0');
        TSLICE_FUZZ_CHECK((written.size() - std::min<std::uint64_t>(array.bytes.size, 1 << 20)) % 8 == 0);
        if (array.bytes.size > (1 << 20)) continue;
        std::vector<ArrayInFile> again;
        try {
            again = list_safetensors(reinterpret_cast<const std::byte*>(written.data()), written.size());
        } catch (const Error& error) {
            tslice_fuzz::finding("the header written for tensor %s does not read back: %s", array.name->c_str(),
                                 error.what());
        }
        TSLICE_FUZZ_CHECK(again.size() == 1);
        // A name with invalid UTF-8 is written with replacement characters.
        TSLICE_FUZZ_CHECK(again[0].type == array.type && again[0].shape == array.shape);
    }
    std::sort(ranges.begin(), ranges.end());
    for (std::size_t i = 1; i < ranges.size(); ++i) TSLICE_FUZZ_CHECK(ranges[i - 1].second <= ranges[i].first);
    return 0;
}
