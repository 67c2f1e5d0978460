// The zip directory reader (see zip.hpp for why it is our own). Layout, from PKWARE's
// APPNOTE.TXT (6.3.x), every number little-endian:
//
//   [local header + member bytes (+ data descriptor)] ...  central directory  [zip64 end record
//   + zip64 locator]  end record (+ comment of up to 65535 bytes)
//
// The end record is found by searching back from the end of the file; a zip64 locator right
// before it points at the zip64 end record, whose 64-bit counts and offsets replace the end
// record's 0xFFFF / 0xFFFFFFFF placeholders. Each central directory entry's zip64 extra field
// (id 0x0001) likewise holds, in order, those of uncompressed size, compressed size and local
// header offset that are 0xFFFFFFFF in the entry.
#include "source/zip.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "base/bytes.hpp"
#include "base/utf8.hpp"
#include "base/python_text.hpp"
#include "tslice/error.hpp"

namespace tslice::zip {

namespace {

constexpr std::uint32_t kEndSignature = 0x06054b50;
constexpr std::uint32_t kZip64EndSignature = 0x06064b50;
constexpr std::uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr std::uint32_t kCentralSignature = 0x02014b50;
constexpr std::uint32_t kLocalSignature = 0x04034b50;
constexpr std::size_t kEndSize = 22;
constexpr std::size_t kZip64LocatorSize = 20;
constexpr std::size_t kZip64EndSize = 56;
constexpr std::size_t kCentralSize = 46;
constexpr std::size_t kLocalSize = 30;
constexpr std::size_t kMaxComment = 0xFFFF;

// Code page 437's characters 0x80-0xFF, which Python's zipfile decodes names without the
// UTF-8 flag (bit 11) with.
constexpr char16_t kCp437High[128] = {
    0x00C7, 0x00FC, 0x00E9, 0x00E2, 0x00E4, 0x00E0, 0x00E5, 0x00E7, 0x00EA, 0x00EB, 0x00E8, 0x00EF, 0x00EE,
    0x00EC, 0x00C4, 0x00C5, 0x00C9, 0x00E6, 0x00C6, 0x00F4, 0x00F6, 0x00F2, 0x00FB, 0x00F9, 0x00FF, 0x00D6,
    0x00DC, 0x00A2, 0x00A3, 0x00A5, 0x20A7, 0x0192, 0x00E1, 0x00ED, 0x00F3, 0x00FA, 0x00F1, 0x00D1, 0x00AA,
    0x00BA, 0x00BF, 0x2310, 0x00AC, 0x00BD, 0x00BC, 0x00A1, 0x00AB, 0x00BB, 0x2591, 0x2592, 0x2593, 0x2502,
    0x2524, 0x2561, 0x2562, 0x2556, 0x2555, 0x2563, 0x2551, 0x2557, 0x255D, 0x255C, 0x255B, 0x2510, 0x2514,
    0x2534, 0x252C, 0x251C, 0x2500, 0x253C, 0x255E, 0x255F, 0x255A, 0x2554, 0x2569, 0x2566, 0x2560, 0x2550,
    0x256C, 0x2567, 0x2568, 0x2564, 0x2565, 0x2559, 0x2558, 0x2552, 0x2553, 0x256B, 0x256A, 0x2518, 0x250C,
    0x2588, 0x2584, 0x258C, 0x2590, 0x2580, 0x03B1, 0x00DF, 0x0393, 0x03C0, 0x03A3, 0x03C3, 0x00B5, 0x03C4,
    0x03A6, 0x0398, 0x03A9, 0x03B4, 0x221E, 0x03C6, 0x03B5, 0x2229, 0x2261, 0x00B1, 0x2265, 0x2264, 0x2320,
    0x2321, 0x00F7, 0x2248, 0x00B0, 0x2219, 0x00B7, 0x221A, 0x207F, 0x00B2, 0x25A0, 0x00A0,
};

std::string cp437_to_utf8(std::string_view bytes) {
    std::string out;
    for (const char c : bytes) {
        const auto u = static_cast<unsigned char>(c);
        append_utf8(out, u < 0x80 ? u : kCp437High[u - 0x80]);
    }
    return out;
}

struct EndRecord {
    std::uint64_t position = 0;  // of the end record (or the zip64 end record) in the file
    std::uint64_t entries = 0;
    std::uint64_t directory_size = 0;
    std::uint64_t directory_offset = 0;  // as recorded, before shifting
    bool zip64 = false;
};

EndRecord find_end_record(const std::byte* file, std::size_t size) {
    if (size < kEndSize)
        fail_input("not a zip archive: " + std::to_string(size) + " bytes are too short for its end record (22 bytes)");
    // The last end signature whose comment reaches no further than the file wins, as in zipfile.
    const std::size_t lowest = size - kEndSize > kMaxComment ? size - kEndSize - kMaxComment : 0;
    std::size_t at = size - kEndSize + 1;
    bool found = false;
    while (at-- > lowest) {
        if (load_le(file + at, 4) == kEndSignature && at + kEndSize + load_le(file + at + 20, 2) <= size) {
            found = true;
            break;
        }
    }
    if (!found)
        fail_input(
            "the zip archive has no end of central directory record: the file is truncated, or is not "
            "a zip archive");
    const std::byte* end = file + at;
    if (load_le(end + 4, 2) != 0 || load_le(end + 6, 2) != 0)
        fail_input("the zip archive spans several disks; only single-file archives are read");
    EndRecord record;
    record.position = at;
    record.entries = load_le(end + 10, 2);
    record.directory_size = load_le(end + 12, 4);
    record.directory_offset = load_le(end + 16, 4);
    if (at >= kZip64LocatorSize && load_le(end - kZip64LocatorSize, 4) == kZip64LocatorSignature) {
        const std::byte* locator = end - kZip64LocatorSize;
        const std::uint64_t offset = load_le(locator + 8, 8);
        // The record sits right before the locator; its recorded offset may be shifted by data
        // in front of the archive, so its place is taken from the locator's.
        const std::uint64_t place = at - kZip64LocatorSize;
        if (place < kZip64EndSize || offset > place)
            fail_input("the zip archive's zip64 end record is outside the file (the archive is truncated or corrupt)");
        const std::byte* end64 = file + place - kZip64EndSize;
        if (load_le(end64, 4) != kZip64EndSignature)
            fail_input("the zip archive's zip64 locator does not point at a zip64 end record (corrupt archive)");
        if (load_le(end64 + 16, 4) != 0 || load_le(end64 + 20, 4) != 0)
            fail_input("the zip archive spans several disks; only single-file archives are read");
        record.position = place - kZip64EndSize;
        record.entries = load_le(end64 + 32, 8);
        record.directory_size = load_le(end64 + 40, 8);
        record.directory_offset = load_le(end64 + 48, 8);
        record.zip64 = true;
    }
    return record;
}

// Replaces the 0xFFFFFFFF fields of an entry by its zip64 extra field's values.
void apply_zip64_extra(Entry& entry, const std::byte* extra, std::size_t extra_size, bool need_uncompressed,
                       bool need_compressed, bool need_offset) {
    std::size_t at = 0;
    while (at + 4 <= extra_size) {
        const auto id = load_le(extra + at, 2);
        const auto length = static_cast<std::size_t>(load_le(extra + at + 2, 2));
        if (at + 4 + length > extra_size) break;
        if (id == 0x0001) {
            const std::byte* field = extra + at + 4;
            std::size_t used = 0;
            const auto next = [&](std::uint64_t& value) {
                if (used + 8 > length)
                    fail_input("the zip entry " + name_repr(entry.name) +
                               " has a zip64 extra field too short for its sizes");
                value = load_le(field + used, 8);
                used += 8;
            };
            if (need_uncompressed) next(entry.uncompressed_size);
            if (need_compressed) next(entry.compressed_size);
            if (need_offset) next(entry.local_header_offset);
            return;
        }
        at += 4 + length;
    }
    if (need_uncompressed || need_compressed || need_offset)
        fail_input("the zip entry " + name_repr(entry.name) + " lacks the zip64 extra field its sizes need");
}

}  // namespace

std::vector<Entry> read_directory(const std::byte* file, std::size_t size) {
    const EndRecord end = find_end_record(file, size);
    if (end.directory_size > end.position || end.directory_offset > end.position - end.directory_size)
        fail_input("the zip archive's central directory (" + std::to_string(end.directory_size) + " bytes at offset " +
                   std::to_string(end.directory_offset) +
                   ") lies outside the file: the archive is truncated or corrupt");
    // Bytes in front of the archive shift every offset; zipfile calls them "concat".
    const std::uint64_t shift = end.position - end.directory_size - end.directory_offset;
    const std::uint64_t start = end.directory_offset + shift;
    if (end.entries > end.directory_size / kCentralSize)
        fail_input("the zip archive claims " + std::to_string(end.entries) + " entries, more than its " +
                   std::to_string(end.directory_size) + "-byte central directory can hold");

    std::vector<Entry> entries;
    entries.reserve(static_cast<std::size_t>(end.entries));
    std::uint64_t at = start;
    const std::uint64_t stop = start + end.directory_size;
    for (std::uint64_t index = 0; index < end.entries; ++index) {
        const std::string where = "zip central directory entry " + std::to_string(index + 1);
        if (stop - at < kCentralSize) fail_input("the " + where + " is cut short (corrupt archive)");
        const std::byte* p = file + at;
        if (load_le(p, 4) != kCentralSignature)
            fail_input("the " + where + " has no signature at offset " + std::to_string(at) + " (corrupt archive)");
        Entry entry;
        entry.flags = static_cast<std::uint16_t>(load_le(p + 8, 2));
        entry.method = static_cast<std::uint16_t>(load_le(p + 10, 2));
        entry.crc32 = static_cast<std::uint32_t>(load_le(p + 16, 4));
        entry.compressed_size = load_le(p + 20, 4);
        entry.uncompressed_size = load_le(p + 24, 4);
        const std::size_t name_size = load_le(p + 28, 2), extra_size = load_le(p + 30, 2), comment_size = load_le(p + 32, 2);
        entry.local_header_offset = load_le(p + 42, 4);
        if (stop - at - kCentralSize < name_size + extra_size + comment_size)
            fail_input("the " + where + " is cut short (corrupt archive)");
        std::string_view raw_name(reinterpret_cast<const char*>(p + kCentralSize), name_size);
        // Python's zipfile ends a name at its first NUL byte, so np.load knows "a\0b.npy" as "a".
        raw_name = raw_name.substr(0, raw_name.find('\0'));
        entry.name = entry.flags & 0x0800 ? std::string(raw_name) : cp437_to_utf8(raw_name);
        apply_zip64_extra(entry, p + kCentralSize + name_size, extra_size, entry.uncompressed_size == 0xFFFFFFFF,
                          entry.compressed_size == 0xFFFFFFFF, entry.local_header_offset == 0xFFFFFFFF);
        if (load_le(p + 34, 2) != 0 && load_le(p + 34, 2) != 0xFFFF)
            fail_input("the zip entry " + name_repr(entry.name) +
                       " starts on another disk; only single-file archives are read");
        if (entry.local_header_offset > size - shift)
            fail_input("the zip entry " + name_repr(entry.name) +
                       " starts past the end of the file (the archive is truncated)");
        entry.local_header_offset += shift;
        entries.push_back(std::move(entry));
        at += kCentralSize + name_size + extra_size + comment_size;
    }
    return entries;
}

std::uint64_t data_offset(const std::byte* file, std::size_t size, const Entry& entry) {
    const std::uint64_t at = entry.local_header_offset;
    if (at > size || size - at < kLocalSize)
        fail_input("the zip entry " + name_repr(entry.name) +
                   ": its local header is cut short (the archive is truncated)");
    const std::byte* p = file + at;
    if (load_le(p, 4) != kLocalSignature)
        fail_input("the zip entry " + name_repr(entry.name) + ": no local header at offset " + std::to_string(at) +
                   " (corrupt archive)");
    const std::uint64_t begin = at + kLocalSize + load_le(p + 26, 2) + load_le(p + 28, 2);
    if (begin > size || size - begin < entry.compressed_size)
        fail_input("the zip entry " + name_repr(entry.name) + " needs " + std::to_string(entry.compressed_size) +
                   " bytes from offset " + std::to_string(begin) + ", past the end of the " + std::to_string(size) +
                   "-byte file (the archive is truncated)");
    return begin;
}

}  // namespace tslice::zip
