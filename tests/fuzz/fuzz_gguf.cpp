// Fuzz target: reading a GGUF file (whole file bytes in): header, metadata, tensor infos.
//
// Checks, besides "no crash, no hang, no sanitizer report, only tslice::Error(Input)":
//   - every tensor of a known type lies inside the file, its size the whole blocks its shape
//     needs (elements x item size for a plain type);
//   - the metadata reads as JSON too, exactly when the tensors do;
//   - the first blocks of a tensor of a type ggml_dequantize decodes dequantize.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_common.hpp"
#include "tslice/container.hpp"
#include "tslice/error.hpp"
#include "tslice/gguf.hpp"

using namespace tslice;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto* file = reinterpret_cast<const std::byte*>(data);
    std::vector<ArrayInFile> arrays;
    try {
        arrays = list_gguf(file, size);
    } catch (const Error& error) {
        TSLICE_FUZZ_CHECK(error.kind() == ErrorKind::Input);
        return 0;
    }
    try {
        (void)gguf_metadata_json(file, size);
    } catch (const Error& error) {
        tslice_fuzz::finding("the tensors list but the metadata does not: %s", error.what());
    }
    for (const ArrayInFile& array : arrays) {
        TSLICE_FUZZ_CHECK(array.name.has_value());
        const auto type = ggml_type_named(array.quantized.empty() ? "F32" : array.quantized);
        if (!type) continue;  // an unknown type: listed, never read
        TSLICE_FUZZ_CHECK(array.bytes.offset <= size && size - array.bytes.offset >= array.bytes.size);
        if (array.quantized.empty()) {
            TSLICE_FUZZ_CHECK(array.bytes.size == array.data_bytes());
            continue;
        }
        std::uint64_t elements = 1;
        for (const auto dim : array.shape) elements *= static_cast<std::uint64_t>(dim);
        TSLICE_FUZZ_CHECK(array.bytes.size == elements / type->block_elements * type->block_bytes);
        if (!ggml_can_dequantize(*type)) continue;
        const std::size_t blocks = static_cast<std::size_t>(std::min<std::uint64_t>(array.bytes.size / type->block_bytes, 4));
        std::vector<float> out(blocks * type->block_elements);
        ggml_dequantize(*type, file + array.bytes.offset, blocks, out.data());
    }
    return 0;
}
