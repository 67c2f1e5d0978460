#include "own_json_reader.hpp"

#include <cmath>
#include <cstdlib>

#include "base/hex.hpp"
#include "base/utf8.hpp"

namespace tslice::json {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

void Reader::skip_space() {
    while (pos_ < text_.size()) {
        const char c = text_[pos_];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
        ++pos_;
    }
}

char Reader::peek() {
    skip_space();
    return pos_ < text_.size() ? text_[pos_] : '\0';
}

bool Reader::consume(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
}

void Reader::expect(char c, const char* what) {
    if (!consume(c)) fail(std::string("expected ") + what);
}

std::string Reader::string() {
    std::string out;
    read_string(&out);
    return out;
}

void Reader::scan_string() { read_string(nullptr); }

void Reader::read_string(std::string* out) {
    if (peek() != '"') fail("expected a string");
    const auto append = [&](std::string_view piece) {
        if (out) out->append(piece);
    };
    ++pos_;
    for (;;) {
        // A run of plain ASCII at a time.
        const std::size_t from = pos_;
        while (pos_ < text_.size()) {
            const auto c = static_cast<unsigned char>(text_[pos_]);
            if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
            ++pos_;
        }
        append(text_.substr(from, pos_ - from));
        if (pos_ == text_.size()) fail("a string is not closed");
        const auto c = static_cast<unsigned char>(text_[pos_]);
        if (c == '"') {
            ++pos_;
            return;
        }
        if (c < 0x20) fail("a control character (below U+0020) must be escaped in a string");
        if (c >= 0x80) {
            const std::size_t from = pos_;
            if (!next_utf8(text_, pos_)) fail("a string is not valid UTF-8");
            append(text_.substr(from, pos_ - from));
            continue;
        }
        // An escape.
        if (++pos_ == text_.size()) fail("a string is not closed");
        const char escape = text_[pos_++];
        switch (escape) {
            case '"': append("\""); break;
            case '\\': append("\\"); break;
            case '/': append("/"); break;
            case 'b': append("\b"); break;
            case 'f': append("\f"); break;
            case 'n': append("\n"); break;
            case 'r': append("\r"); break;
            case 't': append("\t"); break;
            case 'u': {
                const auto code_unit = [&]() -> std::uint32_t {
                    std::uint32_t value = 0;
                    for (int k = 0; k < 4; ++k, ++pos_) {
                        const int digit = pos_ < text_.size() ? hex_digit(text_[pos_]) : -1;
                        if (digit < 0) fail("\\u must be followed by four hexadecimal digits");
                        value = value * 16 + static_cast<std::uint32_t>(digit);
                    }
                    return value;
                };
                std::uint32_t code = code_unit();
                if (code >= 0xDC00 && code <= 0xDFFF) fail("a lone low surrogate in a \\u escape");
                if (code >= 0xD800 && code <= 0xDBFF) {
                    if (text_.substr(pos_, 2) != "\\u") fail("a high surrogate must be followed by a \\u low surrogate");
                    pos_ += 2;
                    const std::uint32_t low = code_unit();
                    if (low < 0xDC00 || low > 0xDFFF) fail("a high surrogate must be followed by a \\u low surrogate");
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                }
                if (out) append_utf8(*out, static_cast<char32_t>(code));
                break;
            }
            default:
                --pos_;
                fail("an unknown escape in a string");
        }
    }
}

void Reader::scan_number() {
    const std::size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    const auto digits = [&] {
        const std::size_t from = pos_;
        while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
        return pos_ - from;
    };
    std::size_t integer_digits = 1;
    if (pos_ < text_.size() && text_[pos_] == '0') {
        ++pos_;
    } else if ((integer_digits = digits()) == 0) {
        fail("expected a digit");
    }
    bool plain = true;
    if (pos_ < text_.size() && text_[pos_] == '.') {
        ++pos_;
        plain = false;
        if (digits() == 0) fail("expected a digit after '.'");
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
        ++pos_;
        plain = false;
        if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
        if (digits() == 0) fail("expected a digit in an exponent");
    }
    // A number beyond a double's range is refused, as serde_json (the reference's parser)
    // refuses it; any integer of up to 19 digits is in range.
    if (!plain || integer_digits > 19) {
        const std::string number(text_.substr(start, pos_ - start));
        if (std::isinf(std::strtod(number.c_str(), nullptr))) {
            pos_ = start;
            fail("a number too large for a double");
        }
    }
}

void Reader::scan_literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) fail("expected a value");
    pos_ += word.size();
}

std::optional<std::uint64_t> Reader::unsigned_integer() {
    if (!is_digit(peek())) return std::nullopt;
    const std::size_t start = pos_;
    std::uint64_t value = 0;
    if (text_[pos_] == '0') {
        ++pos_;
    } else {
        for (; pos_ < text_.size() && is_digit(text_[pos_]); ++pos_) {
            if (__builtin_mul_overflow(value, 10, &value) ||
                __builtin_add_overflow(value, static_cast<std::uint64_t>(text_[pos_] - '0'), &value)) {
                pos_ = start;
                return std::nullopt;
            }
        }
    }
    if (pos_ < text_.size() && (text_[pos_] == '.' || text_[pos_] == 'e' || text_[pos_] == 'E')) {
        pos_ = start;
        return std::nullopt;
    }
    return value;
}

std::string_view Reader::skip_value() {
    skip_space();
    const std::size_t start = pos_;
    // The containers open around the current value, innermost last: '}' or ']'.
    std::string closers;
    for (;;) {
        // One value.
        const char c = peek();
        if (c == '{' || c == '[') {
            if (closers.size() == kMaxDepth) fail("arrays and objects nest more than " + std::to_string(kMaxDepth) + " deep");
            ++pos_;
            closers += c == '{' ? '}' : ']';
            if (consume(closers.back())) {
                closers.pop_back();
            } else {
                if (c == '{') {
                    if (peek() != '"') fail("expected a string (an object's key)");
                    scan_string();
                    expect(':', "':' after an object's key");
                }
                continue;  // the first element
            }
        } else if (c == '"') {
            scan_string();
        } else if (c == '-' || is_digit(c)) {
            scan_number();
        } else if (c == 't') {
            scan_literal("true");
        } else if (c == 'f') {
            scan_literal("false");
        } else if (c == 'n') {
            scan_literal("null");
        } else {
            fail("expected a value");
        }
        // After a value: the next element, or the end of containers.
        for (;;) {
            if (closers.empty()) return text_.substr(start, pos_ - start);
            if (consume(',')) {
                if (closers.back() == '}') {
                    if (peek() != '"') fail("expected a string (an object's key)");
                    scan_string();
                    expect(':', "':' after an object's key");
                }
                break;
            }
            if (!consume(closers.back())) fail(closers.back() == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
            closers.pop_back();
        }
    }
}

void Reader::finish() {
    if (peek() != '\0' || pos_ != text_.size()) fail("expected the end of the text");
}

}  // namespace tslice::json
