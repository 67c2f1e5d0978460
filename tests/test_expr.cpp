// The index-expression parser: every item kind, and every error with its column.
#include <doctest/doctest.h>

#include <limits>

#include "thrown_error.hpp"
#include "tslice/error.hpp"
#include "tslice/expr.hpp"

using namespace tslice;
using namespace tslice_test;

namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

std::vector<IndexItem> items_of(std::string_view text) {
    std::vector<IndexItem> items;
    for (const auto& item : parse_index_expr(text).items) items.push_back(item.item);
    return items;
}

SliceItem slice(std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
                std::optional<std::int64_t> step = std::nullopt) {
    return SliceItem{start, stop, step};
}

// The column parse_index_expr reports for an invalid expression, and its message.
std::pair<std::size_t, std::string> error_of(std::string_view text) {
    INFO("the expression: '" << text << "'");
    const ExprError error = thrown_by<ExprError>([&] { parse_index_expr(text); });
    return {error.column(), error.what()};
}

}  // namespace

TEST_CASE("expr: each item kind") {
    struct Case {
        const char* text;
        std::vector<IndexItem> items;
    };
    const Case cases[] = {
        {"[1:, ..., ::-1]", {slice(1, {}), EllipsisItem{}, slice({}, {}, -1)}},
        {"1:, ..., ::-1", {slice(1, {}), EllipsisItem{}, slice({}, {}, -1)}},
        {"[:]", {slice({}, {})}},
        {"[::]", {slice({}, {})}},
        {"[1:2:3]", {slice(1, 2, 3)}},
        {"[-3:-1:-2]", {slice(-3, -1, -2)}},
        {"[::2]", {slice({}, {}, 2)}},
        {"[:5]", {slice({}, 5)}},
        {"[5]", {IntItem{5}}},
        {"[-1]", {IntItem{-1}}},
        {"[+4]", {IntItem{4}}},
        {"[- 4]", {IntItem{-4}}},
        {"[--4]", {IntItem{4}}},
        {"[0x10, 0o7, 0b11, 1_000]", {IntItem{16}, IntItem{7}, IntItem{3}, IntItem{1000}}},
        {"[00]", {IntItem{0}}},
        {"[None:2, 1:None:None, None:None:-1]", {slice({}, 2), slice(1, {}), slice({}, {}, -1)}},
        {"[Ellipsis, None]", {EllipsisItem{}, NewAxisItem{}}},
        {"()", {}},
        {" () ", {}},
        {"[None]", {NewAxisItem{}}},
        {"[newaxis, np.newaxis, numpy.newaxis]", {NewAxisItem{}, NewAxisItem{}, NewAxisItem{}}},
        {"[...]", {EllipsisItem{}}},
        {"...", {EllipsisItem{}}},
        {"[1,]", {IntItem{1}}},
        {"1,", {IntItem{1}}},
        {"  [ 1 : 2 , None ,... ]  ", {slice(1, 2), NewAxisItem{}, EllipsisItem{}}},
        {"\t3 : 1 : -1\n", {slice(3, 1, -1)}},
        {"[9223372036854775807]", {IntItem{kMax}}},
        {"[-9223372036854775808]", {IntItem{kMin}}},
    };
    for (const auto& c : cases) {
        CAPTURE(c.text);
        CHECK(items_of(c.text) == c.items);
    }
}

TEST_CASE("expr: integers beyond 64 bits saturate, and are flagged as indices") {
    CHECK(items_of("[:100000000000000000000000]") == std::vector<IndexItem>{slice({}, kMax)});
    CHECK(items_of("[-100000000000000000000000:]") == std::vector<IndexItem>{slice(kMin, {})});
    CHECK(items_of("[9223372036854775808:]") == std::vector<IndexItem>{slice(kMax, {})});
    // A step below -INT64_MAX becomes -INT64_MAX, as in Python's slice.
    CHECK(items_of("[::-9223372036854775808]") == std::vector<IndexItem>{slice({}, {}, -kMax)});
    CHECK(items_of("[::-99999999999999999999999]") == std::vector<IndexItem>{slice({}, {}, -kMax)});
    CHECK(items_of("[99999999999999999999999]") == std::vector<IndexItem>{IntItem{kMax, true}});
    CHECK(items_of("[-99999999999999999999999]") == std::vector<IndexItem>{IntItem{kMin, true}});
    CHECK(items_of("[9223372036854775808]") == std::vector<IndexItem>{IntItem{kMax, true}});
}

TEST_CASE("expr: columns of items") {
    const IndexExpr expr = parse_index_expr("[1:, ...,  None]");
    REQUIRE(expr.items.size() == 3);
    CHECK(expr.items[0].column == 1);
    CHECK(expr.items[1].column == 5);
    CHECK(expr.items[2].column == 11);
}

TEST_CASE("expr: errors and their columns") {
    struct Case {
        const char* text;
        std::size_t column;
        const char* message_start;
    };
    const Case cases[] = {
        {"", 0, "empty index expression"},
        {"   ", 3, "empty index expression"},
        {"[]", 1, "empty index expression"},
        {"[ ]", 2, "empty index expression"},
        {"[1,,2]", 3, "expected an index before ','"},
        {"[,1]", 1, "expected an index before ','"},
        {"[1:2:3:4]", 6, "a slice has at most three parts"},
        {"[a]", 1, "unknown name 'a'"},
        {"[np.foo]", 1, "unknown name 'np.foo'"},
        {"[True, 'x']", 7, "only integers, slices (`:`)"},
        {"['x',]", 1, "only integers, slices (`:`)"},
        {"[b'x']", 1, "only integers, slices (`:`)"},
        {"['x]", 1, "unterminated string"},
        {"['a\xff']", 3, "a field name is UTF-8 text; the byte \\xff here is not"},
        {"[['x', 0]]", 7, "only integers, slices (`:`)"},
        {"[0][]", 4, "empty index expression: write '[...]'"},
        {"[0][1:x]", 6, "unknown name 'x'"},
        {"[1.5]", 1, "only integers, slices (`:`)"},
        {"[1:2.5]", 4, "only integers, slices (`:`)"},
        {"[1e3]", 2, "invalid digit 'e'"},
        {"[05]", 1, "leading zeros"},
        {"[1__0]", 3, "invalid integer: '_' must separate digits"},
        {"[10_]", 3, "invalid integer: '_' must separate digits"},
        {"[0x]", 1, "invalid integer: no digits"},
        {"[-]", 2, "expected digits after the sign, found the end"},
        {"[1:2, 3:]]", 9, "unmatched ']'"},
        {"[[1:2]", 0, "unmatched '['"},
        {"[1 2]", 3, "expected ',' between indices, found '2'"},
        {"[1:", 0, "unmatched '['"},
        {"1:]", 2, "unmatched ']'"},
        {"[1]]", 3, "unmatched ']'"},
        {"[1 [2]]", 3, "expected ',' between indices, found '['"},
        {"[1:[2]]", 3, "expected ',' or the end of the expression, found '['"},
        {"[1:2 3]", 5, "expected ',' or the end of the expression, found '3'"},
        {"[(1)]", 1, "a parenthesised tuple of indices is written without its parentheses"},
        {"[..]", 1, "expected an index, found '.'"},
        {"[0, \xc3\xa9]", 4, "expected an index, found '\xc3\xa9'"},
        {"[0, 1\xc3\xa9]", 5, "expected ',' between indices, found '\xc3\xa9'"},
        {"[1:x]", 3, "unknown name 'x'"},
        {"[(1, 2)]", 1, "a parenthesised tuple of indices is written without its parentheses: a[(0, 1)] is a[0, 1]"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.text);
        const auto [column, message] = error_of(c.text);
        CHECK(column == c.column);
        CHECK(message.rfind(c.message_start, 0) == 0);
    }
}

TEST_CASE("expr: the caret sits under the column") {
    const ExprError error = thrown_by<ExprError>([] { parse_index_expr("[1:, x]"); });
    CHECK(error.describe() ==
          "unknown name 'x': an index is an integer, a slice, a boolean, '...' or None (column 6)\n"
          "  [1:, x]\n"
          "       ^");
    CHECK(error.exit_code() == 2);
}

TEST_CASE("expr: canonical text") {
    CHECK(to_string(parse_index_expr(" 1: , ...,None, ::-2,-3")) == "[1:, ..., None, ::-2, -3]");
}

namespace {

IntListItem list(std::vector<std::int64_t> shape, std::vector<std::int64_t> values) {
    return IntListItem{std::move(shape), std::move(values)};
}

}  // namespace

TEST_CASE("expr: integer lists, and which brackets are the outer ones") {
    struct Case {
        const char* text;
        std::vector<IndexItem> items;
    };
    const Case cases[] = {
        {"[[0, 2]]", {list({2}, {0, 2})}},              // a[[0, 2]]
        {"[0, 2]", {IntItem{0}, IntItem{2}}},           // a[0, 2]
        {"[0, 2], 1", {list({2}, {0, 2}), IntItem{1}}},  // a[[0, 2], 1]
        {"[0], [1]", {list({1}, {0}), list({1}, {1})}},
        {"[[0], [1]]", {list({1}, {0}), list({1}, {1})}},
        {"[[[0, 1], [2, 3]]]", {list({2, 2}, {0, 1, 2, 3})}},
        {"[[0, 1], [2, 3]]", {list({2}, {0, 1}), list({2}, {2, 3})}},
        {"[[]]", {list({0}, {})}},
        {"[[[], []]]", {list({2, 0}, {})}},
        {"[[[[]]]]", {list({1, 1, 0}, {})}},
        {"[ [ -1 , 0x2, +3, ] ]", {list({3}, {-1, 2, 3})}},
        {"[[0,]]", {list({1}, {0})}},
        {"[[0], ..., None, 1:2]", {list({1}, {0}), EllipsisItem{}, NewAxisItem{}, slice(1, 2)}},
        {"[:, [[1], [0]], -1]", {slice({}, {}), list({2, 1}, {1, 0}), IntItem{-1}}},
        {"[[[[[7]]]]]", {list({1, 1, 1, 1}, {7})}},
    };
    for (const auto& c : cases) {
        const std::string text = c.text;
        CAPTURE(text);
        CHECK(items_of(c.text) == c.items);
    }
    // Beyond 64 bits: saturated and flagged, for the planner to reject in numpy's order.
    CHECK(items_of("[[1, 99999999999999999999999]]") ==
          std::vector<IndexItem>{IntListItem{{2}, {1, kMax}, true}});
    CHECK(items_of("[[-99999999999999999999999]]") == std::vector<IndexItem>{IntListItem{{1}, {kMin}, true}});
    CHECK(parse_index_expr("[1:, [0, 2]]").items[1].column == 5);
}

TEST_CASE("expr: integer-list errors") {
    struct Case {
        const char* text;
        std::size_t column;
        const char* message_start;
    };
    // Ragged lists: numpy's ValueError text, with numpy's "after N dimensions" and shape
    // (checked against numpy 1.24's np.array on the same lists).
    const std::string ragged = "setting an array element with a sequence. The requested array has an inhomogeneous shape after ";
    const std::pair<const char*, std::string> ragged_cases[] = {
        {"[[[0, 1], [2]]]", "1 dimensions. The detected shape was (2,) + inhomogeneous part."},
        {"[[[1], 2]]", "1 dimensions. The detected shape was (2,) + inhomogeneous part."},
        {"[[1, [2]]]", "1 dimensions. The detected shape was (2,) + inhomogeneous part."},
        {"[[[], [1]]]", "1 dimensions. The detected shape was (2,) + inhomogeneous part."},
        {"[[[[0], [1]], [[0], [1, 2]]]]", "2 dimensions. The detected shape was (2, 2) + inhomogeneous part."},
        {"[[[0, [1]], [2, 3]]]", "2 dimensions. The detected shape was (2, 2) + inhomogeneous part."},
        {"[[[[1]], [2]]]", "2 dimensions. The detected shape was (2, 1) + inhomogeneous part."},
        {"[[[1, 2], [[2]]]]", "1 dimensions. The detected shape was (2,) + inhomogeneous part."},
    };
    for (const auto& [text, tail] : ragged_cases) {
        CAPTURE(text);
        const auto [column, message] = error_of(text);
        CHECK(column == 1);
        CHECK(message == ragged + tail);
    }
    const Case cases[] = {
        {"[[0, 1.5]]", 5, "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are valid indices"},
        {"[[0, .5]]", 5, "only integers, slices (`:`)"},
        {"[[0, 'x']]", 5, "only integers, slices (`:`)"},
        {"[[0, None]]", 5, "only integers, slices (`:`)"},
        {"[[0, ...]]", 5, "only integers, slices (`:`)"},
        {"[[0, x]]", 5, "unknown name 'x': an index list holds integers or booleans"},
        {"[[0 1]]", 4, "expected ',' or ']' in an integer list, found '1'"},
        {"[[0,,1]]", 4, "expected an integer or a list before ','"},
        {"[[,]]", 2, "expected an integer or a list before ','"},
        {"[[0:1]]", 3, "a slice cannot be part of an integer list"},
        {"[[:]]", 2, "a slice cannot be part of an integer list"},
        {"[[0]:2]", 1, "an integer list cannot be a slice bound"},
        {"[[0] [1]]", 5, "expected ',' between indices, found '['"},
        {"[[0] 1]", 5, "expected ',' between indices, found '1'"},
        {"[[(0)]]", 2, "expected an integer or a list, found '('"},
        {"[[0]", 0, "unmatched '['"},
        {"[[0]]]", 5, "unmatched ']'"},
        {"[[1e3]]", 3, "invalid digit 'e'"},
        {"[[-]]", 3, "expected digits after the sign, found ']'"},
    };
    for (const auto& c : cases) {
        const std::string text = c.text;
        CAPTURE(text);
        const auto [column, message] = error_of(c.text);
        CHECK(column == c.column);
        CHECK(message.rfind(c.message_start, 0) == 0);
    }
    // numpy's 32 dimensions are the most a list may have.
    std::string deep = "[" + std::string(32, '[') + "0" + std::string(32, ']') + "]";
    CHECK(std::get<IntListItem>(parse_index_expr(deep).items[0].item).shape == std::vector<std::int64_t>(32, 1));
    deep = "[" + std::string(33, '[') + "0" + std::string(33, ']') + "]";
    CHECK(error_of(deep).second.rfind("an integer list can be nested at most 32 deep", 0) == 0);
}

TEST_CASE("expr: has_advanced and canonical text of lists") {
    CHECK(has_advanced(parse_index_expr("[[0]]")));
    CHECK(has_advanced(parse_index_expr("1:, [[]]")));
    CHECK_FALSE(has_advanced(parse_index_expr("[0, 1:, None, ...]")));
    CHECK(to_string(parse_index_expr("[[0,1],[ [2], [3] ], [[[],[]]], 4]")) == "[[0, 1], [[2], [3]], [[[], []]], 4]");
    CHECK(to_string(parse_index_expr("[[]]")) == "[[]]");
}

TEST_CASE("expr: booleans, masks, field names, () and chained subscripts") {
    CHECK(items_of("[True]") == std::vector<IndexItem>{BoolItem{true}});
    CHECK(items_of("..., None, False") == std::vector<IndexItem>{EllipsisItem{}, NewAxisItem{}, BoolItem{false}});
    // As a slice bound, a boolean is the integer Python's slice makes of it.
    CHECK(items_of("[True:]") == std::vector<IndexItem>{slice(1, {})});
    CHECK(items_of("[[True, False], [False, True]]") ==
          std::vector<IndexItem>{IntListItem{{2}, {1, 0}, false, true}, IntListItem{{2}, {0, 1}, false, true}});
    CHECK(items_of("[[[True], [False]]]") == std::vector<IndexItem>{IntListItem{{2, 1}, {1, 0}, false, true}});
    // Booleans mixed with integers make an integer array in numpy (True is 1).
    CHECK(items_of("[[True, 0]]") == std::vector<IndexItem>{IntListItem{{2}, {1, 0}, false, false}});
    CHECK(items_of("[[]]") == std::vector<IndexItem>{IntListItem{{0}, {}, false, false}});
    CHECK(items_of("['x']") == std::vector<IndexItem>{FieldItem{{"x"}, false}});
    CHECK(items_of("\"x\"") == std::vector<IndexItem>{FieldItem{{"x"}, false}});
    CHECK(items_of("[['z', \"a]b\", 'caf\\xe9']]") == std::vector<IndexItem>{FieldItem{{"z", "a]b", "caf\xc3\xa9"}, true}});
    CHECK(items_of("[()]").empty());
    CHECK(items_of("( )").empty());

    const IndexExpr chain = parse_index_expr(" [::-1] [0]['y'] ");
    CHECK(chain.items.size() == 1);
    REQUIRE(chain.chained.size() == 2);
    CHECK(chain.written() == "[::-1]");
    CHECK(chain.chained[0].written() == "[0]");
    CHECK(chain.chained[1].written() == "['y']");
    CHECK(chain.chained[1].items.front().column == 12);
    CHECK(to_string(chain) == "[::-1][0]['y']");
    // A list followed by more items is one subscript without its brackets.
    CHECK(parse_index_expr("[0, 2], 1").chained.empty());
    CHECK(to_string(parse_index_expr("[[True, False], ..., True]")) == "[[True, False], ..., True]");
    CHECK(to_string(parse_index_expr("[['a', 'b']]['c']")) == "[['a', 'b']]['c']");
    CHECK(to_string(parse_index_expr("[()]")) == "[()]");
}
