// Zip archives built byte by byte for the tests of the zip reader and the .npz reader: members
// stored or deflated (with zlib, as Python's zipfile does), optionally in zip64 form, with
// every field open to corruption afterwards.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tslice_test {

inline void put_le(std::string& out, std::uint64_t value, int bytes) {
    for (int k = 0; k < bytes; ++k) out += static_cast<char>((value >> (8 * k)) & 0xFF);
}

inline std::uint32_t crc_of(const std::string& bytes) {
    return static_cast<std::uint32_t>(::crc32_z(0, reinterpret_cast<const Bytef*>(bytes.data()), bytes.size()));
}

// A raw deflate stream of `bytes`.
inline std::string deflate_raw(const std::string& bytes, int level = 6) {
    z_stream z{};
    if (deflateInit2(&z, level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("deflateInit2");
    std::string out(deflateBound(&z, bytes.size()), '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    z.avail_in = static_cast<uInt>(bytes.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    if (deflate(&z, Z_FINISH) != Z_STREAM_END) throw std::runtime_error("deflate");
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

struct Member {
    std::string name;
    std::string bytes;  // uncompressed
    bool deflated = false;
};

// An archive as zipfile writes it; `zip64` puts every entry's sizes and offset in zip64
// extra fields and adds the zip64 end record and locator. `prepend` goes before the archive.
inline std::string make_zip(const std::vector<Member>& members, bool zip64 = false, const std::string& prepend = {}) {
    std::string out, directory;
    for (const Member& member : members) {
        const std::string data = member.deflated ? deflate_raw(member.bytes) : member.bytes;
        const std::uint64_t offset = out.size();
        std::string extra;
        if (zip64) {
            put_le(extra, 1, 2);
            put_le(extra, 24, 2);
            put_le(extra, member.bytes.size(), 8);
            put_le(extra, data.size(), 8);
            put_le(extra, offset, 8);
        }
        const std::uint32_t crc = crc_of(member.bytes);
        put_le(out, 0x04034b50, 4);
        put_le(out, 20, 2);
        put_le(out, 0, 2);
        put_le(out, member.deflated ? 8 : 0, 2);
        put_le(out, 0, 4);
        put_le(out, crc, 4);
        put_le(out, data.size(), 4);
        put_le(out, member.bytes.size(), 4);
        put_le(out, member.name.size(), 2);
        put_le(out, 0, 2);
        out += member.name + data;

        put_le(directory, 0x02014b50, 4);
        put_le(directory, 20, 2);
        put_le(directory, 20, 2);
        put_le(directory, 0x0800, 2);
        put_le(directory, member.deflated ? 8 : 0, 2);
        put_le(directory, 0, 4);
        put_le(directory, crc, 4);
        put_le(directory, zip64 ? 0xFFFFFFFF : data.size(), 4);
        put_le(directory, zip64 ? 0xFFFFFFFF : member.bytes.size(), 4);
        put_le(directory, member.name.size(), 2);
        put_le(directory, extra.size(), 2);
        put_le(directory, 0, 2);
        put_le(directory, 0, 2);
        put_le(directory, 0, 2);
        put_le(directory, 0, 4);
        put_le(directory, zip64 ? 0xFFFFFFFF : offset, 4);
        directory += member.name + extra;
    }
    const std::uint64_t directory_offset = out.size();
    out += directory;
    if (zip64) {
        const std::uint64_t record = out.size();
        put_le(out, 0x06064b50, 4);
        put_le(out, 44, 8);
        put_le(out, 45, 2);
        put_le(out, 45, 2);
        put_le(out, 0, 8);
        put_le(out, members.size(), 8);
        put_le(out, members.size(), 8);
        put_le(out, directory.size(), 8);
        put_le(out, directory_offset, 8);
        put_le(out, 0x07064b50, 4);
        put_le(out, 0, 4);
        put_le(out, record, 8);
        put_le(out, 1, 4);
    }
    put_le(out, 0x06054b50, 4);
    put_le(out, 0, 4);
    put_le(out, zip64 ? 0xFFFF : members.size(), 2);
    put_le(out, zip64 ? 0xFFFF : members.size(), 2);
    put_le(out, zip64 ? 0xFFFFFFFF : directory.size(), 4);
    put_le(out, zip64 ? 0xFFFFFFFF : directory_offset, 4);
    put_le(out, 0, 2);
    return prepend + out;
}

// A .npy of `count` little-endian int32 values 0, 1, ...
inline std::string npy_counting(int count) {
    std::string dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (" + std::to_string(count) + ",), }";
    while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
    dict += '\n';
    std::string out = "\x93NUMPY\x01";
    out += '\0';
    put_le(out, dict.size(), 2);
    out += dict;
    for (int i = 0; i < count; ++i) put_le(out, static_cast<std::uint32_t>(i), 4);
    return out;
}

}  // namespace tslice_test
