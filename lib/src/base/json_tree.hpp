// JSON text (an op spec, a Zarr .zarray) as a small tree that keeps what the user wrote
// (numbers beyond 64 bits as written, lists of plain integers as one vector), for messages
// that quote it. The one way tslice reads a JSON document into memory.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tslice/error.hpp"

namespace tslice::json {

// A member of an object. (Not a std::pair: a pair of an incomplete type cannot be a member
// of that type, which clang's checks of libstdc++ refuse.)
struct Member;

struct Node {
    enum class Kind : std::uint8_t { Null, Boolean, Integer, TooBig, Float, String, Array, Object };
    Kind kind = Kind::Null;
    bool boolean = false;
    std::int64_t integer = 0;
    std::string text;  // String: its value; TooBig and Float: the number as written
    // Array: `ints` while every element is an Integer (the common case, kept compact),
    // `items` once anything else arrives.
    std::vector<std::int64_t> ints;
    std::vector<Node> items;
    std::vector<Member> members;  // Object, in document order

    bool is_packed() const { return kind == Kind::Array && items.empty(); }
    std::size_t size() const;
};

struct Member {
    std::string first;  // the key
    Node second;        // the value
};

Node integer_node(std::int64_t value);

// How parse_tree reports a fault: an op spec's is a usage error (exit 2), a file's
// metadata an input error (exit 1), each in its own words.
struct TreeErrors {
    std::string_view source;                  // starts every message: "--op", "'a.zarr/.zarray'"
    ErrorKind kind = ErrorKind::Usage;
    std::string_view syntax = "invalid JSON";  // said of a syntax error, before its line and column
    std::string_view subject = "the op spec";  // "... is too large"
    std::string_view advice = "; give large indices as an .npy file";  // after the size limit
};

// Parses `text`; a syntax error, or a document nested or sized past tslice's limits, is an
// Error of `errors.kind` naming `errors.source` with the line and column.
Node parse_tree(std::string_view text, const TreeErrors& errors);
// An op spec from `source` ("--op", "@FILE"): errors are Error(Usage).
Node parse_tree(std::string_view text, std::string_view source);

// The last member named `key` of an Object (a later duplicate wins, as in most JSON
// readers), or null when there is none or `node` is not an Object.
const Node* member(const Node& node, std::string_view key);

// `value` as a JSON string literal.
void render_string(const std::string& value, std::string& out);
// The value as JSON, shortened to about 60 characters for a message.
std::string show(const Node& node);
// The value as JSON, whole: numbers as they were written, members in their order.
std::string render_whole(const Node& node);

}  // namespace tslice::json
