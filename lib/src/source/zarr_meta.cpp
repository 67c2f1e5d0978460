// .zarray: Zarr v2's array metadata, a JSON object (zarr-specs, "v2").
#include "source/zarr_meta.hpp"

#include "base/half_float.hpp"

#include <nlohmann/json.hpp>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

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

// The descr literal of a .zarray "dtype": a type string ("<f4") or a list of fields
// ([["x", "<i4"], ["y", "<f8", [2]]]), as numpy's descr is.
std::string descr_literal(const nlohmann::json& value, const std::string& where, int depth = 0) {
    if (value.is_string()) return py_quoted(value.get<std::string>());
    if (!value.is_array() || depth > 32) bad(where, "\"dtype\" is neither a type string nor a list of fields");
    std::string out = "[";
    for (std::size_t i = 0; i < value.size(); ++i) {
        const auto& field = value[i];
        if (!field.is_array() || field.size() < 2 || field.size() > 3 || !field[0].is_string())
            bad(where, "a field of \"dtype\" is not [name, type] or [name, type, shape]");
        out += (i ? ", (" : "(") + py_quoted(field[0].get<std::string>()) + ", " + descr_literal(field[1], where, depth + 1);
        if (field.size() == 3) {
            if (!field[2].is_array()) bad(where, "a field's shape in \"dtype\" is not a list");
            out += ", (";
            for (const auto& dim : field[2]) {
                if (!dim.is_number_integer()) bad(where, "a field's shape in \"dtype\" holds a non-integer");
                out += std::to_string(dim.get<std::int64_t>()) + ",";
            }
            out += ")";
        }
        out += ")";
    }
    return out + "]";
}

std::vector<std::int64_t> positive_list(const nlohmann::json& object, const char* key, const std::string& where,
                                        bool zero_allowed) {
    if (!object.contains(key) || !object[key].is_array()) bad(where, std::string("\"") + key + "\" is missing or not a list");
    std::vector<std::int64_t> out;
    for (const auto& v : object[key]) {
        if (!v.is_number_integer() || v.get<std::int64_t>() < (zero_allowed ? 0 : 1))
            bad(where, std::string("\"") + key + "\" holds " + v.dump() + ", not a " +
                           (zero_allowed ? "non-negative" : "positive") + " integer");
        out.push_back(v.get<std::int64_t>());
    }
    return out;
}

void store_int(std::byte* out, std::size_t size, bool big, std::uint64_t value) {
    for (std::size_t i = 0; i < size; ++i) {
        const auto byte = static_cast<std::byte>(value >> (8 * i));
        out[big ? size - 1 - i : i] = byte;
    }
}

double float_value(const nlohmann::json& v, const std::string& where) {
    if (v.is_number()) return v.get<double>();
    if (v.is_string()) {
        const std::string s = v.get<std::string>();
        if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
        if (s == "Infinity") return std::numeric_limits<double>::infinity();
        if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
    }
    bad(where, "\"fill_value\" " + v.dump() + " is not a number, \"NaN\", \"Infinity\" or \"-Infinity\"");
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

std::vector<std::byte> fill_bytes(const nlohmann::json& v, const DType& dtype, const std::string& where) {
    std::vector<std::byte> out(dtype.itemsize);
    if (v.is_null()) return out;  // zarr-python leaves such chunks unset; tslice gives zeros
    const bool big = dtype.byte_order == '>';
    if (dtype.structured || dtype.kind == 'S' || dtype.kind == 'V') {
        if (!v.is_string()) bad(where, "\"fill_value\" of " + dtype.descr + " is not a base64 string");
        const std::vector<std::byte> bytes = base64_decode(v.get<std::string>(), where);
        if (bytes.size() > out.size()) bad(where, "\"fill_value\" is longer than an element of " + dtype.descr);
        std::memcpy(out.data(), bytes.data(), bytes.size());
        return out;
    }
    switch (dtype.kind) {
        case 'b':
            if (!v.is_boolean() && !v.is_number_integer()) bad(where, "\"fill_value\" of a bool array is " + v.dump());
            out[0] = std::byte{static_cast<unsigned char>(v.is_boolean() ? v.get<bool>() : v.get<std::int64_t>() != 0)};
            return out;
        case 'i':
        case 'u':
        case 'M':
        case 'm':
            if (v.is_number_integer()) store_int(out.data(), out.size(), big, v.get<std::uint64_t>());
            else if (v.is_number_float() && v.get<double>() == std::floor(v.get<double>()))
                store_int(out.data(), out.size(), big, static_cast<std::uint64_t>(static_cast<std::int64_t>(v.get<double>())));
            else if (v.is_string() && v.get<std::string>() == "NaT") store_int(out.data(), out.size(), big, 1ull << 63);
            else bad(where, "\"fill_value\" " + v.dump() + " is not an integer");
            return out;
        case 'f':
            store_float(out.data(), out.size(), big, float_value(v, where), where);
            return out;
        case 'c':
            if (!v.is_array() || v.size() != 2) bad(where, "\"fill_value\" of a complex array is not [real, imag]");
            store_float(out.data(), out.size() / 2, big, float_value(v[0], where), where);
            store_float(out.data() + out.size() / 2, out.size() / 2, big, float_value(v[1], where), where);
            return out;
        case 'U': {
            if (!v.is_string()) bad(where, "\"fill_value\" of a str array is not a string");
            const std::string s = v.get<std::string>();
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
    const nlohmann::json root = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
    if (!root.is_object()) bad(where, "not a JSON object");
    if (!root.contains("zarr_format") || root["zarr_format"] != 2)
        bad(where, "\"zarr_format\" is " + (root.contains("zarr_format") ? root["zarr_format"].dump() : std::string("missing")) +
                       "; tslice reads Zarr version 2");
    ZarrArrayMeta meta;
    meta.shape = positive_list(root, "shape", where, true);
    meta.chunks = positive_list(root, "chunks", where, false);
    if (meta.shape.size() != meta.chunks.size())
        bad(where, "\"chunks\" has " + std::to_string(meta.chunks.size()) + " entries for " +
                       std::to_string(meta.shape.size()) + " axes of \"shape\"");
    if (meta.shape.size() > kMaxRank) bad(where, "more than " + std::to_string(kMaxRank) + " axes");
    if (!root.contains("dtype")) bad(where, "\"dtype\" is missing");
    try {
        meta.dtype = parse_dtype_descr(descr_literal(root["dtype"], where));
    } catch (const Error& error) {
        bad(where, std::string("\"dtype\": ") + error.what());
    }
    checked_element_count(meta.shape, meta.dtype.itemsize, where + "'s shape");
    checked_element_count(meta.chunks, meta.dtype.itemsize, where + "'s chunks");
    const std::string order = root.value("order", std::string("C"));
    if (order != "C" && order != "F") bad(where, "\"order\" is '" + order + "', not 'C' or 'F'");
    meta.fortran_order = order == "F";
    if (root.contains("dimension_separator")) {
        const auto& sep = root["dimension_separator"];
        if (sep == ".") meta.separator = '.';
        else if (sep == "/") meta.separator = '/';
        else if (!sep.is_null()) bad(where, "\"dimension_separator\" is " + sep.dump() + ", not \".\" or \"/\"");
    }
    if (root.contains("filters") && !root["filters"].is_null()) {
        const auto& filters = root["filters"];
        if (!filters.is_array()) bad(where, "\"filters\" is not a list");
        if (!filters.empty()) {
            const auto& first = filters[0];
            const std::string id = first.is_object() && first.contains("id") && first["id"].is_string()
                                       ? first["id"].get<std::string>()
                                       : first.dump();
            bad(where, "the array has the filter '" + id + "'; tslice reads arrays without filters");
        }
    }
    meta.compressor = parse_zarr_compressor(root.contains("compressor") ? root["compressor"] : nlohmann::json(), where);
    meta.fill = fill_bytes(root.contains("fill_value") ? root["fill_value"] : nlohmann::json(), meta.dtype, where);
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
