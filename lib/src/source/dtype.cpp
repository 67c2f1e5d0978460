// numpy dtypes from the descr of a .npy header: simple type strings ('<f4', '|S10', '<M8[ns]')
// and structured lists of fields (names, titles, offsets by packing, sub-array shapes),
// checked as numpy's descr_to_dtype checks them.
#include "source/dtype.hpp"

#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>

#include "source/py_literal.hpp"
#include "base/python_text.hpp"
#include "tslice/error.hpp"
#include "tslice/view.hpp"

namespace tslice {
namespace {

// checked a * b for sizes; nullopt on overflow of int64.
std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) {
    std::int64_t result;
    if (__builtin_mul_overflow(a, b, &result)) return std::nullopt;
    return result;
}

std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b) {
    std::int64_t result;
    if (__builtin_add_overflow(a, b, &result)) return std::nullopt;
    return result;
}

const char* kind_description(char kind) {
    switch (kind) {
        case 'b': return "booleans ('b')";
        case 'i': return "signed integers ('i')";
        case 'u': return "unsigned integers ('u')";
        case 'f': return "floats ('f')";
        case 'c': return "complex numbers ('c')";
        case 'M': return "datetimes ('M')";
        case 'm': return "timedeltas ('m')";
        default: return "this kind";
    }
}

[[noreturn]] void invalid_dtype(const std::string& quoted, const std::string& why) {
    fail_input("the dtype " + quoted + " is not valid: " + why);
}

bool valid_time_unit(std::string_view unit) {
    std::size_t k = 0;
    while (k < unit.size() && unit[k] >= '0' && unit[k] <= '9') ++k;
    const std::string_view base = unit.substr(k);
    for (const char* known : {"Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as",
                              "generic"})
        if (base == known) return k == 0 || base != "generic";
    return false;
}

// The kind and size of a dtype string such as '<f4', 'S5', 'd' or 'float32' (order mark
// removed), or nullopt if it is none of those. A flexible kind without a size has size 0.
struct KindSize {
    char kind;
    std::int64_t size;
};

std::optional<KindSize> named_type(std::string_view name) {
    // numpy's one-letter type codes and its type names, which dtype() accepts in a header too.
    struct Name {
        const char* name;
        char kind;
        int size;
    };
    static constexpr Name kNames[] = {
        {"?", 'b', 1},         {"b", 'i', 1},          {"B", 'u', 1},           {"h", 'i', 2},
        {"H", 'u', 2},         {"i", 'i', 4},          {"I", 'u', 4},           {"l", 'i', 8},
        {"L", 'u', 8},         {"q", 'i', 8},          {"Q", 'u', 8},           {"e", 'f', 2},
        {"f", 'f', 4},         {"d", 'f', 8},          {"g", 'f', 16},          {"F", 'c', 8},
        {"D", 'c', 16},        {"G", 'c', 32},         {"c", 'S', 1},           {"M", 'M', 8},
        {"m", 'm', 8},         {"S", 'S', 0},          {"a", 'S', 0},           {"U", 'U', 0},
        {"V", 'V', 0},         {"bool", 'b', 1},       {"int8", 'i', 1},        {"int16", 'i', 2},
        {"int32", 'i', 4},     {"int64", 'i', 8},      {"uint8", 'u', 1},       {"uint16", 'u', 2},
        {"uint32", 'u', 4},    {"uint64", 'u', 8},     {"float16", 'f', 2},     {"float32", 'f', 4},
        {"float64", 'f', 8},   {"float128", 'f', 16},  {"complex64", 'c', 8},   {"complex128", 'c', 16},
        {"complex256", 'c', 32}, {"int", 'i', 8},      {"float", 'f', 8},       {"complex", 'c', 16},
        {"datetime64", 'M', 8}, {"timedelta64", 'm', 8}};
    for (const Name& entry : kNames)
        if (name == entry.name) return KindSize{entry.kind, entry.size};
    return std::nullopt;
}

DType simple_dtype(const std::string& type, bool in_field) {
    const std::string quoted = str_repr_utf8(type);
    DType dtype;
    dtype.descr = quoted;
    dtype.type_string = type;
    dtype.structured = false;

    std::string_view rest = type;
    char order = 0;
    if (!rest.empty() && (rest[0] == '<' || rest[0] == '>' || rest[0] == '|' || rest[0] == '='))
        order = rest[0], rest.remove_prefix(1);
    if (rest.empty()) invalid_dtype(quoted, "it has no type code");
    if (rest[0] == 'O' && (rest.size() == 1 || (rest[1] >= '0' && rest[1] <= '9') || rest == "object"))
        fail_input("object arrays (descr " + quoted +
                   ") are not supported: tslice copies fixed-size elements, and object arrays hold "
                   "pointers to Python objects");

    // Datetimes carry a unit: '<M8[ns]', 'datetime64[D]'.
    std::string_view unit;
    if (const auto bracket = rest.find('['); bracket != std::string_view::npos) {
        unit = rest.substr(bracket);
        rest = rest.substr(0, bracket);
    }

    KindSize found{};
    if (const auto named = named_type(rest)) {
        found = *named;
    } else {
        found.kind = rest[0];
        std::size_t k = 1;
        while (k < rest.size() && rest[k] >= '0' && rest[k] <= '9') {
            const auto tens = checked_mul(found.size, 10);
            const auto next = tens ? checked_add(*tens, rest[k] - '0') : std::nullopt;
            if (!next) invalid_dtype(quoted, "its size does not fit in 64 bits");
            found.size = *next;
            ++k;
        }
        if (k == 1 || k < rest.size())
            invalid_dtype(quoted, "a .npy header names a type by byte order, kind and size in "
                                  "bytes, such as '<f4', '|S5' or '<M8[ns]'");
        const auto check_size = [&](std::initializer_list<int> sizes, const char* listed) {
            for (int size : sizes)
                if (found.size == size) return;
            invalid_dtype(quoted, std::string(kind_description(found.kind)) + " come in sizes " +
                                      listed + " bytes, not " + std::to_string(found.size));
        };
        switch (found.kind) {
            case 'b': check_size({1}, "1"); break;
            case 'i':
            case 'u': check_size({1, 2, 4, 8}, "1, 2, 4 and 8"); break;
            case 'f': check_size({2, 4, 8, 12, 16}, "2, 4, 8, 12 and 16"); break;
            case 'c': check_size({8, 16, 24, 32}, "8, 16, 24 and 32"); break;
            case 'M':
            case 'm': check_size({8}, "8"); break;
            case 'a': found.kind = 'S'; break;  // the old spelling of bytes
            case 'S':
            case 'V': break;
            case 'U': {
                const auto bytes = checked_mul(found.size, 4);  // UCS-4: four bytes a character
                if (!bytes) invalid_dtype(quoted, "its size does not fit in 64 bits");
                found.size = *bytes;
                break;
            }
            default:
                invalid_dtype(quoted, "'" + std::string(1, found.kind) +
                                          "' is not a numpy type kind (expected one of b i u f c S a "
                                          "U V M m)");
        }
    }
    if (!unit.empty() &&
        (found.kind != 'M' && found.kind != 'm' ? true
                                                : unit.back() != ']' ||
                                                      !valid_time_unit(unit.substr(1, unit.size() - 2))))
        invalid_dtype(quoted, found.kind == 'M' || found.kind == 'm'
                                  ? "'" + std::string(unit) + "' is not a time unit such as [ns], [s] or [D]"
                                  : "only datetimes and timedeltas take a unit in brackets");
    // numpy allows a zero-byte field (S0, an empty record) inside a structured dtype; a whole
    // array of zero-byte elements has no data to slice.
    if (found.size == 0 && !in_field)
        invalid_dtype(quoted, "its elements have zero bytes; tslice needs an itemsize of at least 1");

    dtype.kind = found.kind;
    dtype.itemsize = static_cast<std::size_t>(found.size);
    if (order) {
        dtype.byte_order = order;
    } else {
        // What numpy would mean: no byte order for single bytes and byte strings, native else.
        const bool orderless = found.size <= 1 || found.kind == 'S' || found.kind == 'V';
        dtype.byte_order = orderless ? '|' : '=';
    }
    return dtype;
}

DType dtype_from_value(const PyValue& value, int depth);

std::vector<std::int64_t> subshape_from_value(const PyValue& value) {
    std::vector<std::int64_t> shape;
    if (value.kind == PyValue::Kind::Int) {
        shape.push_back(value.integer);
    } else if (value.kind == PyValue::Kind::Tuple) {
        for (const PyValue& item : value.items) {
            if (item.kind != PyValue::Kind::Int)
                fail_input("its shape " + shown(value) + " is not a tuple of integers");
            shape.push_back(item.integer);
        }
    } else {
        fail_input("its shape " + shown(value) + " is not a tuple of integers");
    }
    for (auto dim : shape)
        if (dim < 0) fail_input("its shape " + shown(value) + " has a negative dimension");
    return shape;
}

// A field's type: a type string, a nested field list, or numpy's (type, shape) sub-array form,
// whose shape goes in front of the inner one.
DType field_type_from_value(const PyValue& value, std::vector<std::int64_t>& subshape, int depth) {
    if (value.kind == PyValue::Kind::Tuple) {
        if (value.items.size() != 2)
            fail_input("its type " + shown(value) + " is neither a dtype nor a (dtype, shape) pair");
        std::vector<std::int64_t> inner = subshape_from_value(value.items[1]);
        DType base = field_type_from_value(value.items[0], subshape, depth + 1);
        subshape.insert(subshape.end(), inner.begin(), inner.end());
        return base;
    }
    return dtype_from_value(value, depth + 1);
}

DType structured_dtype(const PyValue& list, int depth) {
    DType dtype;
    dtype.structured = true;
    dtype.kind = 'V';
    dtype.byte_order = '|';
    std::string descr = "[";
    std::int64_t offset = 0;
    std::unordered_set<std::string> names;  // a set: a header may list many thousands of fields
    for (std::size_t index = 0; index < list.items.size(); ++index) {
        const PyValue& field = list.items[index];
        const std::string where = "field " + std::to_string(index) + " of the dtype";
        if (field.kind != PyValue::Kind::Tuple || field.items.size() < 2 || field.items.size() > 3)
            fail_input(where + ", " + shown(field) + ", is not a (name, type) or (name, type, shape) tuple");
        const PyValue& name_value = field.items[0];
        std::string name, name_repr;
        std::optional<std::string> title;
        if (name_value.kind == PyValue::Kind::Str) {
            name = name_value.text;
            name_repr = str_repr_utf8(name);
        } else if (name_value.kind == PyValue::Kind::Tuple && name_value.items.size() == 2 &&
                   name_value.items[0].kind == PyValue::Kind::Str &&
                   name_value.items[1].kind == PyValue::Kind::Str) {
            title = name_value.items[0].text;
            name = name_value.items[1].text;
            name_repr = "(" + str_repr_utf8(*title) + ", " + str_repr_utf8(name) + ")";
        } else {
            fail_input(where + " has the name " + shown(name_value) +
                       ", which is neither a string nor a (title, name) pair of strings");
        }
        const std::string named = "field " + str_repr_utf8(name) + " of the dtype";
        std::vector<std::int64_t> subshape;
        std::shared_ptr<const DType> type;
        try {
            type = std::make_shared<const DType>(field_type_from_value(field.items[1], subshape, depth));
            if (field.items.size() == 3) {
                // The explicit shape is the outer one: ('a', ('<f8', (2,)), (3,)) is (3, 2).
                std::vector<std::int64_t> outer = subshape_from_value(field.items[2]);
                subshape.insert(subshape.begin(), outer.begin(), outer.end());
            }
        } catch (const Error& e) {
            fail_input(named + ": " + e.what());
        }
        if (subshape.size() > kMaxRank)
            fail_input(named + " has a sub-array of " + std::to_string(subshape.size()) +
                       " dimensions; numpy arrays have at most " + std::to_string(kMaxRank));
        // numpy reads a shape on a zero-byte type as a size (('S0', 3) is 'S3') or refuses it;
        // its writer never produces one, so there is nothing to be compatible with.
        if (type->itemsize == 0 && (field.items.size() == 3 || field.items[1].kind == PyValue::Kind::Tuple))
            fail_input(named + " gives a shape to a zero-byte type, which numpy does not read as a sub-array");
        // Names and titles share one namespace in numpy. Padding (a void field named '', as
        // numpy's writer emits for gaps) has no name and may repeat.
        const bool padding = name.empty() && !title && type->kind == 'V' && !type->structured;
        if (!padding) {
            for (const std::string* key : {&name, title ? &*title : nullptr}) {
                if (!key) continue;
                if (!names.insert(*key).second)
                    fail_input("the dtype uses " + str_repr_utf8(*key) + " twice as a field name or title");
            }
        }
        std::int64_t size = static_cast<std::int64_t>(type->itemsize);
        for (auto dim : subshape) {
            const auto product = checked_mul(size, dim);
            if (!product) fail_input(named + " is too large: its size overflows 64 bits");
            size = *product;
        }
        DType::Field entry;
        entry.name = name;
        entry.offset = static_cast<std::size_t>(offset);
        entry.type = type;
        entry.subshape = subshape;
        dtype.fields.push_back(std::move(entry));
        const auto end = checked_add(offset, size);
        if (!end) fail_input("the dtype is too large: its itemsize overflows 64 bits");
        offset = *end;

        if (index) descr += ", ";
        descr += "(" + name_repr + ", " + type->descr;
        if (!subshape.empty()) descr += ", " + format_shape(subshape);
        descr += ")";
    }
    descr += "]";
    dtype.descr = std::move(descr);
    dtype.itemsize = static_cast<std::size_t>(offset);
    return dtype;
}

DType dtype_from_value(const PyValue& value, int depth) {
    if (depth >= kMaxLiteralDepth)
        fail_input("the dtype is nested more than " + std::to_string(kMaxLiteralDepth) + " levels deep");
    switch (value.kind) {
        case PyValue::Kind::Str: return simple_dtype(value.text, depth > 0);
        case PyValue::Kind::List: return structured_dtype(value, depth);
        case PyValue::Kind::Tuple:
            fail_input("the descr " + shown(value) +
                       " is a sub-array dtype, which tslice does not read as a whole array's dtype "
                       "(numpy stores such arrays with the sub-array's axes in the shape)");
        default:
            fail_input("the descr " + shown(value) + " is " + kind_name(value.kind) +
                       ", not a dtype string or a list of fields");
    }
}

}  // namespace

DType checked_dtype(const PyValue& value) {
    DType dtype = dtype_from_value(value, 0);
    if (dtype.itemsize == 0)
        fail_input("the dtype " + dtype.descr + " has zero-byte elements; tslice needs an itemsize of at least 1");
    return dtype;
}

DType parse_dtype_descr(std::string_view literal) {
    return checked_dtype(parse_py_literal(literal, "the dtype descr", "unexpected text after the descr"));
}

std::int64_t checked_element_count(const std::vector<std::int64_t>& shape, std::size_t itemsize,
                                   const std::string& what) {
    // numpy refuses a shape whose non-zero dimensions overflow even when another dimension is
    // 0 (the strides would overflow), so zeros are skipped in the product.
    std::int64_t nonzero = 1;
    bool empty = false;
    for (auto dim : shape) {
        if (dim < 0) fail_input(what + " " + format_shape(shape) + " has a negative dimension");
        if (dim == 0) {
            empty = true;
            continue;
        }
        const auto product = checked_mul(nonzero, dim);
        if (!product) fail_input("shape " + format_shape(shape) + " is too large: its element count overflows 64 bits");
        nonzero = *product;
    }
    if (!checked_mul(nonzero, static_cast<std::int64_t>(itemsize)) ||
        itemsize > static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max()))
        fail_input("shape " + format_shape(shape) + " is too large: its byte size overflows 64 bits (" +
                   std::to_string(itemsize) + " bytes per element)");
    return empty ? 0 : nonzero;
}

}  // namespace tslice
