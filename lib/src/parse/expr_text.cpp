// Index expressions written back (to_string) and the questions planners ask of them.
#include <algorithm>

#include "base/python_text.hpp"
#include "tslice/expr.hpp"

namespace tslice {
namespace {

std::string bound_text(const std::optional<std::int64_t>& bound) {
    return bound ? std::to_string(*bound) : std::string();
}

// "[[0, 1], [2, 3]]": nested brackets per axis of the list's shape.
std::string list_text(const IntListItem& list) {
    std::string text;
    std::size_t next = 0;
    auto emit = [&](auto&& self, std::size_t axis) -> void {
        text += "[";
        if (axis < list.shape.size()) {
            for (std::int64_t i = 0; i < list.shape[axis]; ++i) {
                if (i) text += ", ";
                if (axis + 1 < list.shape.size()) {
                    self(self, axis + 1);
                } else {
                    const std::int64_t value = list.values[next++];
                    text += list.boolean ? (value ? "True" : "False") : std::to_string(value);
                }
            }
        }
        text += "]";
    };
    emit(emit, 0);
    return text;
}

}  // namespace

bool has_advanced(const IndexExpr& expr) {
    return std::any_of(expr.items.begin(), expr.items.end(), [](const ExprItem& item) {
        return std::holds_alternative<IntListItem>(item.item) || std::holds_alternative<BoolItem>(item.item);
    });
}

const FieldItem* field_selection(const IndexExpr& expr) {
    return expr.items.size() == 1 ? std::get_if<FieldItem>(&expr.items.front().item) : nullptr;
}

std::string to_string(const IndexExpr& expr) {
    std::string text = "[";
    if (expr.items.empty()) text += "()";
    for (std::size_t i = 0; i < expr.items.size(); ++i) {
        if (i) text += ", ";
        const IndexItem& item = expr.items[i].item;
        if (const auto* slice = std::get_if<SliceItem>(&item)) {
            text.append(bound_text(slice->start)).append(":").append(bound_text(slice->stop));
            if (slice->step) text.append(":").append(std::to_string(*slice->step));
        } else if (const auto* integer = std::get_if<IntItem>(&item)) {
            text += std::to_string(integer->value);
        } else if (const auto* list = std::get_if<IntListItem>(&item)) {
            text += list_text(*list);
        } else if (const auto* boolean = std::get_if<BoolItem>(&item)) {
            text += boolean->value ? "True" : "False";
        } else if (const auto* fields = std::get_if<FieldItem>(&item)) {
            std::string names;
            for (const auto& name : fields->names) names += (names.empty() ? "" : ", ") + str_repr_utf8(name);
            text += fields->list ? "[" + names + "]" : names;
        } else if (std::holds_alternative<EllipsisItem>(item)) {
            text += "...";
        } else {
            text += "None";
        }
    }
    text += "]";
    for (const auto& next : expr.chained) text += to_string(next);
    return text;
}

}  // namespace tslice
