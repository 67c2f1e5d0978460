// --astype's names: numpy's names and type codes for the numeric types, and the names of the
// narrow float types numpy lacks.
#include <algorithm>
#include <string>
#include <string_view>

#include "tslice/convert.hpp"
#include "tslice/error.hpp"
#include "tslice/npy.hpp"

namespace tslice {
namespace {

struct Name {
    std::string_view name;
    std::string_view code;  // numpy's kind and size ("f4"), or the safetensors name of a narrow type
};

// numpy 1.x's names on a 64-bit Linux (C long is 64 bits: int_, long and uint are 8 bytes).
constexpr Name kNames[] = {
    {"bool", "b1"},         {"bool_", "b1"},        {"?", "b1"},           {"b1", "b1"},
    {"int8", "i1"},         {"byte", "i1"},         {"b", "i1"},           {"i1", "i1"},
    {"uint8", "u1"},        {"ubyte", "u1"},        {"B", "u1"},           {"u1", "u1"},
    {"int16", "i2"},        {"short", "i2"},        {"h", "i2"},           {"i2", "i2"},
    {"uint16", "u2"},       {"ushort", "u2"},       {"H", "u2"},           {"u2", "u2"},
    {"int32", "i4"},        {"intc", "i4"},         {"i", "i4"},           {"i4", "i4"},
    {"uint32", "u4"},       {"uintc", "u4"},        {"I", "u4"},           {"u4", "u4"},
    {"int64", "i8"},        {"int", "i8"},          {"int_", "i8"},        {"long", "i8"},
    {"longlong", "i8"},     {"intp", "i8"},         {"l", "i8"},           {"q", "i8"},
    {"p", "i8"},            {"i8", "i8"},           {"uint64", "u8"},      {"uint", "u8"},
    {"ulong", "u8"},        {"ulonglong", "u8"},    {"uintp", "u8"},       {"L", "u8"},
    {"Q", "u8"},            {"P", "u8"},            {"u8", "u8"},          {"float16", "f2"},
    {"half", "f2"},         {"e", "f2"},            {"f2", "f2"},          {"float32", "f4"},
    {"single", "f4"},       {"f", "f4"},            {"f4", "f4"},          {"float64", "f8"},
    {"float", "f8"},        {"float_", "f8"},       {"double", "f8"},      {"d", "f8"},
    {"f8", "f8"},           {"longdouble", "f16"},  {"longfloat", "f16"}, {"float128", "f16"},
    {"g", "f16"},           {"f16", "f16"},         {"complex64", "c8"},   {"csingle", "c8"},
    {"singlecomplex", "c8"}, {"F", "c8"},           {"c8", "c8"},          {"complex128", "c16"},
    {"complex", "c16"},     {"complex_", "c16"},    {"cdouble", "c16"},    {"cfloat", "c16"},
    {"D", "c16"},           {"c16", "c16"},         {"clongdouble", "c32"}, {"clongfloat", "c32"},
    {"longcomplex", "c32"}, {"complex256", "c32"},  {"G", "c32"},          {"c32", "c32"},
    {"bfloat16", "BF16"},   {"bf16", "BF16"},       {"BF16", "BF16"},      {"float8_e4m3fn", "F8_E4M3"},
    {"f8_e4m3", "F8_E4M3"}, {"F8_E4M3", "F8_E4M3"}, {"float8_e5m2", "F8_E5M2"}, {"f8_e5m2", "F8_E5M2"},
    {"F8_E5M2", "F8_E5M2"}, {"float8_e8m0fnu", "F8_E8M0"}, {"f8_e8m0", "F8_E8M0"}, {"F8_E8M0", "F8_E8M0"},
};

const Name* find(std::string_view name) {
    for (const Name& entry : kNames)
        if (entry.name == name) return &entry;
    return nullptr;
}

// Whether numpy knows the name as a type --astype does not convert to.
bool other_numpy_type(std::string_view name) {
    const std::string_view plain = !name.empty() && std::string_view("<>=|").find(name[0]) != std::string_view::npos
                                       ? name.substr(1)
                                       : name;
    static constexpr std::string_view kOthers[] = {"str", "str_", "unicode", "bytes", "bytes_", "string_",
                                                   "object", "object_", "O", "void", "V", "datetime64",
                                                   "timedelta64", "M", "m", "S", "U", "a"};
    for (const std::string_view other : kOthers)
        if (plain == other) return true;
    return !plain.empty() && std::string_view("SUVaMmO").find(plain[0]) != std::string_view::npos;
}

}  // namespace

std::string astype_names() {
    return "bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, float64, longdouble, "
           "complex64, complex128, clongdouble, their codes (b1, i1-i8, u1-u8, f2, f4, f8, f16, c8, c16, c32, "
           "with < or > for the byte order), bfloat16 (bf16), float8_e4m3fn (f8_e4m3), float8_e5m2 (f8_e5m2), "
           "float8_e8m0fnu (f8_e8m0)";
}

ElementType parse_astype(std::string_view name) {
    char order = '<';
    std::string_view plain = name;
    const Name* entry = find(name);
    if (!entry && !name.empty() && std::string_view("<>=|").find(name[0]) != std::string_view::npos) {
        // A byte order goes with a type code (numpy's '<f4', '>i2', '=u8'), not with a name.
        plain = name.substr(1);
        entry = find(plain);
        if (entry && (entry->code.size() > 3 || plain.size() > 3)) entry = nullptr;
        if (entry && name[0] == '>') order = '>';
    }
    if (!entry) {
        const std::string what = other_numpy_type(name) ? "--astype converts numbers only, not " + std::string(name)
                                                        : "--astype: unknown dtype '" + std::string(name) + "'";
        fail_usage(what + "; the types are " + astype_names());
    }
    ElementType type;
    const std::string code(entry->code);
    if (code[0] == 'B' || code[0] == 'F') {
        type.dtype = parse_dtype_descr(code == "BF16" ? "'|V2'" : "'|V1'");
        type.safetensors_only = code;
        return type;
    }
    const bool single_byte = code == "b1" || code == "i1" || code == "u1";
    type.dtype = parse_dtype_descr("'" + std::string(1, single_byte ? '|' : order) + code + "'");
    return type;
}

}  // namespace tslice
