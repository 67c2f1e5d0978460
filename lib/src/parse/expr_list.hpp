// Integer and boolean lists of an index expression as numpy's array coercion reads them: the
// nested list as written, its shape found as numpy finds it, and its values in C order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tslice/expr.hpp"

namespace tslice::detail {

// An integer literal as written; values beyond 64 bits keep their sign and a flag, because
// numpy clamps them as slice bounds but rejects them as indices.
struct Literal {
    std::int64_t value = 0;  // saturated to the int64 range
    bool overflows = false;
};

// numpy's dimension limit; deeper lists are refused.
constexpr int kMaxListDepth = 32;

// A list as written, before its shape is known.
struct ListNode {
    bool is_list = false;
    Literal value;                   // when !is_list
    bool boolean = false;            // when !is_list: True or False (value 1 or 0)
    std::vector<ListNode> children;  // when is_list
};

// The shape numpy's coercion finds for `root`; `ragged` when the list is not rectangular, and
// then `shape` is what numpy reports as "the detected shape".
struct ListShape {
    std::vector<std::int64_t> shape;
    bool ragged = false;
};
ListShape discover_list_shape(const ListNode& root);

// A rectangular list as an index list of `shape`: a mask when every value is a boolean.
IntListItem to_index_list(const ListNode& root, std::vector<std::int64_t> shape);

}  // namespace tslice::detail
