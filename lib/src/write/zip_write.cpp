// The framing of an .npz of one stored member, as pure functions of the member's name, size
// and CRC-32 (the layout is in zip.cpp's comment).
//
// The local header has flag bit 3 set: its CRC field is 0 and the real CRC follows the data in
// a data descriptor, so the member is streamed once and never patched (the output may be a
// pipe). Its sizes are known in advance and written anyway, which readers that stream a
// stored member need. Sizes of 4 GiB or more use zip64 fields, as does an end record whose
// directory starts past 4 GiB. The modification time is fixed (1980-01-01 00:00, the
// format's epoch), so the same input gives the same bytes.
#include <libdeflate.h>

#include <algorithm>

#include "tslice/container.hpp"

namespace tslice {

namespace {

constexpr std::uint32_t k32 = 0xFFFFFFFF;
constexpr std::uint16_t kDosDate = (0 << 9) | (1 << 5) | 1;  // 1980-01-01

void put(std::string& out, std::uint64_t value, int bytes) {
    for (int k = 0; k < bytes; ++k) out += static_cast<char>((value >> (8 * k)) & 0xFF);
}

bool needs_zip64(std::uint64_t member_size) { return member_size >= k32; }

std::uint16_t flags_for(std::string_view name) {
    const bool ascii = std::all_of(name.begin(), name.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
    return static_cast<std::uint16_t>(0x0008 | (ascii ? 0 : 0x0800));  // data descriptor; UTF-8 name
}

std::string zip64_extra(std::uint64_t member_size) {
    std::string out;
    put(out, 0x0001, 2);
    put(out, 16, 2);
    put(out, member_size, 8);  // uncompressed
    put(out, member_size, 8);  // compressed
    return out;
}

std::size_t prefix_size(std::string_view member, std::uint64_t member_size) {
    return 30 + member.size() + (needs_zip64(member_size) ? 20 : 0);
}

}  // namespace

std::uint32_t crc32_update(std::uint32_t crc, const std::byte* bytes, std::size_t size) {
    return libdeflate_crc32(crc, bytes, size);
}

std::string npz_prefix(std::string_view member, std::uint64_t member_size) {
    const bool zip64 = needs_zip64(member_size);
    const std::string extra = zip64 ? zip64_extra(member_size) : std::string();
    std::string out;
    put(out, 0x04034b50, 4);
    put(out, zip64 ? 45 : 20, 2);  // version needed to extract
    put(out, flags_for(member), 2);
    put(out, 0, 2);  // stored
    put(out, 0, 2);  // time
    put(out, kDosDate, 2);
    put(out, 0, 4);  // CRC-32: in the data descriptor
    put(out, zip64 ? k32 : member_size, 4);
    put(out, zip64 ? k32 : member_size, 4);
    put(out, member.size(), 2);
    put(out, extra.size(), 2);
    out += member;
    out += extra;
    return out;
}

std::string npz_suffix(std::string_view member, std::uint64_t member_size, std::uint32_t crc32) {
    const bool zip64 = needs_zip64(member_size);
    std::string out;
    // Data descriptor.
    put(out, 0x08074b50, 4);
    put(out, crc32, 4);
    put(out, member_size, zip64 ? 8 : 4);
    put(out, member_size, zip64 ? 8 : 4);

    const std::uint64_t directory_offset = prefix_size(member, member_size) + member_size + out.size();
    const std::string extra = zip64 ? zip64_extra(member_size) : std::string();
    std::string directory;
    put(directory, 0x02014b50, 4);
    put(directory, (3 << 8) | 45, 2);  // made by: Unix, zip 4.5
    put(directory, zip64 ? 45 : 20, 2);
    put(directory, flags_for(member), 2);
    put(directory, 0, 2);
    put(directory, 0, 2);
    put(directory, kDosDate, 2);
    put(directory, crc32, 4);
    put(directory, zip64 ? k32 : member_size, 4);
    put(directory, zip64 ? k32 : member_size, 4);
    put(directory, member.size(), 2);
    put(directory, extra.size(), 2);
    put(directory, 0, 2);  // comment
    put(directory, 0, 2);  // disk
    put(directory, 0, 2);  // internal attributes
    put(directory, std::uint64_t{0100644} << 16, 4);  // a regular file, rw-r--r--
    put(directory, 0, 4);  // the local header is at the start
    directory += member;
    directory += extra;
    out += directory;

    const bool zip64_end = directory_offset >= k32;
    if (zip64_end) {
        const std::uint64_t record_offset = directory_offset + directory.size();
        put(out, 0x06064b50, 4);
        put(out, 44, 8);  // the record's size after this field
        put(out, (3 << 8) | 45, 2);
        put(out, 45, 2);
        put(out, 0, 4);
        put(out, 0, 4);
        put(out, 1, 8);
        put(out, 1, 8);
        put(out, directory.size(), 8);
        put(out, directory_offset, 8);
        put(out, 0x07064b50, 4);  // locator
        put(out, 0, 4);
        put(out, record_offset, 8);
        put(out, 1, 4);
    }
    put(out, 0x06054b50, 4);
    put(out, 0, 2);
    put(out, 0, 2);
    put(out, 1, 2);
    put(out, 1, 2);
    put(out, directory.size(), 4);
    put(out, zip64_end ? k32 : directory_offset, 4);
    put(out, 0, 2);  // comment
    return out;
}

}  // namespace tslice
