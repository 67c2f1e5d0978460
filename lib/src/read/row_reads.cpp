// A gather's rows read where they lie (see row_reads.hpp).
#include "read/row_reads.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "tslice/copy.hpp"
#include "tslice/error.hpp"

namespace tslice {

namespace {

// How a normalised table view splits into rows: its innermost axis where that is contiguous
// in the input and not gathered, else single elements (every axis outer).
struct RowShape {
    std::size_t outer_axes = 0;
    std::int64_t length = 1;  // elements
};

RowShape row_shape_of(const View& layout) {
    const std::size_t rank = layout.rank();
    if (rank == 0) return {0, 1};
    const bool inner_row = layout.table_strides[rank - 1] == 0 &&
                           (layout.shape[rank - 1] == 1 ||
                            layout.byte_strides[rank - 1] == static_cast<std::int64_t>(layout.itemsize));
    return inner_row ? RowShape{rank - 1, layout.shape[rank - 1]} : RowShape{rank, 1};
}

}  // namespace

std::int64_t gathered_row_bytes(const View& view) {
    if (!view.has_table() || view.element_count() == 0) return 0;
    return row_shape_of(normalise(view)).length * static_cast<std::int64_t>(view.itemsize);
}

bool reads_gathered_rows(const View& view, const InputPages& pages, const ReadSizes& sizes) {
    if (!pages.mapped()) return false;
    const std::int64_t row_bytes = gathered_row_bytes(view);
    return row_bytes > 0 && row_bytes >= sizes.read_row_bytes;
}

void list_row_reads(const View& view, std::int64_t first, std::int64_t count, std::vector<RowRead>& out) {
    if (count <= 0) return;
    if (!view.has_table()) throw Error(ErrorKind::Internal, "list_row_reads: the view is not a gather");
    const View layout = normalise(view);
    const auto [outer_axes, row_length] = row_shape_of(layout);
    const auto itemsize = static_cast<std::int64_t>(layout.itemsize);
    const std::int64_t* table = layout.table->data() + layout.table_offset;
    // The first row's outer index, its offset and its table position; later rows step them
    // as an odometer (a division per axis and row cost a gather of single elements a fifth
    // of its time).
    std::vector<std::int64_t> index(outer_axes, 0);
    std::int64_t offset = 0, position = 0;
    for (std::int64_t row = first / row_length, axis = static_cast<std::int64_t>(outer_axes); axis-- > 0;) {
        const auto k = static_cast<std::size_t>(axis);
        index[k] = row % layout.shape[k];
        row /= layout.shape[k];
        offset += index[k] * layout.byte_strides[k];
        position += index[k] * layout.table_strides[k];
    }
    out.reserve(out.size() + static_cast<std::size_t>(std::min(count, count / row_length + 2)));
    for (std::int64_t element = first, end = first + count, within = first % row_length; element < end; within = 0) {
        const std::int64_t length = std::min(row_length - within, end - element);
        const std::int64_t entry = table[position];
        out.push_back({entry == View::kZeroElement ? View::kZeroElement
                                                   : layout.byte_offset + offset + entry + within * itemsize,
                       (element - first) * itemsize, length * itemsize});
        element += length;
        for (std::size_t k = outer_axes; k-- > 0;) {
            offset += layout.byte_strides[k];
            position += layout.table_strides[k];
            if (++index[k] < layout.shape[k]) break;
            offset -= index[k] * layout.byte_strides[k];
            position -= index[k] * layout.table_strides[k];
            index[k] = 0;
        }
    }
}

namespace {

// Rows close together read as one: reads[first, end), input bytes [begin, end_byte).
struct Span {
    std::size_t first, end;
    std::int64_t begin, end_byte;
};

// Sorts `reads` by input offset and groups rows close together into spans. The rows of
// zeros (View::kZeroElement, which sorts lowest) are left out: `zeros` says how many lead.
std::vector<Span> spans_of(std::vector<RowRead>& reads, std::size_t& zeros) {
    std::sort(reads.begin(), reads.end(), [](const RowRead& a, const RowRead& b) { return a.input < b.input; });
    zeros = 0;
    while (zeros < reads.size() && reads[zeros].input == View::kZeroElement) ++zeros;
    std::vector<Span> spans;
    for (std::size_t k = zeros; k < reads.size(); ++k) {
        const RowRead& row = reads[k];
        if (!spans.empty()) {
            Span& span = spans.back();
            const std::int64_t reach = std::max(span.end_byte, row.input + row.bytes);
            if (row.input - span.end_byte <= kRowReadGapBytes && reach - span.begin <= kRowReadSpanBytes) {
                span.end = k + 1;
                span.end_byte = reach;
                continue;
            }
        }
        spans.push_back({k, k + 1, row.input, row.input + row.bytes});
    }
    return spans;
}

}  // namespace

void read_gathered_rows(WorkerPool& pool, const View& view, const InputPages& pages, std::byte* dst,
                        std::int64_t first, std::int64_t count, std::int64_t next_count) {
    std::vector<RowRead> reads;
    list_row_reads(view, first, count, reads);
    std::size_t zeros = 0;
    const std::vector<Span> spans = spans_of(reads, zeros);
    for (std::size_t k = 0; k < zeros; ++k) std::memset(dst + reads[k].output, 0, static_cast<std::size_t>(reads[k].bytes));
    // A cold input: the rows of the next elements are asked for too, once, so that the
    // device reads them while these are copied.
    std::atomic<bool> asked_ahead{next_count <= 0 || !pages.mapped()};
    const auto ask_ahead = [&] {
        if (asked_ahead.exchange(true)) return;
        std::vector<RowRead> next;
        list_row_reads(view, first + count, next_count, next);
        std::size_t next_zeros = 0;
        for (const Span& span : spans_of(next, next_zeros)) pages.read_ahead(span.begin, span.end_byte);
    };
    const auto parts = static_cast<unsigned>(std::min<std::size_t>(pool.size(), spans.size()));
    if (parts == 0) return;
    pool.run(parts, [&](unsigned part) {
        std::vector<std::byte> buffer;
        // Reads a span; without `wait`, only from the page cache, false if it lacks a page.
        const auto read_span = [&](const Span& span, bool wait) {
            const std::int64_t bytes = span.end_byte - span.begin;
            const bool one_row = span.end - span.first == 1;
            if (!one_row) buffer.resize(static_cast<std::size_t>(bytes));
            std::byte* into = one_row ? dst + reads[span.first].output : buffer.data();
            if (wait) {
                pages.read(span.begin, bytes, into);
            } else if (!pages.mapped() || pages.read_cached(span.begin, bytes, into) < bytes) {
                return false;
            }
            if (!one_row)
                for (std::size_t k = span.first; k < span.end; ++k)
                    std::memcpy(dst + reads[k].output, buffer.data() + (reads[k].input - span.begin),
                                static_cast<std::size_t>(reads[k].bytes));
            return true;
        };
        std::vector<Span> missing;
        for (std::size_t s = spans.size() * part / parts; s < spans.size() * (part + 1) / parts; ++s)
            if (!read_span(spans[s], false)) missing.push_back(spans[s]);
        if (missing.empty()) return;
        // What the page cache lacks is asked for all at once, so that the device reads it
        // together (one read at a time, each waited for, left a cold gather of random rows at
        // a quarter of the device's speed), then read in order.
        if (pages.mapped())
            for (const Span& span : missing) pages.read_ahead(span.begin, span.end_byte);
        ask_ahead();
        for (const Span& span : missing) read_span(span, true);
    });
}

}  // namespace tslice
