// GGUF files (llama.cpp's model format, versions 2 and 3) and ggml's block-quantized types.
//
// A GGUF tensor of a plain type (F32, F16, BF16, F64, I8-I64) is an array like any other
// (list_arrays lists it). A quantized one is listed with its type name (ArrayInFile::quantized)
// and is stored as blocks along its last numpy axis (GGUF's ne[0]): each block holds
// block_elements values in block_bytes bytes. ggml_dequantize turns whole blocks into floats,
// as ggml's reference code does, for the types it names.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tslice/container.hpp"

namespace tslice {

struct GgmlType {
    std::uint32_t id = 0;     // ggml's enum ggml_type
    const char* name = "";    // "Q4_K"
    std::uint32_t block_elements = 1;
    std::uint32_t block_bytes = 0;
    bool quantized = false;   // false for F32, F16, BF16, F64, I8-I64
};

// ggml's type `id`, nullopt for a number it does not define (or no longer does: 4, 5, 31-33).
std::optional<GgmlType> ggml_type(std::uint32_t id);
// By name ("Q8_0"), nullopt for an unknown name.
std::optional<GgmlType> ggml_type_named(std::string_view name);

// Whether ggml_dequantize decodes `type`: Q8_0, Q4_0, Q4_1, Q5_0 and Q5_1.
bool ggml_can_dequantize(const GgmlType& type);
// The quantized types it decodes, for messages: "Q8_0, Q4_0, Q4_1, Q5_0, Q5_1".
std::string ggml_dequantizable_names();

// Decodes `block_count` blocks of `type` at `blocks` (block_count * type.block_bytes bytes, any
// alignment) into block_count * type.block_elements floats at `out`, value for value as
// ggml's dequantize_row_* reference functions (ggml-quants.c) compute them. Throws
// Error(Usage) naming the type for one ggml_can_dequantize refuses.
void ggml_dequantize(const GgmlType& type, const std::byte* blocks, std::size_t block_count, float* out);

// The array a conversion (--astype) reads in place of `array`: a quantized GGUF tensor of a
// type ggml_dequantize decodes becomes a float32 array whose bytes are those blocks, decoded
// when read (ArrayBytes::Kind::Quantized; only the blocks the selection reaches). Any other
// array is returned as it is (a quantized type that is not decoded stays refused when read).
ArrayInFile dequantized(const ArrayInFile& array);

// The metadata of a GGUF file as one JSON object, key -> value in the file's order: integers
// and floats as JSON numbers (non-finite floats as the strings "nan", "inf", "-inf"), bools,
// strings (bytes that are not UTF-8 replaced), arrays as JSON arrays. Throws Error(Input) as
// list_arrays does for a broken file.
std::string gguf_metadata_json(const std::byte* file, std::size_t size);

}  // namespace tslice
