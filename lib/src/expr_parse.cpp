// The index-expression parser: a hand-written recursive descent over the text, so every
// error can point at the column where it happens.
//
// Grammar (whitespace allowed between any two tokens):
//   expr      := subscript+ | items
//   subscript := '[' (items | '()' | field) ']'
//   items     := item (',' item)* ','?
//   item      := '...' | 'None' | 'newaxis' | 'np.newaxis' | 'numpy.newaxis' | slice | integer
//                | boolean | list
//   slice     := bound? ':' bound? (':' bound?)?        bound := integer | boolean | 'None'
//   list      := '[' (element (',' element)* ','?)? ']'
//   element   := list | integer | boolean
//   field     := string | '[' string (',' string)* ','? ']'     (alone in its subscript)
//   boolean   := 'True' | 'False'
//   integer   := ('+' | '-')* (decimal | 0x.. | 0o.. | 0b..)   with Python's '_' separators
//   string    := a Python string literal in single or double quotes
//
// The outer brackets are taken as a subscript only when bracket groups make up the whole
// text, so "[[0, 2]]" is a[[0, 2]], "[0, 2]" is a[0, 2], "[0][2]" is a[0][2] and "[0, 2], 1"
// is a[[0, 2], 1]. A list's shape is found
// the way numpy's array coercion finds it (PyArray_DiscoverDTypeAndShape), so a ragged list
// fails with numpy's words: "[[0, 1], [2]]" has "an inhomogeneous shape after 1 dimensions".
#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>
#include <optional>

#include "expr_list.hpp"
#include "py_literal.hpp"
#include "python_text.hpp"
#include "tslice/error.hpp"
#include "tslice/expr.hpp"
#include "tslice/view.hpp"

namespace tslice {
namespace {

using detail::ListNode;
using detail::ListShape;
using detail::Literal;
using detail::kMaxListDepth;
using detail::discover_list_shape;
using detail::to_index_list;

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

// The longest expression tslice reads: 1 MiB. A command-line argument cannot be longer than
// 128 KiB on Linux anyway; only an "index" op in a JSON file can carry a longer one, and every
// byte of an integer list costs some 30 bytes while it is parsed. Large index arrays belong in
// a gather with an .npy file.
constexpr std::size_t kMaxExpressionBytes = std::size_t{1} << 20;

class Parser {
public:
    explicit Parser(std::string_view text) : text_(text) {}

    IndexExpr parse() {
        // Not an ExprError: a caret under a megabyte of text helps nobody.
        if (text_.size() > kMaxExpressionBytes)
            throw Error(ErrorKind::Usage, "the index expression is " + std::to_string(text_.size()) +
                                              " bytes long; tslice reads expressions of at most " +
                                              std::to_string(kMaxExpressionBytes) +
                                              " bytes (give large index arrays to a gather op as an .npy file)");
        check_brackets();
        skip_space();
        std::size_t end = text_.size();
        while (end > pos_ && is_space(text_[end - 1])) --end;
        if (pos_ == end) fail("empty index expression: write '...' for the whole array", pos_);
        // Bracket groups that make up the whole text are subscripts: "[1:]", "[0][::2]".
        std::vector<std::size_t> opens;
        for (std::size_t open = pos_; open < end && text_[open] == '[';) {
            opens.push_back(open);
            open = closing_bracket(open) + 1;
            while (open < end && is_space(text_[open])) ++open;
            if (open == end) break;
            if (text_[open] != '[') opens.clear();  // "[0, 2], 1": a list, then more items
            if (opens.empty()) break;
        }
        if (opens.empty()) return subscript(pos_, end, false);
        IndexExpr head = subscript(opens.front(), closing_bracket(opens.front()) + 1, true);
        for (std::size_t k = 1; k < opens.size(); ++k)
            head.chained.push_back(subscript(opens[k], closing_bracket(opens[k]) + 1, true));
        return head;
    }

private:
    // The subscript in text [begin, end): its brackets' contents when `bracketed`.
    IndexExpr subscript(std::size_t begin, std::size_t end, bool bracketed) {
        IndexExpr expr;
        expr.text = std::string(text_);
        expr.begin = begin;
        expr.end = end;
        pos_ = bracketed ? begin + 1 : begin;
        end_ = bracketed ? end - 1 : end;
        skip_space();
        if (at_end())
            fail(bracketed ? "empty index expression: write '[...]' for the whole array"
                           : "empty index expression: write '...' for the whole array",
                 pos_);
        if (peek() == '(') {  // a[()]: the empty tuple, the whole array
            const std::size_t open = pos_;
            ++pos_;
            skip_space();
            if (peek() != ')')
                fail("a parenthesised tuple of indices is written without its parentheses: a[(0, 1)] is a[0, 1]", open);
            ++pos_;
            skip_space();
            if (!at_end()) fail(unexpected("expected the end of the subscript after '()'"), pos_);
            return expr;
        }
        parse_items(expr.items);
        return expr;
    }

    [[noreturn]] void fail(const std::string& message, std::size_t column) const {
        throw ExprError(message, std::string(text_), column);
    }

    static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
    bool at_end() const { return pos_ >= end_; }
    char peek() const { return at_end() ? '\0' : text_[pos_]; }
    void skip_space() {
        while (pos_ < text_.size() && pos_ < end_ && is_space(text_[pos_])) ++pos_;
    }

    // Unbalanced brackets are reported where they are, before anything else is read.
    void check_brackets() const {
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

    // One past the quote that closes the string whose quote is at `quote` (a backslash
    // escapes the next character, as in Python).
    std::size_t string_end(std::size_t quote) const {
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

    // The index of the ']' matching the '[' at `open`, or npos. Brackets in strings (field
    // names) do not count.
    std::size_t closing_bracket(std::size_t open) const {
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

    void parse_items(std::vector<ExprItem>& items) {
        bool tuple = false;  // a comma: numpy gets a tuple of indices
        for (;;) {
            skip_space();
            if (at_end()) {
                if (items.empty()) fail("empty index expression", pos_);
                break;  // a trailing comma, as Python allows
            }
            if (peek() == ',') fail("expected an index before ','", pos_);
            items.push_back(parse_item());
            skip_space();
            if (at_end()) break;
            if (peek() != ',') fail(unexpected("expected ',' between indices"), pos_);
            tuple = true;
            ++pos_;
        }
        // numpy takes a field name, or a list of them, only as the whole index: a['x', 0] and
        // a['x',] are the "only integers, ..." IndexError.
        if (tuple)
            for (const auto& item : items)
                if (std::holds_alternative<FieldItem>(item.item))
                    fail(non_integer_message() + " (a field name, or a list of them, is a subscript of its own: "
                                                 "a['x'][0])",
                         item.column);
    }

    std::string unexpected(const std::string& expectation) const {
        if (at_end()) return expectation + ", found the end of the expression";
        const char c = peek();
        if (c == ']' && list_depth_ == 0) return "unmatched ']'";
        return expectation + ", found '" + current_character() + "'";
    }

    // The whole UTF-8 sequence at the cursor, so a message never splits a character.
    std::string current_character() const {
        std::size_t length = 1;
        while (pos_ + length < text_.size() && (static_cast<unsigned char>(text_[pos_ + length]) & 0xC0) == 0x80)
            ++length;
        return std::string(text_.substr(pos_, length));
    }

    // A slice bound or an index: an integer, None, or nothing at all (before ':' or the end).
    struct Bound {
        std::optional<Literal> integer;
        bool none = false;     // the word None: a left-out part, or a new axis on its own
        bool boolean = false;  // True or False: 1 or 0 as a slice bound, a 0-d mask on its own
    };

    Bound parse_bound(std::size_t item_column) {
        Bound bound;
        if (starts_string()) fail(non_integer_message() + " (a field name is a subscript of its own: a['x'])", pos_);
        if (starts_name()) {
            const std::string word = read_dotted_name();
            if (word == "None") {
                bound.none = true;
                return bound;
            }
            if (word == "True" || word == "False") {
                bound.integer = Literal{word == "True" ? 1 : 0, false};
                bound.boolean = true;
                return bound;
            }
            fail("unknown name '" + word + "': an index is an integer, a slice, a boolean, '...' or None", item_column);
        }
        if (starts_integer()) bound.integer = parse_integer();
        return bound;
    }

    ExprItem parse_item() {
        ExprItem item;
        item.column = pos_;
        if (starts_string()) {
            item.item = FieldItem{{parse_string()}, false};
            return item;
        }
        if (peek() == '[' && list_of_strings()) {
            item.item = parse_field_list();
            return item;
        }
        if (peek() == '[') {
            item.item = parse_list();
            skip_space();
            if (!at_end() && peek() != ',') {
                if (peek() == ':') fail("an integer list cannot be a slice bound", item.column);
                fail(unexpected("expected ',' between indices"), pos_);
            }
            return item;
        }
        if (text_.substr(pos_, 3) == "...") {
            pos_ += 3;
            item.item = EllipsisItem{};
            return item;
        }
        if (starts_name()) {
            const std::size_t start = pos_;
            const std::string word = read_dotted_name();
            if (word == "newaxis" || word == "np.newaxis" || word == "numpy.newaxis") {
                item.item = NewAxisItem{};
                return item;
            }
            if (word == "Ellipsis") {
                item.item = EllipsisItem{};
                return item;
            }
            pos_ = start;  // None, or an error that parse_bound words
        }
        const Bound first = parse_bound(item.column);
        skip_space();
        if (peek() != ':') {
            if (first.none) {
                item.item = NewAxisItem{};
                return item;
            }
            if (!first.integer) fail(unexpected("expected an index"), pos_);
            if (peek() == '.') fail(non_integer_message(), item.column);
            if (first.boolean) {
                item.item = BoolItem{first.integer->value == 1};
                return item;
            }
            // Out-of-64-bit integers are reported by the planner, in numpy's order of checks.
            item.item = IntItem{first.integer->value, first.integer->overflows};
            return item;
        }
        SliceItem slice;
        if (first.integer) slice.start = first.integer->value;
        ++pos_;  // the first ':'
        skip_space();
        if (const Bound stop = parse_bound(pos_); stop.integer) slice.stop = stop.integer->value;
        skip_space();
        if (peek() == ':') {
            ++pos_;
            skip_space();
            const std::size_t step_column = pos_;
            if (const Bound step = parse_bound(pos_); step.integer) {
                item.step_column = step_column;
                // Python's slice clamps a step below -PY_SSIZE_T_MAX to -PY_SSIZE_T_MAX, so that
                // negating it cannot overflow.
                slice.step = std::max(step.integer->value, -kInt64Max);
            }
            skip_space();
            if (peek() == ':') fail("a slice has at most three parts, start:stop:step", pos_);
        }
        if (!at_end() && peek() != ',') {
            if (peek() == '.') fail(non_integer_message(), pos_);
            fail(unexpected("expected ',' or the end of the expression"), pos_);
        }
        item.item = slice;
        return item;
    }

    // An integer list at the cursor ('['), with its shape found as numpy finds it.
    IntListItem parse_list() {
        const std::size_t column = pos_;
        const ListNode root = parse_list_node(1);
        ListShape found = discover_list_shape(root);
        if (found.ragged)
            fail("setting an array element with a sequence. The requested array has an inhomogeneous shape "
                 "after " + std::to_string(found.shape.size()) + " dimensions. The detected shape was " +
                     format_shape(found.shape) + " + inhomogeneous part.",
                 column);
        return to_index_list(root, std::move(found.shape));
    }

    // Whether the '[' at the cursor opens a list whose first element is a string.
    bool list_of_strings() {
        const std::size_t start = pos_;
        ++pos_;
        skip_space();
        const bool strings = starts_string();
        pos_ = start;
        return strings;
    }

    // ['x', 'z']: field names, each a string.
    FieldItem parse_field_list() {
        FieldItem fields;
        fields.list = true;
        ++pos_;  // '['
        for (;;) {
            skip_space();
            if (peek() == ']') break;
            if (!starts_string())
                fail(non_integer_message() + " (a list of field names holds strings only)", pos_);
            fields.names.push_back(parse_string());
            skip_space();
            if (peek() == ',') {
                ++pos_;
                continue;
            }
            if (peek() != ']') fail(unexpected("expected ',' or ']' in a list of field names"), pos_);
        }
        ++pos_;  // ']'
        return fields;
    }

    // A string literal at the cursor: optional prefix letters, then quotes.
    bool starts_string() const {
        std::size_t i = pos_;
        while (i < end_ && i - pos_ < 2 && std::strchr("uUbBrR", text_[i]) != nullptr) ++i;
        return i < end_ && (text_[i] == '\'' || text_[i] == '"');
    }

    // A field name: Python's str literal (escapes decoded); a bytes literal is numpy's
    // "only integers, ..." IndexError, as in a[b'x'].
    std::string parse_string() {
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

    ListNode parse_list_node(int depth) {
        if (depth > kMaxListDepth)
            fail("an integer list can be nested at most " + std::to_string(kMaxListDepth) + " deep", pos_);
        ListNode node;
        node.is_list = true;
        ++pos_;  // '['
        ++list_depth_;
        for (;;) {
            skip_space();
            if (peek() == ']') break;
            if (peek() == ',') fail("expected an integer or a list before ','", pos_);
            node.children.push_back(parse_list_element(depth));
            skip_space();
            if (peek() == ',') {
                ++pos_;
                continue;
            }
            if (peek() == ']') break;
            if (peek() == ':') fail("a slice cannot be part of an integer list", pos_);
            if (peek() == '.') fail(non_integer_message(), pos_);
            fail(unexpected("expected ',' or ']' in an integer list"), pos_);
        }
        ++pos_;  // ']'
        --list_depth_;
        return node;
    }

    ListNode parse_list_element(int depth) {
        if (peek() == '[') return parse_list_node(depth + 1);
        const std::size_t start = pos_;
        if (starts_string()) fail(non_integer_message() + " (an index list holds integers or booleans)", start);
        if (starts_name()) {
            const std::string word = read_dotted_name();
            if (word == "True" || word == "False") {
                ListNode node;
                node.value = Literal{word == "True" ? 1 : 0, false};
                node.boolean = true;
                return node;
            }
            if (word == "None" || word == "newaxis" || word == "np.newaxis" || word == "numpy.newaxis" ||
                word == "Ellipsis")
                fail(non_integer_message(), start);
            fail("unknown name '" + word + "': an index list holds integers or booleans", start);
        }
        if (text_.substr(pos_, 3) == "...") fail(non_integer_message(), pos_);
        if (peek() == '.') fail(non_integer_message(), pos_);
        if (peek() == ':') fail("a slice cannot be part of an integer list", pos_);
        if (!starts_integer()) fail(unexpected("expected an integer or a list"), pos_);
        ListNode node;
        node.value = parse_integer();
        if (peek() == '.') fail(non_integer_message(), start);
        return node;
    }

    bool starts_name() const {
        return std::isalpha(static_cast<unsigned char>(peek())) || peek() == '_';
    }

    static std::string non_integer_message() {
        return "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
               "integer or boolean arrays are valid indices";
    }

    std::string read_dotted_name() {
        const std::size_t start = pos_;
        while (!at_end() && (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_' ||
                             peek() == '.'))
            ++pos_;
        return std::string(text_.substr(start, pos_ - start));
    }

    bool starts_integer() const {
        const char c = peek();
        return c == '+' || c == '-' || std::isdigit(static_cast<unsigned char>(c));
    }

    Literal parse_integer() {
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
            const int digit = digit_value(c);
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

    static int digit_value(char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }

    std::string_view text_;
    std::size_t pos_ = 0;
    std::size_t end_ = text_.size();
    int list_depth_ = 0;  // inside how many integer-list brackets the cursor is
};

}  // namespace

IndexExpr parse_index_expr(std::string_view text) { return Parser(text).parse(); }

}  // namespace tslice
