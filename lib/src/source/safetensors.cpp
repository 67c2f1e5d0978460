// .safetensors files, as the format's reference (huggingface/safetensors) defines them:
//
//   8 bytes: N, the header length, unsigned little-endian
//   N bytes: a UTF-8 JSON object {"NAME": {"dtype": "F32", "shape": [2, 3], "data_offsets": [B, E]},
//            ..., "__metadata__": {"key": "value", ...}}, which may end in spaces
//   the data: tensor NAME is bytes [B, E) of it, little-endian, C order
//
// Tensors are listed by name, as the reference lists them. Validation follows the reference's:
// a header of at most 100 MB, inside the file, a JSON object starting with '{'; every tensor's
// offsets inside the data, no two overlapping, and E - B equal to the element count times the
// item size. The reference also refuses gaps between tensors and bytes after the last one;
// tslice reads such files (every tensor it reads is checked to lie in the file), since nothing
// about the array is in doubt.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>

#include "base/bytes.hpp"
#include "source/dtype.hpp"
#include "source/safetensors_header.hpp"
#include "tslice/container.hpp"
#include "tslice/error.hpp"
#include "tslice/view.hpp"

namespace tslice {

namespace {

constexpr std::uint64_t kMaxHeaderBytes = kMaxSafetensorsHeaderBytes;

struct TypeRow {
    const char* name;
    const char* descr;  // numpy's, or the same-size stand-in of a type numpy lacks
    bool numpy_has;
};

constexpr TypeRow kTypes[] = {
    {"BOOL", "|b1", true},      {"U8", "|u1", true},        {"I8", "|i1", true},     {"I16", "<i2", true},
    {"U16", "<u2", true},       {"F16", "<f2", true},       {"BF16", "|V2", false},  {"I32", "<i4", true},
    {"U32", "<u4", true},       {"F32", "<f4", true},       {"F64", "<f8", true},    {"I64", "<i8", true},
    {"U64", "<u8", true},       {"F8_E4M3", "|V1", false},  {"F8_E5M2", "|V1", false},
    {"F8_E8M0", "|V1", false},  {"C64", "<c8", true},
};

// The types of less than a byte: listed, with their sizes checked as the reference checks
// them, but not sliced (an element is not a whole number of bytes).
struct SubByteRow {
    const char* name;
    unsigned bits;
};
constexpr SubByteRow kSubByteTypes[] = {{"F4", 4}, {"F6_E2M3", 6}, {"F6_E3M2", 6}};

// kTypes' types, parsed once: a checkpoint asks for the same few thousands of times.
const std::vector<ElementType>& element_types() {
    static const std::vector<ElementType> types = [] {
        std::vector<ElementType> out;
        for (const TypeRow& row : kTypes) {
            ElementType type;
            type.dtype = parse_dtype_descr(std::string("'") + row.descr + "'");
            if (!row.numpy_has) type.safetensors_only = row.name;
            out.push_back(std::move(type));
        }
        return out;
    }();
    return types;
}

std::string json_quoted(const std::string& name) { return nlohmann::json(name).dump(); }

std::string where(const std::string& name) { return "safetensors tensor " + json_quoted(name); }

std::string offsets_text(const SafetensorsEntry& tensor) {
    return "[" + std::to_string(tensor.begin) + ", " + std::to_string(tensor.end) + "]";
}

// A tensor of a dtype tslice does not slice: its sizes checked where the format defines the
// dtype's width (a whole number of bytes, as the reference asks), and why it cannot be read.
void unreadable_type(const SafetensorsEntry& tensor, ArrayInFile& array) {
    array.stored_type = tensor.dtype;
    const auto row = std::find_if(std::begin(kSubByteTypes), std::end(kSubByteTypes),
                                  [&](const SubByteRow& r) { return tensor.dtype == r.name; });
    std::string readable;
    for (const TypeRow& r : kTypes) readable += std::string(readable.empty() ? "" : ", ") + r.name;
    if (row == std::end(kSubByteTypes)) {
        array.error = where(*array.name) + " has the dtype " + json_quoted(tensor.dtype) +
                      ", which tslice does not know (it reads " + readable + ")";
        return;
    }
    std::uint64_t bits = row->bits;
    bool overflow = false;
    for (const auto dim : array.shape)
        overflow = overflow || __builtin_mul_overflow(bits, static_cast<std::uint64_t>(dim), &bits);
    if (std::find(array.shape.begin(), array.shape.end(), 0) != array.shape.end()) bits = 0, overflow = false;
    if (overflow || bits % 8 != 0 || bits / 8 != tensor.end - tensor.begin)
        fail_input(where(*array.name) + ": shape " + format_shape(array.shape) + " of " + tensor.dtype + " (" +
                   std::to_string(row->bits) + " bits each) does not fill \"data_offsets\" " + offsets_text(tensor) +
                   " exactly");
    array.error = where(*array.name) + " has the dtype " + tensor.dtype + " of " + std::to_string(row->bits) +
                  "-bit elements, which tslice lists but cannot slice (it slices whole-byte elements: " + readable + ")";
}

}  // namespace

std::optional<ElementType> safetensors_element_type(std::string_view name) {
    for (std::size_t i = 0; i < std::size(kTypes); ++i)
        if (name == kTypes[i].name) return element_types()[i];
    return std::nullopt;
}

std::optional<std::string> safetensors_name(const ElementType& type) {
    if (!type.safetensors_only.empty()) return type.safetensors_only;
    const DType& dtype = type.dtype;
    if (dtype.structured || dtype.type_string.size() < 2) return std::nullopt;
    // Big-endian types are written byte-swapped, under their little-endian name.
    std::string little = dtype.type_string;
    if (little[0] == '>' || little[0] == '=') little[0] = dtype.itemsize == 1 ? '|' : '<';
    if (dtype.itemsize == 1 && little[0] == '<') little[0] = '|';
    for (const TypeRow& row : kTypes)
        if (row.numpy_has && little == row.descr) return std::string(row.name);
    return std::nullopt;
}

std::vector<ArrayInFile> list_safetensors(const std::byte* file, std::size_t size) {
    if (size < 8)
        fail_input("the safetensors file is cut short: " + std::to_string(size) +
                   " bytes, too few for its 8-byte header length");
    const std::uint64_t header_size = load_le<std::uint64_t>(file);
    if (header_size > kMaxHeaderBytes)
        fail_input("the safetensors header claims to be " + std::to_string(header_size) +
                   " bytes long; the format allows at most 100 MB (" + std::to_string(kMaxHeaderBytes) + " bytes)");
    if (header_size > size - 8)
        fail_input("the safetensors header length " + std::to_string(header_size) + " reaches beyond the end of the " +
                   std::to_string(size) + "-byte file (truncated or not a safetensors file)");
    const char* text = reinterpret_cast<const char*>(file + 8);
    if (header_size == 0 || text[0] != '{')
        fail_input("the safetensors header does not start with '{' (not a safetensors file)");
    std::vector<SafetensorsEntry> tensors = read_safetensors_header(std::string_view(text, header_size));

    const std::uint64_t data_start = 8 + header_size;
    const std::uint64_t data_size = size - data_start;
    std::vector<ArrayInFile> arrays;
    arrays.reserve(tensors.size());
    for (SafetensorsEntry& tensor : tensors) {
        const std::uint64_t begin = tensor.begin, end = tensor.end;
        const auto where = [&] { return tslice::where(tensor.name) + ": \"data_offsets\" " + offsets_text(tensor); };
        if (begin > end) fail_input(where() + " ends before it begins");
        if (end > data_size)
            fail_input(where() + " reach past the end of the data (" + std::to_string(data_size) +
                       " bytes; the file is truncated or corrupt)");
        ArrayInFile array;
        array.name = std::move(tensor.name);
        array.shape = std::move(tensor.shape);
        const auto row = std::find_if(std::begin(kTypes), std::end(kTypes),
                                      [&](const TypeRow& r) { return tensor.dtype == r.name; });
        if (row == std::end(kTypes)) {
            // Listed, and refused only when chosen.
            unreadable_type(tensor, array);
        } else {
            const auto type = static_cast<std::size_t>(row - std::begin(kTypes));
            array.type = element_types()[type];
            array.stored_type = row->name;
            // numpy's rule ("array is too big"), as for a .npy header: the non-zero dimensions
            // times the item size must fit 63 bits even where another dimension is 0, so that no
            // stride of the array overflows.
            try {
                checked_element_count(array.shape, array.type.itemsize(), "the shape");
            } catch (const Error& error) {
                fail_input(tslice::where(*array.name) + ": " + error.what());
            }
            // An element count too large for 64 bits cannot match any offsets in the file.
            std::uint64_t need = array.type.itemsize();
            bool overflow = false;
            for (const auto dim : array.shape)
                overflow = overflow || __builtin_mul_overflow(need, static_cast<std::uint64_t>(dim), &need);
            if (std::find(array.shape.begin(), array.shape.end(), 0) != array.shape.end()) need = 0, overflow = false;
            if (overflow || need != end - begin)
                fail_input(tslice::where(*array.name) + ": shape " + format_shape(array.shape) + " of " +
                           row->name + " needs " +
                           (overflow ? std::string("more than 2**64") : std::to_string(need)) +
                           " bytes, but \"data_offsets\" " + offsets_text(tensor) + " hold " +
                           std::to_string(end - begin));
        }
        array.bytes.kind = ArrayBytes::Kind::Mapped;
        array.bytes.offset = data_start + begin;
        array.bytes.size = end - begin;
        arrays.push_back(std::move(array));
    }

    // No two tensors may share a byte: sorted by where they start, each must end before the
    // next begins (empty tensors share nothing).
    std::vector<const ArrayInFile*> by_offset;
    for (const auto& array : arrays)
        if (array.bytes.size > 0) by_offset.push_back(&array);
    std::sort(by_offset.begin(), by_offset.end(),
              [](const ArrayInFile* a, const ArrayInFile* b) { return a->bytes.offset < b->bytes.offset; });
    for (std::size_t i = 1; i < by_offset.size(); ++i) {
        const ArrayInFile& before = *by_offset[i - 1];
        const ArrayInFile& after = *by_offset[i];
        if (before.bytes.offset + before.bytes.size > after.bytes.offset)
            fail_input("safetensors tensors " + json_quoted(*before.name) + " and " + json_quoted(*after.name) +
                       " overlap: their \"data_offsets\" share bytes (corrupt file)");
    }
    return arrays;
}

std::string safetensors_metadata(const std::byte* file, std::size_t size) {
    if (size < 8) return {};
    const std::uint64_t header_size = load_le<std::uint64_t>(file);
    if (header_size > kMaxHeaderBytes || header_size > size - 8) return {};
    return safetensors_metadata_text(std::string_view(reinterpret_cast<const char*>(file + 8), header_size));
}

std::string safetensors_prefix(const std::vector<SafetensorsTensorHeader>& tensors, std::string_view metadata) {
    // Names that are not UTF-8 get their bad bytes replaced, as Python's errors="replace"
    // would (the command line refuses them before they get here).
    const auto quoted = [](std::string_view text) {
        return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    };
    // The input's metadata first, as its text: the reference writes it first too.
    std::string text = "{";
    if (!metadata.empty()) text += "\"__metadata__\":" + std::string(metadata);
    std::uint64_t at = 0;
    for (const SafetensorsTensorHeader& tensor : tensors) {
        if (text.size() > 1) text += ",";
        std::string dims;
        for (std::size_t k = 0; k < tensor.shape.size(); ++k) dims += (k ? "," : "") + std::to_string(tensor.shape[k]);
        text += quoted(tensor.name) + ":{\"dtype\":" + quoted(tensor.dtype_name) + ",\"shape\":[" + dims +
                "],\"data_offsets\":[" + std::to_string(at) + "," + std::to_string(at + tensor.data_bytes) + "]}";
        at += tensor.data_bytes;
    }
    text += "}";
    // The data starts on an 8-byte boundary, as the reference writes it.
    text.append((8 - text.size() % 8) % 8, ' ');
    std::string out;
    append_le(out, text.size(), 8);
    return out + text;
}

std::string safetensors_prefix(std::string_view name, std::string_view dtype_name,
                               const std::vector<std::int64_t>& shape, std::uint64_t data_bytes,
                               std::string_view metadata) {
    return safetensors_prefix({SafetensorsTensorHeader{name, dtype_name, shape, data_bytes}}, metadata);
}

}  // namespace tslice
