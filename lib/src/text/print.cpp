// numpy 1.24's str(array) with the default print options, rebuilt from numpy/core/arrayprint.py:
// the formatters (formatters.cpp) make each shown element's text, and Layout below mirrors
// _formatArray/_extendLine. 0-d arrays print their scalar's str.
#include "tslice/print.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "text/formatters.hpp"

namespace tslice {
namespace {

// Python measures lines in code points; the texts are UTF-8.
std::int64_t text_width(const std::string& text) {
    std::int64_t width = 0;
    for (char c : text)
        if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++width;
    return width;
}

struct Line {
    std::string text;
    std::int64_t width = 0;
    void append(const std::string& more, std::int64_t more_width) {
        text += more;
        width += more_width;
    }
};

class Layout {
public:
    // `words` holds the shown elements' texts in C order over the shown indices.
    Layout(std::vector<std::int64_t> shape, std::vector<std::int64_t> shown, bool summarise,
           const std::vector<std::string>& words, const PrintOptions& options)
        : shape_(std::move(shape)), shown_(std::move(shown)), summarise_(summarise), words_(words), options_(options),
          stride_(shape_.size(), 1) {
        for (std::size_t k = shape_.size(); k-- > 1;) stride_[k - 1] = stride_[k] * shown_[k];
    }

    std::string render() const { return recurse(0, 0, " ", options_.linewidth); }

private:
    std::string recurse(std::size_t axis, std::int64_t base, const std::string& hanging,
                        std::int64_t width) const {
        if (axis == shape_.size()) return words_[static_cast<std::size_t>(base)];
        const std::string next_hanging = hanging + " ";
        const auto child = [&](std::int64_t position) {
            return recurse(axis + 1, base + position * stride_[axis], next_hanging, width - 1);
        };
        const std::int64_t edge = options_.edgeitems;
        const bool show_summary = summarise_ && 2 * edge < shape_[axis];
        const std::int64_t leading = show_summary ? edge : 0;
        const std::int64_t trailing = show_summary ? edge : shape_[axis];
        const std::int64_t count = shown_[axis];

        std::string s;
        if (shape_.size() - axis == 1) {
            const std::int64_t element_width = width - 1;  // room for the closing ']'
            Line line{hanging, text_width(hanging)};
            for (std::int64_t i = 0; i < leading; ++i) {
                extend_line(s, line, child(i), element_width, hanging);
                line.append(" ", 1);
            }
            if (show_summary) {
                extend_line(s, line, "...", element_width, hanging);
                line.append(" ", 1);
            }
            for (std::int64_t i = trailing; i > 1; --i) {
                extend_line(s, line, child(count - i), element_width, hanging);
                line.append(" ", 1);
            }
            extend_line(s, line, child(count - 1), element_width, hanging);
            s += line.text;
        } else {
            const std::string line_sep(shape_.size() - axis - 1, '\n');
            for (std::int64_t i = 0; i < leading; ++i) s += hanging + child(i) + line_sep;
            if (show_summary) s += hanging + "..." + line_sep;
            for (std::int64_t i = trailing; i > 1; --i) s += hanging + child(count - i) + line_sep;
            s += hanging + child(count - 1);
        }
        return "[" + s.substr(hanging.size()) + "]";
    }

    // numpy's _extendLine: wrap before `word` if it would pass `line_width`, unless the line
    // holds nothing but its indent (wrapping would not help).
    static void extend_line(std::string& s, Line& line, const std::string& word, std::int64_t line_width,
                            const std::string& prefix) {
        const std::int64_t word_width = text_width(word);
        const auto prefix_width = static_cast<std::int64_t>(prefix.size());
        if (line.width + word_width > line_width && line.width > prefix_width) {
            const std::size_t end = line.text.find_last_not_of(' ');
            s += line.text.substr(0, end == std::string::npos ? 0 : end + 1) + "\n";
            line = Line{prefix, prefix_width};
        }
        line.append(word, word_width);
    }

    std::vector<std::int64_t> shape_;
    std::vector<std::int64_t> shown_;
    bool summarise_;
    const std::vector<std::string>& words_;
    const PrintOptions& options_;
    std::vector<std::int64_t> stride_;
};

// numpy's _leading_trailing: the indices shown along an axis.
std::vector<std::int64_t> shown_indices(std::int64_t length, bool summarise, std::int64_t edge) {
    std::vector<std::int64_t> indices;
    if (summarise && length > 2 * edge) {
        for (std::int64_t i = 0; i < edge; ++i) indices.push_back(i);
        for (std::int64_t i = length - edge; i < length; ++i) indices.push_back(i);
    } else {
        for (std::int64_t i = 0; i < length; ++i) indices.push_back(i);
    }
    return indices;
}

// The shown elements' addresses in C order. A gathered element that stands for zeros
// (View::kZeroElement) points at `zeros`, one element of zero bytes.
Pointers shown_elements(const std::byte* data, const View& view,
                        const std::vector<std::vector<std::int64_t>>& indices, const std::byte* zeros) {
    Pointers out;
    const std::size_t rank = view.rank();
    std::vector<std::size_t> position(rank, 0);
    std::vector<std::int64_t> index(rank, 0);
    for (;;) {
        for (std::size_t k = 0; k < rank; ++k) index[k] = indices[k][position[k]];
        const std::int64_t offset = view.element_offset(index);
        out.push_back(offset == View::kZeroElement ? zeros : data + offset);
        std::size_t k = rank;  // advance the last axis, carrying into earlier ones
        while (k > 0 && ++position[k - 1] == indices[k - 1].size()) position[--k] = 0;
        if (k == 0) return out;
    }
}

// Whether a non-empty shape holds more than numpy's threshold of elements, without
// overflowing on views that repeat elements through zero strides.
bool over_threshold(const std::vector<std::int64_t>& shape, std::int64_t threshold) {
    std::int64_t count = 1;
    for (std::int64_t length : shape) {
        if (length > threshold) return true;
        count *= length;
        if (count > threshold) return true;
    }
    return false;
}

}  // namespace

std::string format_array(const std::byte* data, const View& view, const DType& dtype, const PrintOptions& options) {
    const std::vector<std::byte> zeros(view.itemsize);
    if (view.rank() == 0) {
        const std::int64_t offset = view.element_offset({});
        return scalar_text(offset == View::kZeroElement ? zeros.data() : data + offset, dtype, options.precision);
    }
    if (std::find(view.shape.begin(), view.shape.end(), 0) != view.shape.end()) return "[]";

    const bool summarise = over_threshold(view.shape, options.threshold);
    std::vector<std::vector<std::int64_t>> indices;
    std::vector<std::int64_t> shown;
    for (std::int64_t length : view.shape) {
        indices.push_back(shown_indices(length, summarise, options.edgeitems));
        shown.push_back(static_cast<std::int64_t>(indices.back().size()));
    }
    const Pointers elements = shown_elements(data, view, indices, zeros.data());
    const FormatterPtr format = make_formatter(dtype, elements, false, options.precision);
    std::vector<std::string> words;
    words.reserve(elements.size());
    for (const std::byte* p : elements) words.push_back((*format)(p));
    return Layout(view.shape, shown, summarise, words, options).render();
}

}  // namespace tslice
