// The strict JSON reader (RFC 8259) that read safetensors headers until they went through the
// one JSON reading path (lib/src/base/json_sax.hpp, nlohmann's SAX parser): kept here as the
// A/B's other contender (json_header_bench.cpp), so that the choice can be measured again.
// It walks a text in place, value by value, allocating only the strings it is asked to decode.
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
