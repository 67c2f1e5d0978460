// numpy's array coercion of the nested lists in an index expression (see expr_list.hpp).
#include "parse/expr_list.hpp"

namespace tslice::detail {
namespace {

// numpy's shape discovery for nested sequences (ctors.c / array_coercion.c,
// PyArray_DiscoverDTypeAndShape_Recursive and update_shape), ported step by step so that a
// ragged list reports the same "after N dimensions" and detected shape as numpy. Example:
// [[1], 2] fixes shape (2, 1) from the first item, then the scalar 2 at depth 1 cuts the
// usable dimensions to 1: "after 1 dimensions. The detected shape was (2,)".
class ShapeDiscovery {
public:
    void walk(const ListNode& node, int depth) {
        if (!node.is_list) {
            if (!update(depth, 0, 0, false)) ragged_ = true;
            return;
        }
        const auto size = static_cast<std::int64_t>(node.children.size());
        if (!update(depth, 1, size, true)) {
            ragged_ = true;
            return;
        }
        if (size == 0) {  // "If the sequence is empty, this must be the last dimension"
            reached_ = true;
            max_dims_ = depth + 1;
            return;
        }
        for (const auto& child : node.children) walk(child, depth + 1);
    }

    bool ragged() const { return ragged_; }
    std::vector<std::int64_t> shape() const {
        return std::vector<std::int64_t>(shape_.begin(), shape_.begin() + max_dims_);
    }

private:
    // update_shape() for a sequence (new_ndim 1, its length) or a scalar (new_ndim 0).
    bool update(int depth, int new_ndim, std::int64_t new_dim, bool sequence) {
        bool success = true;
        if (depth + new_ndim > max_dims_) {
            success = false;
            new_ndim = max_dims_ - depth;
        } else if (!sequence && max_dims_ != depth + new_ndim) {
            max_dims_ = depth + new_ndim;
            if (reached_) success = false;
        }
        for (int i = 0; i < new_ndim; ++i) {
            if (!reached_) {
                shape_[static_cast<std::size_t>(depth + i)] = new_dim;
            } else if (new_dim != shape_[static_cast<std::size_t>(depth + i)]) {
                success = false;
                max_dims_ = sequence ? depth : max_dims_ - (new_ndim - i);
                break;
            }
        }
        if (!sequence) reached_ = true;
        return success;
    }

    int max_dims_ = kMaxListDepth;
    std::vector<std::int64_t> shape_ = std::vector<std::int64_t>(kMaxListDepth, 0);
    bool reached_ = false;
    bool ragged_ = false;
};

// The leaves in C order; counts the booleans among them.
void flatten(const ListNode& node, IntListItem& list, std::size_t& booleans) {
    if (!node.is_list) {
        list.values.push_back(node.value.value);
        list.overflows = list.overflows || node.value.overflows;
        booleans += node.boolean ? 1 : 0;
        return;
    }
    for (const auto& child : node.children) flatten(child, list, booleans);
}

}  // namespace

ListShape discover_list_shape(const ListNode& root) {
    ShapeDiscovery discovery;
    discovery.walk(root, 0);
    return {discovery.shape(), discovery.ragged()};
}

IntListItem to_index_list(const ListNode& root, std::vector<std::int64_t> shape) {
    IntListItem list;
    list.shape = std::move(shape);
    std::size_t booleans = 0;
    flatten(root, list, booleans);
    list.boolean = booleans > 0 && booleans == list.values.size();
    return list;
}

}  // namespace tslice::detail
