// .npz archives: a zip of .npy files, one per array, named NAME.npy; np.savez stores them,
// np.savez_compressed deflates them. np.load names each array by its member name without
// ".npy", and so does tslice.
#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>

#include "source/inflate.hpp"
#include "tslice/container.hpp"
#include "tslice/error.hpp"
#include "source/zip.hpp"

namespace tslice {

namespace {

// The header's 'descr' as written ('|O'), for --list to show of a member tslice cannot read;
// "?" where there is no .npy header to take it from.
std::string stored_descr(const std::byte* bytes, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(bytes), std::min<std::size_t>(size, 4096));
    if (text.rfind("\x93NUMPY", 0) != 0) return "?";
    std::size_t at = text.find("'descr'");
    if (at == std::string_view::npos) return "?";
    at = text.find(':', at);
    if (at == std::string_view::npos) return "?";
    at = text.find_first_not_of(' ', at + 1);
    if (at == std::string_view::npos) return "?";
    if (text[at] == '\'' || text[at] == '"') {
        const std::size_t end = text.find(text[at], at + 1);
        return end == std::string_view::npos ? "?" : std::string(text.substr(at + 1, end - at - 1));
    }
    // A structured descr: its list, brackets balanced.
    int depth = 0;
    for (std::size_t i = at; i < text.size(); ++i) {
        depth += text[i] == '[' || text[i] == '(' ? 1 : text[i] == ']' || text[i] == ')' ? -1 : 0;
        if (depth == 0) return std::string(text.substr(at, i - at + 1));
    }
    return "?";
}

// The .npy header of a deflated member: inflated only as far as the header reaches.
NpyHeader deflated_header(const std::byte* compressed, const zip::Entry& entry, const std::string& what,
                          std::string& stored_type) {
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
    stored_type = stored_descr(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size());
    return parse_npy_header(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size());
}

// One member's .npy header and where its data is, into `array`; throws Error(Input) naming
// what is wrong with it.
void read_member(const std::byte* file, std::size_t size, const zip::Entry& entry, const std::string& what,
                 ArrayInFile& array) {
    // Where its bytes are first: a member tslice cannot read is still copied whole by --update.
    const std::uint64_t begin = zip::data_offset(file, size, entry);
    array.member_bytes = {begin, entry.compressed_size, entry.uncompressed_size, entry.crc32, entry.method,
                          (entry.flags & 0x0001) != 0};
    if (entry.flags & 0x0001) fail_input("the .npz " + what + " is encrypted; tslice reads only unencrypted archives");
    if (entry.method != 0 && entry.method != 8)
        fail_input(
            "the .npz " + what + " uses compression method " + std::to_string(entry.method) +
            "; tslice reads stored (0) and deflated (8) members, as np.savez and np.savez_compressed write them");
    NpyHeader header;
    try {
        if (entry.method == 0) {
            if (entry.compressed_size != entry.uncompressed_size)
                fail_input("it is stored, yet its sizes differ (" + std::to_string(entry.compressed_size) + " and " +
                           std::to_string(entry.uncompressed_size) + " bytes; corrupt archive)");
            array.stored_type = stored_descr(file + begin, static_cast<std::size_t>(entry.compressed_size));
            header = parse_npy_header(file + begin, static_cast<std::size_t>(entry.compressed_size));
        } else {
            header = deflated_header(file + begin, entry, "the .npz " + what, array.stored_type);
        }
    } catch (const Error& error) {
        const std::string message = error.what();
        if (message.find(what) != std::string::npos) throw;
        fail_input("the .npz " + what + ": " + message);
    }
    array.type.dtype = header.dtype;
    array.shape = header.shape;
    array.fortran_order = header.fortran_order;
    const std::uint64_t data_bytes = array.data_bytes();
    if (header.data_offset > entry.uncompressed_size || entry.uncompressed_size - header.data_offset < data_bytes)
        fail_input("the .npz " + what + " is too short for its header: shape " + format_shape(header.shape) + " of " +
                   header.dtype.descr + " needs " + std::to_string(data_bytes) + " data bytes, the member has " +
                   std::to_string(entry.uncompressed_size -
                                  std::min<std::uint64_t>(header.data_offset, entry.uncompressed_size)));
    if (entry.method == 0) {
        array.bytes.kind = ArrayBytes::Kind::Mapped;
        array.bytes.offset = begin + header.data_offset;
        array.bytes.size = data_bytes;
        // The member's CRC-32 is checked, over all of it, before its data is used (source.cpp).
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
        ArrayInFile array;
        array.member = entry.name;
        array.duplicates = count - 1;
        const bool npy = entry.name.size() >= 4 && entry.name.compare(entry.name.size() - 4, 4, ".npy") == 0;
        array.name = npy ? entry.name.substr(0, entry.name.size() - 4) : entry.name;
        // A member tslice cannot read (not a .npy, an object array, a method it lacks) is
        // listed with why, and the others are read, as np.load reads them: it fails only on
        // the member asked for.
        try {
            read_member(file, size, entry, what, array);
        } catch (const Error& error) {
            if (error.kind() != ErrorKind::Input) throw;
            array.error = error.what();  // names the member
            if (array.stored_type.empty()) array.stored_type = "?";
            array.shape_known = false;
            array.shape = {};
            array.bytes = {};
        }
        arrays.push_back(std::move(array));
    }
    return arrays;
}

}  // namespace tslice
