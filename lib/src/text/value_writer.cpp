// One element's text in JSON or CSV (see value_writer.hpp, and text_values.cpp for the rules).
#include "text/value_writer.hpp"

#include <limits>

#include "text/datetime_text.hpp"
#include "base/python_text.hpp"
#include "tslice/error.hpp"

namespace tslice {
namespace {

// The shortest text that reads back as `value` in its own type.
template <typename Float>
void append_shortest(std::string& out, Float value) {
    char text[64];
    const auto result = std::to_chars(text, text + sizeof text, value);
    out.append(text, result.ptr);
}

void append_half(std::string& out, float value) {
    // The fewest significant digits that round to the same binary16 value.
    char text[32];
    for (int digits = 1; digits <= 5; ++digits) {
        const auto result = std::to_chars(text, text + sizeof text, value, std::chars_format::general, digits);
        float back = 0;
        std::from_chars(text, result.ptr, back);
        if (round_to_half(back) == value || digits == 5) {
            out.append(text, result.ptr);
            return;
        }
    }
}

// A finite float, with ".0" where its text would read as an integer.
void append_finite(std::string& out, const Real& x) {
    const std::size_t start = out.size();
    switch (x.kind) {
        case FloatKind::Half: append_half(out, static_cast<float>(x.value)); break;
        case FloatKind::Single: append_shortest(out, static_cast<float>(x.value)); break;
        case FloatKind::Double: append_shortest(out, static_cast<double>(x.value)); break;
        case FloatKind::Extended: append_shortest(out, x.value); break;
    }
    if (out.find_first_of(".e", start) == std::string::npos) out += ".0";
}

}  // namespace

void append_float(std::string& out, const Real& x, bool json) {
    if (std::isnan(x.value)) {
        out += json ? "\"NaN\"" : "nan";
    } else if (std::isinf(x.value)) {
        out += json ? (x.value > 0 ? "\"Infinity\"" : "\"-Infinity\"") : (x.value > 0 ? "inf" : "-inf");
    } else {
        append_finite(out, x);
    }
}

// Whether the CSV writer can show this type: numbers only.
bool csv_number(const ElementType& type) {
    if (!type.safetensors_only.empty()) return true;
    const DType& dtype = type.dtype;
    return !dtype.structured && (dtype.kind == 'b' || dtype.kind == 'i' || dtype.kind == 'u' || dtype.kind == 'f' ||
                                 dtype.kind == 'c');
}

namespace {

// Characters of a JSON string; a lone surrogate (a Python str may hold one, numpy stores it)
// has no UTF-8 form, so it is escaped as Python's json.dumps escapes it ("\ud800"): the text
// stays valid UTF-8 and reads back as the same str.
void append_json_char(std::string& out, char32_t c) {
    if (c == '"' || c == '\\') {
        out += '\\';
        out += static_cast<char>(c);
    } else if (c < 0x20 || (c >= 0xD800 && c <= 0xDFFF)) {
        out += "\\u";
        append_hex(out, c, 4);
    } else {
        append_utf8(out, c);
    }
}

}  // namespace

void ValueWriter::append_value(TextStream& stream, ElementBytes& bytes, std::size_t at, const DType& dtype) const {
    std::string& out = stream.text();
    if (!type_.safetensors_only.empty()) {
        const std::byte* p = bytes.at(at, dtype.itemsize);
        append_float(out, Real{narrow_float_value(p, type_.safetensors_only), FloatKind::Single}, json_);
        return;
    }
    if (dtype.structured) {
        append_record(stream, bytes, at, dtype);
        return;
    }
    if (dtype.kind == 'U' || dtype.kind == 'S' || dtype.kind == 'V') {
        append_string(stream, bytes, at, dtype);
        return;
    }
    const std::byte* p = bytes.at(at, dtype.itemsize);
    const bool swap = swapped(dtype.byte_order);
    switch (dtype.kind) {
        case 'b':
            out += std::to_integer<int>(*p) != 0 ? (json_ ? "true" : "1") : (json_ ? "false" : "0");
            return;
        case 'i':
        case 'u': out += integer_text(load_integer(p, dtype)); return;
        case 'f': append_float(out, load_real(p, float_kind(dtype, dtype.itemsize), swap, dtype.itemsize), json_); return;
        case 'c': {
            const std::size_t part = dtype.itemsize / 2;
            const FloatKind kind = float_kind(dtype, part);
            const Real re = load_real(p, kind, swap, part), im = load_real(p + part, kind, swap, part);
            if (json_) {
                out += '[';
                append_float(out, re, true);
                out += ',';
                append_float(out, im, true);
                out += ']';
            } else {
                append_float(out, re, false);
                if (!std::signbit(im.value) || std::isnan(im.value)) out += '+';
                append_float(out, im, false);
                out += 'j';
            }
            return;
        }
        case 'M':
        case 'm': {
            const std::int64_t value = load_time(p, dtype);
            if (value == kNaT) {
                out += "null";
            } else if (dtype.kind == 'm') {
                out += integer_text(value);
            } else {
                out += '"' + datetime_text(value, time_meta(dtype), dtype) + '"';
            }
            return;
        }
        default: unprintable(dtype);
    }
}

// 'U': code points (trailing NULs dropped, as numpy drops them); 'S': bytes as U+0000 to
// U+00FF, trailing NULs dropped; 'V': every byte. Read and written a piece at a time, the
// NULs held back as a count until something follows them.
void ValueWriter::append_string(TextStream& stream, ElementBytes& bytes, std::size_t at, const DType& dtype) const {
    const bool code_points = dtype.kind == 'U';
    const bool drop_nuls = dtype.kind != 'V';
    const std::size_t width = code_points ? 4 : 1;
    const bool swap = code_points && swapped(dtype.byte_order);
    std::size_t nuls = 0;
    stream.text() += '"';
    for (std::size_t done = 0; done < dtype.itemsize;) {
        const std::size_t piece = std::min(dtype.itemsize - done, ElementBytes::kMaxAsk / width * width);
        const std::byte* p = bytes.at(at + done, piece);
        std::string& out = stream.text();
        for (std::size_t i = 0; i < piece; i += width) {
            char32_t c;
            if (code_points) {
                std::uint32_t value;
                load_native(p + i, 4, swap, &value);
                c = value;
                if (c > 0x10FFFF)
                    fail_input("a string holds the code point " + std::to_string(c) +
                                   ", which is beyond Unicode's range (at most 1114111, "
                                   "U+10FFFF); numpy cannot read it either");
            } else {
                c = std::to_integer<unsigned char>(p[i]);
            }
            if (c == 0 && drop_nuls) {
                ++nuls;
                continue;
            }
            for (; nuls > 0; --nuls) out += "\\u0000";
            append_json_char(out, c);
        }
        done += piece;
        stream.maybe_flush();
    }
    stream.text() += '"';
}

void ValueWriter::append_record(TextStream& stream, ElementBytes& bytes, std::size_t at, const DType& dtype) const {
    stream.text() += '{';
    bool first = true;
    for (const DType::Field& field : dtype.fields) {
        if (field.name.empty()) continue;  // padding np.save wrote
        std::string& out = stream.text();
        if (!first) out += ',';
        first = false;
        out += '"';
        for (std::size_t i = 0; i < field.name.size();) {
            const auto c = next_utf8(field.name, i);
            append_json_char(out, c ? *c : static_cast<unsigned char>(field.name[i++]));
        }
        out += "\":";
        append_subarray(stream, bytes, at + static_cast<std::size_t>(field.offset), *field.type, field.subshape, 0);
    }
    stream.text() += '}';
}

void ValueWriter::append_subarray(TextStream& stream, ElementBytes& bytes, std::size_t at, const DType& dtype,
                     const std::vector<std::int64_t>& shape, std::size_t axis) const {
    if (axis == shape.size()) {
        append_value(stream, bytes, at, dtype);
        stream.maybe_flush();
        return;
    }
    std::size_t inner = dtype.itemsize;
    for (std::size_t k = axis + 1; k < shape.size(); ++k) inner *= static_cast<std::size_t>(shape[k]);
    stream.text() += '[';
    for (std::int64_t i = 0; i < shape[axis]; ++i) {
        if (i) stream.text() += ',';
        append_subarray(stream, bytes, at + static_cast<std::size_t>(i) * inner, dtype, shape, axis + 1);
    }
    stream.text() += ']';
}

}  // namespace tslice
