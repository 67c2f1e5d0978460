// The one checked reading of a safetensors header, for the stream spooler as for the file
// reader: the same JSON reading path (base/json_sax.hpp), depth limit and checks.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tslice {

// The reference's limit (MAX_HEADER_SIZE): it keeps a hostile header from taking unbounded
// memory and time to parse.
constexpr std::uint64_t kMaxSafetensorsHeaderBytes = 100'000'000;

// One tensor as the header describes it: its dtype by the file's name for it ("F32").
struct SafetensorsEntry {
    std::string name;
    std::vector<std::int64_t> shape;
    std::uint64_t begin = 0, end = 0;
    std::string dtype;
};

// The tensors of the header, sorted by name (the order in which the reference's
// safe_open().keys() lists them); of a name given twice, the last. Throws Error(Input) for a
// header that is not JSON, or whose entries are not {"dtype": STRING, "shape": [N, ...],
// "data_offsets": [B, E]} (other keys are passed over, as the reference passes over them), or
// whose "__metadata__" is not an object.
std::vector<SafetensorsEntry> read_safetensors_header(std::string_view header_text);

// Where the header's tensors end, from the start of the data: the largest end offset. Throws
// Error(Input) for a header that is not JSON or not an object; the rest of each entry is
// checked when the spooled file is listed.
std::uint64_t safetensors_data_end(std::string_view header_text);

// The text of the header's "__metadata__" object as written; empty where there is none or the
// header does not read.
std::string safetensors_metadata_text(std::string_view header_text);

}  // namespace tslice
