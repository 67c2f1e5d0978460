// View facts the writer relies on: contiguity, and the input bytes still to be read.
#include <doctest/doctest.h>

#include <climits>

#include "tslice/expr.hpp"
#include "tslice/plan.hpp"
#include "tslice/view.hpp"

using namespace tslice;

namespace {

View view_of(const char* text, const std::vector<std::int64_t>& shape, std::size_t itemsize = 4) {
    return apply_plan(plan_index(parse_index_expr(text), shape), View::contiguous(shape, itemsize));
}

// The smallest and largest byte elements [first, end) read, by walking them.
View::Span walked_span(const View& view, std::int64_t first, std::int64_t end = INT64_MAX) {
    View::Span span{INT64_MAX, INT64_MIN};
    std::vector<std::int64_t> index(view.rank(), 0);
    for (std::int64_t element = 0; element < view.element_count(); ++element) {
        if (element >= first && element < end) {
            const std::int64_t offset = view.element_offset(index);
            span.begin = std::min(span.begin, offset);
            span.end = std::max(span.end, offset + static_cast<std::int64_t>(view.itemsize));
        }
        for (std::size_t axis = view.rank(); axis-- > 0;) {
            if (++index[axis] < view.shape[axis]) break;
            index[axis] = 0;
        }
    }
    return span;
}

}  // namespace

TEST_CASE("view: C contiguity") {
    CHECK(view_of("[...]", {2, 3, 4}).is_c_contiguous());
    CHECK(view_of("[1:, None, :, :]", {2, 3, 4}).is_c_contiguous());
    CHECK(view_of("[0, 1:3]", {2, 3, 4}).is_c_contiguous());
    CHECK(view_of("[:, 0:0]", {2, 3, 4}).is_c_contiguous());
    CHECK_FALSE(view_of("[:, 1:]", {2, 3, 4}).is_c_contiguous());
    CHECK_FALSE(view_of("[::-1]", {2, 3, 4}).is_c_contiguous());
    CHECK_FALSE(View::contiguous({2, 3}, 4, true).is_c_contiguous());
}

TEST_CASE("view: the span still to be read holds every byte later elements read") {
    const std::vector<std::int64_t> shape = {5, 6, 7};
    for (const char* text : {"[...]", "[::-1]", "[:, ::-2, 1::3]", "[::-1, ::-1, ::-1]", "[None, 2:, :, ::-1]",
                             "[..., 3]", "[1, ::-1]", "[0, 0, 0]"}) {
        CAPTURE(text);
        const View view = view_of(text, shape);
        for (std::int64_t first = 0; first < view.element_count(); ++first) {
            CAPTURE(first);
            const View::Span span = view.span_from(first), walked = walked_span(view, first);
            CHECK(span.begin <= walked.begin);
            CHECK(span.end >= walked.end);
        }
        // Once the outermost row is done, its bytes are outside the span.
        const View::Span whole = view.span_from(0);
        CHECK(view.span_from(view.element_count() - 1).end - view.span_from(view.element_count() - 1).begin <=
              whole.end - whole.begin);
    }
    CHECK(view_of("[...]", shape).span_from(7 * 6 * 3).begin == 7 * 6 * 3 * 4);
    CHECK(view_of("[::-1]", shape).span_from(7 * 6 * 3).end == 7 * 6 * 2 * 4);
}

TEST_CASE("view: the exact bytes a range of elements reads") {
    const std::vector<std::int64_t> shape = {4, 5, 6};
    for (const char* text : {"[...]", "[::-1]", "[:, ::-2, 1::3]", "[::-1, ::-1, ::-1]", "[None, 2:, :, ::-1]",
                             "[..., 3]", "[1, ::-1]", "[0, 0, 0]", "[::2, 1:4, ::-2]", "[:, None, ::-1, 2::3]"}) {
        CAPTURE(text);
        const View view = view_of(text, shape);
        const std::int64_t total = view.element_count();
        for (std::int64_t first = 0; first < total; ++first)
            for (std::int64_t end = first + 1; end <= total; ++end) {
                CAPTURE(first);
                CAPTURE(end);
                const View::Span span = view.span_of(first, end), walked = walked_span(view, first, end);
                CHECK(span.begin == walked.begin);
                CHECK(span.end == walked.end);
            }
        CHECK(view.span_of(total, total + 5).end == 0);
        CHECK(view.span_of(3, 3).end == 0);
    }
    const View scalar = view_of("[1, 2, 3]", shape);
    CHECK(scalar.span_of(0, 1).begin == (1 * 30 + 2 * 6 + 3) * 4);
    CHECK(scalar.span_of(0, 1).end == (1 * 30 + 2 * 6 + 3) * 4 + 4);
}
