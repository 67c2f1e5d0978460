// The tokens of an index expression, each read by Python's rules for it (see expr_lexer.hpp).
#include "parse/expr_lexer.hpp"

#include <cctype>
#include <cstring>
#include <limits>
#include <vector>

#include "base/hex.hpp"
#include "source/py_literal.hpp"
#include "base/python_text.hpp"
#include "tslice/error.hpp"

namespace tslice::detail {
namespace {

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

}  // namespace

void ExprLexer::fail(const std::string& message, std::size_t column) const {
    throw ExprError(message, std::string(text_), column);
}

void ExprLexer::check_brackets() const {
    std::vector<std::size_t> open;
    for (std::size_t i = 0; i < text_.size(); ++i) {
        if (text_[i] == '\'' || text_[i] == '"') {
            i = string_end(i) - 1;
            continue;
        }
        if (text_[i] == '[') open.push_back(i);
        if (text_[i] == ']') {
            if (open.empty()) fail("unmatched ']'", i);
            open.pop_back();
        }
    }
    if (!open.empty()) fail("unmatched '['", open.back());
}

std::size_t ExprLexer::string_end(std::size_t quote) const {
    for (std::size_t i = quote + 1; i < text_.size(); ++i) {
        if (text_[i] == '\\') {
            ++i;
            continue;
        }
        if (text_[i] == text_[quote]) return i + 1;
        if (text_[i] == '\n') break;
    }
    fail("unterminated string: a field name ends with the quote it starts with", quote);
}

std::size_t ExprLexer::closing_bracket(std::size_t open) const {
    int depth = 0;
    for (std::size_t i = open; i < text_.size(); ++i) {
        if (text_[i] == '\'' || text_[i] == '"') {
            i = string_end(i) - 1;
            continue;
        }
        if (text_[i] == '[') ++depth;
        if (text_[i] == ']' && --depth == 0) return i;
    }
    return std::string_view::npos;
}

std::string ExprLexer::unexpected(const std::string& expectation) const {
    if (at_end()) return expectation + ", found the end of the expression";
    const char c = peek();
    if (c == ']' && list_depth_ == 0) return "unmatched ']'";
    return expectation + ", found '" + current_character() + "'";
}

std::string ExprLexer::current_character() const {
    std::size_t length = 1;
    while (pos_ + length < text_.size() && (static_cast<unsigned char>(text_[pos_ + length]) & 0xC0) == 0x80)
        ++length;
    return std::string(text_.substr(pos_, length));
}

std::string ExprLexer::non_integer_message() {
    return "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
           "integer or boolean arrays are valid indices";
}

bool ExprLexer::starts_string() const {
    std::size_t i = pos_;
    while (i < end_ && i - pos_ < 2 && std::strchr("uUbBrR", text_[i]) != nullptr) ++i;
    return i < end_ && (text_[i] == '\'' || text_[i] == '"');
}

std::string ExprLexer::parse_string() {
    const std::size_t start = pos_;
    std::size_t quote = pos_;
    while (text_[quote] != '\'' && text_[quote] != '"') ++quote;
    const std::string_view prefix = text_.substr(start, quote - start);
    if (prefix.find_first_of("bB") != std::string_view::npos)
        fail(non_integer_message() + " (a field name is a str, not bytes)", start);
    if (prefix.find_first_of("rR") != std::string_view::npos)
        fail("raw strings are not read here: write the field name in plain quotes", start);
    const std::size_t end = string_end(quote);
    if (end > end_) fail("unterminated string: a field name ends with the quote it starts with", quote);
    // numpy's field names are str: text, which the bytes must spell in UTF-8.
    for (std::size_t i = start; i < end;) {
        const std::size_t at = i;
        if (!next_utf8(text_.substr(0, end), i))
            fail("a field name is UTF-8 text; the byte " + escape_bytes(text_.substr(at, 1)) + " here is not", at);
    }
    pos_ = end;
    try {
        const PyValue value = parse_py_literal(text_.substr(start, end - start), "the field name", "unexpected text");
        return value.text;
    } catch (const Error& error) {
        fail(std::string("invalid field name: ") + error.what(), start);
    }
}

bool ExprLexer::starts_name() const {
    return std::isalpha(static_cast<unsigned char>(peek())) || peek() == '_';
}

std::string ExprLexer::read_dotted_name() {
    const std::size_t start = pos_;
    while (!at_end() && (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_' ||
                         peek() == '.'))
        ++pos_;
    return std::string(text_.substr(start, pos_ - start));
}

bool ExprLexer::starts_integer() const {
    const char c = peek();
    return c == '+' || c == '-' || std::isdigit(static_cast<unsigned char>(c));
}

Literal ExprLexer::parse_integer() {
    bool negative = false;
    const std::size_t start = pos_;
    while (peek() == '+' || peek() == '-') {
        if (peek() == '-') negative = !negative;
        ++pos_;
        skip_space();
    }
    if (!std::isdigit(static_cast<unsigned char>(peek()))) {
        if (pos_ != start) fail(unexpected("expected digits after the sign"), pos_);
        fail(unexpected("expected an integer"), pos_);
    }
    const std::size_t digits_start = pos_;
    int base = 10;
    if (peek() == '0' && pos_ + 1 < end_) {
        const char prefix = static_cast<char>(std::tolower(static_cast<unsigned char>(text_[pos_ + 1])));
        if (prefix == 'x') base = 16;
        if (prefix == 'o') base = 8;
        if (prefix == 'b') base = 2;
        if (base != 10) pos_ += 2;
    }
    // Magnitudes are accumulated as unsigned with a sticky overflow flag; the int64 range
    // is applied once the sign is known.
    std::uint64_t magnitude = 0;
    bool overflow = false;
    int digit_count = 0;
    bool nonzero_leading = false;
    char previous = '\0';
    while (!at_end()) {
        const char c = peek();
        if (c == '_') {
            if (previous == '_' || (digit_count == 0 && base == 10))
                fail("invalid integer: '_' must separate digits", pos_);
            previous = c;
            ++pos_;
            continue;
        }
        const int digit = hex_digit(c);
        if (digit < 0 || digit >= base) {
            if (std::isalnum(static_cast<unsigned char>(c)))
                fail("invalid digit '" + std::string(1, c) + "' in an integer", pos_);
            break;
        }
        if (digit_count == 0 && base == 10 && digit != 0) nonzero_leading = true;
        if (digit_count > 0 && base == 10 && !nonzero_leading && digit != 0)
            fail("leading zeros in decimal integers are not permitted", digits_start);
        if (!overflow && (__builtin_mul_overflow(magnitude, static_cast<std::uint64_t>(base), &magnitude) ||
                          __builtin_add_overflow(magnitude, static_cast<std::uint64_t>(digit), &magnitude)))
            overflow = true;
        ++digit_count;
        previous = c;
        ++pos_;
    }
    if (digit_count == 0) fail("invalid integer: no digits after the base prefix", digits_start);
    if (previous == '_') fail("invalid integer: '_' must separate digits", pos_ - 1);
    Literal literal;
    const std::uint64_t limit = negative ? static_cast<std::uint64_t>(kInt64Max) + 1
                                         : static_cast<std::uint64_t>(kInt64Max);
    if (overflow || magnitude > limit) {
        literal.overflows = true;
        literal.value = negative ? kInt64Min : kInt64Max;
    } else if (negative) {
        literal.value = magnitude == limit ? kInt64Min : -static_cast<std::int64_t>(magnitude);
    } else {
        literal.value = static_cast<std::int64_t>(magnitude);
    }
    return literal;
}

}  // namespace tslice::detail
