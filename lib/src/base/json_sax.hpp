// The one way tslice reads JSON (op specs, safetensors headers): nlohmann's SAX parser, each
// reader handling its events straight into what it needs, with no tree of nlohmann's.
//
// What this adds to nlohmann: the text a value was written as (a message quotes the file, not
// a re-rendering), the refusal of a NUL byte (nlohmann's lexer takes it for the end of the
// input, so "{}\0garbage" would read as valid, where RFC 8259 JSON text has none) and its
// syntax errors in plain words. Why SAX and not nlohmann's DOM: a DOM allocates a node per
// value and loses what was written (an integer past 64 bits arrives as a double).
// docs/performance-log.md has the A/B against tslice's former reader of its own.
#pragma once

#include <cstddef>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tslice::json {

// Where the parser is: the bytes it has read. A SAX event comes right after its token is read
// and before the next one is: after a string, a literal, a '[', a '{', a ']', a '}' or a
// key's closing quote, `offset` is just past it; after a number, one byte past it (the lexer
// reads one character ahead to see the number end).
class Cursor {
public:
    explicit Cursor(std::string_view text) : text_(text) {}
    std::size_t offset() const { return static_cast<std::size_t>(at_ - text_.data()); }
    std::string_view text() const { return text_; }
    // The start of the value that follows a key read by now: past white space and the ':'.
    std::size_t value_start(std::size_t key_end) const {
        std::size_t at = key_end;
        while (at < text_.size() &&
               (text_[at] == ' ' || text_[at] == '\t' || text_[at] == '\n' || text_[at] == '\r' || text_[at] == ':'))
            ++at;
        return at;
    }

private:
    friend class CursorIterator;
    std::string_view text_;
    const char* at_ = text_.data();
};

// The characters of the text as nlohmann's input adapter reads them, moving the cursor.
class CursorIterator {
public:
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;

    CursorIterator(const char* at, Cursor* cursor) : at_(at), cursor_(cursor) {}
    reference operator*() const { return *at_; }
    CursorIterator& operator++() {
        cursor_->at_ = ++at_;
        return *this;
    }
    CursorIterator operator++(int) {
        CursorIterator before = *this;
        ++*this;
        return before;
    }
    bool operator==(const CursorIterator& other) const { return at_ == other.at_; }
    bool operator!=(const CursorIterator& other) const { return at_ != other.at_; }

private:
    const char* at_;
    Cursor* cursor_;
};

// A syntax error: in plain words ("unexpected ']'; expected '[', '{', or a literal"), and the
// byte it is at.
struct SyntaxProblem {
    std::size_t offset = 0;
    std::string what;
    bool located = true;  // false where nlohmann threw instead of saying where
};

// A NUL byte in `text`, as a SyntaxProblem.
std::optional<SyntaxProblem> find_nul(std::string_view text);

// nlohmann's exception text in plain words, as SyntaxProblem::what has it.
std::string plain_parse_error(const std::string& what);

// The start of the JSON token that holds the byte at `offset`: a string, a structural
// character, or a run of other characters (a number or a literal).
std::size_t token_start(std::string_view text, std::size_t offset);

// nlohmann's parse_error callback, kept by a handler: the problem with its byte. A lexer error
// ("invalid literal") is at the last byte read; an unexpected token or a number out of range
// at its start.
SyntaxProblem syntax_problem(std::string_view text, std::size_t position, const std::string& what);

// Parses `text` with nlohmann's SAX parser into `handler` (nlohmann's SAX interface; it may
// read `cursor`). Returns the syntax error, if the text is not JSON; a handler that stops the
// parse itself (returning false) keeps its own reason, and this returns nullopt.
template <class Handler>
std::optional<SyntaxProblem> read_sax(Cursor& cursor, Handler& handler) {
    const std::string_view text = cursor.text();
    if (auto nul = find_nul(text)) return nul;
    bool syntax_error = false;
    SyntaxProblem problem;
    struct Events {
        Handler& handler;
        std::string_view text;
        bool& syntax_error;
        SyntaxProblem& problem;
        bool null() { return handler.null(); }
        bool boolean(bool value) { return handler.boolean(value); }
        bool number_integer(nlohmann::json::number_integer_t value) { return handler.number_integer(value); }
        bool number_unsigned(nlohmann::json::number_unsigned_t value) { return handler.number_unsigned(value); }
        bool number_float(nlohmann::json::number_float_t value, const nlohmann::json::string_t& raw) {
            return handler.number_float(value, raw);
        }
        bool string(nlohmann::json::string_t& value) { return handler.string(value); }
        bool binary(nlohmann::json::binary_t&) { return false; }  // not produced by the JSON reader
        bool start_object(std::size_t size) { return handler.start_object(size); }
        bool key(nlohmann::json::string_t& name) { return handler.key(name); }
        bool end_object() { return handler.end_object(); }
        bool start_array(std::size_t size) { return handler.start_array(size); }
        bool end_array() { return handler.end_array(); }
        bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) {
            syntax_error = true;
            problem = syntax_problem(text, position, ex.what());
            return false;
        }
    } events{handler, text, syntax_error, problem};
    try {
        nlohmann::json::sax_parse(CursorIterator(text.data(), &cursor),
                                  CursorIterator(text.data() + text.size(), &cursor), &events);
    } catch (const nlohmann::json::exception& ex) {
        return SyntaxProblem{cursor.offset(), plain_parse_error(ex.what()), false};
    }
    if (syntax_error) return problem;
    return std::nullopt;
}

}  // namespace tslice::json
