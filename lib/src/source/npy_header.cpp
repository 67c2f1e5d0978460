// The .npy header, read and written as numpy/lib/format.py (numpy 1.24) does.
//
// A .npy file is: the magic "\x93NUMPY", a major and a minor version byte, the header
// length (2 bytes little-endian for 1.0, 4 bytes for 2.0 and 3.0), the header (the repr()
// of a Python dict, Latin-1 for 1.0/2.0, UTF-8 for 3.0, padded with spaces and a final
// '\n'), then the raw element bytes.
#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "base/bytes.hpp"
#include "source/dtype.hpp"
#include "source/py_literal.hpp"
#include "base/python_text.hpp"
#include "tslice/error.hpp"
#include "tslice/npy.hpp"

namespace tslice {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicSize = 6;
constexpr std::size_t kArrayAlign = 64;
// numpy leaves room after the dict so the first dimension can grow in place (format.py's
// GROWTH_AXIS_MAX_DIGITS); writing the same spaces keeps our headers byte-identical to np.save.
constexpr std::size_t kGrowthAxisMaxDigits = 21;
// The longest header tslice reads: 1 MiB. numpy 1.24's np.load refuses headers over 10000
// bytes (_MAX_HEADER_SIZE) unless the file is trusted (max_header_size=, or allow_pickle=True),
// because ast.literal_eval of a hostile header can be slow. Its writer makes longer ones only
// for structured dtypes with many fields (3000 fields take ~110 KB and format 2.0), and such
// files are real, so 10000 would be too strict. tslice's parser is linear and bounded in depth,
// so 1 MiB (some 60,000 short field names) keeps the worst header to ~50 MB of memory and a
// tenth of a second (measured: 62,000 fields, 520,000 integers, 8,500 lists nested 60 deep),
// where the format's own limit (4 GiB) would not.
constexpr std::size_t kMaxHeaderBytes = std::size_t{1} << 20;

}  // namespace

std::optional<std::size_t> npy_header_extent(const std::byte* bytes, std::size_t available) {
    // Only a valid magic and version make the length field worth believing.
    if (available < kNpyPreludeBytes - 2 || std::memcmp(bytes, kMagic, kMagicSize) != 0) return std::nullopt;
    const auto major = std::to_integer<unsigned>(bytes[6]);
    if (major < 1 || major > 3 || bytes[7] != std::byte{0}) return std::nullopt;
    const std::size_t length_size = major == 1 ? 2 : 4;
    const std::size_t prefix = kMagicSize + 2 + length_size;
    if (available < prefix) return std::nullopt;
    const std::size_t length = static_cast<std::size_t>(load_le(bytes + kMagicSize + 2, length_size));
    if (length > kMaxHeaderBytes) return std::nullopt;
    return prefix + length;
}

std::int64_t NpyHeader::element_count() const {
    std::int64_t count = 1;
    for (auto dim : shape) count *= dim;  // parse_npy_header checked it fits
    return count;
}

std::size_t NpyHeader::data_bytes() const {
    return static_cast<std::size_t>(element_count()) * dtype.itemsize;
}

NpyHeader parse_npy_header(const std::byte* bytes, std::size_t available) {
    if (available == 0) fail_input("not a .npy file: the file is empty");
    const std::string_view start(reinterpret_cast<const char*>(bytes), std::min(available, kMagicSize));
    if (start != std::string_view(kMagic, start.size())) {
        if (start.substr(0, 4) == std::string_view("PK\x03\x04", 4))
            fail_input(
                "not a .npy file: this is a zip archive (an .npz holds several .npy arrays); "
                "extract the array you want first");
        fail_input("not a .npy file: wrong magic (a .npy file starts with \\x93NUMPY, this one with \"" +
                   escape_bytes(start) + "\")");
    }
    if (available < kMagicSize + 2)
        fail_input("the .npy file is cut short: it ends after " + std::to_string(available) +
                   " bytes, inside the magic string and version");
    const int major = std::to_integer<int>(bytes[6]);
    const int minor = std::to_integer<int>(bytes[7]);
    if (major < 1 || major > 3 || minor != 0)
        fail_input("unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                   " (tslice reads versions 1.0, 2.0 and 3.0)");
    const std::size_t length_size = major == 1 ? 2 : 4;
    const std::size_t prefix = kMagicSize + 2 + length_size;
    if (available < prefix) fail_input("the .npy header is cut short: the file ends inside the header length field");
    const std::size_t header_length = static_cast<std::size_t>(load_le(bytes + kMagicSize + 2, length_size));
    if (header_length > kMaxHeaderBytes)
        fail_input("the .npy header claims to be " + std::to_string(header_length) +
                   " bytes long; tslice reads headers of at most 1 MiB (" + std::to_string(kMaxHeaderBytes) +
                   " bytes)");
    if (available - prefix < header_length)
        fail_input("the .npy header is cut short: expected " + std::to_string(header_length) +
                   " bytes of header, file has " + std::to_string(available - prefix));

    const std::string_view raw(reinterpret_cast<const char*>(bytes) + prefix, header_length);
    std::string text;
    if (major == 3) {
        for (std::size_t i = 0; i < raw.size();)
            if (!next_utf8(raw, i))
                fail_input("the .npy header (format 3.0) is not valid UTF-8 (at byte offset " +
                           std::to_string(prefix + i) + " of the file)");
        text = raw;
    } else {
        text = latin1_to_utf8(raw);  // format.py decodes 1.0 and 2.0 headers as Latin-1
    }

    const PyValue dict = parse_py_literal(
        text, "the .npy header", "unexpected text after the header dict (only spaces and a newline may follow)");
    if (dict.kind != PyValue::Kind::Dict)
        fail_input("the .npy header is " + std::string(kind_name(dict.kind)) + ", not a dict");

    const PyValue* descr = nullptr;
    const PyValue* fortran = nullptr;
    const PyValue* shape = nullptr;
    for (std::size_t i = 0; i + 1 < dict.items.size(); i += 2) {
        const PyValue& key = dict.items[i];
        const PyValue* value = &dict.items[i + 1];
        const PyValue** slot = nullptr;
        if (key.kind == PyValue::Kind::Str) {
            if (key.text == "descr") slot = &descr;
            else if (key.text == "fortran_order") slot = &fortran;
            else if (key.text == "shape") slot = &shape;
        }
        if (!slot)
            fail_input("the .npy header has an unexpected key " + shown(key) +
                       " (it must have exactly 'descr', 'fortran_order' and 'shape')");
        if (*slot) fail_input("the .npy header has the key " + shown(key) + " twice");
        *slot = value;
    }
    for (const auto& [slot, name] : {std::pair{descr, "descr"}, std::pair{fortran, "fortran_order"},
                                     std::pair{shape, "shape"}})
        if (!slot) fail_input(std::string("the .npy header has no '") + name + "' key");

    NpyHeader header;
    header.major = major;
    header.minor = minor;
    if (fortran->kind != PyValue::Kind::Bool)
        fail_input("the .npy header's fortran_order is " + shown(*fortran) + ", not True or False");
    header.fortran_order = fortran->boolean;

    if (shape->kind != PyValue::Kind::Tuple)
        fail_input("the .npy header's shape " + shown(*shape) + " is not a tuple of integers");
    if (shape->items.size() > kMaxRank)
        fail_input("the .npy header's shape has " + std::to_string(shape->items.size()) +
                   " dimensions; numpy arrays have at most " + std::to_string(kMaxRank));
    for (const PyValue& dim : shape->items) {
        if (dim.kind != PyValue::Kind::Int)
            fail_input("the .npy header's shape " + shown(*shape) + " is not a tuple of integers");
        header.shape.push_back(dim.integer);
    }
    header.dtype = checked_dtype(*descr);
    checked_element_count(header.shape, header.dtype.itemsize, "the .npy header's shape");
    header.data_offset = prefix + header_length;
    return header;
}

std::string make_npy_header(const DType& dtype, const std::vector<std::int64_t>& shape) {
    const std::string descr = dtype.descr.empty() ? str_repr_utf8(dtype.type_string) : dtype.descr;
    std::string dict = "{'descr': " + descr + ", 'fortran_order': False, 'shape': " +
                       format_shape(shape) + ", }";
    if (!shape.empty()) {
        const std::size_t digits = std::to_string(shape[0]).size();
        if (digits < kGrowthAxisMaxDigits) dict.append(kGrowthAxisMaxDigits - digits, ' ');
    }
    // numpy's choice: 1.0 if the Latin-1 header fits a 2-byte length, else 2.0 if it is
    // Latin-1 at all, else 3.0 (UTF-8).
    const std::optional<std::string> latin1 = utf8_to_latin1(dict);
    int major = 3;
    const std::string& body = latin1 ? *latin1 : dict;
    const auto padded_length = [&](std::size_t prefix) {
        const std::size_t unpadded = body.size() + 1;  // + the final '\n'
        // Like format.py: a header that is already aligned still gets a full 64 spaces.
        return unpadded + (kArrayAlign - (prefix + unpadded) % kArrayAlign);
    };
    std::size_t length;
    if (latin1 && padded_length(10) <= 0xFFFF) {
        major = 1;
        length = padded_length(10);
    } else {
        major = latin1 ? 2 : 3;
        length = padded_length(12);
        if (length > 0xFFFFFFFFu)
            fail_input("the .npy header would be " + std::to_string(length) +
                       " bytes, more than any .npy format version can hold");
    }
    std::string out(kMagic, kMagicSize);
    out += static_cast<char>(major);
    out += '\0';
    const std::size_t length_size = major == 1 ? 2 : 4;
    append_le(out, length, length_size);
    out += body;
    out.append(length - body.size() - 1, ' ');
    out += '\n';
    return out;
}
}  // namespace tslice
