// Reading and writing .npy files; the rules follow numpy/lib/format.py (numpy 1.24).
//
// A .npy file is: the magic "\x93NUMPY", a major and a minor version byte, the header
// length (2 bytes little-endian for 1.0, 4 bytes for 2.0 and 3.0), the header (the repr()
// of a Python dict, Latin-1 for 1.0/2.0, UTF-8 for 3.0, padded with spaces and a final
// '\n'), then the raw element bytes.

#include "tslice/npy.hpp"
#include "tslice/parallel.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <signal.h>
#include <sys/xattr.h>
#include <cstring>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <limits>
#include <optional>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "tslice/container.hpp"
#include "tslice/error.hpp"

namespace tslice {

namespace {

[[noreturn]] void fail(const std::string& message) { throw Error(ErrorKind::Input, message); }

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicSize = 6;
constexpr std::size_t kArrayAlign = 64;
// numpy leaves room after the dict so the first dimension can grow in place (format.py's
// GROWTH_AXIS_MAX_DIGITS); writing the same spaces keeps our headers byte-identical to np.save.
constexpr std::size_t kGrowthAxisMaxDigits = 21;
// The longest header tslice reads: 1 MiB. numpy 1.24's np.load refuses headers over 10000
// bytes (_MAX_HEADER_SIZE) unless the file is trusted (max_header_size=, or allow_pickle=True),
// because ast.literal_eval of a hostile header can be slow. Its writer makes longer ones only
// for structured dtypes with many fields (3000 fields take ~110 KB and format 2.0), and such
// files are real, so 10000 would be too strict. tslice's parser is linear and bounded in depth,
// so 1 MiB (some 60,000 short field names) keeps the worst header to ~50 MB of memory and a
// tenth of a second (measured: 62,000 fields, 520,000 integers, 8,500 lists nested 60 deep),
// where the format's own limit (4 GiB) would not.
constexpr std::size_t kMaxHeaderBytes = std::size_t{1} << 20;
// Deep enough for any real dtype, shallow enough that hostile input cannot exhaust the stack.
constexpr int kMaxDepth = 64;

// ---------------------------------------------------------------------------------------------
// UTF-8

void append_utf8(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

// Decodes one code point at `i` and advances past it. Returns nullopt (leaving `i`) for a
// malformed, overlong or surrogate sequence, so callers can both validate and decode.
std::optional<char32_t> next_utf8(std::string_view text, std::size_t& i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = byte(i);
    if (lead < 0x80) {
        ++i;
        return lead;
    }
    std::size_t length;
    char32_t cp;
    char32_t minimum;
    if ((lead & 0xE0) == 0xC0) {
        length = 2, cp = lead & 0x1F, minimum = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
        length = 3, cp = lead & 0x0F, minimum = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
        length = 4, cp = lead & 0x07, minimum = 0x10000;
    } else {
        return std::nullopt;
    }
    if (text.size() - i < length) return std::nullopt;
    for (std::size_t k = 1; k < length; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80) return std::nullopt;
        cp = (cp << 6) | (byte(i + k) & 0x3F);
    }
    if (cp < minimum || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return std::nullopt;
    i += length;
    return cp;
}

std::string latin1_to_utf8(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size());
    for (char c : bytes) append_utf8(out, static_cast<unsigned char>(c));
    return out;
}

// The Latin-1 bytes of a UTF-8 string, or nullopt if a character is beyond U+00FF (numpy then
// has to write format 3.0).
std::optional<std::string> utf8_to_latin1(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const auto cp = next_utf8(text, i);
        if (!cp || *cp > 0xFF) return std::nullopt;
        out += static_cast<char>(*cp);
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// Python repr

void append_hex(std::string& out, char32_t value, int digits) {
    static constexpr char kHex[] = "0123456789abcdef";
    for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) out += kHex[(value >> shift) & 0xF];
}

// Python's str.isprintable(), close enough: the control and separator characters a header can
// plausibly hold. Anything we miss is still written raw inside the quotes, which Python reads
// back as the same string; only the bytes differ from numpy's.
bool python_printable(char32_t cp) {
    if (cp < 0x20 || (cp >= 0x7F && cp <= 0xA0) || cp == 0xAD) return false;
    if (cp == 0x1680 || cp == 0x180E || cp == 0x061C || cp == 0x3000 || cp == 0xFEFF) return false;
    if ((cp >= 0x2000 && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202F) ||
        (cp >= 0x205F && cp <= 0x206F) || (cp >= 0xE000 && cp <= 0xF8FF) ||
        (cp >= 0xFFF9 && cp <= 0xFFFB))
        return false;
    return true;
}

// repr() of a Python str given as UTF-8: single quotes unless the text has a single quote and
// no double quote, the same escapes Python uses.
std::string py_repr_str(std::string_view utf8) {
    const bool has_single = utf8.find('\'') != std::string_view::npos;
    const bool has_double = utf8.find('"') != std::string_view::npos;
    const char quote = has_single && !has_double ? '"' : '\'';
    std::string out(1, quote);
    for (std::size_t i = 0; i < utf8.size();) {
        const auto decoded = next_utf8(utf8, i);
        if (!decoded) {  // not reachable for text we decoded ourselves; keep the byte visible
            out += "\\x";
            append_hex(out, static_cast<unsigned char>(utf8[i++]), 2);
            continue;
        }
        const char32_t cp = *decoded;
        if (cp == static_cast<char32_t>(quote) || cp == '\\') {
            out += '\\';
            out += static_cast<char>(cp);
        } else if (cp == '\t') {
            out += "\\t";
        } else if (cp == '\n') {
            out += "\\n";
        } else if (cp == '\r') {
            out += "\\r";
        } else if (python_printable(cp)) {
            append_utf8(out, cp);
        } else if (cp <= 0xFF) {
            out += "\\x";
            append_hex(out, cp, 2);
        } else if (cp <= 0xFFFF) {
            out += "\\u";
            append_hex(out, cp, 4);
        } else {
            out += "\\U";
            append_hex(out, cp, 8);
        }
    }
    out += quote;
    return out;
}

// Raw bytes for an error message: printable ASCII as is, the rest as \xNN.
std::string escape_bytes(std::string_view bytes) {
    std::string out;
    for (char c : bytes) {
        const auto u = static_cast<unsigned char>(c);
        if (u >= 0x20 && u < 0x7F && c != '\\') {
            out += c;
        } else {
            out += "\\x";
            append_hex(out, u, 2);
        }
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// Python literals: the subset a .npy header can hold.

struct PyValue {
    enum class Kind { Dict, List, Tuple, Str, Int, Float, Bool, None };
    Kind kind = Kind::None;
    std::string text;            // Str: the decoded value (UTF-8); Float: the source text
    std::int64_t integer = 0;    // Int
    bool boolean = false;        // Bool
    std::vector<PyValue> items;  // List, Tuple; Dict: key, value, key, value, ...
};

std::string py_repr(const PyValue& value) {
    switch (value.kind) {
        case PyValue::Kind::Str: return py_repr_str(value.text);
        case PyValue::Kind::Int: return std::to_string(value.integer);
        case PyValue::Kind::Float: return value.text;
        case PyValue::Kind::Bool: return value.boolean ? "True" : "False";
        case PyValue::Kind::None: return "None";
        case PyValue::Kind::Dict: {
            std::string out = "{";
            for (std::size_t i = 0; i + 1 < value.items.size(); i += 2) {
                if (i) out += ", ";
                out += py_repr(value.items[i]) + ": " + py_repr(value.items[i + 1]);
            }
            return out + "}";
        }
        case PyValue::Kind::List:
        case PyValue::Kind::Tuple: {
            const bool list = value.kind == PyValue::Kind::List;
            std::string out = list ? "[" : "(";
            for (std::size_t i = 0; i < value.items.size(); ++i) {
                if (i) out += ", ";
                out += py_repr(value.items[i]);
            }
            if (!list && value.items.size() == 1) out += ",";
            return out + (list ? "]" : ")");
        }
    }
    return "?";
}

// A value shown inside an error message; a hostile header can make a repr huge.
std::string shown(const PyValue& value) {
    std::string text = py_repr(value);
    if (text.size() > 200) text = text.substr(0, 200) + "...";
    return text;
}

const char* kind_name(PyValue::Kind kind) {
    switch (kind) {
        case PyValue::Kind::Dict: return "a dict";
        case PyValue::Kind::List: return "a list";
        case PyValue::Kind::Tuple: return "a tuple";
        case PyValue::Kind::Str: return "a string";
        case PyValue::Kind::Int: return "an integer";
        case PyValue::Kind::Float: return "a float";
        case PyValue::Kind::Bool: return "a bool";
        case PyValue::Kind::None: return "None";
    }
    return "a value";
}

// Recursive descent over the header text. `what` names the text in error messages ("the .npy
// header", "the dtype descr").
class LiteralParser {
public:
    LiteralParser(std::string_view text, std::string what) : text_(text), what_(std::move(what)) {}

    PyValue parse_value(int depth = 0) {
        skip_space();
        if (depth >= kMaxDepth)
            error("it is nested more than " + std::to_string(kMaxDepth) + " levels deep");
        if (at_end()) error("it ends where a value should be");
        const char c = text_[pos_];
        switch (c) {
            case '{': return parse_sequence(PyValue::Kind::Dict, '}', depth);
            case '[': return parse_sequence(PyValue::Kind::List, ']', depth);
            case '(': return parse_sequence(PyValue::Kind::Tuple, ')', depth);
            case '\'':
            case '"': return parse_string();
            default: break;
        }
        if (is_digit(c) || c == '+' || c == '-' || c == '.') return parse_number();
        if (is_name_start(c)) {
            // u'...' is how Python 2 writers spelled text field names.
            if ((c == 'u' || c == 'U') && pos_ + 1 < text_.size() &&
                (text_[pos_ + 1] == '\'' || text_[pos_ + 1] == '"')) {
                ++pos_;
                return parse_string();
            }
            return parse_name();
        }
        error("unexpected " + describe_char(pos_));
    }

    void skip_space() {
        while (!at_end() && is_space(text_[pos_])) ++pos_;
    }
    bool at_end() const { return pos_ >= text_.size(); }
    std::size_t position() const { return pos_; }

    [[noreturn]] void error(const std::string& problem) const { error_at(pos_, problem); }

    [[noreturn]] void error_at(std::size_t at, const std::string& problem) const {
        std::string message = what_ + " is not a valid Python literal: " + problem;
        if (at < text_.size()) {
            message += " (at character " + std::to_string(character_number(at)) + ": \"";
            std::size_t end = std::min(text_.size(), at + 24);
            while (end < text_.size() && (static_cast<unsigned char>(text_[end]) & 0xC0) == 0x80) ++end;
            message += excerpt(text_.substr(at, end - at));
            message += end < text_.size() ? "...\")" : "\")";
        }
        fail(message);
    }

    // 1-based, in characters: the text is UTF-8 (Latin-1 headers were converted), and a reader
    // counts what an editor shows.
    std::size_t character_number(std::size_t at) const {
        std::size_t count = 1;
        for (std::size_t i = 0; i < at && i < text_.size(); ++i)
            if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) ++count;
        return count;
    }

    // Header text for a terminal: printable characters as they are, control characters escaped.
    static std::string excerpt(std::string_view text) {
        std::string out;
        for (std::size_t i = 0; i < text.size();) {
            const std::size_t start = i;
            const auto cp = next_utf8(text, i);
            if (!cp) {
                out += escape_bytes(text.substr(start, 1));
                i = start + 1;
            } else if (*cp == '\\' || (*cp >= 0x20 && *cp != 0x7F && python_printable(*cp))) {
                out.append(text.substr(start, i - start));
            } else {
                out += escape_bytes(text.substr(start, i - start));
            }
        }
        return out;
    }

private:
    static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }
    static bool is_digit(char c) { return c >= '0' && c <= '9'; }
    static bool is_name_start(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    }

    std::string describe_char(std::size_t at) const {
        const char c = text_[at];
        if (c == '\n') return "end of line";
        const auto byte = static_cast<unsigned char>(c);
        if (c == '\'') return "character \"'\"";
        if (byte >= 0x20 && byte < 0x7F) return std::string("character '") + c + "'";
        if (byte >= 0x80) {
            // Latin-1 headers were decoded to UTF-8, so name the character, not our bytes.
            std::size_t i = at;
            if (const auto cp = next_utf8(text_, i)) {
                std::string hex;
                append_hex(hex, *cp, *cp > 0xFFFF ? 6 : 4);
                for (char& h : hex) h = static_cast<char>(std::toupper(static_cast<unsigned char>(h)));
                return "character U+" + hex;
            }
        }
        return "byte " + escape_bytes(std::string_view(&text_[at], 1));
    }

    // Dicts, lists and tuples share the comma rules: items separated by commas, an optional
    // trailing comma. A parenthesised single value without a comma is that value, as in Python.
    PyValue parse_sequence(PyValue::Kind kind, char close, int depth) {
        const std::size_t open = pos_++;
        PyValue value;
        value.kind = kind;
        const char* what = kind == PyValue::Kind::Dict   ? "dict"
                           : kind == PyValue::Kind::List ? "list"
                                                         : "tuple";
        bool saw_comma = false;
        while (true) {
            skip_space();
            if (at_end())
                error_at(open, std::string("the ") + what + " opened here is never closed");
            if (text_[pos_] == close) {
                ++pos_;
                break;
            }
            check_closer(open, what, close);
            value.items.push_back(parse_value(depth + 1));
            skip_space();
            if (kind == PyValue::Kind::Dict) {
                if (at_end() || text_[pos_] != ':')
                    error(at_end() ? "the dict ends after a key, expected ':'"
                                   : "expected ':' after a dict key, found " + describe_char(pos_));
                ++pos_;
                value.items.push_back(parse_value(depth + 1));
                skip_space();
            }
            if (at_end())
                error_at(open, std::string("the ") + what + " opened here is never closed");
            if (text_[pos_] == ',') {
                ++pos_;
                saw_comma = true;
                continue;
            }
            if (text_[pos_] == close) {
                ++pos_;
                break;
            }
            check_closer(open, what, close);
            error(std::string("expected ',' or '") + close + "' in the " + what + ", found " +
                  describe_char(pos_));
        }
        if (kind == PyValue::Kind::Tuple && value.items.size() == 1 && !saw_comma) {
            PyValue inner = std::move(value.items[0]);
            return inner;
        }
        return value;
    }

    // A closing bracket of the wrong kind is most likely a missing one of the right kind.
    void check_closer(std::size_t open, const char* what, char close) const {
        const char c = text_[pos_];
        if (c == ')' || c == ']' || c == '}')
            error(std::string("the ") + what + " opened at character " + std::to_string(character_number(open)) +
                  " is closed with '" + c + "' instead of '" + close + "'");
    }

    PyValue parse_string() {
        const std::size_t open = pos_;
        const char quote = text_[pos_++];
        PyValue value;
        value.kind = PyValue::Kind::Str;
        while (true) {
            if (at_end() || text_[pos_] == '\n' || text_[pos_] == '\r')
                error_at(open, "the string that starts here is not closed on its line");
            const char c = text_[pos_++];
            if (c == quote) break;
            if (c != '\\') {
                value.text += c;
                continue;
            }
            if (at_end()) error_at(open, "the string that starts here is not closed");
            const std::size_t escape_at = pos_ - 1;
            const char e = text_[pos_++];
            switch (e) {
                case '\n': break;  // a backslash-newline continues the string
                case '\\': value.text += '\\'; break;
                case '\'': value.text += '\''; break;
                case '"': value.text += '"'; break;
                case 'a': value.text += '\a'; break;
                case 'b': value.text += '\b'; break;
                case 'f': value.text += '\f'; break;
                case 'n': value.text += '\n'; break;
                case 'r': value.text += '\r'; break;
                case 't': value.text += '\t'; break;
                case 'v': value.text += '\v'; break;
                case 'x': append_code_point(value.text, read_hex(2, escape_at), escape_at); break;
                case 'u': append_code_point(value.text, read_hex(4, escape_at), escape_at); break;
                case 'U': append_code_point(value.text, read_hex(8, escape_at), escape_at); break;
                case 'N': error_at(escape_at, "\\N{...} escapes are not supported");
                default:
                    if (e >= '0' && e <= '7') {
                        char32_t cp = static_cast<char32_t>(e - '0');
                        for (int k = 0; k < 2 && !at_end() && text_[pos_] >= '0' && text_[pos_] <= '7'; ++k)
                            cp = cp * 8 + static_cast<char32_t>(text_[pos_++] - '0');
                        append_code_point(value.text, cp, escape_at);
                    } else {
                        // Python keeps an unknown escape as the backslash and the character.
                        value.text += '\\';
                        value.text += e;
                    }
            }
        }
        return value;
    }

    char32_t read_hex(int digits, std::size_t escape_at) {
        char32_t cp = 0;
        for (int k = 0; k < digits; ++k) {
            if (at_end()) error_at(escape_at, "truncated \\x, \\u or \\U escape");
            const char h = text_[pos_];
            int digit;
            if (h >= '0' && h <= '9') digit = h - '0';
            else if (h >= 'a' && h <= 'f') digit = h - 'a' + 10;
            else if (h >= 'A' && h <= 'F') digit = h - 'A' + 10;
            else error_at(escape_at, "truncated \\x, \\u or \\U escape");
            cp = cp * 16 + static_cast<char32_t>(digit);
            ++pos_;
        }
        return cp;
    }

    void append_code_point(std::string& out, char32_t cp, std::size_t escape_at) const {
        if (cp > 0x10FFFF) error_at(escape_at, "the escape names a character beyond U+10FFFF");
        // A lone surrogate has no UTF-8 form, so such a name could never be written back.
        if (cp >= 0xD800 && cp <= 0xDFFF) error_at(escape_at, "the escape names a lone surrogate");
        append_utf8(out, cp);
    }

    PyValue parse_number() {
        const std::size_t start = pos_;
        bool negative = false;
        if (text_[pos_] == '+' || text_[pos_] == '-') {
            negative = text_[pos_] == '-';
            ++pos_;
            skip_space();  // Python reads "- 5" as the unary minus of 5
        }
        const std::size_t digits_start = pos_;
        while (!at_end() && is_digit(text_[pos_])) ++pos_;
        bool is_float = false;
        if (!at_end() && text_[pos_] == '.') {
            is_float = true;
            ++pos_;
            while (!at_end() && is_digit(text_[pos_])) ++pos_;
        }
        if (pos_ > digits_start && !at_end() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
            std::size_t k = pos_ + 1;
            if (k < text_.size() && (text_[k] == '+' || text_[k] == '-')) ++k;
            if (k < text_.size() && is_digit(text_[k])) {
                is_float = true;
                pos_ = k;
                while (!at_end() && is_digit(text_[pos_])) ++pos_;
            }
        }
        const std::string_view digits = text_.substr(digits_start, pos_ - digits_start);
        if (digits.empty() || digits == ".") error_at(start, "expected a number");
        PyValue value;
        if (is_float) {
            value.kind = PyValue::Kind::Float;
            value.text = std::string(negative ? "-" : "") + std::string(digits);
            return value;
        }
        // Magnitudes up to 2^63 so that -9223372036854775808 fits.
        std::uint64_t magnitude = 0;
        const std::uint64_t limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1;
        for (char d : digits) {
            const auto digit = static_cast<std::uint64_t>(d - '0');
            if (magnitude > (limit - digit) / 10)
                error_at(start, "the integer " + std::string(negative ? "-" : "") + std::string(digits) +
                                    " does not fit in 64 bits");
            magnitude = magnitude * 10 + digit;
        }
        if (!negative && magnitude == limit)
            error_at(start, "the integer " + std::string(digits) + " does not fit in 64 bits");
        if (!at_end() && text_[pos_] == 'L') ++pos_;  // Python 2 wrote long integers as 3L
        value.kind = PyValue::Kind::Int;
        value.integer = negative ? static_cast<std::int64_t>(0 - magnitude)
                                 : static_cast<std::int64_t>(magnitude);
        return value;
    }

    PyValue parse_name() {
        const std::size_t start = pos_;
        while (!at_end() && (is_name_start(text_[pos_]) || is_digit(text_[pos_]))) ++pos_;
        const std::string_view name = text_.substr(start, pos_ - start);
        PyValue value;
        if (name == "True" || name == "False") {
            value.kind = PyValue::Kind::Bool;
            value.boolean = name == "True";
        } else if (name == "None") {
            value.kind = PyValue::Kind::None;
        } else {
            error_at(start, "unexpected name '" + std::string(name) +
                                "' (only strings, integers, True, False and None are literals)");
        }
        return value;
    }

    std::string_view text_;
    std::size_t pos_ = 0;
    std::string what_;
};

// ---------------------------------------------------------------------------------------------
// dtypes

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
    fail("the dtype " + quoted + " is not valid: " + why);
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
    const std::string quoted = py_repr_str(type);
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
        fail("object arrays (descr " + quoted +
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
                fail("its shape " + shown(value) + " is not a tuple of integers");
            shape.push_back(item.integer);
        }
    } else {
        fail("its shape " + shown(value) + " is not a tuple of integers");
    }
    for (auto dim : shape)
        if (dim < 0) fail("its shape " + shown(value) + " has a negative dimension");
    return shape;
}

// A field's type: a type string, a nested field list, or numpy's (type, shape) sub-array form,
// whose shape goes in front of the inner one.
DType field_type_from_value(const PyValue& value, std::vector<std::int64_t>& subshape, int depth) {
    if (value.kind == PyValue::Kind::Tuple) {
        if (value.items.size() != 2)
            fail("its type " + shown(value) + " is neither a dtype nor a (dtype, shape) pair");
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
            fail(where + ", " + shown(field) +
                 ", is not a (name, type) or (name, type, shape) tuple");
        const PyValue& name_value = field.items[0];
        std::string name, name_repr;
        std::optional<std::string> title;
        if (name_value.kind == PyValue::Kind::Str) {
            name = name_value.text;
            name_repr = py_repr_str(name);
        } else if (name_value.kind == PyValue::Kind::Tuple && name_value.items.size() == 2 &&
                   name_value.items[0].kind == PyValue::Kind::Str &&
                   name_value.items[1].kind == PyValue::Kind::Str) {
            title = name_value.items[0].text;
            name = name_value.items[1].text;
            name_repr = "(" + py_repr_str(*title) + ", " + py_repr_str(name) + ")";
        } else {
            fail(where + " has the name " + shown(name_value) +
                 ", which is neither a string nor a (title, name) pair of strings");
        }
        const std::string named = "field " + py_repr_str(name) + " of the dtype";
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
            fail(named + ": " + e.what());
        }
        if (subshape.size() > kMaxRank)
            fail(named + " has a sub-array of " + std::to_string(subshape.size()) +
                 " dimensions; numpy arrays have at most " + std::to_string(kMaxRank));
        // numpy reads a shape on a zero-byte type as a size (('S0', 3) is 'S3') or refuses it;
        // its writer never produces one, so there is nothing to be compatible with.
        if (type->itemsize == 0 && (field.items.size() == 3 || field.items[1].kind == PyValue::Kind::Tuple))
            fail(named + " gives a shape to a zero-byte type, which numpy does not read as a sub-array");
        // Names and titles share one namespace in numpy. Padding (a void field named '', as
        // numpy's writer emits for gaps) has no name and may repeat.
        const bool padding = name.empty() && !title && type->kind == 'V' && !type->structured;
        if (!padding) {
            for (const std::string* key : {&name, title ? &*title : nullptr}) {
                if (!key) continue;
                if (!names.insert(*key).second)
                    fail("the dtype uses " + py_repr_str(*key) + " twice as a field name or title");
            }
        }
        std::int64_t size = static_cast<std::int64_t>(type->itemsize);
        for (auto dim : subshape) {
            const auto product = checked_mul(size, dim);
            if (!product) fail(named + " is too large: its size overflows 64 bits");
            size = *product;
        }
        DType::Field entry;
        entry.name = name;
        entry.offset = static_cast<std::size_t>(offset);
        entry.type = type;
        entry.subshape = subshape;
        dtype.fields.push_back(std::move(entry));
        const auto end = checked_add(offset, size);
        if (!end) fail("the dtype is too large: its itemsize overflows 64 bits");
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
    if (depth >= kMaxDepth) fail("the dtype is nested more than " + std::to_string(kMaxDepth) + " levels deep");
    switch (value.kind) {
        case PyValue::Kind::Str: return simple_dtype(value.text, depth > 0);
        case PyValue::Kind::List: return structured_dtype(value, depth);
        case PyValue::Kind::Tuple:
            fail("the descr " + shown(value) +
                 " is a sub-array dtype, which tslice does not read as a whole array's dtype "
                 "(numpy stores such arrays with the sub-array's axes in the shape)");
        default:
            fail("the descr " + shown(value) + " is " + kind_name(value.kind) +
                 ", not a dtype string or a list of fields");
    }
}

DType checked_dtype(const PyValue& value) {
    DType dtype = dtype_from_value(value, 0);
    if (dtype.itemsize == 0)
        fail("the dtype " + dtype.descr +
             " has zero-byte elements; tslice needs an itemsize of at least 1");
    return dtype;
}

// ---------------------------------------------------------------------------------------------
// shapes

std::int64_t checked_element_count(const std::vector<std::int64_t>& shape, std::size_t itemsize,
                                   const std::string& what) {
    // numpy refuses a shape whose non-zero dimensions overflow even when another dimension is
    // 0 (the strides would overflow), so zeros are skipped in the product.
    std::int64_t nonzero = 1;
    bool empty = false;
    for (auto dim : shape) {
        if (dim < 0) fail(what + " " + format_shape(shape) + " has a negative dimension");
        if (dim == 0) {
            empty = true;
            continue;
        }
        const auto product = checked_mul(nonzero, dim);
        if (!product)
            fail("shape " + format_shape(shape) +
                 " is too large: its element count overflows 64 bits");
        nonzero = *product;
    }
    if (!checked_mul(nonzero, static_cast<std::int64_t>(itemsize)) ||
        itemsize > static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max()))
        fail("shape " + format_shape(shape) + " is too large: its byte size overflows 64 bits (" +
             std::to_string(itemsize) + " bytes per element)");
    return empty ? 0 : nonzero;
}

std::uint32_t read_le(const std::byte* bytes, std::size_t count) {
    std::uint32_t value = 0;
    for (std::size_t k = count; k-- > 0;) value = (value << 8) | std::to_integer<std::uint32_t>(bytes[k]);
    return value;
}

}  // namespace

// -------------------------------------------------------------------------------------------------
// The header

std::int64_t NpyHeader::element_count() const {
    std::int64_t count = 1;
    for (auto dim : shape) count *= dim;  // parse_npy_header checked it fits
    return count;
}

std::size_t NpyHeader::data_bytes() const {
    return static_cast<std::size_t>(element_count()) * dtype.itemsize;
}

NpyHeader parse_npy_header(const std::byte* bytes, std::size_t available) {
    if (available == 0) fail("not a .npy file: the file is empty");
    const std::string_view start(reinterpret_cast<const char*>(bytes), std::min(available, kMagicSize));
    if (start != std::string_view(kMagic, start.size())) {
        if (start.substr(0, 4) == std::string_view("PK\x03\x04", 4))
            fail("not a .npy file: this is a zip archive (an .npz holds several .npy arrays); "
                 "extract the array you want first");
        fail("not a .npy file: wrong magic (a .npy file starts with \\x93NUMPY, this one with \"" +
             escape_bytes(start) + "\")");
    }
    if (available < kMagicSize + 2)
        fail("the .npy file is cut short: it ends after " + std::to_string(available) +
             " bytes, inside the magic string and version");
    const int major = std::to_integer<int>(bytes[6]);
    const int minor = std::to_integer<int>(bytes[7]);
    if (major < 1 || major > 3 || minor != 0)
        fail("unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
             " (tslice reads versions 1.0, 2.0 and 3.0)");
    const std::size_t length_size = major == 1 ? 2 : 4;
    const std::size_t prefix = kMagicSize + 2 + length_size;
    if (available < prefix)
        fail("the .npy header is cut short: the file ends inside the header length field");
    const std::size_t header_length = read_le(bytes + kMagicSize + 2, length_size);
    if (header_length > kMaxHeaderBytes)
        fail("the .npy header claims to be " + std::to_string(header_length) +
             " bytes long; tslice reads headers of at most 1 MiB (" + std::to_string(kMaxHeaderBytes) + " bytes)");
    if (available - prefix < header_length)
        fail("the .npy header is cut short: expected " + std::to_string(header_length) +
             " bytes of header, file has " + std::to_string(available - prefix));

    const std::string_view raw(reinterpret_cast<const char*>(bytes) + prefix, header_length);
    std::string text;
    if (major == 3) {
        for (std::size_t i = 0; i < raw.size();)
            if (!next_utf8(raw, i))
                fail("the .npy header (format 3.0) is not valid UTF-8 (at byte offset " +
                     std::to_string(prefix + i) + " of the file)");
        text = raw;
    } else {
        text = latin1_to_utf8(raw);  // format.py decodes 1.0 and 2.0 headers as Latin-1
    }

    LiteralParser parser(text, "the .npy header");
    const PyValue dict = parser.parse_value();
    parser.skip_space();
    if (!parser.at_end())
        parser.error("unexpected text after the header dict (only spaces and a newline may follow)");
    if (dict.kind != PyValue::Kind::Dict)
        fail("the .npy header is " + std::string(kind_name(dict.kind)) + ", not a dict");

    const PyValue* descr = nullptr;
    const PyValue* fortran = nullptr;
    const PyValue* shape = nullptr;
    for (std::size_t i = 0; i + 1 < dict.items.size(); i += 2) {
        const PyValue& key = dict.items[i];
        const PyValue* value = &dict.items[i + 1];
        const PyValue** slot = nullptr;
        if (key.kind == PyValue::Kind::Str) {
            if (key.text == "descr") slot = &descr;
            else if (key.text == "fortran_order") slot = &fortran;
            else if (key.text == "shape") slot = &shape;
        }
        if (!slot)
            fail("the .npy header has an unexpected key " + shown(key) +
                 " (it must have exactly 'descr', 'fortran_order' and 'shape')");
        if (*slot) fail("the .npy header has the key " + shown(key) + " twice");
        *slot = value;
    }
    for (const auto& [slot, name] : {std::pair{descr, "descr"}, std::pair{fortran, "fortran_order"},
                                     std::pair{shape, "shape"}})
        if (!slot) fail(std::string("the .npy header has no '") + name + "' key");

    NpyHeader header;
    header.major = major;
    header.minor = minor;
    if (fortran->kind != PyValue::Kind::Bool)
        fail("the .npy header's fortran_order is " + shown(*fortran) + ", not True or False");
    header.fortran_order = fortran->boolean;

    if (shape->kind != PyValue::Kind::Tuple)
        fail("the .npy header's shape " + shown(*shape) + " is not a tuple of integers");
    if (shape->items.size() > kMaxRank)
        fail("the .npy header's shape has " + std::to_string(shape->items.size()) +
             " dimensions; numpy arrays have at most " + std::to_string(kMaxRank));
    for (const PyValue& dim : shape->items) {
        if (dim.kind != PyValue::Kind::Int)
            fail("the .npy header's shape " + shown(*shape) + " is not a tuple of integers");
        header.shape.push_back(dim.integer);
    }
    header.dtype = checked_dtype(*descr);
    checked_element_count(header.shape, header.dtype.itemsize, "the .npy header's shape");
    header.data_offset = prefix + header_length;
    return header;
}

DType parse_dtype_descr(std::string_view literal) {
    LiteralParser parser(literal, "the dtype descr");
    const PyValue value = parser.parse_value();
    parser.skip_space();
    if (!parser.at_end()) parser.error("unexpected text after the descr");
    return checked_dtype(value);
}

std::string make_npy_header(const DType& dtype, const std::vector<std::int64_t>& shape) {
    const std::string descr = dtype.descr.empty() ? py_repr_str(dtype.type_string) : dtype.descr;
    std::string dict = "{'descr': " + descr + ", 'fortran_order': False, 'shape': " +
                       format_shape(shape) + ", }";
    if (!shape.empty()) {
        const std::size_t digits = std::to_string(shape[0]).size();
        if (digits < kGrowthAxisMaxDigits) dict.append(kGrowthAxisMaxDigits - digits, ' ');
    }
    // numpy's choice: 1.0 if the Latin-1 header fits a 2-byte length, else 2.0 if it is
    // Latin-1 at all, else 3.0 (UTF-8).
    const std::optional<std::string> latin1 = utf8_to_latin1(dict);
    int major = 3;
    const std::string& body = latin1 ? *latin1 : dict;
    const auto padded_length = [&](std::size_t prefix) {
        const std::size_t unpadded = body.size() + 1;  // + the final '\n'
        // Like format.py: a header that is already aligned still gets a full 64 spaces.
        return unpadded + (kArrayAlign - (prefix + unpadded) % kArrayAlign);
    };
    std::size_t length;
    if (latin1 && padded_length(10) <= 0xFFFF) {
        major = 1;
        length = padded_length(10);
    } else {
        major = latin1 ? 2 : 3;
        length = padded_length(12);
        if (length > 0xFFFFFFFFu)
            fail("the .npy header would be " + std::to_string(length) +
                 " bytes, more than any .npy format version can hold");
    }
    std::string out(kMagic, kMagicSize);
    out += static_cast<char>(major);
    out += '\0';
    const std::size_t length_size = major == 1 ? 2 : 4;
    for (std::size_t k = 0; k < length_size; ++k) out += static_cast<char>((length >> (8 * k)) & 0xFF);
    out += body;
    out.append(length - body.size() - 1, ' ');
    out += '\n';
    return out;
}

// -------------------------------------------------------------------------------------------------
// Reading files

namespace {

std::string errno_text(int error) { return std::strerror(error); }

// Closes a descriptor on every path out of a function.
struct FdCloser {
    int fd = -1;
    ~FdCloser() {
        if (fd >= 0) ::close(fd);
    }
};

// Reads until `count` bytes were appended or end of input; returns how many were.
std::size_t read_some(int fd, std::string& out, std::size_t count, const std::string& name) {
    std::size_t total = 0;
    constexpr std::size_t kStep = 1 << 20;
    while (total < count) {
        const std::size_t want = std::min(count - total, kStep);
        const std::size_t old = out.size();
        out.resize(old + want);
        const ssize_t got = ::read(fd, out.data() + old, want);
        if (got < 0) {
            out.resize(old);
            if (errno == EINTR) continue;
            fail("cannot read " + name + ": " + errno_text(errno));
        }
        out.resize(old + static_cast<std::size_t>(got));
        if (got == 0) break;
        total += static_cast<std::size_t>(got);
    }
    return total;
}

// A stream (a pipe, a terminal, /dev/zero) read as far as its .npy needs: the header, then
// exactly the data bytes it promises. Never to its end: an endless stream that is not a .npy
// fails after its first bytes instead of filling memory, and one that is stops where the array
// does. (What the header promises is read as it arrives, a MiB at a time; a stream that ends
// early is reported by the caller's check that the data fits.)
std::string read_npy_stream(int fd, const std::string& name) {
    std::string out;
    read_some(fd, out, kMagicSize + 2 + 4, name);
    // Only a valid magic and version make the length field worth believing; anything else is
    // left to parse_npy_header to describe.
    if (out.size() >= kMagicSize + 2 + 2 && out.compare(0, kMagicSize, kMagic) == 0 && out[6] >= 1 && out[6] <= 3 &&
        out[7] == 0) {
        const std::size_t length_size = out[6] == 1 ? 2 : 4;
        const std::size_t prefix = kMagicSize + 2 + length_size;
        if (out.size() >= prefix) {
            const std::size_t length = read_le(reinterpret_cast<const std::byte*>(out.data()) + kMagicSize + 2, length_size);
            if (length <= kMaxHeaderBytes && out.size() < prefix + length)
                read_some(fd, out, prefix + length - out.size(), name);
        }
    }
    if (out.empty()) return out;
    try {
        const NpyHeader header = parse_npy_header(reinterpret_cast<const std::byte*>(out.data()), out.size());
        const std::size_t end = header.data_offset + header.data_bytes();
        if (out.size() < end) read_some(fd, out, end - out.size(), name);
    } catch (const Error&) {
        // The caller parses again and reports it.
    }
    return out;
}

// Every error about an input file starts with its name, in the form the command line uses
// ("'x.npy': ...", "standard input: ..."), so a caller can tell the name is already there.
std::string quoted_name(const std::string& path) {
    return path == "-" ? std::string("standard input") : "'" + path + "'";
}

// `name` (empty for bytes with no name) prefixes the message.
void check_data_fits(const NpyHeader& header, std::size_t have, const std::string& name) {
    const std::size_t need = header.data_bytes();
    if (have >= need) return;
    fail((name.empty() ? std::string() : name + ": ") + "the file is too short for its header: shape " +
         format_shape(header.shape) + " of " + header.dtype.descr + " needs " + std::to_string(need) +
         " data bytes, the file has " + std::to_string(have));
}

// Opens `path` for reading (fd 0 for "-"); refuses directories.
int open_input(const std::string& path, struct stat& info, FdCloser& closer) {
    int fd = 0;
    if (path != "-") {
        fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) fail("cannot open '" + path + "': " + errno_text(errno));
        closer.fd = fd;
    }
    if (::fstat(fd, &info) != 0) fail("cannot read " + quoted_name(path) + ": " + errno_text(errno));
    if (S_ISDIR(info.st_mode)) fail("'" + path + "' is a directory, not a .npy file");
    return fd;
}

}  // namespace

NpyArray NpyArray::open(const std::string& path) {
    struct stat info {};
    FdCloser closer;
    const int fd = open_input(path, info, closer);
    const std::string name = quoted_name(path);

    NpyArray array;
    std::size_t skip = 0;  // where the .npy starts in the mapping (standard input may be partly read)
    if (S_ISREG(info.st_mode)) {
        off_t position = 0;
        if (fd == 0) {
            position = ::lseek(fd, 0, SEEK_CUR);
            if (position < 0) position = 0;
        }
        const auto size = static_cast<std::size_t>(info.st_size);
        if (size <= static_cast<std::size_t>(position))
            fail(name + ": not a .npy file: " +
                 (fd == 0 ? std::string("standard input is empty") : std::string("the file is empty")));
        void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) fail("cannot map " + quoted_name(path) + ": " + errno_text(errno));
        array.map_ = map;
        array.map_size_ = size;
        skip = static_cast<std::size_t>(position);
    } else {
        // A pipe, a terminal, a character device: no mapping possible, so read it.
        array.owned_ = read_npy_stream(fd, quoted_name(path));
        if (array.owned_.empty())
            fail(name + ": not a .npy file: " +
                 (fd == 0 ? std::string("standard input is empty") : std::string("the file is empty")));
    }

    const std::byte* base = array.map_ ? static_cast<const std::byte*>(array.map_) + skip
                                       : reinterpret_cast<const std::byte*>(array.owned_.data());
    const std::size_t size = array.map_ ? array.map_size_ - skip : array.owned_.size();
    try {
        array.header_ = parse_npy_header(base, size);
    } catch (const Error& e) {
        fail(name + ": " + e.what());
    }
    check_data_fits(array.header_, size - array.header_.data_offset, name);
    array.data_ = base + array.header_.data_offset;
    return array;
}

NpyHeader NpyArray::read_header(const std::string& path) {
    struct stat info {};
    FdCloser closer;
    const int fd = open_input(path, info, closer);
    const std::string name = quoted_name(path);
    const bool seekable = S_ISREG(info.st_mode) && fd != 0;

    std::string bytes;
    // Reads up to `total` bytes in all; a regular file by offset, anything else as a stream (so
    // standard input is consumed only up to the end of the header).
    const auto fill_to = [&](std::size_t total) {
        if (seekable && total > static_cast<std::size_t>(info.st_size))
            total = static_cast<std::size_t>(info.st_size);  // never allocate what is not there
        while (bytes.size() < total) {
            const std::size_t old = bytes.size();
            if (!seekable) {
                if (read_some(fd, bytes, total - old, quoted_name(path)) == 0) return;
                continue;
            }
            bytes.resize(total);
            const ssize_t got = ::pread(fd, bytes.data() + old, total - old, static_cast<off_t>(old));
            if (got < 0) {
                bytes.resize(old);
                if (errno == EINTR) continue;
                fail("cannot read " + quoted_name(path) + ": " + errno_text(errno));
            }
            bytes.resize(old + static_cast<std::size_t>(got));
            if (got == 0) return;
        }
    };

    fill_to(kMagicSize + 2 + 4);
    if (bytes.empty())
        fail(name + ": not a .npy file: " +
             (path == "-" ? std::string("standard input is empty") : std::string("the file is empty")));
    // Only a valid magic and version make the length field worth believing; anything else is
    // left to parse_npy_header to describe.
    if (bytes.size() >= kMagicSize + 2 + 2 && bytes.compare(0, kMagicSize, kMagic) == 0 &&
        bytes[6] >= 1 && bytes[6] <= 3 && bytes[7] == 0) {
        const int major = static_cast<unsigned char>(bytes[6]);
        const std::size_t length_size = major == 1 ? 2 : 4;
        const std::size_t prefix = kMagicSize + 2 + length_size;
        const std::size_t length =
            read_le(reinterpret_cast<const std::byte*>(bytes.data()) + kMagicSize + 2, length_size);
        if (bytes.size() >= prefix && length <= kMaxHeaderBytes) fill_to(prefix + length);
    }
    NpyHeader header;
    try {
        header = parse_npy_header(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size());
    } catch (const Error& e) {
        fail(name + ": " + e.what());
    }
    // A file's size is known without reading its data, so a header that promises more than
    // the file holds is refused here too; a stream cannot be checked without reading it.
    if (seekable) check_data_fits(header, static_cast<std::size_t>(info.st_size) - header.data_offset, name);
    return header;
}

NpyArray NpyArray::from_bytes(std::string bytes) {
    NpyArray array;
    array.owned_ = std::move(bytes);
    const auto* base = reinterpret_cast<const std::byte*>(array.owned_.data());
    array.header_ = parse_npy_header(base, array.owned_.size());
    check_data_fits(array.header_, array.owned_.size() - array.header_.data_offset, "");
    array.data_ = base + array.header_.data_offset;
    return array;
}

NpyArray::NpyArray(NpyArray&& other) noexcept { *this = std::move(other); }

NpyArray& NpyArray::operator=(NpyArray&& other) noexcept {
    if (this == &other) return *this;
    if (map_) ::munmap(map_, map_size_);
    // data_ may point into other's string buffer, which moves with it (or, for a short
    // string, is copied into ours), so it is rebuilt from its offset.
    const bool in_owned = !other.map_ && other.data_;
    const std::ptrdiff_t offset =
        in_owned ? other.data_ - reinterpret_cast<const std::byte*>(other.owned_.data()) : 0;
    header_ = std::move(other.header_);
    owned_ = std::move(other.owned_);
    map_ = std::exchange(other.map_, nullptr);
    map_size_ = std::exchange(other.map_size_, 0);
    data_ = in_owned ? reinterpret_cast<const std::byte*>(owned_.data()) + offset : other.data_;
    other.data_ = nullptr;
    return *this;
}

NpyArray::~NpyArray() {
    if (map_) ::munmap(map_, map_size_);
}

void NpyArray::release(std::int64_t begin, std::int64_t end) const {
    if (!map_ || begin >= end) return;
    // The mapping is private and never written, so dropping a page only means reading it from
    // the page cache again if it is needed: the range is widened to whole pages. (Leaving the
    // pages at the ends mapped keeps far more than them resident on kernels that map large
    // folios at once.)
    static const std::uintptr_t page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto map_begin = reinterpret_cast<std::uintptr_t>(map_);
    const std::uintptr_t from = std::max(map_begin, reinterpret_cast<std::uintptr_t>(data_ + begin) / page * page);
    const std::uintptr_t to = std::min(map_begin + map_size_,
                                       (reinterpret_cast<std::uintptr_t>(data_ + end) + page - 1) / page * page);
    if (from < to) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
}

View NpyArray::view() const {
    return View::contiguous(header_.shape, header_.dtype.itemsize, header_.fortran_order);
}

// -------------------------------------------------------------------------------------------------
// Writing files

namespace {

// The temporary file being written, for remove_pending_temporary() in a signal handler: a
// fixed buffer and a flag, because a handler may neither allocate nor lock.
char g_pending_path[8192];
volatile std::sig_atomic_t g_pending = 0;

constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

void write_all(int fd, const char* data, std::size_t size, const std::string& target) {
    while (size > 0) {
        const ssize_t wrote = ::write(fd, data, size);
        if (wrote < 0) {
            if (errno == EINTR) continue;
            // A result written straight from the input's mapping: the kernel could not read
            // the mapped pages, which is the input's fault, not the output's.
            if (errno == EFAULT)
                fail("a mapped input could not be read (EFAULT): the file was truncated while tslice read it, "
                     "or its storage failed");
            fail("cannot write " + target + ": " + errno_text(errno));
        }
        data += wrote;
        size -= static_cast<std::size_t>(wrote);
    }
}

// Streams the header and the data to `fd`. The first chunk is filled before anything is
// written, so a fill that fails at once leaves even a stream untouched.
// Produces chunks on a thread of its own, at most two ahead of the writer (one being
// written, one being filled), so copying and writing overlap.
class ChunkPipeline {
public:
    ChunkPipeline(const ChunkSource& source, std::int64_t total, std::int64_t chunk_elements, std::size_t itemsize)
        : source_(source), total_(total), chunk_elements_(chunk_elements) {
        for (auto& buffer : buffers_) buffer.resize(static_cast<std::size_t>(chunk_elements) * itemsize);
        // Where no thread can start (a process limit in a container), the writer produces
        // each chunk itself when it needs it: slower, never a failure.
        try {
            const AsyncSignalsBlocked producer_leaves_signals_to_the_writer;
            producer_ = std::thread([this] { produce(); });
        } catch (const std::system_error&) {
        }
    }
    ChunkPipeline(const ChunkPipeline&) = delete;
    ChunkPipeline& operator=(const ChunkPipeline&) = delete;
    ~ChunkPipeline() {
        {
            std::lock_guard lock(mutex_);
            cancelled_ = true;
        }
        changed_.notify_all();
        if (producer_.joinable()) producer_.join();
    }

    // The bytes of chunk `index`, once produced; rethrows what the source threw.
    const std::byte* wait(std::int64_t index) {
        if (!producer_.joinable()) {
            const std::int64_t first = index * chunk_elements_;
            return source_(first, std::min(chunk_elements_, total_ - first), buffers_[index % 2].data());
        }
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return produced_ > index || error_; });
        if (produced_ > index) return ready_[index % 2];
        std::rethrow_exception(error_);
    }

    // Chunk `index` is written: its buffer may be filled again.
    void done(std::int64_t index) {
        {
            std::lock_guard lock(mutex_);
            written_ = index + 1;
        }
        changed_.notify_all();
    }

private:
    void produce() {
        for (std::int64_t index = 0, first = 0; first < total_; ++index, first += chunk_elements_) {
            {
                std::unique_lock lock(mutex_);
                changed_.wait(lock, [&] { return cancelled_ || written_ + 2 > index; });
                if (cancelled_) return;
            }
            const std::int64_t count = std::min(chunk_elements_, total_ - first);
            bool failed = false;
            try {
                const std::byte* bytes = source_(first, count, buffers_[index % 2].data());
                std::lock_guard lock(mutex_);
                ready_[index % 2] = bytes;
                produced_ = index + 1;
            } catch (...) {
                std::lock_guard lock(mutex_);
                error_ = std::current_exception();
                failed = true;
            }
            changed_.notify_all();
            if (failed) return;
        }
    }

    const ChunkSource& source_;
    const std::int64_t total_, chunk_elements_;
    std::vector<std::byte> buffers_[2];
    const std::byte* ready_[2] = {nullptr, nullptr};
    std::mutex mutex_;
    std::condition_variable changed_;
    std::int64_t produced_ = 0, written_ = 0;
    bool cancelled_ = false;
    std::exception_ptr error_;
    std::thread producer_;
};

// The framing's prefix, the data and its suffix, with the CRC-32 the suffix needs computed
// from the data as it is produced: on the producing thread, in order, so that it overlaps the
// writing (the prefix's part is known before any chunk is produced).
void stream_framed(int fd, const std::string& target, const OutputFraming& framing, std::size_t itemsize,
                   const std::vector<std::int64_t>& shape, const ChunkSource& data_source) {
    std::uint32_t crc = 0;
    if (framing.suffix && framing.crc_from < framing.prefix.size())
        crc = crc32_update(crc, reinterpret_cast<const std::byte*>(framing.prefix.data()) + framing.crc_from,
                           framing.prefix.size() - framing.crc_from);
    const ChunkSource crc_source = [&](std::int64_t first, std::int64_t count, std::byte* scratch) {
        const std::byte* bytes = data_source(first, count, scratch);
        crc = crc32_update(crc, bytes, static_cast<std::size_t>(count) * itemsize);
        return bytes;
    };
    const ChunkSource& source = framing.suffix ? crc_source : data_source;
    const auto write_data = [&](const std::byte* bytes, std::size_t size) {
        write_all(fd, reinterpret_cast<const char*>(bytes), size, target);
    };
    const auto write_prefix = [&] { write_all(fd, framing.prefix.data(), framing.prefix.size(), target); };
    const auto write_suffix = [&] {
        if (!framing.suffix) return;
        const std::string suffix = framing.suffix(crc);
        write_all(fd, suffix.data(), suffix.size(), target);
    };
    std::int64_t total = 1;
    for (auto dim : shape) total *= dim;
    if (total == 0) {
        write_prefix();
        write_suffix();
        return;
    }
    const auto per_chunk = static_cast<std::int64_t>(std::max<std::size_t>(1, kChunkBytes / itemsize));
    const std::int64_t chunk_elements = std::min(per_chunk, total);
    if (chunk_elements == total) {
        // One chunk: nothing to overlap, so no thread to start.
        std::vector<std::byte> scratch(static_cast<std::size_t>(total) * itemsize);
        const std::byte* bytes = source(0, total, scratch.data());
        write_prefix();
        write_data(bytes, scratch.size());
        write_suffix();
        return;
    }
    ChunkPipeline pipeline(source, total, chunk_elements, itemsize);
    for (std::int64_t index = 0, first = 0; first < total; ++index, first += chunk_elements) {
        const std::int64_t count = std::min(chunk_elements, total - first);
        const std::byte* bytes = pipeline.wait(index);
        if (index == 0) write_prefix();
        write_data(bytes, static_cast<std::size_t>(count) * itemsize);
        pipeline.done(index);
    }
    write_suffix();
}

// The temporary beside the target: removed unless commit() renamed it into place.
class Temporary {
public:
    Temporary(const std::string& directory, const std::string& base, const std::string& target)
        : target_(target) {
        // A long target name must not push the temporary past NAME_MAX.
        std::string name = "." + base.substr(0, 200) + ".tslice-XXXXXX";
        path_ = directory.empty() ? name : directory == "/" ? "/" + name : directory + "/" + name;
        // No signal may arrive between creating the temporary and registering it for
        // remove_pending_temporary(): a handler would then leave it behind.
        sigset_t all, previous;
        ::sigfillset(&all);
        ::pthread_sigmask(SIG_BLOCK, &all, &previous);
        fd_ = ::mkostemp(path_.data(), O_CLOEXEC);
        const int error = errno;
        if (fd_ >= 0 && path_.size() < sizeof g_pending_path) {
            std::memcpy(g_pending_path, path_.c_str(), path_.size() + 1);
            g_pending = 1;
        }
        ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
        if (fd_ < 0) fail("cannot write " + target_ + ": " + errno_text(error));
    }
    Temporary(const Temporary&) = delete;
    Temporary& operator=(const Temporary&) = delete;
    ~Temporary() {
        if (fd_ >= 0) ::close(fd_);
        if (!committed_) ::unlink(path_.c_str());
        g_pending = 0;
    }

    int fd() const { return fd_; }

    void commit(const std::string& final_path) {
        const int fd = std::exchange(fd_, -1);
        if (::close(fd) != 0) fail("cannot write " + target_ + ": " + errno_text(errno));
        if (::rename(path_.c_str(), final_path.c_str()) != 0)
            fail("cannot write " + target_ + ": " + errno_text(errno));
        committed_ = true;
        g_pending = 0;
    }

private:
    std::string target_;
    std::string path_;
    int fd_ = -1;
    bool committed_ = false;
};

// The descriptor a path names without being a file of its own: "-" (standard output), and
// /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N. Writing into the descriptor keeps
// what the shell set up (`>> log` appends, a file opened before stays the same file), where
// following the link and renaming a new file over its target would replace the shell's file.
std::optional<int> open_descriptor_named(const std::string& path) {
    if (path == "-" || path == "/dev/stdout") return STDOUT_FILENO;
    if (path == "/dev/stderr") return STDERR_FILENO;
    for (const std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
        if (path.size() <= prefix.size() || path.compare(0, prefix.size(), prefix) != 0) continue;
        int fd = 0;
        for (std::size_t i = prefix.size(); i < path.size(); ++i) {
            if (path[i] < '0' || path[i] > '9' || fd > 1'000'000) return std::nullopt;
            fd = fd * 10 + (path[i] - '0');
        }
        return fd;
    }
    return std::nullopt;
}

// fsync for --sync; a pipe or a terminal has nothing to sync (EINVAL).
void sync_descriptor(int fd, const std::string& target) {
    if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS)
        fail("cannot sync " + target + ": " + errno_text(errno));
}

// The replaced file's extended attributes (its ACLs among them, as system.posix_acl_access)
// go to the file that replaces it. Best effort, as for the owner: a file system without
// them, or an attribute only a privileged user may set, must not fail the write.
void copy_extended_attributes(const std::string& from, int to_fd) {
    const ssize_t size = ::listxattr(from.c_str(), nullptr, 0);
    if (size <= 0) return;
    std::string names(static_cast<std::size_t>(size), '\0');
    const ssize_t got = ::listxattr(from.c_str(), names.data(), names.size());
    if (got <= 0) return;
    names.resize(static_cast<std::size_t>(got));
    for (std::size_t at = 0; at < names.size();) {
        const std::string name = names.c_str() + at;
        at += name.size() + 1;
        const ssize_t length = ::getxattr(from.c_str(), name.c_str(), nullptr, 0);
        if (length < 0) continue;
        std::string value(static_cast<std::size_t>(length), '\0');
        const ssize_t read = ::getxattr(from.c_str(), name.c_str(), value.data(), value.size());
        if (read < 0) continue;
        (void)::fsetxattr(to_fd, name.c_str(), value.data(), static_cast<std::size_t>(read), 0);
    }
}

mode_t new_file_mode() {
    // umask can only be read by setting it; it is put back at once.
    const mode_t mask = ::umask(022);
    ::umask(mask);
    return 0666 & ~mask;
}

}  // namespace

void remove_pending_temporary() noexcept {
    if (g_pending) ::unlink(g_pending_path);
}

void write_npy(const std::string& path, const DType& dtype, const std::vector<std::int64_t>& shape,
               const ChunkFiller& fill) {
    write_npy(path, dtype, shape, ChunkSource([&](std::int64_t first, std::int64_t count, std::byte* scratch) {
                  fill(scratch, first, count);
                  return static_cast<const std::byte*>(scratch);
              }));
}

void write_npy(const std::string& path, const DType& dtype, const std::vector<std::int64_t>& shape,
               const ChunkSource& fill) {
    if (dtype.itemsize == 0) fail("cannot write a dtype with zero-byte elements");
    checked_element_count(shape, dtype.itemsize, "the output shape");
    write_array(path, OutputFraming{make_npy_header(dtype, shape), 0, {}}, dtype.itemsize, shape, fill);
}

void write_array(const std::string& path, const OutputFraming& framing, std::size_t itemsize,
                 const std::vector<std::int64_t>& shape, const ChunkSource& fill, const WriteOptions& options) {
    if (itemsize == 0) fail("cannot write a dtype with zero-byte elements");
    checked_element_count(shape, itemsize, "the output shape");

    if (const std::optional<int> fd = open_descriptor_named(path)) {
        const std::string name = *fd == STDOUT_FILENO ? "to standard output" : "'" + path + "'";
        if (::fcntl(*fd, F_GETFL) == -1) fail("cannot write " + name + ": it is not open");
        stream_framed(*fd, name, framing, itemsize, shape, fill);
        if (options.sync) sync_descriptor(*fd, name);
        return;
    }
    const std::string target = "'" + path + "'";
    if (path.empty()) fail("cannot write '': the output path is empty");

    // Follow symbolic links by hand so that the link is written through rather than replaced by
    // the rename, even when it dangles.
    std::string final_path = path;
    struct stat info {};
    bool exists = false;
    for (int hops = 0;; ++hops) {
        if (::lstat(final_path.c_str(), &info) != 0) {
            if (errno != ENOENT) fail("cannot write " + target + ": " + errno_text(errno));
            break;
        }
        if (!S_ISLNK(info.st_mode)) {
            exists = true;
            break;
        }
        struct stat followed {};
        if (::stat(final_path.c_str(), &followed) == 0 && !S_ISREG(followed.st_mode)) {
            // /dev/stdout and friends: their link text need not be a path; open() follows them.
            info = followed;
            exists = true;
            break;
        }
        if (hops >= 40) fail("cannot write " + target + ": " + errno_text(ELOOP));
        std::string link(4096, '\0');
        const ssize_t length = ::readlink(final_path.c_str(), link.data(), link.size());
        if (length < 0) fail("cannot write " + target + ": " + errno_text(errno));
        link.resize(static_cast<std::size_t>(length));
        if (link.empty()) fail("cannot write " + target + ": " + errno_text(ENOENT));
        const auto slash = final_path.rfind('/');
        if (link.front() != '/' && slash != std::string::npos) link = final_path.substr(0, slash + 1) + link;
        final_path = link;
    }
    if (exists && S_ISDIR(info.st_mode)) fail("cannot write " + target + ": it is a directory");
    if (exists && !S_ISREG(info.st_mode)) {
        // A device or a pipe cannot be replaced by a rename (and must not be: /dev/null), so it is
        // written to directly.
        const int fd = ::open(final_path.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd < 0) fail("cannot write " + target + ": " + errno_text(errno));
        FdCloser closer{fd};
        stream_framed(fd, target, framing, itemsize, shape, fill);
        if (options.sync) sync_descriptor(fd, target);
        closer.fd = -1;
        if (::close(fd) != 0) fail("cannot write " + target + ": " + errno_text(errno));
        return;
    }

    const auto slash = final_path.rfind('/');
    const std::string directory =
        slash == std::string::npos ? std::string() : (slash == 0 ? std::string("/") : final_path.substr(0, slash));
    const std::string base = slash == std::string::npos ? final_path : final_path.substr(slash + 1);
    if (base.empty() || base == "." || base == "..")
        fail("cannot write " + target + ": it names a directory, not a file");

    // Replacing is writing: a file the user could not have opened for writing (0444, or
    // another user's) is refused as cp and np.save refuse it, and stays as it was.
    if (exists && ::faccessat(AT_FDCWD, final_path.c_str(), W_OK, AT_EACCESS) != 0)
        fail("cannot write " + target + ": " + errno_text(errno) +
             " (the file exists and is not writable by you; tslice does not replace it)");
    const mode_t mode = exists ? (info.st_mode & 07777) : new_file_mode();
    Temporary temporary(directory, base, target);
    // Best effort: some file systems (vfat) cannot set owners or modes, which must not fail the
    // write. The owner first, since changing it may clear set-id bits of the mode.
    if (exists) (void)!::fchown(temporary.fd(), info.st_uid, info.st_gid);
    (void)!::fchmod(temporary.fd(), mode);
    if (exists) copy_extended_attributes(final_path, temporary.fd());
    stream_framed(temporary.fd(), target, framing, itemsize, shape, fill);
    if (options.sync) sync_descriptor(temporary.fd(), target);
    temporary.commit(final_path);
    if (options.sync) {
        // The rename itself is durable only once the directory is.
        const int dir = ::open(directory.empty() ? "." : directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir < 0) fail("cannot sync the directory of " + target + ": " + errno_text(errno));
        FdCloser closer{dir};
        if (::fsync(dir) != 0 && errno != EINVAL)
            fail("cannot sync the directory of " + target + ": " + errno_text(errno));
    }
}

}  // namespace tslice
