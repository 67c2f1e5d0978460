// numpy index expressions: "[1:, ..., ::-1]", "0, None, -1", "[2::-3, np.newaxis]".
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tslice {

// `start:stop:step`; a part left out is empty. Bounds beyond 64 bits are saturated to the
// int64 range (numpy clamps them the same way); a step below -INT64_MAX becomes -INT64_MAX,
// as Python's slice does.
struct SliceItem {
    std::optional<std::int64_t> start, stop, step;
    bool operator==(const SliceItem&) const = default;
};

// A single integer: selects one element and removes the axis. A literal beyond 64 bits is
// kept (saturated, flagged) so that the planner rejects it in numpy's order of checks.
struct IntItem {
    std::int64_t value = 0;
    bool overflows = false;
    bool operator==(const IntItem&) const = default;
};

struct EllipsisItem {
    bool operator==(const EllipsisItem&) const = default;
};

struct NewAxisItem {
    bool operator==(const NewAxisItem&) const = default;
};

using IndexItem = std::variant<SliceItem, IntItem, EllipsisItem, NewAxisItem>;

struct ExprItem {
    IndexItem item;
    std::size_t column = 0;  // where the item starts in the expression text (0-based)
    bool operator==(const ExprItem&) const = default;
};

struct IndexExpr {
    std::string text;  // the expression as the user wrote it, for error carets
    std::vector<ExprItem> items;
};

// Parses an expression; the outer brackets are optional. Throws ExprError with the column
// of the offending character for anything that is not valid numpy basic indexing syntax.
IndexExpr parse_index_expr(std::string_view text);

// The expression written back in canonical form, e.g. "[1:, ..., ::-1]".
std::string to_string(const IndexExpr& expr);

}  // namespace tslice
