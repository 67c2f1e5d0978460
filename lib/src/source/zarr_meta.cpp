// .zarray: Zarr v2's array metadata, a JSON object (zarr-specs, "v2").
#include "source/zarr_meta.hpp"

#include "base/half_float.hpp"

#include <nlohmann/json.hpp>

#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>

#include "base/json_tree.hpp"
#include "source/dtype.hpp"
#include "tslice/error.hpp"

namespace tslice {
namespace {

[[noreturn]] void bad(const std::string& where, const std::string& why) { fail_input(where + ": " + why); }

// A Python string literal of `text`, for the dtype descr numpy's parser reads.
std::string py_quoted(const std::string& text) {
    std::string out = "'";
    for (const char c : text) {
        if (c == '\\' || c == '\'') out += '\\';
        out += c;
    }
    return out + "'";
}

using json::Node;
using Kind = json::Node::Kind;

// An integer as a reader with 64-bit integers takes it: one that fits int64, or (TooBig)
// one up to 2^64 - 1 ("fill_value" of a uint64 array); anything wider arrives as a Float.
std::optional<std::uint64_t> integer_bits(const Node& v) {
    if (v.kind == Kind::Integer) return static_cast<std::uint64_t>(v.integer);
    if (v.kind == Kind::TooBig && !v.text.empty() && v.text[0] != '-') {
        errno = 0;
        char* end = nullptr;
        const unsigned long long value = std::strtoull(v.text.c_str(), &end, 10);
        if (errno == 0 && end && *end == '\0') return value;
    }
    return std::nullopt;
}

bool is_number(const Node& v) { return v.kind == Kind::Integer || v.kind == Kind::TooBig || v.kind == Kind::Float; }

double number_value(const Node& v) {
    if (v.kind == Kind::Integer) return static_cast<double>(v.integer);
    return std::strtod(v.text.c_str(), nullptr);
}

// The elements of a list, whichever way the tree stores them (integers packed or as nodes).
std::vector<Node> elements(const Node& list) {
    if (!list.is_packed()) return list.items;
    std::vector<Node> out;
    out.reserve(list.ints.size());
    for (const std::int64_t value : list.ints) out.push_back(json::integer_node(value));
    return out;
}

// The descr literal of a .zarray "dtype": a type string ("<f4") or a list of fields
// ([["x", "<i4"], ["y", "<f8", [2]]]), as numpy's descr is.
std::string descr_literal(const Node& value, const std::string& where, int depth = 0) {
    if (value.kind == Kind::String) return py_quoted(value.text);
    if (value.kind != Kind::Array || depth > 32) bad(where, "\"dtype\" is neither a type string nor a list of fields");
    std::string out = "[";
    const std::vector<Node> fields = elements(value);
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const Node& field = fields[i];
        if (field.kind != Kind::Array || field.size() < 2 || field.size() > 3 || field.is_packed() ||
            field.items[0].kind != Kind::String)
            bad(where, "a field of \"dtype\" is not [name, type] or [name, type, shape]");
        out += (i ? ", (" : "(") + py_quoted(field.items[0].text) + ", " + descr_literal(field.items[1], where, depth + 1);
        if (field.size() == 3) {
            if (field.items[2].kind != Kind::Array) bad(where, "a field's shape in \"dtype\" is not a list");
            out += ", (";
            for (const Node& dim : elements(field.items[2])) {
                if (dim.kind != Kind::Integer) bad(where, "a field's shape in \"dtype\" holds a non-integer");
                out += std::to_string(dim.integer) + ",";
            }
            out += ")";
        }
        out += ")";
    }
    return out + "]";
}

std::vector<std::int64_t> positive_list(const Node& object, const char* key, const std::string& where,
                                        bool zero_allowed) {
    const Node* list = json::member(object, key);
    if (!list || list->kind != Kind::Array) bad(where, std::string("\"") + key + "\" is missing or not a list");
    std::vector<std::int64_t> out;
    for (const Node& v : elements(*list)) {
        if (v.kind != Kind::Integer || v.integer < (zero_allowed ? 0 : 1))
            bad(where, std::string("\"") + key + "\" holds " + json::show(v) + ", not a " +
                           (zero_allowed ? "non-negative" : "positive") + " integer");
        out.push_back(v.integer);
    }
    return out;
}

void store_int(std::byte* out, std::size_t size, bool big, std::uint64_t value) {
    for (std::size_t i = 0; i < size; ++i) {
        const auto byte = static_cast<std::byte>(value >> (8 * i));
        out[big ? size - 1 - i : i] = byte;
    }
}

double float_value(const Node& v, const std::string& where) {
    if (is_number(v)) return number_value(v);
    if (v.kind == Kind::String) {
        const std::string& s = v.text;
        if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
        if (s == "Infinity") return std::numeric_limits<double>::infinity();
        if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
    }
    bad(where, "\"fill_value\" " + json::show(v) + " is not a number, \"NaN\", \"Infinity\" or \"-Infinity\"");
}

void store_float(std::byte* out, std::size_t size, bool big, double value, const std::string& where) {
    std::uint64_t bits = 0;
    if (size == 8) bits = std::bit_cast<std::uint64_t>(value);
    else if (size == 4) bits = std::bit_cast<std::uint32_t>(static_cast<float>(value));
    else if (size == 2) bits = double_to_half_bits(value);
    else bad(where, "a \"fill_value\" for a float of " + std::to_string(size) + " bytes is not read by tslice");
    store_int(out, size, big, bits);
}

std::vector<std::byte> base64_decode(const std::string& text, const std::string& where) {
    std::vector<std::byte> out;
    std::uint32_t buffer = 0;
    int bits = 0;
    for (const char c : text) {
        int v;
        if (c >= 'A' && c <= 'Z') v = c - 'A';
        else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
        else if (c >= '0' && c <= '9') v = c - '0' + 52;
        else if (c == '+') v = 62;
        else if (c == '/') v = 63;
        else if (c == '=') break;
        else bad(where, "\"fill_value\" is not base64");
        buffer = (buffer << 6) | static_cast<std::uint32_t>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<std::byte>((buffer >> bits) & 0xff));
        }
    }
    return out;
}

std::vector<std::byte> fill_bytes(const Node& v, const DType& dtype, const std::string& where) {
    std::vector<std::byte> out(dtype.itemsize);
    if (v.kind == Kind::Null) return out;  // zarr-python leaves such chunks unset; tslice gives zeros
    const bool big = dtype.byte_order == '>';
    if (dtype.structured || dtype.kind == 'S' || dtype.kind == 'V') {
        if (v.kind != Kind::String) bad(where, "\"fill_value\" of " + dtype.descr + " is not a base64 string");
        const std::vector<std::byte> bytes = base64_decode(v.text, where);
        if (bytes.size() > out.size()) bad(where, "\"fill_value\" is longer than an element of " + dtype.descr);
        if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());  // an empty vector may have no buffer
        return out;
    }
    switch (dtype.kind) {
        case 'b':
        {
            const auto bits = integer_bits(v);
            if (v.kind != Kind::Boolean && !bits) bad(where, "\"fill_value\" of a bool array is " + json::show(v));
            out[0] = std::byte{static_cast<unsigned char>(v.kind == Kind::Boolean ? v.boolean : *bits != 0)};
            return out;
        }
        case 'i':
        case 'u':
        case 'M':
        case 'm': {
            if (const auto bits = integer_bits(v)) {
                store_int(out.data(), out.size(), big, *bits);
                return out;
            }
            // A float with no fraction (0.0, as some writers give) within int64: a wider one
            // would wrap, so it is refused with the rest.
            const double d = is_number(v) ? number_value(v) : 0.5;
            if (d == std::floor(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0)
                store_int(out.data(), out.size(), big, static_cast<std::uint64_t>(static_cast<std::int64_t>(d)));
            else if (v.kind == Kind::String && v.text == "NaT") store_int(out.data(), out.size(), big, 1ull << 63);
            else bad(where, "\"fill_value\" " + json::show(v) + " is not an integer");
            return out;
        }
        case 'f':
            store_float(out.data(), out.size(), big, float_value(v, where), where);
            return out;
        case 'c':
        {
            if (v.kind != Kind::Array || v.size() != 2) bad(where, "\"fill_value\" of a complex array is not [real, imag]");
            const std::vector<Node> parts = elements(v);
            store_float(out.data(), out.size() / 2, big, float_value(parts[0], where), where);
            store_float(out.data() + out.size() / 2, out.size() / 2, big, float_value(parts[1], where), where);
            return out;
        }
        case 'U': {
            if (v.kind != Kind::String) bad(where, "\"fill_value\" of a str array is not a string");
            const std::string& s = v.text;
            std::size_t at = 0;
            for (std::size_t i = 0; i < s.size() && at + 4 <= out.size();) {
                const auto c = static_cast<unsigned char>(s[i]);
                const int n = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
                std::uint32_t code = n == 1 ? c : c & (0x3f >> (n - 1));
                for (int k = 1; k < n && i + k < s.size(); ++k) code = (code << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
                store_int(out.data() + at, 4, big, code);
                at += 4;
                i += static_cast<std::size_t>(n);
            }
            return out;
        }
        default:
            bad(where, "a \"fill_value\" of " + dtype.descr + " is not read by tslice");
    }
}

}  // namespace

std::int64_t ZarrArrayMeta::chunk_elements() const {
    std::int64_t count = 1;
    for (const auto c : chunks) count *= c;
    return count;
}

std::string ZarrArrayMeta::chunk_key(const std::vector<std::int64_t>& index) const {
    if (index.empty()) return "0";
    std::string key;
    for (std::size_t k = 0; k < index.size(); ++k) key += (k ? std::string(1, separator) : "") + std::to_string(index[k]);
    return key;
}

ZarrArrayMeta parse_zarray(std::string_view text, const std::string& where) {
    json::TreeErrors errors;
    errors.source = where;
    errors.kind = ErrorKind::Input;  // a damaged file, not a wrong request: exit 1
    errors.syntax = "not a JSON object: invalid JSON";
    errors.subject = "the metadata";
    errors.advice = "";
    const Node root = json::parse_tree(text, errors);
    if (root.kind != Kind::Object) bad(where, "not a JSON object");
    const Node* format = json::member(root, "zarr_format");
    if (!format || !is_number(*format) || number_value(*format) != 2)
        bad(where, "\"zarr_format\" is " + (format ? json::show(*format) : std::string("missing")) +
                       "; tslice reads Zarr version 2");
    ZarrArrayMeta meta;
    meta.shape = positive_list(root, "shape", where, true);
    meta.chunks = positive_list(root, "chunks", where, false);
    if (meta.shape.size() != meta.chunks.size())
        bad(where, "\"chunks\" has " + std::to_string(meta.chunks.size()) + " entries for " +
                       std::to_string(meta.shape.size()) + " axes of \"shape\"");
    if (meta.shape.size() > kMaxRank) bad(where, "more than " + std::to_string(kMaxRank) + " axes");
    const Node* dtype = json::member(root, "dtype");
    if (!dtype) bad(where, "\"dtype\" is missing");
    try {
        meta.dtype = parse_dtype_descr(descr_literal(*dtype, where));
    } catch (const Error& error) {
        bad(where, std::string("\"dtype\": ") + error.what());
    }
    checked_element_count(meta.shape, meta.dtype.itemsize, where + "'s shape");
    checked_element_count(meta.chunks, meta.dtype.itemsize, where + "'s chunks");
    if (const Node* order = json::member(root, "order")) {
        if (order->kind != Kind::String || (order->text != "C" && order->text != "F"))
            bad(where, "\"order\" is " + (order->kind == Kind::String ? "'" + order->text + "'" : json::show(*order)) +
                           ", not 'C' or 'F'");
        meta.fortran_order = order->text == "F";
    }
    if (const Node* sep = json::member(root, "dimension_separator")) {
        if (sep->kind == Kind::String && sep->text == ".") meta.separator = '.';
        else if (sep->kind == Kind::String && sep->text == "/") meta.separator = '/';
        else if (sep->kind != Kind::Null)
            bad(where, "\"dimension_separator\" is " + json::show(*sep) + ", not \".\" or \"/\"");
    }
    if (const Node* filters = json::member(root, "filters"); filters && filters->kind != Kind::Null) {
        if (filters->kind != Kind::Array) bad(where, "\"filters\" is not a list");
        if (filters->size() > 0) {
            const Node first = elements(*filters)[0];
            const Node* id = json::member(first, "id");
            bad(where, "the array has the filter '" + (id && id->kind == Kind::String ? id->text : json::show(first)) +
                           "'; tslice reads arrays without filters");
        }
    }
    meta.compressor = parse_zarr_compressor(json::member(root, "compressor"), where);
    // The fill value is an element, allocated whole before any chunk is read: a few bytes of
    // metadata must not make tslice allocate gigabytes. An element of 256 MiB (a structured
    // dtype's (8192, 8192) float32 field) is past any Zarr store's chunks in practice.
    constexpr std::size_t kMostItemBytes = std::size_t{256} << 20;
    if (meta.dtype.itemsize > kMostItemBytes)
        bad(where, "an element of " + meta.dtype.descr + " holds " + std::to_string(meta.dtype.itemsize) +
                       " bytes, more than the 256 MiB tslice reads as one Zarr element");
    const Node* fill = json::member(root, "fill_value");
    meta.fill = fill_bytes(fill ? *fill : Node{}, meta.dtype, where);
    return meta;
}

std::string make_zarray(const ZarrArrayMeta& meta) {
    nlohmann::ordered_json root;
    root["chunks"] = meta.chunks;
    root["compressor"] = meta.compressor.to_json();
    root["dimension_separator"] = std::string(1, meta.separator);
    // The dtype as .zarray writes it: numpy's descr, in JSON.
    const std::string descr = meta.dtype.type_string;
    root["dtype"] = descr;
    root["fill_value"] = nullptr;
    root["filters"] = nullptr;
    root["order"] = meta.fortran_order ? "F" : "C";
    root["shape"] = meta.shape;
    root["zarr_format"] = 2;
    return root.dump(4) + "\n";
}

}  // namespace tslice
