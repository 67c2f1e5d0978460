// .npz archives: a zip of .npy files, one per array, named NAME.npy; np.savez stores them,
// np.savez_compressed deflates them. np.load names each array by its member name without
// ".npy", and so does tslice.
#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>

#include "inflate.hpp"
#include "tslice/container.hpp"
#include "tslice/error.hpp"
#include "zip.hpp"

namespace tslice {

namespace {

[[noreturn]] void fail(const std::string& message) { throw Error(ErrorKind::Input, message); }


// The .npy header of a deflated member: inflated only as far as the header reaches.
NpyHeader deflated_header(const std::byte* compressed, const zip::Entry& entry, const std::string& what) {
    InflateStream stream(compressed, entry.compressed_size, entry.uncompressed_size, entry.crc32, what);
    std::string bytes(kNpyPreludeBytes, '\0');
    bytes.resize(stream.read(reinterpret_cast<std::byte*>(bytes.data()), kNpyPreludeBytes));
    // The header length is believed only as far as the parser would accept it; the parser
    // then says what is wrong.
    const auto extent = npy_header_extent(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size());
    if (extent && *extent > bytes.size()) {
        const std::size_t have = bytes.size();
        bytes.resize(*extent);
        bytes.resize(have + stream.read(reinterpret_cast<std::byte*>(bytes.data()) + have, *extent - have));
    }
    return parse_npy_header(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size());
}

}  // namespace

std::vector<ArrayInFile> list_npz(const std::byte* file, std::size_t size) {
    const std::vector<zip::Entry> entries = zip::read_directory(file, size);
    // Of members with the same name, zipfile's lookup (and so np.load) finds the last: the
    // earlier ones are passed over, unread, and counted.
    std::unordered_map<std::string_view, std::uint32_t> named, seen;
    for (const zip::Entry& entry : entries) ++named[entry.name];
    std::vector<ArrayInFile> arrays;
    arrays.reserve(entries.size());
    for (const zip::Entry& entry : entries) {
        const std::uint32_t count = named[entry.name];
        if (++seen[entry.name] < count) continue;
        const std::string what = "member " + quoted_name(entry.name);
        if (entry.flags & 0x0001) fail("the .npz " + what + " is encrypted; tslice reads only unencrypted archives");
        if (entry.method != 0 && entry.method != 8)
            fail("the .npz " + what + " uses compression method " + std::to_string(entry.method) +
                 "; tslice reads stored (0) and deflated (8) members, as np.savez and np.savez_compressed write them");
        const std::uint64_t begin = zip::data_offset(file, size, entry);
        ArrayInFile array;
        array.member = entry.name;
        array.duplicates = count - 1;
        const bool npy = entry.name.size() >= 4 && entry.name.compare(entry.name.size() - 4, 4, ".npy") == 0;
        array.name = npy ? entry.name.substr(0, entry.name.size() - 4) : entry.name;
        NpyHeader header;
        try {
            if (entry.method == 0) {
                if (entry.compressed_size != entry.uncompressed_size)
                    fail("it is stored, yet its sizes differ (" + std::to_string(entry.compressed_size) + " and " +
                         std::to_string(entry.uncompressed_size) + " bytes; corrupt archive)");
                header = parse_npy_header(file + begin, static_cast<std::size_t>(entry.compressed_size));
            } else {
                header = deflated_header(file + begin, entry, "the .npz " + what);
            }
        } catch (const Error& error) {
            const std::string message = error.what();
            if (message.find(what) != std::string::npos) throw;
            fail("the .npz " + what + ": " + message);
        }
        array.type.dtype = header.dtype;
        array.shape = header.shape;
        array.fortran_order = header.fortran_order;
        const std::uint64_t data_bytes = array.data_bytes();
        if (header.data_offset > entry.uncompressed_size || entry.uncompressed_size - header.data_offset < data_bytes)
            fail("the .npz " + what + " is too short for its header: shape " + format_shape(header.shape) + " of " +
                 header.dtype.descr + " needs " + std::to_string(data_bytes) + " data bytes, the member has " +
                 std::to_string(entry.uncompressed_size - std::min<std::uint64_t>(header.data_offset,
                                                                                  entry.uncompressed_size)));
        if (entry.method == 0) {
            array.bytes.kind = ArrayBytes::Kind::Mapped;
            array.bytes.offset = begin + header.data_offset;
            array.bytes.size = data_bytes;
            array.bytes.crc32 = entry.crc32;
            array.bytes.member_offset = begin;
            array.bytes.member_size = entry.compressed_size;
        } else {
            array.bytes.kind = ArrayBytes::Kind::Deflated;
            array.bytes.offset = begin;
            array.bytes.size = entry.compressed_size;
            array.bytes.inflated_size = entry.uncompressed_size;
            array.bytes.crc32 = entry.crc32;
            array.bytes.data_offset = header.data_offset;
        }
        arrays.push_back(std::move(array));
    }
    return arrays;
}

}  // namespace tslice
