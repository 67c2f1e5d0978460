// numpy index expressions: "[1:, ..., ::-1]", "0, None, -1", "[2::-3, np.newaxis]",
// "[[0, 2], ..., [[1], [0]]]" (integer lists: numpy's advanced indexing), "[[True, False, True]]"
// (a boolean mask), "['x']" and "[['x', 'z']]" (fields of a structured array), "[()]" (the
// whole array) and chained subscripts such as "[0][1]" (a[0][1] in Python).
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
// A list of True and False only is a boolean mask (`boolean`, values 1 and 0) over as many
// axes as it has dimensions; a list that mixes booleans with integers is an integer list
// (True is 1), because numpy makes it an integer array.
struct IntListItem {
    std::vector<std::int64_t> shape;
    std::vector<std::int64_t> values;
    bool overflows = false;
    bool boolean = false;
    bool operator==(const IntListItem&) const = default;
};

// True or False on its own: numpy's 0-d boolean index, which takes no axis and adds one of
// length 1 (True) or 0 (False), placed as an index array is.
struct BoolItem {
    bool value = false;
    bool operator==(const BoolItem&) const = default;
};

// A field name ('x') or a list of them (['x', 'z']) of a structured array: the whole
// subscript, as numpy allows nothing beside it. A list gives a structured result with those
// fields in that order, even a list of one.
struct FieldItem {
    std::vector<std::string> names;
    bool list = false;
    bool operator==(const FieldItem&) const = default;
};

using IndexItem = std::variant<SliceItem, IntItem, EllipsisItem, NewAxisItem, IntListItem, BoolItem, FieldItem>;

struct ExprItem {
    IndexItem item;
    std::size_t column = 0;  // where the item starts in the expression text (0-based)
    // Where a slice's step is written, if it is: a zero step is reported there.
    std::optional<std::size_t> step_column;
    bool operator==(const ExprItem&) const = default;
};

// One subscript, a[...], and the subscripts chained after it (a[...][...]).
struct IndexExpr {
    std::string text;  // the whole expression as the user wrote it, for error carets
    std::vector<ExprItem> items;
    // Where the subscript lies in `text` (its brackets included, when written), for --explain.
    std::size_t begin = 0, end = 0;
    // The subscripts written after this one, each applied to the previous one's result; set
    // on the first subscript only (each of them has its own `chained` empty).
    std::vector<IndexExpr> chained;

    // This subscript alone, as the user wrote it: "[1:]" of "[1:][0]".
    std::string_view written() const { return std::string_view(text).substr(begin, end - begin); }
};

// Parses an expression; the outer brackets are optional: "[[0, 2]]" is a[[0, 2]] while
// "[0, 2]" is a[0, 2], and "[0, 2], 1" is a[[0, 2], 1]. Throws ExprError with the column of
// the offending character for anything that is not valid numpy indexing syntax (integer
// lists included: a ragged list, a float, a bool or None inside a list are errors). An
// expression longer than 1 MiB is Error(Usage), without a column.
IndexExpr parse_index_expr(std::string_view text);

// True when the subscript holds an integer list, a mask or a boolean, i.e. is numpy advanced
// indexing: it is planned by plan_advanced_index (gather.hpp), not plan_index.
bool has_advanced(const IndexExpr& expr);

// The field names of a subscript that selects fields, or null.
const FieldItem* field_selection(const IndexExpr& expr);

// The expression written back in canonical form, e.g. "[1:, ..., ::-1]", chained subscripts
// included ("[1:][0]").
std::string to_string(const IndexExpr& expr);

}  // namespace tslice
