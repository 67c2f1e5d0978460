// The index-expression parser: a hand-written recursive descent over the text, so every
// error can point at the column where it happens. This is the grammar; its tokens (strings,
// names, integers) are read by ExprLexer (expr_lexer.hpp).
//
// Grammar (whitespace allowed between any two tokens):
//   expr      := subscript+ | items
//   subscript := '[' (items | '()' | field) ']'
//   items     := item (',' item)* ','?
//   item      := '...' | 'None' | 'newaxis' | 'np.newaxis' | 'numpy.newaxis' | slice | integer
//                | boolean | list
//   slice     := bound? ':' bound? (':' bound?)?        bound := integer | boolean | 'None'
//   list      := '[' (element (',' element)* ','?)? ']'
//   element   := list | integer | boolean
//   field     := string | '[' string (',' string)* ','? ']'     (alone in its subscript)
//   boolean   := 'True' | 'False'
//   integer   := ('+' | '-')* (decimal | 0x.. | 0o.. | 0b..)   with Python's '_' separators
//   string    := a Python string literal in single or double quotes
//
// The outer brackets are taken as a subscript only when bracket groups make up the whole
// text, so "[[0, 2]]" is a[[0, 2]], "[0, 2]" is a[0, 2], "[0][2]" is a[0][2] and "[0, 2], 1"
// is a[[0, 2], 1]. A list's shape is found
// the way numpy's array coercion finds it (PyArray_DiscoverDTypeAndShape), so a ragged list
// fails with numpy's words: "[[0, 1], [2]]" has "an inhomogeneous shape after 1 dimensions".
#include <algorithm>
#include <limits>
#include <optional>

#include "parse/expr_lexer.hpp"
#include "parse/expr_list.hpp"
#include "tslice/error.hpp"
#include "tslice/expr.hpp"
#include "tslice/view.hpp"

namespace tslice {
namespace {

using detail::ListNode;
using detail::ListShape;
using detail::Literal;
using detail::kMaxListDepth;
using detail::discover_list_shape;
using detail::to_index_list;

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

// The longest expression tslice reads: 1 MiB. A command-line argument cannot be longer than
// 128 KiB on Linux anyway; only an "index" op in a JSON file can carry a longer one, and every
// byte of an integer list costs some 30 bytes while it is parsed. Large index arrays belong in
// a gather with an .npy file.
constexpr std::size_t kMaxExpressionBytes = std::size_t{1} << 20;

class Parser : detail::ExprLexer {
public:
    explicit Parser(std::string_view text) : ExprLexer(text) {}

    IndexExpr parse() {
        // Not an ExprError: a caret under a megabyte of text helps nobody.
        if (text_.size() > kMaxExpressionBytes)
            fail_usage("the index expression is " + std::to_string(text_.size()) +
                       " bytes long; tslice reads expressions of at most " + std::to_string(kMaxExpressionBytes) +
                       " bytes (give large index arrays to a gather op as an .npy file)");
        check_brackets();
        skip_space();
        std::size_t end = text_.size();
        while (end > pos_ && is_space(text_[end - 1])) --end;
        if (pos_ == end) fail("empty index expression: write '...' for the whole array", pos_);
        // Bracket groups that make up the whole text are subscripts: "[1:]", "[0][::2]".
        std::vector<std::size_t> opens;
        for (std::size_t open = pos_; open < end && text_[open] == '[';) {
            opens.push_back(open);
            open = closing_bracket(open) + 1;
            while (open < end && is_space(text_[open])) ++open;
            if (open == end) break;
            if (text_[open] != '[') opens.clear();  // "[0, 2], 1": a list, then more items
            if (opens.empty()) break;
        }
        if (opens.empty()) return subscript(pos_, end, false);
        IndexExpr head = subscript(opens.front(), closing_bracket(opens.front()) + 1, true);
        for (std::size_t k = 1; k < opens.size(); ++k)
            head.chained.push_back(subscript(opens[k], closing_bracket(opens[k]) + 1, true));
        return head;
    }

private:
    // The subscript in text [begin, end): its brackets' contents when `bracketed`.
    IndexExpr subscript(std::size_t begin, std::size_t end, bool bracketed) {
        IndexExpr expr;
        expr.text = std::string(text_);
        expr.begin = begin;
        expr.end = end;
        pos_ = bracketed ? begin + 1 : begin;
        end_ = bracketed ? end - 1 : end;
        skip_space();
        if (at_end())
            fail(bracketed ? "empty index expression: write '[...]' for the whole array"
                           : "empty index expression: write '...' for the whole array",
                 pos_);
        if (peek() == '(') {  // a[()]: the empty tuple, the whole array
            const std::size_t open = pos_;
            ++pos_;
            skip_space();
            if (peek() != ')')
                fail("a parenthesised tuple of indices is written without its parentheses: a[(0, 1)] is a[0, 1]", open);
            ++pos_;
            skip_space();
            if (!at_end()) fail(unexpected("expected the end of the subscript after '()'"), pos_);
            return expr;
        }
        parse_items(expr.items);
        return expr;
    }

    void parse_items(std::vector<ExprItem>& items) {
        bool tuple = false;  // a comma: numpy gets a tuple of indices
        for (;;) {
            skip_space();
            if (at_end()) {
                if (items.empty()) fail("empty index expression", pos_);
                break;  // a trailing comma, as Python allows
            }
            if (peek() == ',') fail("expected an index before ','", pos_);
            items.push_back(parse_item());
            skip_space();
            if (at_end()) break;
            if (peek() != ',') fail(unexpected("expected ',' between indices"), pos_);
            tuple = true;
            ++pos_;
        }
        // numpy takes a field name, or a list of them, only as the whole index: a['x', 0] and
        // a['x',] are the "only integers, ..." IndexError.
        if (tuple)
            for (const auto& item : items)
                if (std::holds_alternative<FieldItem>(item.item))
                    fail(non_integer_message() + " (a field name, or a list of them, is a subscript of its own: "
                                                 "a['x'][0])",
                         item.column);
    }

    // A slice bound or an index: an integer, None, or nothing at all (before ':' or the end).
    struct Bound {
        std::optional<Literal> integer;
        bool none = false;     // the word None: a left-out part, or a new axis on its own
        bool boolean = false;  // True or False: 1 or 0 as a slice bound, a 0-d mask on its own
    };

    Bound parse_bound(std::size_t item_column) {
        Bound bound;
        if (starts_string()) fail(non_integer_message() + " (a field name is a subscript of its own: a['x'])", pos_);
        if (starts_name()) {
            const std::string word = read_dotted_name();
            if (word == "None") {
                bound.none = true;
                return bound;
            }
            if (word == "True" || word == "False") {
                bound.integer = Literal{word == "True" ? 1 : 0, false};
                bound.boolean = true;
                return bound;
            }
            fail("unknown name '" + word + "': an index is an integer, a slice, a boolean, '...' or None", item_column);
        }
        if (starts_integer()) bound.integer = parse_integer();
        return bound;
    }

    ExprItem parse_item() {
        ExprItem item;
        item.column = pos_;
        if (starts_string()) {
            item.item = FieldItem{{parse_string()}, false};
            return item;
        }
        if (peek() == '[' && list_of_strings()) {
            item.item = parse_field_list();
            return item;
        }
        if (peek() == '[') {
            item.item = parse_list();
            skip_space();
            if (!at_end() && peek() != ',') {
                if (peek() == ':') fail("an integer list cannot be a slice bound", item.column);
                fail(unexpected("expected ',' between indices"), pos_);
            }
            return item;
        }
        if (text_.substr(pos_, 3) == "...") {
            pos_ += 3;
            item.item = EllipsisItem{};
            return item;
        }
        if (starts_name()) {
            const std::size_t start = pos_;
            const std::string word = read_dotted_name();
            if (word == "newaxis" || word == "np.newaxis" || word == "numpy.newaxis") {
                item.item = NewAxisItem{};
                return item;
            }
            if (word == "Ellipsis") {
                item.item = EllipsisItem{};
                return item;
            }
            pos_ = start;  // None, or an error that parse_bound words
        }
        const Bound first = parse_bound(item.column);
        skip_space();
        if (peek() != ':') {
            if (first.none) {
                item.item = NewAxisItem{};
                return item;
            }
            if (!first.integer) fail(unexpected("expected an index"), pos_);
            if (peek() == '.') fail(non_integer_message(), item.column);
            if (first.boolean) {
                item.item = BoolItem{first.integer->value == 1};
                return item;
            }
            // Out-of-64-bit integers are reported by the planner, in numpy's order of checks.
            item.item = IntItem{first.integer->value, first.integer->overflows};
            return item;
        }
        SliceItem slice;
        if (first.integer) slice.start = first.integer->value;
        ++pos_;  // the first ':'
        skip_space();
        if (const Bound stop = parse_bound(pos_); stop.integer) slice.stop = stop.integer->value;
        skip_space();
        if (peek() == ':') {
            ++pos_;
            skip_space();
            const std::size_t step_column = pos_;
            if (const Bound step = parse_bound(pos_); step.integer) {
                item.step_column = step_column;
                // Python's slice clamps a step below -PY_SSIZE_T_MAX to -PY_SSIZE_T_MAX, so that
                // negating it cannot overflow.
                slice.step = std::max(step.integer->value, -kInt64Max);
            }
            skip_space();
            if (peek() == ':') fail("a slice has at most three parts, start:stop:step", pos_);
        }
        if (!at_end() && peek() != ',') {
            if (peek() == '.') fail(non_integer_message(), pos_);
            fail(unexpected("expected ',' or the end of the expression"), pos_);
        }
        item.item = slice;
        return item;
    }

    // An integer list at the cursor ('['), with its shape found as numpy finds it.
    IntListItem parse_list() {
        const std::size_t column = pos_;
        const ListNode root = parse_list_node(1);
        ListShape found = discover_list_shape(root);
        if (found.ragged)
            fail("setting an array element with a sequence. The requested array has an inhomogeneous shape "
                 "after " + std::to_string(found.shape.size()) + " dimensions. The detected shape was " +
                     format_shape(found.shape) + " + inhomogeneous part.",
                 column);
        return to_index_list(root, std::move(found.shape));
    }

    // Whether the '[' at the cursor opens a list whose first element is a string.
    bool list_of_strings() {
        const std::size_t start = pos_;
        ++pos_;
        skip_space();
        const bool strings = starts_string();
        pos_ = start;
        return strings;
    }

    // ['x', 'z']: field names, each a string.
    FieldItem parse_field_list() {
        FieldItem fields;
        fields.list = true;
        ++pos_;  // '['
        for (;;) {
            skip_space();
            if (peek() == ']') break;
            if (!starts_string())
                fail(non_integer_message() + " (a list of field names holds strings only)", pos_);
            fields.names.push_back(parse_string());
            skip_space();
            if (peek() == ',') {
                ++pos_;
                continue;
            }
            if (peek() != ']') fail(unexpected("expected ',' or ']' in a list of field names"), pos_);
        }
        ++pos_;  // ']'
        return fields;
    }

    ListNode parse_list_node(int depth) {
        if (depth > kMaxListDepth)
            fail("an integer list can be nested at most " + std::to_string(kMaxListDepth) + " deep", pos_);
        ListNode node;
        node.is_list = true;
        ++pos_;  // '['
        ++list_depth_;
        for (;;) {
            skip_space();
            if (peek() == ']') break;
            if (peek() == ',') fail("expected an integer or a list before ','", pos_);
            node.children.push_back(parse_list_element(depth));
            skip_space();
            if (peek() == ',') {
                ++pos_;
                continue;
            }
            if (peek() == ']') break;
            if (peek() == ':') fail("a slice cannot be part of an integer list", pos_);
            if (peek() == '.') fail(non_integer_message(), pos_);
            fail(unexpected("expected ',' or ']' in an integer list"), pos_);
        }
        ++pos_;  // ']'
        --list_depth_;
        return node;
    }

    ListNode parse_list_element(int depth) {
        if (peek() == '[') return parse_list_node(depth + 1);
        const std::size_t start = pos_;
        if (starts_string()) fail(non_integer_message() + " (an index list holds integers or booleans)", start);
        if (starts_name()) {
            const std::string word = read_dotted_name();
            if (word == "True" || word == "False") {
                ListNode node;
                node.value = Literal{word == "True" ? 1 : 0, false};
                node.boolean = true;
                return node;
            }
            if (word == "None" || word == "newaxis" || word == "np.newaxis" || word == "numpy.newaxis" ||
                word == "Ellipsis")
                fail(non_integer_message(), start);
            fail("unknown name '" + word + "': an index list holds integers or booleans", start);
        }
        if (text_.substr(pos_, 3) == "...") fail(non_integer_message(), pos_);
        if (peek() == '.') fail(non_integer_message(), pos_);
        if (peek() == ':') fail("a slice cannot be part of an integer list", pos_);
        if (!starts_integer()) fail(unexpected("expected an integer or a list"), pos_);
        ListNode node;
        node.value = parse_integer();
        if (peek() == '.') fail(non_integer_message(), start);
        return node;
    }
};

}  // namespace

IndexExpr parse_index_expr(std::string_view text) { return Parser(text).parse(); }

}  // namespace tslice
