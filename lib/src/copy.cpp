// The copy: normalise the layout, then one outer loop over rows that hands each row (or, for
// a transposing layout, a band of rows) to a kernel chosen once per copy by item size and
// inner stride. The kernels (kernels.hpp) see bytes and strides, never ops or dtypes; which
// instruction set runs them is kernels.cpp's business.
//
// A table view (a gather) adds one lookup to the outer loop: each row starts at its byte
// offset plus the table entry of the row, and a row whose entry is View::kZeroElement is
// zero-filled. Rows are the innermost normalised axis, so when the gathered block is
// contiguous (gather along any axis but the last) a whole block is one memcpy, and any other
// block the same row kernel as a slice. Only when the innermost axis itself walks the table
// (gather along the last axis) is every element looked up on its own; the elements of the
// next row are then prefetched, each from its own line, while this one is copied.
//
// Where the output goes: straight to dst, or, for a copy too large to stay in the caches
// anyway, through a small staging buffer that is streamed out with non-temporal stores (no
// read of the destination lines first, no eviction of the input), so that every kernel
// streams without knowing it.
#include "tslice/copy.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "kernels.hpp"

namespace tslice {
namespace {

using kernels::KernelSet;
using kernels::RowKernel;

constexpr std::int64_t kZero = View::kZeroElement;

// A copy writing at least this many bytes streams them. Far beyond the L2 and most of a
// shared L3, so a result this large cannot be in cache for its reader anyway, and above the
// writer's chunks (1 MiB), which are read back right away and should stay in cache.
// Measured on 1 GiB copies: 0.63 to 0.8x the time of memcpy streaming, 1.0 to 1.5x not.
constexpr std::size_t kStreamBytes = std::size_t{16} << 20;
std::atomic<std::size_t> stream_bytes{kStreamBytes};
// The staging buffer: well inside L1, and small, so that its streamed stores interleave with
// the kernels' loads (measured: 8 KiB flushes stall the loads, 1 to 4 KiB do not).
constexpr std::size_t kStageBytes = 2048;

// A row whose elements each have their own table entry: element i is at
// src + i * stride + table[i * table_stride], or zeros for kZero.
template <std::size_t Size>
void table_row_fixed(const std::byte* src, std::int64_t stride, const std::int64_t* table, std::int64_t table_stride,
                     std::byte* dst, std::int64_t count, std::size_t) {
    for (std::int64_t i = 0; i < count; ++i, dst += Size) {
        const std::int64_t entry = table[i * table_stride];
        if (entry == kZero) {
            std::memset(dst, 0, Size);
        } else {
            std::memcpy(dst, src + i * stride + entry, Size);
        }
    }
}

void table_row_any(const std::byte* src, std::int64_t stride, const std::int64_t* table, std::int64_t table_stride,
                   std::byte* dst, std::int64_t count, std::size_t itemsize) {
    for (std::int64_t i = 0; i < count; ++i, dst += itemsize) {
        const std::int64_t entry = table[i * table_stride];
        if (entry == kZero) {
            std::memset(dst, 0, itemsize);
        } else {
            std::memcpy(dst, src + i * stride + entry, itemsize);
        }
    }
}

using TableRowKernel = void (*)(const std::byte*, std::int64_t, const std::int64_t*, std::int64_t, std::byte*,
                                std::int64_t, std::size_t);

TableRowKernel choose_table_row_kernel(std::size_t itemsize) {
    switch (itemsize) {
        case 1: return table_row_fixed<1>;
        case 2: return table_row_fixed<2>;
        case 4: return table_row_fixed<4>;
        case 8: return table_row_fixed<8>;
        case 16: return table_row_fixed<16>;
        default: return table_row_any;
    }
}

// The output of one copy, in order: written in place, or staged and streamed.
class Sink {
public:
    Sink(std::byte* dst, std::size_t itemsize, const KernelSet& set, bool stream)
        : dst_(dst), itemsize_(static_cast<std::int64_t>(itemsize)), set_(set), stream_(stream) {
        // Each fill ends on a cache-line boundary, so that flushes stream whole lines.
        limit_ = static_cast<std::int64_t>(kStageBytes - (reinterpret_cast<std::uintptr_t>(dst) & 63));
    }
    Sink(const Sink&) = delete;
    Sink& operator=(const Sink&) = delete;

    // Appends n elements; produce(out, from, m) writes elements [from, from + m) of them to out.
    template <class Produce>
    void put(std::int64_t n, Produce&& produce) {
        if (!stream_) {
            produce(dst_, 0, n);
            dst_ += n * itemsize_;
            return;
        }
        for (std::int64_t from = 0; from < n;) {
            const std::int64_t m = std::min((limit_ - fill_) / itemsize_, n - from);
            if (m == 0) {
                flush();
                continue;
            }
            produce(stage_ + fill_, from, m);
            fill_ += m * itemsize_;
            from += m;
        }
    }

    // Appends a row.
    void put_row(const RowKernel& row, const std::byte* src, std::int64_t n) {
        if (row.stride == itemsize_) {
            put_bytes(src, n * itemsize_);
            return;
        }
        const std::int64_t stride = row.stride;
        put(n, [&](std::byte* out, std::int64_t from, std::int64_t m) { row(src + from * stride, out, m); });
    }

    // Appends bytes as they are. Streaming, the whole output lines among them go straight from
    // the input; the part lines at either end through the stage, so that every line is
    // streamed whole.
    void put_bytes(const std::byte* src, std::int64_t bytes) {
        if (!stream_) {
            std::memcpy(dst_, src, static_cast<std::size_t>(bytes));
            dst_ += bytes;
            return;
        }
        const auto at = reinterpret_cast<std::uintptr_t>(dst_ + fill_);
        const std::int64_t head = std::min<std::int64_t>(bytes, static_cast<std::int64_t>((64 - (at & 63)) & 63));
        stage(src, head);
        src += head;
        bytes -= head;
        if (bytes >= 64) {
            flush();  // ends on a line boundary
            const std::int64_t lines = bytes & ~std::int64_t{63};
            set_.stream_copy(dst_, src, static_cast<std::size_t>(lines));
            dst_ += lines;
            src += lines;
            bytes -= lines;
        }
        stage(src, bytes);
    }

    void put_zeros(std::int64_t n) {
        put(n, [&](std::byte* out, std::int64_t, std::int64_t m) { std::memset(out, 0, static_cast<std::size_t>(m * itemsize_)); });
    }

    // Room for `bytes` written in place, by a kernel that writes them in its own order.
    std::byte* direct(std::int64_t bytes) {
        flush();
        std::byte* at = dst_;
        dst_ += bytes;
        return at;
    }

    void finish() {
        if (!stream_) return;
        flush();
        set_.stream_fence();
    }

private:
    void stage(const std::byte* src, std::int64_t bytes) {
        while (bytes > 0) {
            if (fill_ == limit_) flush();
            const std::int64_t m = std::min(limit_ - fill_, bytes);
            std::memcpy(stage_ + fill_, src, static_cast<std::size_t>(m));
            fill_ += m;
            src += m;
            bytes -= m;
        }
    }

    // Streams the stage out; the next fill ends on a cache-line boundary.
    void flush() {
        if (fill_ > 0) {
            set_.stream_copy(dst_, stage_, static_cast<std::size_t>(fill_));
            dst_ += fill_;
            fill_ = 0;
        }
        limit_ = static_cast<std::int64_t>(kStageBytes - (reinterpret_cast<std::uintptr_t>(dst_) & 63));
    }

    std::byte* dst_;
    const std::int64_t itemsize_;
    const KernelSet& set_;
    const bool stream_;
    std::int64_t fill_ = 0, limit_ = 0;
    alignas(64) std::byte stage_[kStageBytes];
};

// The outer axes' odometer: the multi-index of a row (every axis but the innermost), its byte
// offset and its table position.
class Odometer {
public:
    Odometer(const View& layout, std::int64_t row) : layout_(layout), index(layout.rank(), 0) {
        const bool table = layout.has_table();
        for (std::size_t axis = layout.rank() - 1; axis-- > 0;) {
            index[axis] = row % layout.shape[axis];
            row /= layout.shape[axis];
            offset += index[axis] * layout.byte_strides[axis];
            if (table) this->table += index[axis] * layout.table_strides[axis];
        }
    }

    // Steps `rows` rows on (at most what is left of the second innermost axis). Past the
    // last row it points nowhere: the caller never copies that row.
    void step(std::int64_t rows) {
        const bool has_table = layout_.has_table();
        std::size_t axis = layout_.rank() - 2;
        index[axis] += rows;
        offset += rows * layout_.byte_strides[axis];
        if (has_table) table += rows * layout_.table_strides[axis];
        while (index[axis] == layout_.shape[axis] && axis > 0) {
            offset -= index[axis] * layout_.byte_strides[axis];
            if (has_table) table -= index[axis] * layout_.table_strides[axis];
            index[axis] = 0;
            --axis;
            ++index[axis];
            offset += layout_.byte_strides[axis];
            if (has_table) table += layout_.table_strides[axis];
        }
    }

private:
    const View& layout_;

public:
    std::vector<std::int64_t> index;
    std::int64_t offset = 0, table = 0;
};

// Prefetching rows. The hardware prefetchers follow one stream of rising (or falling)
// addresses, but not rows that each start a new page and then run backwards, or that skip
// part of each page: measured on Zen 4, such copies ran at half speed without help. So while
// a row is copied, the lines of the row a few KiB on are prefetched, a share before each
// piece of the row (not all at once, which starves the copy's own loads), in rising order
// whatever the row's direction, and whole pages where the row covers most of them (reading
// the rest of a page costs less than leaving a gap in it). Rows read forwards prefetch into
// L2 (prefetcht2) and rows read backwards into L1 (prefetcht0): what measured fastest.
constexpr std::int64_t kPrefetchAhead = 4096;  // bytes of rows ahead
constexpr std::int64_t kPrefetchMost = 65536;  // bytes of a row prefetched, in its reading order
constexpr std::int64_t kPiece = 1024;          // input bytes copied between prefetches
constexpr std::int64_t kTablePiece = 16;       // elements looked up between prefetches

// GCC 12 takes a loop of nothing but __builtin_prefetch for one without effects and deletes
// it (its mod/ref analysis), hence the asm on x86.
template <bool ToL1>
inline void prefetch_line(const void* address) {
#if defined(__x86_64__) || defined(__i386__)
    if constexpr (ToL1) {
        asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(address)));
    } else {
        asm volatile("prefetcht2 %0" : : "m"(*static_cast<const char*>(address)));
    }
#else
    __builtin_prefetch(address, 0, ToL1 ? 3 : 1);
#endif
}

// The cache lines of a row to prefetch, in rising order: `count` lines from `first`, `step`
// bytes apart.
struct RowLines {
    std::uintptr_t first = 0;
    std::int64_t step = 0, count = 0;

    void prefetch(std::int64_t from, std::int64_t to, bool to_l1) const {
        for (std::int64_t i = from; i < to; ++i) {
            const auto* line = reinterpret_cast<const void*>(first + static_cast<std::uintptr_t>(i * step));
            if (to_l1) {
                prefetch_line<true>(line);
            } else {
                prefetch_line<false>(line);
            }
        }
    }
};

// The lines of a row of `length` elements from `start`, `stride` bytes apart.
RowLines row_lines(const std::byte* start, std::int64_t stride, std::int64_t length, std::int64_t itemsize) {
    constexpr std::int64_t kLine = 64, kPage = 4096;
    const auto address = reinterpret_cast<std::uintptr_t>(start);
    if (std::abs(stride) > kLine) {  // a line per element: the first ones read, lowest first
        const std::int64_t elements = std::min(length, kPrefetchMost / kLine);
        const auto lowest = stride > 0 ? address : address - static_cast<std::uintptr_t>((elements - 1) * -stride);
        return {lowest, std::abs(stride), elements};
    }
    const std::int64_t reach = (length - 1) * stride;
    std::uintptr_t low = reach < 0 ? address - static_cast<std::uintptr_t>(-reach) : address;
    std::uintptr_t high = low + static_cast<std::uintptr_t>(std::abs(reach) + itemsize);
    const std::uintptr_t page_low = low & ~std::uintptr_t{kPage - 1};
    const std::uintptr_t page_high = (high + kPage - 1) & ~std::uintptr_t{kPage - 1};
    if (high - low >= kPage / 2 && 4 * (high - low) >= 3 * (page_high - page_low)) {
        low = page_low;
        high = page_high;
    }
    if (high - low > static_cast<std::uintptr_t>(kPrefetchMost)) {
        if (stride >= 0) {
            high = low + kPrefetchMost;
        } else {
            low = high - kPrefetchMost;
        }
    }
    low &= ~std::uintptr_t{kLine - 1};
    return {low, kLine, static_cast<std::int64_t>((high - low + kLine - 1) / kLine)};
}

// The elements of a row that walks the table (a gather along the last axis), to prefetch:
// each one's line, wherever its table entry puts it.
struct TableElements {
    const std::byte* row = nullptr;  // the row's start, before the entries
    const std::int64_t* entries = nullptr;
    std::int64_t stride = 0, table_stride = 0, count = 0;

    void prefetch(std::int64_t from, std::int64_t to) const {
        for (std::int64_t i = from; i < to; ++i) {
            const std::int64_t entry = entries[i * table_stride];
            if (entry != View::kZeroElement) prefetch_line<false>(row + i * stride + entry);
        }
    }
};

// Whether a copy takes the 2-D tile kernel for its two innermost axes: rows that lie close
// together (sharing cache lines) while the elements of a row lie far apart, as when a
// Fortran-order array is read in C order. Row by row, each input line would be fetched once
// per row that uses it; in tiles, once.
bool wants_tiles(const View& layout) {
    const std::size_t rank = layout.rank();
    if (rank < 2 || layout.has_table()) return false;
    const std::int64_t rows = std::abs(layout.byte_strides[rank - 2]);
    const std::int64_t columns = std::abs(layout.byte_strides[rank - 1]);
    return rows <= 64 && columns >= 32 && columns >= 2 * rows && layout.shape[rank - 2] >= 2;
}

}  // namespace

namespace kernels {
std::size_t stream_threshold() { return stream_bytes.load(); }
void set_stream_threshold(std::size_t bytes) { stream_bytes.store(bytes); }
}  // namespace kernels

View normalise(const View& view) {
    View out;
    out.itemsize = view.itemsize;
    out.byte_offset = view.byte_offset;
    out.table = view.table;
    out.table_offset = view.table_offset;
    const bool table = view.has_table();
    if (view.element_count() == 0) {
        out.shape = {0};
        out.byte_strides = {0};
        if (table) out.table_strides = {0};
        return out;
    }
    for (std::size_t axis = 0; axis < view.rank(); ++axis) {
        if (view.shape[axis] == 1) continue;
        const std::int64_t length = view.shape[axis];
        const std::int64_t stride = view.byte_strides[axis];
        const std::int64_t table_stride = table ? view.table_strides[axis] : 0;
        // The previous (outer) axis merges into this one when stepping it once is the same as
        // stepping this one `length` times, in the bytes and in the table alike.
        if (!out.shape.empty() && out.byte_strides.back() == stride * length &&
            (!table || out.table_strides.back() == table_stride * length)) {
            out.shape.back() *= length;
            out.byte_strides.back() = stride;
            if (table) out.table_strides.back() = table_stride;
            continue;
        }
        out.shape.push_back(length);
        out.byte_strides.push_back(stride);
        if (table) out.table_strides.push_back(table_stride);
    }
    return out;
}

void copy_view(const std::byte* src, const View& view, std::byte* dst, std::int64_t first,
               std::int64_t count) {
    if (count <= 0) return;
    const View layout = normalise(view);
    const std::size_t itemsize = layout.itemsize;
    const std::int64_t* table = layout.has_table() ? layout.table->data() + layout.table_offset : nullptr;
    const std::byte* base = src + layout.byte_offset;
    const std::size_t rank = layout.rank();
    if (rank == 0) {  // a single element
        if (!table) {
            std::memcpy(dst, base, itemsize);
        } else if (table[0] == kZero) {
            std::memset(dst, 0, itemsize);
        } else {
            std::memcpy(dst, base + table[0], itemsize);
        }
        return;
    }
    const KernelSet& set = kernels::active_set();
    const std::int64_t row_length = layout.shape[rank - 1];
    const std::int64_t inner_stride = layout.byte_strides[rank - 1];
    const std::int64_t inner_table_stride = table ? layout.table_strides[rank - 1] : 0;
    RowKernel row;
    set.prepare_row(row, inner_stride, itemsize, row_length);
    const TableRowKernel table_row = choose_table_row_kernel(itemsize);
    const auto item_bytes = static_cast<std::int64_t>(itemsize);
    const bool tiles = set.tile != nullptr && wants_tiles(layout);
    const bool stream = set.stream_copy != nullptr && itemsize <= kStageBytes / 8 &&
                        static_cast<std::size_t>(count) * itemsize >= stream_bytes.load(std::memory_order_relaxed);
    Sink sink(dst, itemsize, set, stream);

    // The row of element `first`, and `ahead` rows further on the row whose lines are
    // prefetched before this one is copied: the hardware prefetchers follow one stream, but
    // not rows that each start a new page, or run backwards, or skip lines.
    const std::int64_t first_row = first / row_length;
    std::int64_t column = first % row_length;
    Odometer at(layout, first_row);
    const std::int64_t reach = (row_length - 1) * inner_stride;
    const std::int64_t row_bytes = std::abs(reach) + item_bytes;
    // A row that walks the table reads a line per element, wherever the entries say.
    const bool walks_table = table && inner_table_stride != 0;
    const std::int64_t ahead =
        walks_table ? 1 : std::clamp<std::int64_t>(kPrefetchAhead / row_bytes, 1, 64);
    // (Rows past this call's range too: the writer copies a view in chunks, one call each.)
    const std::int64_t last_row = layout.element_count() / row_length - 1;
    const bool prefetch = set.prefetch && !tiles && first_row + ahead <= last_row;
    Odometer next(layout, prefetch ? first_row + ahead : first_row);
    std::int64_t next_row = first_row + ahead;

    // Input bytes per element, as far as cache lines go: how a row is cut into pieces of
    // about kPiece input bytes, each after its share of the next row's prefetches.
    const std::int64_t element_bytes = std::max(std::min<std::int64_t>(std::abs(inner_stride), 64), item_bytes);
    const bool backwards = inner_stride < 0;

    while (count > 0) {
        if (tiles && column == 0) {
            // Whole rows of the plane of the two innermost axes, as many as are left in it.
            const std::int64_t rows = std::min(count / row_length, layout.shape[rank - 2] - at.index[rank - 2]);
            if (rows >= 2) {
                const std::int64_t bytes = rows * row_length * item_bytes;
                set.tile(base + at.offset, layout.byte_strides[rank - 2], inner_stride, sink.direct(bytes), rows,
                         row_length, itemsize);
                count -= rows * row_length;
                if (count == 0) break;
                at.step(rows);
                continue;
            }
        }
        RowLines lines;
        TableElements elements;
        if (prefetch && next_row <= last_row) {
            if (walks_table) {
                elements = {base + next.offset, table + next.table, inner_stride, inner_table_stride, row_length};
            } else {
                const std::int64_t entry = table ? table[next.table] : 0;
                if (entry != kZero) lines = row_lines(base + next.offset + entry, inner_stride, row_length, item_bytes);
            }
            next.step(1);
            ++next_row;
        }
        const std::int64_t run = std::min(row_length - column, count);
        const std::int64_t start = at.offset + column * inner_stride;
        const std::int64_t entry = table ? table[at.table] : 0;
        // Elements [from, from + n) of the run.
        const auto copy_part = [&](std::int64_t from, std::int64_t n) {
            if (!table) {
                sink.put_row(row, base + start + from * inner_stride, n);
            } else if (inner_table_stride == 0) {
                // One lookup for the whole row: a gathered block, or zeros.
                if (entry == kZero) {
                    sink.put_zeros(n);
                } else {
                    sink.put_row(row, base + start + entry + from * inner_stride, n);
                }
            } else {
                const std::int64_t* entries = table + at.table + (column + from) * inner_table_stride;
                const std::byte* part = base + start + from * inner_stride;
                sink.put(n, [&](std::byte* out, std::int64_t first_element, std::int64_t m) {
                    table_row(part + first_element * inner_stride, inner_stride,
                              entries + first_element * inner_table_stride, inner_table_stride, out, m, itemsize);
                });
            }
        };
        // The row in pieces, each after its share of the next row's prefetches.
        if (walks_table) {
            const std::int64_t pieces =
                std::clamp<std::int64_t>(run / kTablePiece, 1, std::max<std::int64_t>(elements.count, 1));
            for (std::int64_t piece = 0; piece < pieces; ++piece) {
                elements.prefetch(elements.count * piece / pieces, elements.count * (piece + 1) / pieces);
                const std::int64_t from = run * piece / pieces;
                copy_part(from, run * (piece + 1) / pieces - from);
            }
        } else {
            const std::int64_t pieces =
                std::clamp<std::int64_t>(run * element_bytes / kPiece, 1, std::max<std::int64_t>(lines.count, 1));
            if (pieces == 1) {
                lines.prefetch(0, lines.count, backwards);
                copy_part(0, run);
            } else {
                for (std::int64_t piece = 0; piece < pieces; ++piece) {
                    lines.prefetch(lines.count * piece / pieces, lines.count * (piece + 1) / pieces, backwards);
                    const std::int64_t from = run * piece / pieces;
                    copy_part(from, run * (piece + 1) / pieces - from);
                }
            }
        }
        count -= run;
        column = 0;
        if (count == 0) break;
        at.step(1);
    }
    sink.finish();
}

}  // namespace tslice
