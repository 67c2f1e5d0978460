// JSON op specs (--op): the JSON text becomes a small tree, the tree becomes OpSpecs, and
// every fault is reported with the JSON path of the field at fault:
//   ops[1].begin: expected a list of integers, got "3"
// (the tree: base/json_tree.cpp).
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <limits>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/json_tree.hpp"
#include "tslice/error.hpp"
#include "tslice/ops.hpp"

namespace tslice {
namespace {

using json::Node;
using json::integer_node;
using json::parse_tree;
using json::render_string;
using json::show;

// Guards against absurd specs, so that a hostile one fails with a message instead of
// exhausting memory or the stack. No real spec comes near them.
constexpr std::size_t kMaxEntries = 1'000'000;      // per begin/end/starts/... list
constexpr std::size_t kMaxOps = 100'000;
// --op @FILE: the most bytes read from the file. Enough for the 2^24 integers a spec may hold; a
// larger file (or /dev/zero, or a pipe that never ends) is refused instead of read into memory.
constexpr std::size_t kMaxSpecFileBytes = std::size_t{256} << 20;

// --------------------------------------------------------------------- reading the fields

std::string index_path(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

std::string field_path(const std::string& path, const std::string& key) {
    const bool plain = !key.empty() && (std::isalpha(static_cast<unsigned char>(key[0])) || key[0] == '_') &&
                       std::all_of(key.begin(), key.end(), [](char c) {
                           return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                       });
    if (plain) return path + "." + key;
    std::string quoted;
    render_string(key, quoted);
    return path + "[" + quoted + "]";
}

// An element of a list, as a Node (packed lists make one on the fly).
Node element(const Node& list, std::size_t i) { return list.is_packed() ? integer_node(list.ints[i]) : list.items[i]; }

[[noreturn]] void fail_not_integer(const Node& node, const std::string& path, const std::string& expected) {
    if (node.kind == Node::Kind::TooBig) fail_usage(path + ": " + node.text + " does not fit in a 64-bit integer");
    fail_usage(path + ": expected " + expected + ", got " + show(node));
}

std::int64_t read_integer(const Node& node, const std::string& path) {
    if (node.kind != Node::Kind::Integer) fail_not_integer(node, path, "an integer");
    return node.integer;
}

std::vector<std::int64_t> read_integer_list(const Node& node, const std::string& path) {
    if (node.kind != Node::Kind::Array) fail_usage(path + ": expected a list of integers, got " + show(node));
    if (node.size() > kMaxEntries)
        fail_usage(path + ": " + std::to_string(node.size()) + " entries is too many (at most " +
                   std::to_string(kMaxEntries) + ")");
    if (node.is_packed()) return node.ints;
    std::vector<std::int64_t> values;
    values.reserve(node.items.size());
    for (std::size_t i = 0; i < node.items.size(); ++i) values.push_back(read_integer(node.items[i], index_path(path, i)));
    return values;
}

// A StridedSlice mask, expanded to one flag per entry.
//
// Two forms, as the two systems write them:
//   TensorFlow, a bitfield: bit i belongs to entry i.   5 = 0b101 -> entries 0 and 2
//   OpenVINO, a list of 0/1: item i belongs to entry i. [1, 0, 1] -> entries 0 and 2
// For 4 entries, the list [0, 1] means [0, 1, 0, 0] (padded with 0) and [1, 0, 0, 0, 1]
// means [1, 0, 0, 0] (the extra item is ignored); a bitfield's bits past the last entry are
// ignored the same way.
std::vector<bool> read_mask(const Node* node, const std::string& path, std::size_t entries) {
    std::vector<bool> mask(entries, false);
    if (!node) return mask;
    if (node->kind == Node::Kind::Array) {
        if (node->size() > kMaxEntries)
            fail_usage(path + ": " + std::to_string(node->size()) + " entries is too many (at most " +
                       std::to_string(kMaxEntries) + ")");
        for (std::size_t i = 0; i < node->size(); ++i) {
            const Node item = element(*node, i);
            const std::string item_path = index_path(path, i);
            const std::int64_t bit = read_integer(item, item_path);
            if (bit != 0 && bit != 1) fail_usage(item_path + ": expected 0 or 1, got " + show(item));
            if (i < entries) mask[i] = bit == 1;
        }
        return mask;
    }
    if (node->kind != Node::Kind::Integer) {
        if (node->kind == Node::Kind::TooBig) fail_not_integer(*node, path, "");
        fail_usage(path + ": expected an integer bitfield or a list of 0/1, got " + show(*node));
    }
    if (node->integer < 0) fail_usage(path + ": a bitfield cannot be negative, got " + show(*node));
    for (std::size_t i = 0; i < entries && i < 63; ++i) mask[i] = (node->integer >> i) & 1;
    return mask;
}

// Gather's inline indices: a scalar, or nested lists of one shape (rectangular).
IntArray read_int_array(const Node& node, const std::string& path) {
    IntArray array;
    if (node.kind != Node::Kind::Array) {
        array.values.push_back(read_integer(node, path));
        return array;
    }
    // The shape is read down the first elements; every list is then checked against it.
    for (const Node* level = &node;;) {
        array.shape.push_back(static_cast<std::int64_t>(level->size()));
        if (level->size() == 0 || level->is_packed() || level->items[0].kind != Node::Kind::Array) break;
        level = &level->items[0];
    }
    // Walk the lists: (node, its depth, its path).
    struct Frame {
        const Node* node;
        std::size_t depth;
        std::string path;
    };
    std::vector<Frame> pending{{&node, 0, path}};
    while (!pending.empty()) {
        const Frame frame = std::move(pending.back());
        pending.pop_back();
        const Node& list = *frame.node;
        const auto expected = static_cast<std::size_t>(array.shape[frame.depth]);
        if (list.size() != expected) {
            std::string first = path;
            for (std::size_t d = 0; d < frame.depth; ++d) first += "[0]";
            fail_usage(frame.path + ": the indices must be rectangular: expected a list of " +
                       std::to_string(expected) + " like " + first + ", got " + show(list));
        }
        const bool leaves = frame.depth + 1 == array.shape.size();
        if (leaves) {
            if (list.is_packed()) {
                array.values.insert(array.values.end(), list.ints.begin(), list.ints.end());
            } else {
                for (std::size_t i = 0; i < list.items.size(); ++i) {
                    const Node& item = list.items[i];
                    if (item.kind == Node::Kind::Array)
                        fail_usage(index_path(frame.path, i) +
                                   ": the indices must be rectangular: expected an integer, got " + show(item));
                    array.values.push_back(read_integer(item, index_path(frame.path, i)));
                }
            }
            continue;
        }
        // Push in reverse so that the lists are visited (and the values stored) in C order.
        for (std::size_t i = list.size(); i-- > 0;) {
            if (list.is_packed() || list.items[i].kind != Node::Kind::Array) {
                fail_usage(index_path(frame.path, i) + ": the indices must be rectangular: expected a list of " +
                           std::to_string(array.shape[frame.depth + 1]) + ", got " + show(element(list, i)));
            }
            pending.push_back({&list.items[i], frame.depth + 1, index_path(frame.path, i)});
        }
    }
    return array;
}

// ------------------------------------------------------------------------------- the ops

enum class OpKind { StridedSlice, Slice, Slice1, Gather, Index };

struct OpInfo {
    OpKind kind;
    const char* name;                     // canonical
    std::vector<std::string> aliases;     // lower case, canonical included
    std::vector<std::string> fields;      // allowed, besides "op"
    std::vector<std::string> required;
    const char* fields_text;              // for messages
};

const std::vector<OpInfo>& op_table() {
    static const std::vector<OpInfo> table = {
        {OpKind::StridedSlice, "strided_slice", {"strided_slice", "stridedslice"},
         {"begin", "end", "strides", "stride", "begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask",
          "ellipsis_mask"},
         {"begin", "end"},
         "op, begin, end, strides (or stride), begin_mask, end_mask, new_axis_mask, shrink_axis_mask, ellipsis_mask"},
        {OpKind::Slice, "slice", {"slice"}, {"starts", "ends", "axes", "steps"}, {"starts", "ends"},
         "op, starts, ends, axes, steps"},
        {OpKind::Slice1, "slice1", {"slice1", "dml_slice1"}, {"offsets", "sizes", "strides", "output_sizes"},
         {"offsets", "sizes", "strides"}, "op, offsets, sizes, strides, output_sizes"},
        {OpKind::Gather, "gather", {"gather"}, {"indices", "axis", "batch_dims"}, {"indices"},
         "op, indices, axis, batch_dims"},
        {OpKind::Index, "index", {"index"}, {"expr"}, {"expr"}, "op, expr"},
    };
    return table;
}

constexpr const char* kKnownOps =
    "strided_slice (StridedSlice), slice (Slice), slice1 (Slice1, DML_SLICE1), gather (Gather), index";

// The fields of one op object, looked up by name.
class Fields {
public:
    Fields(const Node& object, std::string path) : object_(object), path_(std::move(path)) {}

    const Node* find(const std::string& name) const {
        for (const auto& [key, value] : object_.members)
            if (key == name) return &value;
        return nullptr;
    }
    std::string path(const std::string& name) const { return field_path(path_, name); }
    const std::string& op_path() const { return path_; }

private:
    const Node& object_;
    std::string path_;
};

void require_same_length(const std::vector<std::int64_t>& values, const std::string& path,
                         const std::vector<std::int64_t>& reference, const std::string& reference_name,
                         const std::string& rule) {
    if (values.size() != reference.size())
        fail_usage(path + ": has " + std::to_string(values.size()) + " entries but " + reference_name + " has " +
                   std::to_string(reference.size()) + "; " + rule);
}

StridedSliceSpec read_strided_slice(const Fields& fields) {
    StridedSliceSpec spec;
    spec.begin = read_integer_list(*fields.find("begin"), fields.path("begin"));
    spec.end = read_integer_list(*fields.find("end"), fields.path("end"));
    const Node* strides = fields.find("strides");
    std::string strides_name = "strides";
    if (const Node* stride = fields.find("stride")) {
        if (strides) fail_usage(fields.path("stride") + ": give strides or its alias stride, not both");
        strides = stride;
        strides_name = "stride";
    }
    const std::string rule = "begin, end and " + strides_name + " must have the same length";
    require_same_length(spec.end, fields.path("end"), spec.begin, "begin", rule);
    if (strides) {
        spec.strides = read_integer_list(*strides, fields.path(strides_name));
        require_same_length(spec.strides, fields.path(strides_name), spec.begin, "begin", rule);
    } else {
        spec.strides.assign(spec.begin.size(), 1);
    }
    const std::size_t n = spec.begin.size();
    spec.begin_mask = read_mask(fields.find("begin_mask"), fields.path("begin_mask"), n);
    spec.end_mask = read_mask(fields.find("end_mask"), fields.path("end_mask"), n);
    spec.new_axis_mask = read_mask(fields.find("new_axis_mask"), fields.path("new_axis_mask"), n);
    spec.shrink_axis_mask = read_mask(fields.find("shrink_axis_mask"), fields.path("shrink_axis_mask"), n);
    spec.ellipsis_mask = read_mask(fields.find("ellipsis_mask"), fields.path("ellipsis_mask"), n);
    return spec;
}

std::optional<std::vector<std::int64_t>> read_optional_list(const Fields& fields, const std::string& name) {
    const Node* node = fields.find(name);
    if (!node) return std::nullopt;
    return read_integer_list(*node, fields.path(name));
}

SliceSpec read_slice(const Fields& fields) {
    SliceSpec spec;
    spec.starts = read_integer_list(*fields.find("starts"), fields.path("starts"));
    spec.ends = read_integer_list(*fields.find("ends"), fields.path("ends"));
    spec.axes = read_optional_list(fields, "axes");
    spec.steps = read_optional_list(fields, "steps");
    const std::string rule = "starts, ends, axes and steps must have the same length";
    require_same_length(spec.ends, fields.path("ends"), spec.starts, "starts", rule);
    if (spec.axes) require_same_length(*spec.axes, fields.path("axes"), spec.starts, "starts", rule);
    if (spec.steps) require_same_length(*spec.steps, fields.path("steps"), spec.starts, "starts", rule);
    return spec;
}

// The lengths against the input's rank are checked when the op is planned.
Slice1Spec read_slice1(const Fields& fields) {
    Slice1Spec spec;
    spec.offsets = read_integer_list(*fields.find("offsets"), fields.path("offsets"));
    spec.sizes = read_integer_list(*fields.find("sizes"), fields.path("sizes"));
    spec.strides = read_integer_list(*fields.find("strides"), fields.path("strides"));
    spec.output_sizes = read_optional_list(fields, "output_sizes");
    const std::string rule = "offsets, sizes, strides and output_sizes must have the same length (one per dimension)";
    require_same_length(spec.sizes, fields.path("sizes"), spec.offsets, "offsets", rule);
    require_same_length(spec.strides, fields.path("strides"), spec.offsets, "offsets", rule);
    if (spec.output_sizes)
        require_same_length(*spec.output_sizes, fields.path("output_sizes"), spec.offsets, "offsets", rule);
    return spec;
}

GatherSpec read_gather(const Fields& fields) {
    GatherSpec spec;
    const Node& indices = *fields.find("indices");
    const std::string path = fields.path("indices");
    if (indices.kind == Node::Kind::String) {
        if (indices.text.empty()) fail_usage(path + ": expected the path of an integer .npy file, got \"\"");
        spec.indices_path = indices.text;
    } else if (indices.kind == Node::Kind::Array || indices.kind == Node::Kind::Integer ||
               indices.kind == Node::Kind::TooBig) {
        spec.indices = read_int_array(indices, path);
    } else {
        fail_usage(path + ": expected an integer, a nested list of integers or the path of an integer .npy file, got " +
                   show(indices));
    }
    if (const Node* axis = fields.find("axis")) spec.axis = read_integer(*axis, fields.path("axis"));
    if (const Node* batch_dims = fields.find("batch_dims"))
        spec.batch_dims = read_integer(*batch_dims, fields.path("batch_dims"));
    return spec;
}

IndexSpec read_index(const Fields& fields) {
    const Node& expr = *fields.find("expr");
    const std::string path = fields.path("expr");
    if (expr.kind != Node::Kind::String)
        fail_usage(path + ": expected an index expression as a string, such as \"[1:, ..., ::-1]\", got " + show(expr));
    try {
        return IndexSpec{parse_index_expr(expr.text)};
    } catch (const ExprError& error) {
        // Keep the type, so that the caret can still be shown under the expression.
        throw ExprError(path + ": " + error.what(), error.expression(), error.column());
    } catch (const Error& error) {
        throw Error(error.kind(), path + ": " + error.what());
    }
}

std::string lower(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

OpSpec read_op(const Node& node, const std::string& path) {
    if (node.kind != Node::Kind::Object)
        fail_usage(path + ": expected an op object such as {\"op\": \"slice\", \"starts\": [1], \"ends\": [3]}, got " +
                   show(node));
    Fields fields(node, path);
    const Node* name = fields.find("op");
    if (!name) fail_usage(path + ": missing field \"op\", the op's name: " + std::string(kKnownOps));
    if (name->kind != Node::Kind::String)
        fail_usage(fields.path("op") + ": expected the op's name as a string, got " + show(*name));
    const std::string wanted = lower(name->text);
    const OpInfo* info = nullptr;
    for (const auto& candidate : op_table())
        if (std::find(candidate.aliases.begin(), candidate.aliases.end(), wanted) != candidate.aliases.end())
            info = &candidate;
    if (!info) fail_usage(fields.path("op") + ": unknown op " + show(*name) + "; the ops are " + kKnownOps);

    // Unknown and repeated fields first, in document order.
    std::vector<std::string> seen;
    for (const auto& [key, value] : node.members) {
        if (key != "op" && std::find(info->fields.begin(), info->fields.end(), key) == info->fields.end())
            fail_usage(fields.path(key) + ": unknown field for " + info->name + "; the fields are " +
                       info->fields_text);
        if (std::find(seen.begin(), seen.end(), key) != seen.end()) fail_usage(fields.path(key) + ": given twice");
        seen.push_back(key);
    }
    for (const auto& required : info->required)
        if (!fields.find(required))
            fail_usage(path + ": missing field \"" + required + "\", which " + info->name +
                       " requires; the fields are " + info->fields_text);

    OpSpec op;
    op.path = path;
    switch (info->kind) {
        case OpKind::StridedSlice: op.spec = read_strided_slice(fields); break;
        case OpKind::Slice: op.spec = read_slice(fields); break;
        case OpKind::Slice1: op.spec = read_slice1(fields); break;
        case OpKind::Gather: op.spec = read_gather(fields); break;
        case OpKind::Index: op.spec = read_index(fields); break;
    }
    return op;
}

std::vector<OpSpec> read_ops(std::string_view json_text, std::string_view source) {
    const Node root = parse_tree(json_text, source);
    std::vector<OpSpec> ops;
    if (root.kind == Node::Kind::Object) {
        ops.push_back(read_op(root, "op"));
    } else if (root.kind == Node::Kind::Array) {
        // An empty list is no ops: the input unchanged, as a[()] in numpy.
        if (root.size() > kMaxOps)
            fail_usage(std::string(source) + ": " + std::to_string(root.size()) + " ops is too many (at most " +
                       std::to_string(kMaxOps) + ")");
        for (std::size_t i = 0; i < root.size(); ++i) ops.push_back(read_op(element(root, i), index_path("ops", i)));
    } else {
        fail_usage(std::string(source) +
                   ": expected an op object or a list of them, such as {\"op\": \"slice\", "
                   "\"starts\": [1], \"ends\": [3]}, got " +
                   show(root));
    }
    return ops;
}

// ------------------------------------------------------------------------ writing specs

std::string json_list(const std::vector<std::int64_t>& values) {
    std::string text = "[";
    for (std::size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
    return text + "]";
}

// A mask as an integer bitfield where one fits, else as a 0/1 list.
std::string json_mask(const std::vector<bool>& bits) {
    if (bits.size() <= 62) {
        std::int64_t field = 0;
        for (std::size_t i = 0; i < bits.size(); ++i)
            if (bits[i]) field |= std::int64_t{1} << i;
        return std::to_string(field);
    }
    std::vector<std::int64_t> list(bits.begin(), bits.end());
    return json_list(list);
}

}  // namespace

std::vector<OpSpec> parse_ops_json(std::string_view json_text) { return read_ops(json_text, "--op"); }

std::vector<OpSpec> parse_op_argument(std::string_view argument) {
    if (argument.empty() || argument.front() != '@') return parse_ops_json(argument);
    const std::string file(argument.substr(1));
    const std::string source = "--op @" + file;
    if (file.empty()) fail_usage("--op @: give a file name after '@', e.g. --op @spec.json");
    std::string text;
    errno = 0;
    std::FILE* stream = std::fopen(file.c_str(), "rb");
    int code = errno;
    bool too_large = false;
    if (stream) {
        char buffer[1 << 16];
        std::size_t got = 0;
        while (!too_large && (got = std::fread(buffer, 1, sizeof buffer, stream)) > 0) {
            text.append(buffer, got);
            too_large = text.size() > kMaxSpecFileBytes;
        }
        code = std::ferror(stream) ? errno : 0;
        std::fclose(stream);
    }
    if (!stream || code != 0)
        fail_input(source + ": cannot read '" + file + "': " + (code ? std::strerror(code) : "read error"));
    if (too_large)
        fail_usage(source + ": the spec is larger than " + std::to_string(kMaxSpecFileBytes >> 20) +
                   " MiB, more than tslice reads (give large indices as an .npy file)");
    return read_ops(text, source);
}

std::string to_json(const StridedSliceSpec& spec) {
    return "{\"op\": \"strided_slice\", \"begin\": " + json_list(spec.begin) + ", \"end\": " + json_list(spec.end) +
           ", \"strides\": " + json_list(spec.strides) + ", \"begin_mask\": " + json_mask(spec.begin_mask) +
           ", \"end_mask\": " + json_mask(spec.end_mask) + ", \"new_axis_mask\": " + json_mask(spec.new_axis_mask) +
           ", \"shrink_axis_mask\": " + json_mask(spec.shrink_axis_mask) +
           ", \"ellipsis_mask\": " + json_mask(spec.ellipsis_mask) + "}";
}

std::string to_json(const SliceSpec& spec) {
    std::string text = "{\"op\": \"slice\", \"starts\": " + json_list(spec.starts) + ", \"ends\": " + json_list(spec.ends);
    if (spec.axes) text += ", \"axes\": " + json_list(*spec.axes);
    if (spec.steps) text += ", \"steps\": " + json_list(*spec.steps);
    return text + "}";
}

}  // namespace tslice
