// The tokens of an index expression, read at a cursor: spaces, brackets, field-name strings,
// names and integer literals, and the words for what was found where the grammar expected
// something else. The grammar that reads items from them is in expr_parse.cpp.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "parse/expr_list.hpp"

namespace tslice::detail {

// The parser derives from this, so its grammar reads the cursor as its own.
class ExprLexer {
protected:
    explicit ExprLexer(std::string_view text) : text_(text) {}

    [[noreturn]] void fail(const std::string& message, std::size_t column) const;

    static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
    bool at_end() const { return pos_ >= end_; }
    char peek() const { return at_end() ? '\0' : text_[pos_]; }
    void skip_space() {
        while (pos_ < text_.size() && pos_ < end_ && is_space(text_[pos_])) ++pos_;
    }

    // Unbalanced brackets are reported where they are, before anything else is read.
    void check_brackets() const;

    // One past the quote that closes the string whose quote is at `quote` (a backslash
    // escapes the next character, as in Python).
    std::size_t string_end(std::size_t quote) const;

    // The index of the ']' matching the '[' at `open`, or npos. Brackets in strings (field
    // names) do not count.
    std::size_t closing_bracket(std::size_t open) const;

    std::string unexpected(const std::string& expectation) const;

    // The whole UTF-8 sequence at the cursor, so a message never splits a character.
    std::string current_character() const;

    static std::string non_integer_message();

    // A string literal at the cursor: optional prefix letters, then quotes.
    bool starts_string() const;

    // A field name: Python's str literal (escapes decoded); a bytes literal is numpy's
    // "only integers, ..." IndexError, as in a[b'x'].
    std::string parse_string();

    bool starts_name() const;
    std::string read_dotted_name();

    bool starts_integer() const;
    Literal parse_integer();

    std::string_view text_;
    std::size_t pos_ = 0;
    std::size_t end_ = text_.size();
    // Inside how many integer-list brackets the cursor is: the grammar counts them, and
    // unexpected() calls a ']' outside them unmatched.
    int list_depth_ = 0;
};

}  // namespace tslice::detail
