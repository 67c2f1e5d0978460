// The framing of a zip archive of several members, as pure functions: what an .npz written
// array by array (several results, or --update) holds around each member's bytes.
//
//   per member:  local header, the member's bytes, (a data descriptor with its CRC-32)
//   at the end:  the central directory, (zip64 end record and locator), the end record
//
// A member copied from another archive keeps its method and CRC-32 and has no descriptor; a
// member being written has its CRC-32 in a descriptor after it, so it is streamed once. Sizes
// or offsets of 4 GiB or more take zip64 fields, as Python's zipfile reads them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tslice::zip {

struct MemberFrame {
    std::string name;  // UTF-8
    std::uint16_t method = 0;  // 0 stored, 8 deflated
    std::uint32_t crc32 = 0;   // with a descriptor: known only once the member is written
    std::uint64_t stored_size = 0;
    std::uint64_t size = 0;
    std::uint64_t offset = 0;  // of its local header, from the archive's first byte
    bool descriptor = false;   // its CRC-32 follows the data
};

std::string local_header(const MemberFrame& member);
std::string data_descriptor(const MemberFrame& member);
// The central directory and end records of `members`, which start at `directory_offset`.
std::string directory(const std::vector<MemberFrame>& members, std::uint64_t directory_offset);

}  // namespace tslice::zip
