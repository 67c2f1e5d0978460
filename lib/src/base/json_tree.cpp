// JSON text (an op spec, a Zarr .zarray) as a small tree of our own, read through the one JSON reading
// path (json_sax.hpp: nlohmann's SAX parser).
//
// Why not nlohmann::json's DOM: it would lose what the user wrote. A number beyond 64 bits
// arrives as a double (1e+20), so "18446744073709551616 does not fit in a 64-bit integer"
// could not quote it, and a DOM spends 16 bytes and a node per index of an inline gather
// list. nlohmann's SAX parser (iterative, so deep nesting cannot overflow the stack while
// parsing) feeds a tree that keeps the raw text of such numbers and stores a list of plain
// integers as one vector.
#include "base/json_tree.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/json_sax.hpp"
#include "tslice/error.hpp"

namespace tslice::json {
namespace {

// Guards against absurd specs, so that a hostile one fails with a message instead of
// exhausting memory or the stack. No real spec comes near them.
constexpr std::size_t kMaxDepth = 64;  // nested lists/objects
// Integers in lists of integers (inline gather indices): each costs 8 bytes here, again in
// the spec and in the gather's table, so 2^24 of them stay around 0.4 GB at the most (100
// million took 2.3 GB); more belong in an .npy file.
constexpr std::size_t kMaxValues = std::size_t{1} << 24;
constexpr std::size_t kMaxNodes = 2'000'000;  // every other value: a node of ~120 bytes each

// Builds the tree from nlohmann's SAX events.
class TreeBuilder {
public:
    using json = nlohmann::json;

    explicit TreeBuilder(const TreeErrors& errors) : errors_(errors) {}

    Node root;
    std::string error;  // set when we stopped the parse ourselves

    bool null() { return add(Node{}); }
    bool boolean(bool value) {
        Node node;
        node.kind = Node::Kind::Boolean;
        node.boolean = value;
        return add(std::move(node));
    }
    bool number_integer(json::number_integer_t value) { return add_integer(value); }
    bool number_unsigned(json::number_unsigned_t value) {
        if (value <= static_cast<json::number_unsigned_t>(std::numeric_limits<std::int64_t>::max()))
            return add_integer(static_cast<std::int64_t>(value));
        Node node;
        node.kind = Node::Kind::TooBig;
        node.text = std::to_string(value);
        return add(std::move(node));
    }
    bool number_float(json::number_float_t, const json::string_t& raw) {
        // An integer literal beyond the int64 range arrives here too; keep it apart from
        // numbers written with a fraction or an exponent.
        Node node;
        node.kind = raw.find_first_of(".eE") == std::string::npos ? Node::Kind::TooBig : Node::Kind::Float;
        node.text = raw;
        return add(std::move(node));
    }
    bool string(json::string_t& value) {
        Node node;
        node.kind = Node::Kind::String;
        node.text = std::move(value);
        return add(std::move(node));
    }
    bool start_object(std::size_t) { return open(Node::Kind::Object); }
    bool key(json::string_t& name) {
        key_ = std::move(name);
        return true;
    }
    bool end_object() { return close(); }
    bool start_array(std::size_t) { return open(Node::Kind::Array); }
    bool end_array() { return close(); }

private:
    const TreeErrors& errors_;
    std::vector<Node*> stack_;
    std::string key_;
    std::size_t values_ = 0;  // integers stored packed
    std::size_t nodes_ = 0;   // everything else

    bool add_integer(std::int64_t value) {
        if (!stack_.empty() && stack_.back()->is_packed()) {
            if (!count(true)) return false;
            stack_.back()->ints.push_back(value);
            return true;
        }
        return add(integer_node(value));
    }

    bool count(bool packed = false) {
        if (packed ? ++values_ > kMaxValues : ++nodes_ > kMaxNodes) {
            error = std::string(errors_.subject) + " is too large (more than " +
                    (packed ? std::to_string(kMaxValues) + " integers in lists" : std::to_string(kMaxNodes) + " values") +
                    ")" + std::string(errors_.advice);
            return false;
        }
        return true;
    }

    // Appends to the innermost open container (or sets the root); returns the new node.
    Node* place(Node&& node) {
        if (stack_.empty()) {
            root = std::move(node);
            return &root;
        }
        Node& parent = *stack_.back();
        if (parent.kind == Node::Kind::Object) {
            parent.members.push_back(Member{std::move(key_), std::move(node)});
            return &parent.members.back().second;
        }
        if (parent.is_packed()) {
            if (node.kind == Node::Kind::Integer) {
                parent.ints.push_back(node.integer);
                return nullptr;
            }
            // Leave the compact form: the list holds something other than integers.
            parent.items.reserve(parent.ints.size() + 1);
            for (std::int64_t value : parent.ints) parent.items.push_back(integer_node(value));
            parent.ints.clear();
            parent.ints.shrink_to_fit();
        }
        parent.items.push_back(std::move(node));
        return &parent.items.back();
    }

    bool add(Node&& node) {
        if (!count() || !unpack_fits()) return false;
        place(std::move(node));
        return true;
    }

    // A packed list that receives something other than an integer turns its integers into
    // nodes: count them as such.
    bool unpack_fits() {
        if (stack_.empty() || !stack_.back()->is_packed()) return true;
        nodes_ += stack_.back()->ints.size();
        return count();
    }

    bool open(Node::Kind kind) {
        if (!count() || !unpack_fits()) return false;
        if (stack_.size() >= kMaxDepth) {
            error = std::string(errors_.subject) + " is nested deeper than " + std::to_string(kMaxDepth) + " levels";
            return false;
        }
        Node node;
        node.kind = kind;
        stack_.push_back(place(std::move(node)));
        return true;
    }

    bool close() {
        stack_.pop_back();
        return true;
    }
};

// 1-based line and column (in characters) of the byte at `offset`.
std::pair<std::size_t, std::size_t> line_column(std::string_view text, std::size_t offset) {
    offset = std::min(offset, text.size());
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < offset; ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
            ++column;
        }
    }
    return {line, column};
}

std::string where(const TreeErrors& errors, std::string_view text, std::size_t offset) {
    const auto [line, column] = line_column(text, offset);
    return std::string(errors.source) + ": " + std::string(errors.syntax) + " at line " + std::to_string(line) +
           ", column " + std::to_string(column);
}

[[noreturn]] void fail(const TreeErrors& errors, const std::string& message) {
    if (errors.kind == ErrorKind::Usage) fail_usage(message);
    if (errors.kind == ErrorKind::Input) fail_input(message);
    throw Error(errors.kind, message);
}

// nlohmann nests lists and objects without recursion, but our tree is freed recursively:
// refuse deep nesting before parsing, pointing at the bracket that goes too deep.
void check_depth(std::string_view text, const TreeErrors& errors) {
    std::size_t depth = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxDepth)
                fail(errors, where(errors, text, i) + ": lists and objects are nested deeper than " +
                           std::to_string(kMaxDepth) + " levels");
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
}

void render(const Node& node, std::string& out, std::size_t limit);

void render(const Node& node, std::string& out, std::size_t limit) {
    if (out.size() > limit) return;
    switch (node.kind) {
        case Node::Kind::Null: out += "null"; break;
        case Node::Kind::Boolean: out += node.boolean ? "true" : "false"; break;
        case Node::Kind::Integer: out += std::to_string(node.integer); break;
        case Node::Kind::TooBig:
        case Node::Kind::Float: out += node.text; break;
        case Node::Kind::String: render_string(node.text, out); break;
        case Node::Kind::Array: {
            out += '[';
            for (std::size_t i = 0; i < node.size() && out.size() <= limit; ++i) {
                if (i) out += ", ";
                if (node.is_packed()) out += std::to_string(node.ints[i]);
                else render(node.items[i], out, limit);
            }
            out += ']';
            break;
        }
        case Node::Kind::Object: {
            out += '{';
            for (std::size_t i = 0; i < node.members.size() && out.size() <= limit; ++i) {
                if (i) out += ", ";
                render_string(node.members[i].first, out);
                out += ": ";
                render(node.members[i].second, out, limit);
            }
            out += '}';
            break;
        }
    }
}

}  // namespace

std::size_t Node::size() const {
    return kind == Kind::Object ? members.size() : is_packed() ? ints.size() : items.size();
}

Node integer_node(std::int64_t value) {
    Node node;
    node.kind = Node::Kind::Integer;
    node.integer = value;
    return node;
}

Node parse_tree(std::string_view text, const TreeErrors& errors) {
    if (const auto nul = find_nul(text)) fail(errors, where(errors, text, nul->offset) + ": " + nul->what);
    check_depth(text, errors);
    TreeBuilder builder(errors);
    Cursor cursor(text);
    if (const auto problem = read_sax(cursor, builder)) {
        if (!problem->located)
            fail(errors, std::string(errors.source) + ": " + std::string(errors.syntax) + ": " + problem->what);
        fail(errors, where(errors, text, problem->offset) + ": " + problem->what);
    }
    if (!builder.error.empty()) fail(errors, std::string(errors.source) + ": " + builder.error);
    return std::move(builder.root);
}

Node parse_tree(std::string_view text, std::string_view source) {
    TreeErrors errors;
    errors.source = source;
    return parse_tree(text, errors);
}

const Node* member(const Node& node, std::string_view key) {
    if (node.kind != Node::Kind::Object) return nullptr;
    for (auto it = node.members.rbegin(); it != node.members.rend(); ++it)
        if (it->first == key) return &it->second;
    return nullptr;
}

void render_string(const std::string& value, std::string& out) {
    out += nlohmann::json(value).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string render_whole(const Node& node) {
    std::string out;
    render(node, out, std::numeric_limits<std::size_t>::max());
    return out;
}

// The value as JSON, shortened to about 60 characters for a message.
std::string show(const Node& node) {
    constexpr std::size_t kLimit = 60;
    std::string out;
    render(node, out, kLimit);
    if (out.size() > kLimit) {
        // Cut on a UTF-8 character boundary.
        std::size_t cut = kLimit;
        while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
        out.resize(cut);
        out += "...";
    }
    return out;
}

}  // namespace tslice::json
