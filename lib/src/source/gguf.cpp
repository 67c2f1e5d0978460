// GGUF files, versions 2 and 3, as ggml's docs/gguf.md defines them (every number
// little-endian; a string is a u64 length and that many UTF-8 bytes):
//
//   "GGUF"  u32 version  u64 tensor_count  u64 metadata_kv_count
//   metadata_kv_count times:  string key, u32 value type, the value
//       types: 0 u8, 1 i8, 2 u16, 3 i16, 4 u32, 5 i32, 6 f32, 7 bool, 8 string,
//              9 array (u32 element type, u64 count, the elements), 10 u64, 11 i64, 12 f64
//   tensor_count times:  string name, u32 n_dims, u64 ne[n_dims], u32 ggml type, u64 offset
//   padding to general.alignment (default 32), then the tensor data; each offset counts from
//   there and is a multiple of the alignment
//
// ne[0] is the fastest-varying axis, so numpy's shape is ne reversed. A quantized type stores
// ne[0] / block_elements blocks a row. Counts come from the file: nothing is reserved before
// the bytes it would describe are known to be there, so a count of 2**60 is an error, not an
// allocation.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <set>

#include "base/bytes.hpp"
#include "tslice/container.hpp"
#include "tslice/error.hpp"
#include "tslice/gguf.hpp"

namespace tslice {

namespace {

constexpr std::uint64_t kDefaultAlignment = 32;
// Arrays inside arrays: the format allows them, ggml writes none; a bound keeps the reader's
// recursion small.
constexpr int kMaxArrayDepth = 8;

std::string excerpt(const std::string& text) { return text.size() <= 80 ? text : text.substr(0, 80) + "..."; }

// A value as JSON text; strings from the file need not be UTF-8: bad bytes are replaced.
std::string json_text(const nlohmann::ordered_json& value) {
    return value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

class Reader {
public:
    Reader(const std::byte* file, std::size_t size) : p_(file), size_(size) {}

    std::size_t at() const { return at_; }
    std::uint64_t u(int bytes, const char* what) {
        if (static_cast<std::size_t>(bytes) > size_ - at_) cut(what);
        const std::uint64_t value = load_le(p_ + at_, static_cast<std::size_t>(bytes));
        at_ += static_cast<std::size_t>(bytes);
        return value;
    }
    std::string string(const char* what) {
        const std::uint64_t length = u(8, what);
        if (length > size_ - at_) cut(what);
        std::string out(reinterpret_cast<const char*>(p_ + at_), static_cast<std::size_t>(length));
        at_ += static_cast<std::size_t>(length);
        return out;
    }
    // A value of `type`, into `out` when it is given, else skipped.
    void value(std::uint32_t type, nlohmann::ordered_json* out, const std::string& key, int depth = 0) {
        switch (type) {
            case 0: number(u(1, "a value"), out); return;
            case 1: number(static_cast<std::int8_t>(u(1, "a value")), out); return;
            case 2: number(u(2, "a value"), out); return;
            case 3: number(static_cast<std::int16_t>(u(2, "a value")), out); return;
            case 4: number(u(4, "a value"), out); return;
            case 5: number(static_cast<std::int32_t>(u(4, "a value")), out); return;
            case 10: number(u(8, "a value"), out); return;
            case 11: number(static_cast<std::int64_t>(u(8, "a value")), out); return;
            case 6: {
                const auto bits = static_cast<std::uint32_t>(u(4, "a value"));
                float f;
                std::memcpy(&f, &bits, 4);
                real(f, out);
                return;
            }
            case 12: {
                const std::uint64_t bits = u(8, "a value");
                double f;
                std::memcpy(&f, &bits, 8);
                real(f, out);
                return;
            }
            case 7: {
                // Any byte but 0 is true, as ggml reads it: arrays of bools are skipped
                // without looking at them, so no value may be an error.
                const bool b = u(1, "a value") != 0;
                if (out) *out = b;
                return;
            }
            case 8: {
                std::string text = string("a string value");
                if (out) *out = std::move(text);
                return;
            }
            case 9: {
                const auto element = static_cast<std::uint32_t>(u(4, "an array's type"));
                const std::uint64_t count = u(8, "an array's length");
                if (depth >= kMaxArrayDepth)
                    fail_input("GGUF metadata '" + excerpt(key) + "' nests arrays deeper than " +
                               std::to_string(kMaxArrayDepth));
                // Each element takes a byte at least: a count beyond the bytes left is a lie.
                if (count > size_ - at_) cut("an array");
                if (out) *out = nlohmann::ordered_json::array();
                const std::size_t fixed = fixed_size(element);
                if (!out && fixed) {
                    if (count > (size_ - at_) / fixed) cut("an array");
                    at_ += static_cast<std::size_t>(count * fixed);
                    return;
                }
                if (element > 12)
                    fail_input("GGUF metadata '" + excerpt(key) + "': an array of unknown type " +
                               std::to_string(element));
                for (std::uint64_t i = 0; i < count; ++i) {
                    if (out) {
                        out->push_back(nullptr);
                        value(element, &out->back(), key, depth + 1);
                    } else {
                        value(element, nullptr, key, depth + 1);
                    }
                }
                return;
            }
            default:
                fail_input("GGUF metadata '" + excerpt(key) + "' has the unknown value type " + std::to_string(type) +
                           " (the format defines 0-12)");
        }
    }

private:
    [[noreturn]] void cut(const char* what) const {
        fail_input(std::string("the GGUF file ends inside ") + what + " (at byte " + std::to_string(at_) + " of " +
                   std::to_string(size_) + "; truncated or not GGUF)");
    }
    static std::size_t fixed_size(std::uint32_t type) {
        switch (type) {
            case 0: case 1: case 7: return 1;
            case 2: case 3: return 2;
            case 4: case 5: case 6: return 4;
            case 10: case 11: case 12: return 8;
            default: return 0;
        }
    }
    template <typename T>
    static void number(T value, nlohmann::ordered_json* out) {
        if (out) *out = value;
    }
    static void real(double value, nlohmann::ordered_json* out) {
        if (!out) return;
        if (std::isnan(value)) *out = "nan";
        else if (std::isinf(value)) *out = value > 0 ? "inf" : "-inf";
        else *out = value;
    }

    const std::byte* p_;
    std::size_t size_;
    std::size_t at_ = 0;
};

struct Parsed {
    nlohmann::ordered_json metadata;  // only when asked for
    std::vector<ArrayInFile> arrays;
};

ElementType plain_type(const GgmlType& type) {
    if (std::strcmp(type.name, "BF16") == 0) return *safetensors_element_type("BF16");
    const char* descr = "";
    switch (type.id) {
        case 0: descr = "<f4"; break;
        case 1: descr = "<f2"; break;
        case 28: descr = "<f8"; break;
        case 24: descr = "|i1"; break;
        case 25: descr = "<i2"; break;
        case 26: descr = "<i4"; break;
        case 27: descr = "<i8"; break;
        default: break;
    }
    return ElementType{parse_dtype_descr(std::string("'") + descr + "'"), {}};
}

Parsed parse(const std::byte* file, std::size_t size, bool with_metadata) {
    Reader reader(file, size);
    if (size < 4 || std::memcmp(file, "GGUF", 4) != 0) fail_input("not a GGUF file: it does not start with \"GGUF\"");
    reader.u(4, "the magic");
    const std::uint64_t version = reader.u(4, "the version");
    if (version == 1)
        fail_input(
            "the file is GGUF version 1, which tslice does not read (it reads versions 2 and 3; llama.cpp's "
            "convert scripts write version 3)");
    if (version != 2 && version != 3) {
        if ((version & 0xFFFF) == 0)
            fail_input("the GGUF file is big-endian (its version reads " +
                       std::to_string(__builtin_bswap32(static_cast<std::uint32_t>(version))) +
                       " byte-swapped); tslice reads little-endian GGUF only");
        fail_input("the GGUF file has version " + std::to_string(version) + "; tslice reads versions 2 and 3");
    }
    const std::uint64_t tensor_count = reader.u(8, "the tensor count");
    const std::uint64_t kv_count = reader.u(8, "the metadata count");
    Parsed parsed;
    if (with_metadata) parsed.metadata = nlohmann::ordered_json::object();
    std::uint64_t alignment = kDefaultAlignment;
    // A key-value takes 12 bytes at least; a count beyond that is a lie, found before looping.
    if (kv_count > size / 12)
        fail_input("the GGUF header claims " + std::to_string(kv_count) +
                   " metadata entries; the file is too small for them");
    for (std::uint64_t i = 0; i < kv_count; ++i) {
        const std::string key = reader.string("a metadata key");
        const auto type = static_cast<std::uint32_t>(reader.u(4, "a metadata type"));
        if (key == "general.alignment") {
            nlohmann::ordered_json value;
            reader.value(type, &value, key);
            if (!value.is_number_unsigned() || value.get<std::uint64_t>() == 0 ||
                (value.get<std::uint64_t>() & (value.get<std::uint64_t>() - 1)) != 0 || value.get<std::uint64_t>() > (1u << 30))
                fail_input("the GGUF metadata's general.alignment is " + excerpt(json_text(value)) +
                           "; it must be a power of two (default 32)");
            alignment = value.get<std::uint64_t>();
            if (with_metadata) parsed.metadata[key] = value;
            continue;
        }
        if (with_metadata) {
            nlohmann::ordered_json value;
            reader.value(type, &value, key);
            parsed.metadata[key] = std::move(value);
        } else {
            reader.value(type, nullptr, key);
        }
    }

    // A tensor's info takes 24 bytes at least.
    if (tensor_count > size / 24)
        fail_input("the GGUF header claims " + std::to_string(tensor_count) +
                   " tensors; the file is too small for them");
    struct Info {
        std::string name;
        std::vector<std::int64_t> shape;
        std::uint32_t type;
        std::uint64_t offset;
    };
    std::vector<Info> infos;
    std::set<std::string> names;
    for (std::uint64_t i = 0; i < tensor_count; ++i) {
        Info info;
        info.name = reader.string("a tensor's name");
        const std::uint64_t dims = reader.u(4, "a tensor's dimension count");
        if (dims > kMaxRank)
            fail_input("GGUF tensor '" + excerpt(info.name) + "' has " + std::to_string(dims) +
                       " dimensions; numpy arrays have at most " + std::to_string(kMaxRank));
        info.shape.resize(static_cast<std::size_t>(dims));
        for (std::uint64_t k = 0; k < dims; ++k) {
            const std::uint64_t ne = reader.u(8, "a tensor's shape");
            if (ne > static_cast<std::uint64_t>(INT64_MAX))
                fail_input("GGUF tensor '" + excerpt(info.name) + "' has a dimension of " + std::to_string(ne));
            info.shape[static_cast<std::size_t>(dims - 1 - k)] = static_cast<std::int64_t>(ne);
        }
        info.type = static_cast<std::uint32_t>(reader.u(4, "a tensor's type"));
        info.offset = reader.u(8, "a tensor's offset");
        if (!names.insert(info.name).second)
            fail_input("the GGUF file holds two tensors named '" + excerpt(info.name) + "'");
        infos.push_back(std::move(info));
    }
    const std::uint64_t data_start = (reader.at() + alignment - 1) / alignment * alignment;
    if (!infos.empty() && data_start > size) fail_input("the GGUF file ends before its tensor data (truncated)");

    for (Info& info : infos) {
        const std::string where = "GGUF tensor '" + excerpt(info.name) + "'";
        ArrayInFile array;
        array.name = info.name;
        array.shape = std::move(info.shape);
        const std::optional<GgmlType> type = ggml_type(info.type);
        if (info.offset % alignment != 0)
            fail_input(where + ": its offset " + std::to_string(info.offset) + " is not a multiple of the alignment " +
                       std::to_string(alignment));
        if (!type) {
            // Listed, never read: its size cannot be known.
            array.quantized = "GGML_TYPE_" + std::to_string(info.type);
            array.type = ElementType{parse_dtype_descr("'|V1'"), array.quantized};
            array.bytes.offset = data_start + info.offset;
            parsed.arrays.push_back(std::move(array));
            continue;
        }
        const std::int64_t row = array.shape.empty() ? 1 : array.shape.back();
        if (row % type->block_elements != 0)
            fail_input(where + " is " + type->name + " with rows of " + std::to_string(row) +
                       " elements, not a multiple of its " + std::to_string(type->block_elements) + "-element blocks");
        std::uint64_t bytes = static_cast<std::uint64_t>(row / type->block_elements) * type->block_bytes;
        bool overflow = false;
        for (std::size_t k = 0; k + 1 < array.shape.size(); ++k)
            overflow |= __builtin_mul_overflow(bytes, static_cast<std::uint64_t>(array.shape[k]), &bytes);
        if (overflow || info.offset > size - std::min<std::uint64_t>(size, data_start) ||
            bytes > size - data_start - info.offset)
            fail_input(where + ": shape " + format_shape(array.shape) + " of " + type->name + " at data offset " +
                       std::to_string(info.offset) + " reaches past the end of the file (truncated or corrupt)");
        if (type->quantized) {
            array.quantized = type->name;
            array.type = ElementType{parse_dtype_descr("'|V1'"), type->name};
        } else {
            array.type = plain_type(*type);
        }
        array.bytes.kind = ArrayBytes::Kind::Mapped;
        array.bytes.offset = data_start + info.offset;
        array.bytes.size = bytes;
        parsed.arrays.push_back(std::move(array));
    }
    return parsed;
}

}  // namespace

std::vector<ArrayInFile> list_gguf(const std::byte* file, std::size_t size) { return parse(file, size, false).arrays; }

std::string gguf_metadata_json(const std::byte* file, std::size_t size) {
    // Spaced as --list --json spaces its objects ("key": value, ...); values inside compact.
    const auto text = [](const nlohmann::ordered_json& value) { return json_text(value); };
    const Parsed parsed = parse(file, size, true);
    std::string out = "{";
    for (const auto& [key, value] : parsed.metadata.items())
        out += (out.size() > 1 ? ", " : "") + text(key) + ": " + text(value);
    return out + "}";
}

}  // namespace tslice
