// The one checked reading of a safetensors header, for the stream spooler as for the file
// reader: the same JSON reader, depth limit and checks.
#pragma once

#include <cstdint>
#include <string_view>

namespace tslice {

// The reference's limit (MAX_HEADER_SIZE): it keeps a hostile header from taking unbounded
// memory and time to parse.
constexpr std::uint64_t kMaxSafetensorsHeaderBytes = 100'000'000;

// Where the header's tensors end, from the start of the data: the largest end offset. Throws
// Error(Input) for a header the file reader would refuse (not JSON, nested too deep, a tensor
// entry that is not one).
std::uint64_t safetensors_data_end(std::string_view header_text);

}  // namespace tslice
