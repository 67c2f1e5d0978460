// A result's values as text for other programs: JSON (nested lists) and CSV (what numpy's
// savetxt(delimiter=",") writes and loadtxt(delimiter=",") reads back). Written as it is made,
// a chunk of elements at a time, so memory stays bounded whatever the result's size.
//
// JSON, one way per kind (a value JSON has no literal for becomes a string or null):
//   bool               true / false
//   integers           exact decimal, whatever the width
//   floats             the shortest text that reads back as the same value ("1.0", "0.1",
//                      "1e+20"); float16 as the shortest float32 text of its value; NaN and the
//                      infinities as the strings "NaN", "Infinity", "-Infinity" (what
//                      float() and np.float64() read back)
//   complex            [real, imag]
//   str ('U')          a string (numpy drops trailing NULs, so does this)
//   bytes ('S'), void  a string of one character per byte, U+0000 to U+00FF (Latin-1:
//                      s.encode("latin-1") gives the bytes back), trailing NULs of 'S' dropped
//   datetime64         numpy's ISO text, "2021-01-01T12:00"; NaT as null
//   timedelta64        the integer count of its unit; NaT as null
//   structured         an object of its fields in order (padding left out), sub-array fields
//                      as nested lists
// CSV: 0-D, 1-D (a value a line) and 2-D (a row a line) results of booleans (1 / 0), integers,
// floats ("nan", "inf", "-inf") and complex numbers ("1+2j"); anything else is a usage error.
#include "tslice/text_values.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "datetime_text.hpp"
#include "element_value.hpp"
#include "gather_reads.hpp"
#include "input_paging.hpp"
#include "python_text.hpp"
#include "tslice/copy.hpp"
#include "tslice/error.hpp"

namespace tslice {
namespace {

[[noreturn]] void usage(const std::string& message) { throw Error(ErrorKind::Usage, message); }

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

void append_float(std::string& out, const Real& x, bool json) {
    if (std::isnan(x.value)) {
        out += json ? "\"NaN\"" : "nan";
    } else if (std::isinf(x.value)) {
        out += json ? (x.value > 0 ? "\"Infinity\"" : "\"-Infinity\"") : (x.value > 0 ? "inf" : "-inf");
    } else {
        append_finite(out, x);
    }
}

void append_json_string(std::string& out, const std::u32string& text) {
    out += '"';
    for (const char32_t c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20) {
            out += "\\u00";
            append_hex(out, c, 2);
        } else {
            append_utf8(out, c);
        }
    }
    out += '"';
}

// Whether the CSV writer can show this type: numbers only.
bool csv_number(const ElementType& type) {
    if (!type.safetensors_only.empty()) return true;
    const DType& dtype = type.dtype;
    return !dtype.structured && (dtype.kind == 'b' || dtype.kind == 'i' || dtype.kind == 'u' || dtype.kind == 'f' ||
                                 dtype.kind == 'c');
}

// Text written through a cursor into a string grown ahead of it, so that an element costs no
// reallocation check of its own.
class TextOut {
public:
    explicit TextOut(std::string& text) : text_(text), used_(text.size()) {}
    ~TextOut() { text_.resize(used_); }

    // Room for `bytes` more; the cursor to write them at.
    char* reserve(std::size_t bytes) {
        if (text_.size() < used_ + bytes) text_.resize(std::max(2 * text_.size(), used_ + bytes + (1 << 16)));
        return text_.data() + used_;
    }
    void commit(const char* end) { used_ = static_cast<std::size_t>(end - text_.data()); }

private:
    std::string& text_;
    std::size_t used_;
};

// A plain float32 or float64 in native order, the common case, without the general dispatch
// (at most 32 bytes of text).
template <typename Float>
char* write_native_float(char* cursor, const std::byte* p, bool json) {
    Float value;
    std::memcpy(&value, p, sizeof value);
    if (!std::isfinite(value)) {
        std::string text;
        append_float(text, Real{value, sizeof(Float) == 4 ? FloatKind::Single : FloatKind::Double}, json);
        return std::copy(text.begin(), text.end(), cursor);
    }
    char* end = std::to_chars(cursor, cursor + 30, value).ptr;
    const auto length = static_cast<std::size_t>(end - cursor);
    if (!std::memchr(cursor, '.', length) && !std::memchr(cursor, 'e', length)) {
        *end++ = '.';
        *end++ = '0';
    }
    return end;
}

class ValueWriter {
public:
    ValueWriter(const ElementType& type, bool json) : type_(type), json_(json) {
        const DType& dtype = type.dtype;
        native_float_ = type.safetensors_only.empty() && !dtype.structured && dtype.kind == 'f' &&
                                (dtype.itemsize == 4 || dtype.itemsize == 8) && !swapped(dtype.byte_order)
                            ? static_cast<int>(dtype.itemsize)
                            : 0;
    }

    // The element's text at `cursor` (which has room for kFastBytes), or nullptr when the
    // element needs append() instead.
    char* write_fast(char* cursor, const std::byte* p) const {
        if (native_float_ == 4) return write_native_float<float>(cursor, p, json_);
        if (native_float_ == 8) return write_native_float<double>(cursor, p, json_);
        return nullptr;
    }
    bool fast() const { return native_float_ != 0; }
    static constexpr std::size_t kFastBytes = 32;

    void append(std::string& out, const std::byte* p) const { append_value(out, p, type_.dtype); }

private:
    void append_value(std::string& out, const std::byte* p, const DType& dtype) const {
        if (!type_.safetensors_only.empty()) {
            append_float(out, Real{narrow_float_value(p, type_.safetensors_only), FloatKind::Single}, json_);
            return;
        }
        if (dtype.structured) {
            append_record(out, p, dtype);
            return;
        }
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
            case 'U': append_json_string(out, load_code_points(p, dtype)); return;
            case 'S':
            case 'V': {
                std::u32string text(reinterpret_cast<const unsigned char*>(p),
                                    reinterpret_cast<const unsigned char*>(p) + dtype.itemsize);
                if (dtype.kind == 'S')
                    while (!text.empty() && text.back() == 0) text.pop_back();
                append_json_string(out, text);
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

    void append_record(std::string& out, const std::byte* p, const DType& dtype) const {
        out += '{';
        bool first = true;
        for (const DType::Field& field : dtype.fields) {
            if (field.name.empty()) continue;  // padding np.save wrote
            if (!first) out += ',';
            first = false;
            std::u32string name;
            for (std::size_t i = 0; i < field.name.size();) {
                const auto c = next_utf8(field.name, i);
                name.push_back(c ? *c : static_cast<unsigned char>(field.name[i++]));
            }
            append_json_string(out, name);
            out += ':';
            append_subarray(out, p + field.offset, *field.type, field.subshape, 0);
        }
        out += '}';
    }

    void append_subarray(std::string& out, const std::byte* p, const DType& dtype, const std::vector<std::int64_t>& shape,
                         std::size_t axis) const {
        if (axis == shape.size()) {
            append_value(out, p, dtype);
            return;
        }
        std::int64_t inner = static_cast<std::int64_t>(dtype.itemsize);
        for (std::size_t k = axis + 1; k < shape.size(); ++k) inner *= shape[k];
        out += '[';
        for (std::int64_t i = 0; i < shape[axis]; ++i) {
            if (i) out += ',';
            append_subarray(out, p + i * inner, dtype, shape, axis + 1);
        }
        out += ']';
    }

    const ElementType& type_;
    bool json_;
    int native_float_ = 0;  // 4 or 8: append_native_float's case
};

// "[]" nested as an empty array's shape says: (2, 0) is [[],[]].
void append_empty(std::string& out, const std::vector<std::int64_t>& shape, std::size_t axis) {
    out += '[';
    if (axis + 1 < shape.size())
        for (std::int64_t i = 0; i < shape[axis]; ++i) {
            if (i) out += ',';
            append_empty(out, shape, axis + 1);
        }
    out += ']';
}

// Elements are formatted from a dense copy of this many bytes at a time; text goes out in
// pieces of about this size.
constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

}  // namespace

void write_values_as_text(const std::string& path, TextFormat format, const std::byte* data, const View& view,
                          const ElementType& type, const InputPages& pages, const WriteOptions& options) {
    const bool json = format == TextFormat::Json;
    const std::size_t rank = view.rank();
    if (!json) {
        if (rank > 2)
            usage("CSV holds at most two dimensions; the result's shape is " + format_shape(view.shape) +
                  " (write it with --format json, or slice it to 2-D)");
        if (!csv_number(type))
            usage("CSV holds numbers (booleans, integers, floats, complex); the result's dtype is " + type.name() +
                  " (write it with --format json)");
    }
    const ValueWriter writer(type, json);
    const std::int64_t total = view.element_count();
    const std::size_t itemsize = view.itemsize;
    const auto per_chunk = static_cast<std::int64_t>(std::max<std::size_t>(1, kChunkBytes / itemsize));
    std::vector<std::byte> elements(static_cast<std::size_t>(std::min(per_chunk, std::max<std::int64_t>(total, 1))) *
                                    itemsize);
    std::vector<std::int64_t> index(rank, 0);
    std::int64_t next = 0;
    bool started = false, finished = false;
    const WriteSizes sizes = write_sizes();
    InputPaging input(view, pages, sizes);
    // A gather is read as the write stage reads it, so that a text dump of one does not map
    // the file.
    GatherReads gather_reads(data, view, pages, sizes);
    WorkerPool one_thread(1);

    write_text(
        path,
        [&](std::string& out) {
            if (finished) return false;
            if (!started) {
                started = true;
                if (total == 0) {
                    if (json) append_empty(out, view.shape, 0);
                    out += json ? "\n" : "";
                    finished = true;
                    return true;
                }
                if (json) out.append(rank, '[');
            }
            const std::int64_t count = std::min(per_chunk, total - next);
            if (gather_reads) {
                gather_reads.copy(one_thread, elements.data(), next, count);
            } else {
                copy_view(data, view, elements.data(), next, count, pages.memory());
                input.before(next + count);
            }
            {
            TextOut text(out);
            std::string element;  // the general path's text of one element
            for (std::int64_t i = 0; i < count; ++i, ++next) {
                const std::byte* p = elements.data() + static_cast<std::size_t>(i) * itemsize;
                if (!writer.fast()) {
                    element.clear();
                    writer.append(element, p);
                }
                char* cursor = text.reserve(2 * rank + 1 + (writer.fast() ? ValueWriter::kFastBytes : element.size()));
                if (next > 0) {
                    // The axes that rolled over since the previous element close and open again.
                    std::size_t rolled = 0;
                    for (std::size_t k = rank; k-- > 1;) {
                        if (++index[k] < view.shape[k]) break;
                        index[k] = 0;
                        ++rolled;
                    }
                    if (json) {
                        cursor = std::fill_n(cursor, rolled, ']');
                        *cursor++ = ',';
                        cursor = std::fill_n(cursor, rolled, '[');
                    } else {
                        *cursor++ = rank == 2 && rolled == 0 ? ',' : '\n';
                    }
                }
                cursor = writer.fast() ? writer.write_fast(cursor, p) : std::copy(element.begin(), element.end(), cursor);
                text.commit(cursor);
            }
            }
            if (next == total) {
                if (json) out.append(rank, ']');
                out += '\n';
                finished = true;
            }
            return true;
        },
        options);
}

}  // namespace tslice
