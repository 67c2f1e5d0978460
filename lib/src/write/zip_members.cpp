// Zip framing for archives of one member or several (zip_members.hpp); npz_prefix and
// npz_suffix frame a one-member archive with it too.
#include "write/zip_members.hpp"

#include <algorithm>

#include "base/bytes.hpp"

namespace tslice::zip {

namespace {

constexpr std::uint64_t k32 = 0xFFFFFFFF;
constexpr std::uint16_t kDosDate = (0 << 9) | (1 << 5) | 1;  // 1980-01-01: the same input, the same bytes

bool large(const MemberFrame& member) { return member.size >= k32 || member.stored_size >= k32; }

std::uint16_t flags(const MemberFrame& member) {
    const bool ascii = std::all_of(member.name.begin(), member.name.end(),
                                   [](char c) { return static_cast<unsigned char>(c) < 0x80; });
    return static_cast<std::uint16_t>((member.descriptor ? 0x0008 : 0) | (ascii ? 0 : 0x0800));
}

}  // namespace

std::string local_header(const MemberFrame& member) {
    const bool zip64 = large(member);
    std::string extra;
    if (zip64) {
        append_le(extra, 0x0001, 2);
        append_le(extra, 16, 2);
        append_le(extra, member.size, 8);
        append_le(extra, member.stored_size, 8);
    }
    std::string out;
    append_le(out, 0x04034b50, 4);
    append_le(out, zip64 ? 45 : 20, 2);
    append_le(out, flags(member), 2);
    append_le(out, member.method, 2);
    append_le(out, 0, 2);  // time
    append_le(out, kDosDate, 2);
    append_le(out, member.descriptor ? 0 : member.crc32, 4);
    append_le(out, zip64 ? k32 : member.stored_size, 4);
    append_le(out, zip64 ? k32 : member.size, 4);
    append_le(out, member.name.size(), 2);
    append_le(out, extra.size(), 2);
    return out + member.name + extra;
}

std::string data_descriptor(const MemberFrame& member) {
    const std::size_t width = large(member) ? 8 : 4;
    std::string out;
    append_le(out, 0x08074b50, 4);
    append_le(out, member.crc32, 4);
    append_le(out, member.stored_size, width);
    append_le(out, member.size, width);
    return out;
}

std::string directory(const std::vector<MemberFrame>& members, std::uint64_t directory_offset) {
    std::string out;
    for (const MemberFrame& member : members) {
        // The zip64 extra holds, in this order, only the fields too large for their place.
        std::string extra;
        const bool sizes64 = large(member), offset64 = member.offset >= k32;
        if (sizes64 || offset64) {
            std::string fields;
            if (sizes64) append_le(fields, member.size, 8), append_le(fields, member.stored_size, 8);
            if (offset64) append_le(fields, member.offset, 8);
            append_le(extra, 0x0001, 2);
            append_le(extra, fields.size(), 2);
            extra += fields;
        }
        append_le(out, 0x02014b50, 4);
        append_le(out, (3 << 8) | 45, 2);  // made by: Unix, zip 4.5
        append_le(out, sizes64 || offset64 ? 45 : 20, 2);
        append_le(out, flags(member), 2);
        append_le(out, member.method, 2);
        append_le(out, 0, 2);
        append_le(out, kDosDate, 2);
        append_le(out, member.crc32, 4);
        append_le(out, sizes64 ? k32 : member.stored_size, 4);
        append_le(out, sizes64 ? k32 : member.size, 4);
        append_le(out, member.name.size(), 2);
        append_le(out, extra.size(), 2);
        append_le(out, 0, 2);  // comment
        append_le(out, 0, 2);  // disk
        append_le(out, 0, 2);  // internal attributes
        append_le(out, std::uint64_t{0100644} << 16, 4);  // a regular file, rw-r--r--
        append_le(out, offset64 ? k32 : member.offset, 4);
        out += member.name;
        out += extra;
    }
    const std::uint64_t directory_size = out.size();
    const std::uint64_t count = members.size();
    const bool zip64_end = count >= 0xFFFF || directory_size >= k32 || directory_offset >= k32;
    if (zip64_end) {
        const std::uint64_t record_offset = directory_offset + directory_size;
        append_le(out, 0x06064b50, 4);
        append_le(out, 44, 8);  // the record's size after this field
        append_le(out, (3 << 8) | 45, 2);
        append_le(out, 45, 2);
        append_le(out, 0, 4);
        append_le(out, 0, 4);
        append_le(out, count, 8);
        append_le(out, count, 8);
        append_le(out, directory_size, 8);
        append_le(out, directory_offset, 8);
        append_le(out, 0x07064b50, 4);  // locator
        append_le(out, 0, 4);
        append_le(out, record_offset, 8);
        append_le(out, 1, 4);
    }
    append_le(out, 0x06054b50, 4);
    append_le(out, 0, 2);
    append_le(out, 0, 2);
    // A field too large for its place holds the placeholder (all ones) and the zip64 end
    // record has its value; one that fits holds its value, as Python's zipfile writes it.
    append_le(out, std::min<std::uint64_t>(count, 0xFFFF), 2);
    append_le(out, std::min<std::uint64_t>(count, 0xFFFF), 2);
    append_le(out, std::min(directory_size, k32), 4);
    append_le(out, std::min(directory_offset, k32), 4);
    append_le(out, 0, 2);  // comment
    return out;
}

}  // namespace tslice::zip
