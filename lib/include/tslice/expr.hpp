// numpy index expressions: "[1:, ..., ::-1]", "0, None, -1", "[2::-3, np.newaxis]",
// "[[0, 2], ..., [[1], [0]]]" (integer lists: numpy's advanced indexing).
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

// An integer list such as [0, 2, -1] or [[0, 1], [2, 3]]: an index array of `shape` (one entry
// per nesting level; [] is shape (0,)) with `values` in C order. Lists are rectangular (the
// parser rejects ragged ones with numpy's message). A value beyond 64 bits is saturated and
// flags the list, which the planner rejects in numpy's order of checks, as for IntItem.
struct IntListItem {
    std::vector<std::int64_t> shape;
    std::vector<std::int64_t> values;
    bool overflows = false;
    bool operator==(const IntListItem&) const = default;
};

using IndexItem = std::variant<SliceItem, IntItem, EllipsisItem, NewAxisItem, IntListItem>;

struct ExprItem {
    IndexItem item;
    std::size_t column = 0;  // where the item starts in the expression text (0-based)
    // Where a slice's step is written, if it is: a zero step is reported there.
    std::optional<std::size_t> step_column;
    bool operator==(const ExprItem&) const = default;
};

struct IndexExpr {
    std::string text;  // the expression as the user wrote it, for error carets
    std::vector<ExprItem> items;
};

// Parses an expression; the outer brackets are optional: "[[0, 2]]" is a[[0, 2]] while
// "[0, 2]" is a[0, 2], and "[0, 2], 1" is a[[0, 2], 1]. Throws ExprError with the column of
// the offending character for anything that is not valid numpy indexing syntax (integer
// lists included: a ragged list, a float, a bool or None inside a list are errors). An
// expression longer than 1 MiB is Error(Usage), without a column.
IndexExpr parse_index_expr(std::string_view text);

// True when the expression holds an integer list, i.e. is numpy advanced indexing: it is
// planned by plan_advanced_index (gather.hpp), not plan_index.
bool has_advanced(const IndexExpr& expr);

// The expression written back in canonical form, e.g. "[1:, ..., ::-1]".
std::string to_string(const IndexExpr& expr);

}  // namespace tslice
