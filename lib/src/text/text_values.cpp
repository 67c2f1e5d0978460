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
//   str ('U')          a string (numpy drops trailing NULs, so does this); a lone surrogate
//                      escaped ("\ud800", as json.dumps writes it), a code point past
//                      U+10FFFF an input error (numpy cannot read it either)
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
#include <functional>
#include <limits>
#include <vector>

#include "text/datetime_text.hpp"
#include "text/element_value.hpp"
#include "read/gather_reads.hpp"
#include "read/input_paging.hpp"
#include "text/python_text.hpp"
#include "tslice/copy.hpp"
#include "write/output_file.hpp"
#include "write/chunk_stream.hpp"
#include "tslice/error.hpp"
#include "write/write_sizes.hpp"

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

// Text on its way out: appended to a buffer that goes to the output whenever it passes a
// chunk, also in the middle of an element, so that neither the shape nor the item size
// bounds memory (a '|V50000000' is 300 MB of JSON text).
class TextStream {
public:
    explicit TextStream(OutputFile& output) : output_(output) { text_.reserve(2 * kFlushBytes); }

    std::string& text() { return text_; }
    void maybe_flush() {
        if (text_.size() >= kFlushBytes) flush();
    }
    void flush() {
        write_all(output_.fd(), text_.data(), text_.size(), output_.name());
        text_.clear();
    }

private:
    static constexpr std::size_t kFlushBytes = std::size_t{1} << 20;
    OutputFile& output_;
    std::string text_;
};

// The bytes of the element being written: all of it in the chunk buffer (elements up to a
// chunk), or a window of it copied in as the writer asks (larger elements), so that an element
// of any size is read in bounded memory. at(offset, length) with length at most kMaxAsk.
class ElementBytes {
public:
    using Fetch = std::function<void(std::size_t from, std::size_t to, std::byte* dst)>;
    static constexpr std::size_t kMaxAsk = std::size_t{1} << 16;

    // The whole element at `p`.
    void whole(const std::byte* p, std::size_t itemsize) {
        base_ = p;
        begin_ = 0;
        end_ = itemsize;
    }
    // An element read by `fetch`, in multiples of `unit` bytes.
    void windowed(std::size_t unit, Fetch fetch) {
        unit_ = unit;
        fetch_ = std::move(fetch);
        base_ = nullptr;
        begin_ = end_ = 0;
    }
    void set_size(std::size_t itemsize) { itemsize_ = itemsize; }

    const std::byte* at(std::size_t offset, std::size_t length) {
        if (offset < begin_ || offset + length > end_) refill(offset, length);
        return base_ + (offset - begin_);
    }

private:
    void refill(std::size_t offset, std::size_t length) {
        const std::size_t from = offset / unit_ * unit_;
        const std::size_t asked_to = (offset + length + unit_ - 1) / unit_ * unit_;
        const std::size_t to = std::min(itemsize_, std::max(asked_to, from + kWindowBytes / unit_ * unit_));
        window_.resize(std::max(window_.size(), to - from));
        fetch_(from, to, window_.data());
        base_ = window_.data();
        begin_ = from;
        end_ = to;
    }

    static constexpr std::size_t kWindowBytes = std::size_t{1} << 20;
    const std::byte* base_ = nullptr;
    std::size_t begin_ = 0, end_ = 0, unit_ = 1, itemsize_ = 0;
    Fetch fetch_;
    std::vector<std::byte> window_;
};

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

    void append(TextStream& out, ElementBytes& bytes) const { append_value(out, bytes, 0, type_.dtype); }

private:
    void append_value(TextStream& stream, ElementBytes& bytes, std::size_t at, const DType& dtype) const {
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
    void append_string(TextStream& stream, ElementBytes& bytes, std::size_t at, const DType& dtype) const {
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
                        throw Error(ErrorKind::Input, "a string holds the code point " + std::to_string(c) +
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

    void append_record(TextStream& stream, ElementBytes& bytes, std::size_t at, const DType& dtype) const {
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

    void append_subarray(TextStream& stream, ElementBytes& bytes, std::size_t at, const DType& dtype,
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

    const ElementType& type_;
    bool json_;
    int native_float_ = 0;  // 4 or 8: append_native_float's case
};

// Advances `index` (over `shape`) to the next element and writes what stands between the two:
// in JSON the closing and opening brackets of the axes that rolled over and a comma; in CSV a
// comma within a row, else a new line.
char* separator(char* cursor, std::vector<std::int64_t>& index, const std::vector<std::int64_t>& shape, bool json) {
    const std::size_t rank = index.size();
    std::size_t rolled = 0;
    for (std::size_t k = rank; k-- > 1;) {
        if (++index[k] < shape[k]) break;
        index[k] = 0;
        ++rolled;
    }
    if (json) {
        cursor = std::fill_n(cursor, rolled, ']');
        *cursor++ = ',';
        return std::fill_n(cursor, rolled, '[');
    }
    *cursor++ = rank == 2 && rolled == 0 ? ',' : '\n';
    return cursor;
}

// The JSON text of an empty result: "[]" nested as its shape says up to its first 0, so
// (2, 0) is [[],[]] and (2, 3, 0, 5) is [[[],[],[]],[[],[],[]]]. Its length is known before
// it is written: past what a file can hold (2**63 - 1 bytes) it is refused at once, instead
// of running for ever.
void write_empty_json(TextStream& stream, const std::vector<std::int64_t>& shape) {
    const auto zero = std::find(shape.begin(), shape.end(), 0);
    const std::vector<std::int64_t> outer(shape.begin(), zero);
    // Lists at depth k: the product of the first k lengths; each "[]" is 2 bytes and each but
    // the first of a list's items has a comma before it; then a new line.
    UInt128 length = 1, lists = 1, total = 2;
    for (const std::int64_t dim : outer) {
        const UInt128 next = lists * static_cast<std::uint64_t>(dim);
        total += 2 * next + (next - lists);
        lists = next;
        if (total > static_cast<UInt128>(std::numeric_limits<std::int64_t>::max())) break;
    }
    length += total;
    if (length > static_cast<UInt128>(std::numeric_limits<std::int64_t>::max()))
        usage("the JSON text of the empty result of shape " + format_shape(shape) +
              " would be more than 2**63 - 1 bytes, more than a file can hold");
    std::int64_t leaves = 1;
    for (const std::int64_t dim : outer) leaves *= dim;  // fits: the text is longer
    std::string& out = stream.text();
    out.append(outer.size(), '[');
    std::vector<std::int64_t> index(outer.size(), 0);
    std::vector<char> between(2 * outer.size() + 2);
    for (std::int64_t i = 0; i < leaves; ++i) {
        if (i > 0) out.append(between.data(), separator(between.data(), index, outer, true));
        out += "[]";
        if ((i & 0xFFFF) == 0) stream.maybe_flush();
    }
    out.append(outer.size(), ']');
    out += '\n';
}

// Elements are formatted from a dense copy of this many bytes at a time.
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
    // Elements larger than a chunk are read a window at a time, through a view of their parts.
    const bool windowed = itemsize > kChunkBytes;
    const View read_view = in_chunk_sized_units(view, kChunkBytes);
    const std::size_t unit = read_view.itemsize;
    const auto units_per_element = static_cast<std::int64_t>(itemsize / unit);
    const auto per_chunk = static_cast<std::int64_t>(std::max<std::size_t>(1, kChunkBytes / itemsize));
    std::vector<std::byte> elements(
        windowed ? 0 : static_cast<std::size_t>(std::min(per_chunk, std::max<std::int64_t>(total, 1))) * itemsize);
    const WriteSizes sizes = write_sizes();
    InputPaging input(read_view, pages, sizes);
    // A gather is read as the write stage reads it, so that a text dump of one does not map
    // the file.
    GatherReads gather_reads(data, read_view, pages, sizes);
    WorkerPool one_thread(1);
    // Elements (or, windowed, element parts) [first, first + count) of read_view into dst.
    const auto copy = [&](std::byte* dst, std::int64_t first, std::int64_t count) {
        if (gather_reads) {
            gather_reads.copy(one_thread, dst, first, count);
        } else {
            copy_view(data, read_view, dst, first, count, pages.memory());
            input.before(first + count);
        }
    };

    OutputFile output(path);
    TextStream stream(output);
    if (total == 0) {
        if (json) write_empty_json(stream, view.shape);
    } else {
        if (json) stream.text().append(rank, '[');
        std::vector<std::int64_t> index(rank, 0);
        ElementBytes bytes;
        bytes.set_size(itemsize);
        std::vector<char> between(2 * rank + 2);
        for (std::int64_t next = 0; next < total;) {
            const std::int64_t count = windowed ? 1 : std::min(per_chunk, total - next);
            if (!windowed) copy(elements.data(), next, count);
            if (writer.fast()) {
                TextOut text(stream.text());
                for (std::int64_t i = 0; i < count; ++i, ++next) {
                    char* cursor = text.reserve(2 * rank + 1 + ValueWriter::kFastBytes);
                    if (next > 0) cursor = separator(cursor, index, view.shape, json);
                    text.commit(writer.write_fast(cursor, elements.data() + static_cast<std::size_t>(i) * itemsize));
                }
            } else {
                for (std::int64_t i = 0; i < count; ++i, ++next) {
                    if (next > 0)
                        stream.text().append(between.data(), separator(between.data(), index, view.shape, json));
                    if (windowed) {
                        const std::int64_t element = next;
                        bytes.windowed(unit, [&, element](std::size_t from, std::size_t to, std::byte* dst) {
                            copy(dst, element * units_per_element + static_cast<std::int64_t>(from / unit),
                                 static_cast<std::int64_t>((to - from) / unit));
                        });
                    } else {
                        bytes.whole(elements.data() + static_cast<std::size_t>(i) * itemsize, itemsize);
                    }
                    writer.append(stream, bytes);
                    stream.maybe_flush();
                }
            }
            stream.maybe_flush();
        }
        if (json) stream.text().append(rank, ']');
        stream.text() += '\n';
    }
    stream.flush();
    output.commit(options.sync);
}

}  // namespace tslice
