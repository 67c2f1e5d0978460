// A safetensors header's JSON read once, through nlohmann's SAX events, straight into the
// entries: no tree is built. The whole text is checked, so that a header that is not JSON is
// named as such whatever else is wrong with it; of the other problems, the first in the text
// is the one reported.
#include "source/safetensors_header.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/json_sax.hpp"
#include "tslice/error.hpp"
#include "tslice/view.hpp"

namespace tslice {

namespace {

// Arrays and objects nested deeper than this are refused, as serde_json (which the
// safetensors reference reads headers with) refuses them.
constexpr std::size_t kMaxDepth = 128;

std::string json_quoted(const std::string& name) { return nlohmann::json(name).dump(); }

std::string where(const std::string& name) { return "safetensors tensor " + json_quoted(name); }

// What the file says, for a message: the text of a value, cut short if long.
std::string excerpt(std::string_view text) {
    constexpr std::size_t kShown = 80;
    return text.size() <= kShown ? std::string(text) : std::string(text.substr(0, kShown)) + "...";
}

enum class Purpose { Entries, DataEnd, Metadata };

// The header's events. Depth 1 holds the members (a tensor's name, or "__metadata__"), depth 2
// a tensor's fields, depth 3 the numbers of "shape" and "data_offsets".
class HeaderEvents {
public:
    using nj = nlohmann::json;

    HeaderEvents(const json::Cursor& cursor, Purpose purpose) : cursor_(cursor), purpose_(purpose) {}

    std::vector<SafetensorsEntry> entries;
    std::uint64_t data_end = 0;
    std::optional<std::string> problem;  // the first, in the text's order
    std::optional<json::SyntaxProblem> too_deep;
    std::optional<std::string_view> metadata;

    bool null() { return scalar(false); }
    bool boolean(bool) { return scalar(false); }
    bool number_integer(nj::number_integer_t) { return scalar(true); }
    bool number_unsigned(nj::number_unsigned_t value) { return scalar(true, value); }
    bool number_float(nj::number_float_t, const nj::string_t&) { return scalar(true); }
    bool string(nj::string_t& value) { return scalar(false, std::nullopt, &value); }
    bool start_object(std::size_t) { return open(true); }
    bool start_array(std::size_t) { return open(false); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool key(nj::string_t& name) {
        if (depth_ == 1)
            member_ = std::move(name);
        else if (depth_ == 2)
            field_ = std::move(name);
        key_end_ = cursor_.offset();
        return true;
    }

private:
    enum class List : std::uint8_t { None, Shape, Offsets };

    void note(std::string message) {
        if (!problem) problem = std::move(message);
    }
    bool checks() const { return purpose_ == Purpose::Entries; }
    std::string_view span(std::size_t begin, std::size_t end) const {
        return cursor_.text().substr(begin, end - begin);
    }

    // A value begins at depth `depth_` (containers open around it).
    void begins(bool object, bool container) {
        if (depth_ == 0) {
            if (!object)
                note("the safetensors header is not valid JSON: expected '{' at byte " +
                     std::to_string(cursor_.value_start(0)));
        } else if (depth_ == 1) {
            metadata_member_ = member_ == "__metadata__";
            tensor_ = object && !metadata_member_;
            if (metadata_member_ && !object && checks())
                note("the safetensors header's \"__metadata__\" is not a JSON object");
            if (tensor_) {
                current_ = SafetensorsEntry{member_, {}, 0, 0, {}};
                has_dtype_ = has_shape_ = has_offsets_ = false;
            } else if (!metadata_member_ && checks()) {
                note(where(member_) + " is not a JSON object with dtype, shape and data_offsets");
            }
        } else if (depth_ == 2 && tensor_) {
            field_start_ = cursor_.value_start(key_end_);
            list_ = field_ == "shape" ? List::Shape : field_ == "data_offsets" ? List::Offsets : List::None;
            values_.clear();
            list_bad_ = list_ != List::None && (object || !container);
            too_long_ = false;
        } else if (depth_ == 3 && list_ != List::None && container && !too_long_) {
            list_bad_ = true;
        }
    }

    bool open(bool object) {
        begins(object, true);
        if (depth_ == kMaxDepth) {
            too_deep = json::SyntaxProblem{cursor_.offset() - 1,
                                           "arrays and objects nest more than " + std::to_string(kMaxDepth) + " deep"};
            return false;
        }
        starts_.push_back(cursor_.offset() - 1);
        ++depth_;
        return true;
    }

    bool close() {
        --depth_;
        const std::size_t start = starts_.back();
        starts_.pop_back();
        if (depth_ == 2 && tensor_) field_ends(start, cursor_.offset(), false, nullptr);
        if (depth_ == 1) member_ends(start);
        return !(purpose_ == Purpose::Metadata && metadata);
    }

    bool scalar(bool number, std::optional<std::uint64_t> unsigned_value = std::nullopt, std::string* text = nullptr) {
        begins(false, false);
        if (depth_ == 1) {
            member_ends(std::nullopt);
        } else if (depth_ == 2 && tensor_) {
            // A number is seen one byte past its end (the lexer's look-ahead).
            field_ends(field_start_, cursor_.offset() - (number ? 1 : 0), text != nullptr, text);
        } else if (depth_ == 3 && list_ != List::None && !list_bad_ && !too_long_) {
            if (!unsigned_value) {
                list_bad_ = true;
            } else if (list_ == List::Offsets) {
                if (values_.size() == 2)
                    list_bad_ = true;
                else
                    values_.push_back(*unsigned_value);
            } else if (*unsigned_value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
                list_bad_ = true;
            } else if (values_.size() == kMaxRank) {
                too_long_ = true;
            } else {
                values_.push_back(*unsigned_value);
            }
        }
        return true;
    }

    // A tensor's field has ended: its text is [begin, end).
    void field_ends(std::size_t begin, std::size_t end, bool is_string, std::string* text) {
        const List list = std::exchange(list_, List::None);
        if (purpose_ == Purpose::DataEnd) {
            // Only where its tensors end: the listing of the spooled file checks the rest.
            if (list == List::Offsets && values_.size() == 2) data_end = std::max(data_end, values_[1]);
            return;
        }
        if (!checks()) return;
        const std::string_view written = span(begin, end);
        if (field_ == "dtype") {
            if (!is_string)
                note(where(current_.name) + ": \"dtype\" must be a string, not " + excerpt(written));
            else
                current_.dtype = std::move(*text);
            has_dtype_ = true;
        } else if (list == List::Shape) {
            if (list_bad_)
                note(where(current_.name) + ": \"shape\" must be a list of non-negative integers, not " +
                     excerpt(written));
            else if (too_long_)
                note(where(current_.name) + ": \"shape\" has more than " + std::to_string(kMaxRank) +
                     " dimensions; numpy arrays have at most " + std::to_string(kMaxRank));
            current_.shape.assign(values_.begin(), values_.end());
            has_shape_ = true;
        } else if (list == List::Offsets) {
            if (list_bad_ || values_.size() != 2)
                note(where(current_.name) + ": \"data_offsets\" must be [begin, end], two non-negative integers, not " +
                     excerpt(written));
            else
                current_.begin = values_[0], current_.end = values_[1];
            has_offsets_ = true;
        }
    }

    // A member of the header has ended; `start`: where its value began, if a container.
    void member_ends(std::optional<std::size_t> start) {
        if (metadata_member_ && purpose_ == Purpose::Metadata && !metadata && start && cursor_.text()[*start] == '{')
            metadata = span(*start, cursor_.offset());
        if (!tensor_) return;
        tensor_ = false;
        if (!checks()) return;
        if (!has_dtype_) note(where(current_.name) + " has no \"dtype\"");
        if (!has_shape_) note(where(current_.name) + " has no \"shape\"");
        if (!has_offsets_) note(where(current_.name) + " has no \"data_offsets\"");
        if (!problem) entries.push_back(std::move(current_));
    }

    const json::Cursor& cursor_;
    const Purpose purpose_;
    std::size_t depth_ = 0;
    std::vector<std::size_t> starts_;  // where each open container began
    std::string member_, field_;
    std::size_t key_end_ = 0, field_start_ = 0;
    bool metadata_member_ = false, tensor_ = false;
    SafetensorsEntry current_;
    bool has_dtype_ = false, has_shape_ = false, has_offsets_ = false;
    List list_ = List::None;
    bool list_bad_ = false, too_long_ = false;
    std::vector<std::uint64_t> values_;
};

// Reads the header for `purpose`; a syntax error is Error(Input) naming its byte.
HeaderEvents read(std::string_view text, Purpose purpose) {
    json::Cursor cursor(text);
    HeaderEvents events(cursor, purpose);
    std::optional<json::SyntaxProblem> syntax = json::read_sax(cursor, events);
    if (!syntax && events.too_deep) syntax = events.too_deep;
    if (syntax && !(purpose == Purpose::Metadata && events.metadata))
        fail_input("the safetensors header is not valid JSON: " + syntax->what + " at byte " +
                   std::to_string(syntax->offset));
    return events;
}

}  // namespace

std::vector<SafetensorsEntry> read_safetensors_header(std::string_view header_text) {
    HeaderEvents events = read(header_text, Purpose::Entries);
    if (events.problem) fail_input(*events.problem);
    std::vector<SafetensorsEntry>& tensors = events.entries;
    // Sorted by name, the last of equal names kept: through indices, which move 4 bytes
    // where an entry would move 64.
    std::vector<std::uint32_t> order(tensors.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        const int by_name = tensors[a].name.compare(tensors[b].name);
        return by_name != 0 ? by_name < 0 : a < b;
    });
    std::vector<SafetensorsEntry> sorted;
    sorted.reserve(order.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        if (i + 1 == order.size() || tensors[order[i + 1]].name != tensors[order[i]].name)
            sorted.push_back(std::move(tensors[order[i]]));
    return sorted;
}

std::uint64_t safetensors_data_end(std::string_view header_text) {
    HeaderEvents events = read(header_text, Purpose::DataEnd);
    if (events.problem) fail_input(*events.problem);  // not an object
    return events.data_end;
}

std::string safetensors_metadata_text(std::string_view header_text) {
    try {
        const HeaderEvents events = read(header_text, Purpose::Metadata);
        return events.metadata ? std::string(*events.metadata) : std::string();
    } catch (const Error&) {
        return {};
    }
}

}  // namespace tslice
