// The JSON text of an op spec as a small tree that keeps what the user wrote (numbers beyond
// 64 bits as written, lists of plain integers as one vector), for messages that quote it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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

// Parses `text`; a syntax error, or a spec nested or sized past tslice's limits, is
// Error(Usage) naming `source` ("--op", "@FILE") with the line and column.
Node parse_tree(std::string_view text, std::string_view source);

// `value` as a JSON string literal.
void render_string(const std::string& value, std::string& out);
// The value as JSON, shortened to about 60 characters for a message.
std::string show(const Node& node);

}  // namespace tslice::json
