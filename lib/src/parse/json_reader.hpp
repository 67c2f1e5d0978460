// A strict JSON reader (RFC 8259) that walks a text in place, value by value, for headers
// read on every run: a safetensors header lists thousands of tensors.
//
// Why our own and not nlohmann's parser (which reads the op specs, json_tree.cpp): its DOM,
// and even its SAX events, allocate for every token, and on a checkpoint of 400 tensors the
// allocations and the page faults of the heap they grow were most of what `--list` cost
// beyond starting the process. This reader allocates only the strings it is asked to decode
// and gives the text of any value it skips, so an error can quote what the file says.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tslice::json {

// Malformed JSON: what was expected, and at which byte of the text.
class SyntaxError : public std::runtime_error {
public:
    SyntaxError(std::size_t offset, const std::string& what)
        : std::runtime_error(what + " at byte " + std::to_string(offset)), offset_(offset) {}
    std::size_t offset() const { return offset_; }

private:
    std::size_t offset_;
};

class Reader {
public:
    // Arrays and objects nested deeper than this are refused, as serde_json (which the
    // safetensors reference reads headers with) refuses them.
    static constexpr int kMaxDepth = 128;

    explicit Reader(std::string_view text) : text_(text) {}

    // The first character of the next value or token, after white space; '\0' at the end.
    char peek();
    // Consumes `c` if it comes next (after white space).
    bool consume(char c);
    // Consumes `c`, or throws SyntaxError naming `what` was expected.
    void expect(char c, const char* what);
    // A string value, its escapes decoded and its UTF-8 checked.
    std::string string();
    // A number without sign, fraction or exponent that fits 64 bits, as an integer; nullopt
    // (having read nothing) for any other value.
    std::optional<std::uint64_t> unsigned_integer();
    // Checks and passes over the next value, whatever it is; returns its text.
    std::string_view skip_value();
    // Nothing but white space is left.
    void finish();

    std::size_t offset() const { return pos_; }

private:
    [[noreturn]] void fail(const std::string& what) const { throw SyntaxError(pos_, what); }
    void skip_space();
    void scan_string();  // passes over a string, checking it
    void read_string(std::string* out);  // appends the decoded string to *out, if given
    void scan_number();
    void scan_literal(std::string_view word);

    std::string_view text_;
    std::size_t pos_ = 0;
};

}  // namespace tslice::json
