// One element's text in JSON or CSV, and the buffers the text writer writes it through
// (text_values.cpp drives them over a result; what each dtype becomes is told there).
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "read/read_sizes.hpp"
#include "text/element_value.hpp"
#include "write/chunk_stream.hpp"
#include "write/output_file.hpp"
#include "tslice/container.hpp"

namespace tslice {

// A float as text: the shortest that reads back as the same value, NaN and the infinities as
// JSON strings or as CSV's words.
void append_float(std::string& out, const Real& x, bool json);

// Whether the CSV writer can show this type: numbers only.
bool csv_number(const ElementType& type);

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
    static constexpr std::size_t kFlushBytes = kChunkBytes;
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

    static constexpr std::size_t kWindowBytes = kChunkBytes;
    const std::byte* base_ = nullptr;
    std::size_t begin_ = 0, end_ = 0, unit_ = 1, itemsize_ = 0;
    Fetch fetch_;
    std::vector<std::byte> window_;
};

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
    void append_value(TextStream& stream, ElementBytes& bytes, std::size_t at, const DType& dtype) const;
    void append_string(TextStream& stream, ElementBytes& bytes, std::size_t at, const DType& dtype) const;
    void append_record(TextStream& stream, ElementBytes& bytes, std::size_t at, const DType& dtype) const;
    void append_subarray(TextStream& stream, ElementBytes& bytes, std::size_t at, const DType& dtype,
                         const std::vector<std::int64_t>& shape, std::size_t axis) const;

    const ElementType& type_;
    bool json_;
    int native_float_ = 0;  // 4 or 8: append_native_float's case
};

}  // namespace tslice
