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

#include "tslice/container.hpp"
#include "tslice/error.hpp"
#include "tslice/view.hpp"

namespace tslice {

namespace {

[[noreturn]] void fail(const std::string& message) { throw Error(ErrorKind::Input, message); }

// The reference's limit (MAX_HEADER_SIZE): it keeps a hostile header from taking unbounded
// memory and time to parse.
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

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
};

// One name of the header's top-level object and its value.
struct HeaderEntry {
    std::string name;
    nlohmann::json value;
};

std::string json_quoted(const std::string& name) { return nlohmann::json(name).dump(); }

std::uint64_t read_u64(const std::byte* p) {
    std::uint64_t value = 0;
    for (int k = 7; k >= 0; --k) value = (value << 8) | std::to_integer<std::uint64_t>(p[k]);
    return value;
}

std::vector<std::int64_t> tensor_shape(const nlohmann::json& value, const std::string& where) {
    if (!value.is_array())
        fail(where + ": \"shape\" must be a list of non-negative integers, not " + value.dump());
    if (value.size() > kMaxRank)
        fail(where + ": \"shape\" has " + std::to_string(value.size()) + " dimensions; numpy arrays have at most " +
             std::to_string(kMaxRank));
    std::vector<std::int64_t> shape;
    for (const auto& dim : value) {
        if (!dim.is_number_unsigned() || dim.get<std::uint64_t>() > std::numeric_limits<std::int64_t>::max())
            fail(where + ": \"shape\" must be a list of non-negative integers, not " + value.dump());
        shape.push_back(static_cast<std::int64_t>(dim.get<std::uint64_t>()));
    }
    return shape;
}


// The header's top-level object, entry by entry: each entry's value (a tensor's small object,
// or "__metadata__") becomes a JSON value of its own, the top-level object never does. A DOM
// of the whole header costs a map node, a key string and their page faults per tensor on top
// of that: most of --list's time for a checkpoint of thousands of tensors.
class HeaderEntries final : public nlohmann::json_sax<nlohmann::json> {
public:
    std::vector<HeaderEntry> entries;

    bool null() override { return value(nullptr); }
    bool boolean(bool v) override { return value(v); }
    bool number_integer(number_integer_t v) override { return value(v); }
    bool number_unsigned(number_unsigned_t v) override { return value(v); }
    bool number_float(number_float_t v, const string_t&) override { return value(v); }
    bool string(string_t& v) override { return value(std::move(v)); }
    bool binary(binary_t& v) override { return value(std::move(v)); }
    bool start_object(std::size_t) override { return open(nlohmann::json::object()); }
    bool start_array(std::size_t) override { return open(nlohmann::json::array()); }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }
    bool key(string_t& name) override {
        (at_top_ ? entries.emplace_back().name : key_) = std::move(name);
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& error) override {
        fail(std::string("the safetensors header is not valid JSON: ") + error.what());
    }

private:
    // The value just read goes to the open container, or is the value of the newest entry.
    nlohmann::json& place(nlohmann::json&& v) {
        if (open_.empty()) return entries.back().value = std::move(v);
        nlohmann::json& parent = *open_.back();
        if (parent.is_object()) return parent[key_] = std::move(v);
        parent.push_back(std::move(v));
        return parent.back();
    }
    template <class T> bool value(T&& v) {
        place(nlohmann::json(std::forward<T>(v)));
        return true;
    }
    bool open(nlohmann::json&& container) {
        // The header itself: the caller checked it starts with '{'.
        if (!started_) return started_ = at_top_ = true;
        at_top_ = false;
        open_.push_back(&place(std::move(container)));
        return true;
    }
    bool close() {
        if (open_.empty()) return true;  // the header's end
        open_.pop_back();
        at_top_ = open_.empty();
        return true;
    }

    // Containers being filled, innermost last (each an element of the one before, so adding to
    // the innermost moves none of them); empty between entries.
    std::vector<nlohmann::json*> open_;
    std::string key_;
    bool started_ = false, at_top_ = false;
};

// The entries of the header, sorted by name (the order in which the reference's
// safe_open().keys() lists tensors); of a name given twice, the last (as a JSON object keeps it).
std::vector<HeaderEntry> header_entries(const char* text, std::size_t size) {
    HeaderEntries reader;
    nlohmann::json::sax_parse(text, text + size, &reader);
    std::vector<HeaderEntry>& entries = reader.entries;
    std::stable_sort(entries.begin(), entries.end(),
                     [](const HeaderEntry& a, const HeaderEntry& b) { return a.name < b.name; });
    // Keep the last of each run of equal names.
    std::vector<HeaderEntry> unique;
    unique.reserve(entries.size());
    for (std::size_t i = 0; i < entries.size(); ++i)
        if (i + 1 == entries.size() || entries[i + 1].name != entries[i].name) unique.push_back(std::move(entries[i]));
    return unique;
}

}  // namespace

std::optional<ElementType> safetensors_element_type(std::string_view name) {
    // Parsed once: a checkpoint asks for the same few types thousands of times.
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
    for (std::size_t i = 0; i < std::size(kTypes); ++i)
        if (name == kTypes[i].name) return types[i];
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
        fail("the safetensors file is cut short: " + std::to_string(size) +
             " bytes, too few for its 8-byte header length");
    const std::uint64_t header_size = read_u64(file);
    if (header_size > kMaxHeaderBytes)
        fail("the safetensors header claims to be " + std::to_string(header_size) +
             " bytes long; the format allows at most 100 MB (" + std::to_string(kMaxHeaderBytes) + " bytes)");
    if (header_size > size - 8)
        fail("the safetensors header length " + std::to_string(header_size) + " reaches beyond the end of the " +
             std::to_string(size) + "-byte file (truncated or not a safetensors file)");
    const char* text = reinterpret_cast<const char*>(file + 8);
    if (header_size == 0 || text[0] != '{')
        fail("the safetensors header does not start with '{' (not a safetensors file)");
    std::vector<HeaderEntry> entries = header_entries(text, header_size);

    const std::uint64_t data_start = 8 + header_size;
    const std::uint64_t data_size = size - data_start;
    std::vector<ArrayInFile> arrays;
    arrays.reserve(entries.size());
    for (HeaderEntry& entry : entries) {
        std::string& name = entry.name;
        const nlohmann::json& info = entry.value;
        if (name == "__metadata__") {
            if (!info.is_object()) fail("the safetensors header's \"__metadata__\" is not a JSON object");
            continue;
        }
        const std::string where = "safetensors tensor " + json_quoted(name);
        if (!info.is_object()) fail(where + " is not a JSON object with dtype, shape and data_offsets");
        for (const char* key : {"dtype", "shape", "data_offsets"})
            if (!info.contains(key)) fail(where + " has no \"" + key + "\"");
        const auto& dtype = info["dtype"];
        if (!dtype.is_string()) fail(where + ": \"dtype\" must be a string, not " + dtype.dump());
        const std::optional<ElementType> type = safetensors_element_type(dtype.get<std::string>());
        if (!type)
            fail(where + " has the unknown dtype " + dtype.dump() +
                 " (tslice reads BOOL, U8, I8, I16, U16, F16, BF16, I32, U32, F32, F64, I64, U64, F8_E4M3, F8_E5M2)");
        ArrayInFile array;
        array.name = std::move(name);
        array.type = *type;
        array.shape = tensor_shape(info["shape"], where);
        const auto& offsets = info["data_offsets"];
        if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
            !offsets[1].is_number_unsigned())
            fail(where + ": \"data_offsets\" must be [begin, end], two non-negative integers, not " + offsets.dump());
        const auto begin = offsets[0].get<std::uint64_t>(), end = offsets[1].get<std::uint64_t>();
        if (begin > end)
            fail(where + ": \"data_offsets\" " + offsets.dump() + " ends before it begins");
        if (end > data_size)
            fail(where + ": \"data_offsets\" " + offsets.dump() + " reach past the end of the data (" +
                 std::to_string(data_size) + " bytes; the file is truncated or corrupt)");
        // An element count too large for 64 bits cannot match any offsets in the file.
        std::uint64_t need = type->itemsize();
        bool overflow = false;
        for (const auto dim : array.shape)
            overflow = overflow || __builtin_mul_overflow(need, static_cast<std::uint64_t>(dim), &need);
        if (std::find(array.shape.begin(), array.shape.end(), 0) != array.shape.end()) need = 0, overflow = false;
        if (overflow || need != end - begin)
            fail(where + ": shape " + format_shape(array.shape) + " of " + dtype.get<std::string>() + " needs " +
                 (overflow ? std::string("more than 2**64") : std::to_string(need)) + " bytes, but \"data_offsets\" " +
                 offsets.dump() + " hold " + std::to_string(end - begin));
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
            fail("safetensors tensors " + json_quoted(*before.name) + " and " + json_quoted(*after.name) +
                 " overlap: their \"data_offsets\" share bytes (corrupt file)");
    }
    return arrays;
}

std::string safetensors_prefix(std::string_view name, std::string_view dtype_name,
                               const std::vector<std::int64_t>& shape, std::uint64_t data_bytes) {
    nlohmann::ordered_json info;
    info["dtype"] = dtype_name;
    info["shape"] = shape;
    info["data_offsets"] = {0, data_bytes};
    nlohmann::ordered_json header;
    header[std::string(name)] = info;
    std::string text;
    try {
        text = header.dump();
    } catch (const nlohmann::json::exception&) {
        // Names come from zip members or safetensors headers, already UTF-8; one that is not
        // is written with its bad bytes replaced, as Python's errors="replace" would.
        text = header.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    // The data starts on an 8-byte boundary, as the reference writes it.
    text.append((8 - text.size() % 8) % 8, ' ');
    std::string out(8, '\0');
    for (int k = 0; k < 8; ++k) out[k] = static_cast<char>((text.size() >> (8 * k)) & 0xFF);
    return out + text;
}

}  // namespace tslice
