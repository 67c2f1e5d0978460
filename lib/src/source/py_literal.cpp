// Python literals, the subset a .npy header can hold: dicts, lists, tuples, strings, integers,
// floats, True, False and None, parsed by recursive descent (linear time, bounded depth), as
// numpy's ast.literal_eval of the header would read them.
#include "source/py_literal.hpp"

#include <limits>
#include <string>
#include <string_view>

#include "base/hex.hpp"
#include "base/python_text.hpp"
#include "tslice/error.hpp"

namespace tslice {

std::string py_repr(const PyValue& value) {
    switch (value.kind) {
        case PyValue::Kind::Str: return str_repr_utf8(value.text);
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

namespace {

// Recursive descent over the header text. `what` names the text in error messages ("the .npy
// header", "the dtype descr").
class LiteralParser {
public:
    LiteralParser(std::string_view text, std::string what) : text_(text), what_(std::move(what)) {}

    PyValue parse_value(int depth = 0) {
        skip_space();
        if (depth >= kMaxLiteralDepth)
            error("it is nested more than " + std::to_string(kMaxLiteralDepth) + " levels deep");
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
        fail_input(message);
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
            } else if (*cp == '\\' || (*cp >= 0x20 && *cp != 0x7F && is_printable(*cp))) {
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
            const int digit = hex_digit(h);
            if (digit < 0) error_at(escape_at, "truncated \\x, \\u or \\U escape");
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

}  // namespace

PyValue parse_py_literal(std::string_view text, const std::string& what, const std::string& trailing_problem) {
    LiteralParser parser(text, what);
    PyValue value = parser.parse_value();
    parser.skip_space();
    if (!parser.at_end()) parser.error(trailing_problem);
    return value;
}

}  // namespace tslice
