// The copy: normalise the layout, then one outer loop over rows that hands each row (or, for
// a transposing layout, a band of rows) to a kernel chosen once per copy by item size and
// inner stride. Short rows go a plane at a time through a tighter loop of their own (bands,
// copy_plan.cpp). The kernels (kernels.hpp) see bytes and strides, never ops or dtypes;
// which instruction set runs them is kernels.cpp's business.
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

#include "copy/copy_plan.hpp"
#include "copy/copy_prefetch.hpp"
#include "copy/copy_sink.hpp"
#include "copy/kernels.hpp"

namespace tslice {
namespace {

constexpr std::int64_t kZero = View::kZeroElement;

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


// The outer axes' odometer: the multi-index of a row (every axis but the innermost), its byte
// offset and its table position.
class Odometer {
public:
    Odometer(const View& layout, std::int64_t row)
        : layout_(layout), index(layout.rank(), 0), axis_(layout.rank() >= 2 ? layout.rank() - 2 : 0),
          stride_(layout.rank() >= 2 ? layout.byte_strides[axis_] : 0),
          extent_(layout.rank() >= 2 ? layout.shape[axis_] : 1),
          table_stride_(layout.rank() >= 2 && layout.has_table() ? layout.table_strides[axis_] : 0) {
        const bool table = layout.has_table();
        for (std::size_t axis = layout.rank() - 1; axis-- > 0;) {
            index[axis] = row % layout.shape[axis];
            row /= layout.shape[axis];
            offset += index[axis] * layout.byte_strides[axis];
            if (table) this->table += index[axis] * layout.table_strides[axis];
        }
    }

    // Steps `rows` rows on (at most what is left of the second innermost axis). Past the
    // last row it points nowhere: the caller never copies that row. The second innermost
    // axis is kept at hand: stepping through the view's arrays for it every row cost rows
    // of 256 bytes a tenth of their time.
    void step(std::int64_t rows) {
        std::int64_t& at = index[axis_];
        at += rows;
        offset += rows * stride_;
        table += rows * table_stride_;
        if (at == extent_ && axis_ > 0) carry();
    }

private:
    // The second innermost axis has run out: on to the next index of the axes outside it.
    void carry() {
        const bool has_table = layout_.has_table();
        std::size_t axis = axis_;
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

    const View& layout_;

public:
    std::vector<std::int64_t> index;
    std::int64_t offset = 0, table = 0;

private:
    std::size_t axis_;
    std::int64_t stride_, extent_, table_stride_;
};


// One call's walk over its rows: where it is, what it prefetches, where it writes. Every
// member function is inlined into copy_view, so that the walk's state lives in registers
// (a call that kept it behind `this` would reload it after every kernel call).
#define TSLICE_INLINE [[gnu::always_inline]] inline
class CopyRun {
public:
    TSLICE_INLINE CopyRun(const CopyPlan& plan, const std::byte* src, std::byte* dst, std::int64_t first,
                          std::int64_t count)
        : plan_(plan), base_(src + plan.layout.byte_offset),
          table_(plan.layout.has_table() ? plan.layout.table->data() + plan.layout.table_offset : nullptr),
          table_row_(choose_table_row_kernel(plan.layout.itemsize)),
          sink_(dst, count, plan.layout.itemsize, *plan.set, copy_streams(plan, count), memcpy_run_bytes()), count_(count),
          column_(first % plan.row_length), at_(plan.layout, first / plan.row_length),
          // (Rows past this call's range too: the writer copies a view in chunks, one call each.)
          last_row_(plan.layout.element_count() / plan.row_length - 1),
          // (A copy in bands prefetches within them; the part rows at either end of the call
          // go without.)
          prefetch_(plan.prefetch_ahead > 0 && !plan.bands &&
                    first / plan.row_length + plan.prefetch_ahead <= last_row_),
          next_(plan.layout, prefetch_ ? first / plan.row_length + plan.prefetch_ahead : first / plan.row_length),
          next_row_(first / plan.row_length + plan.prefetch_ahead),
          // Input bytes per element, as far as cache lines go: how a row is cut into pieces of
          // about kPiece input bytes, each after its share of the next row's prefetches.
          element_bytes_(std::max(std::min<std::int64_t>(std::abs(plan.inner_stride), 64), item_bytes())) {}

    TSLICE_INLINE void run() {
        while (count_ > 0) {
            if (plan_.method == CopyPlan::Method::Tiles && column_ == 0 && copy_tiles()) continue;
            if (plan_.bands && column_ == 0 && copy_band()) continue;
            copy_row();
            if (count_ == 0) break;
            column_ = 0;
            at_.step(1);
        }
        sink_.finish();
    }

private:
    TSLICE_INLINE std::int64_t item_bytes() const { return static_cast<std::int64_t>(plan_.layout.itemsize); }

    // Whole rows of the plane of the two innermost axes, as many as are left in it; false
    // when fewer than two are.
    TSLICE_INLINE bool copy_tiles() {
        const std::size_t rank = plan_.layout.rank();
        const std::int64_t rows =
            std::min(count_ / plan_.row_length, plan_.layout.shape[rank - 2] - at_.index[rank - 2]);
        if (rows < 2) return false;
        plan_.set->tile(base_ + at_.offset, plan_.layout.byte_strides[rank - 2], plan_.inner_stride,
                        sink_.direct(rows * plan_.row_length * item_bytes()), rows, plan_.row_length,
                        plan_.layout.itemsize);
        count_ -= rows * plan_.row_length;
        if (count_ > 0) at_.step(rows);
        return true;
    }

    // Whole rows of the plane of the two innermost axes, as many as are left in it, each after
    // the prefetch of the row plan_.prefetch_ahead on (within the band); false when fewer
    // than two are left.
    TSLICE_INLINE bool copy_band() {
        const std::size_t rank = plan_.layout.rank();
        const std::int64_t rows =
            std::min(count_ / plan_.row_length, plan_.layout.shape[rank - 2] - at_.index[rank - 2]);
        if (rows < 2) return false;
        const std::int64_t row_stride = plan_.layout.byte_strides[rank - 2], length = plan_.row_length;
        const std::int64_t out_row = length * item_bytes(), ahead = plan_.prefetch_ahead;
        const std::int64_t stride = plan_.inner_stride;
        const bool to_l1 = plan_.prefetch_to_l1;
        const kernels::RowKernel& kernel = plan_.row;
        std::byte* out = sink_.direct(rows * out_row);
        const std::byte* src = base_ + at_.offset;
        for (std::int64_t r = 0; r < rows; ++r, src += row_stride, out += out_row) {
            if (ahead > 0 && r + ahead < rows) {
                const RowLines lines = row_lines(src + ahead * row_stride, stride, length, item_bytes());
                lines.prefetch(0, lines.count, to_l1);
            }
            kernel.fn(kernel, src, out, length, sink_.bytes_after(out + out_row));
        }
        count_ -= rows * length;
        if (count_ > 0) at_.step(rows);
        return true;
    }

    // The rest of the current row (or as much of it as the call copies), in pieces, each
    // after its share of the prefetches of the row `prefetch_ahead` on.
    TSLICE_INLINE void copy_row() {
        RowLines lines;
        TableElements elements;
        const bool walks_table = plan_.method == CopyPlan::Method::TableElements;
        if (prefetch_ && next_row_ <= last_row_) {
            if (walks_table) {
                elements = {base_ + next_.offset, table_ + next_.table, plan_.inner_stride, plan_.inner_table_stride,
                            plan_.row_length};
            } else {
                // A row that prefetches its own elements ahead needs only the next row's first
                // ones from here.
                const std::int64_t entry = table_ ? table_[next_.table] : 0;
                const std::int64_t length =
                    plan_.lines_ahead > 0 ? std::min(plan_.row_length, plan_.lines_ahead) : plan_.row_length;
                if (entry != kZero) lines = row_lines(base_ + next_.offset + entry, plan_.inner_stride, length, item_bytes());
            }
            next_.step(1);
            ++next_row_;
        }
        const std::int64_t run = std::min(plan_.row_length - column_, count_);
        if (walks_table) {
            const std::int64_t pieces =
                std::clamp<std::int64_t>(run / kTablePiece, 1, std::max<std::int64_t>(elements.count, 1));
            in_pieces(run, pieces, [&](std::int64_t piece) {
                elements.prefetch(elements.count * piece / pieces, elements.count * (piece + 1) / pieces);
            });
        } else if (plan_.lines_ahead > 0 && run > plan_.lines_ahead) {
            copy_sparse_row(run, lines);
        } else {
            const std::int64_t pieces =
                std::clamp<std::int64_t>(run * element_bytes_ / kPiece, 1, std::max<std::int64_t>(lines.count, 1));
            const bool to_l1 = plan_.prefetch_to_l1;
            in_pieces(run, pieces, [&](std::int64_t piece) {
                lines.prefetch(lines.count * piece / pieces, lines.count * (piece + 1) / pieces, to_l1);
            });
        }
        count_ -= run;
    }

    // The run of `run` elements of the current row in `pieces` nearly equal pieces, each
    // after prefetch(piece). A dense row (its elements adjacent; a row that walks the table
    // never is) of one piece skips the divisions: rows of 256 bytes 4 KiB apart (1 GiB
    // float32) took 6.0 ms with them, 5.6 without, rows of 128 bytes 5.8 and 4.5. Strided
    // rows keep them: rows of 16 float32 256 bytes apart took twice as long without (4.7
    // against 9.8 ms), for a reason we did not find.
    template <class Prefetch>
    TSLICE_INLINE void in_pieces(std::int64_t run, std::int64_t pieces, Prefetch&& prefetch) {
        if (pieces == 1 && plan_.row.stride == item_bytes()) {
            prefetch(0);
            copy_part(0, run);
            return;
        }
        for (std::int64_t piece = 0; piece < pieces; ++piece) {
            prefetch(piece);
            const std::int64_t from = run * piece / pieces;
            copy_part(from, run * (piece + 1) / pieces - from);
        }
    }

    // A run of a row with a line per element, longer than the prefetch reach: in pieces of
    // kSparsePiece elements, each after the prefetch of the lines plan_.lines_ahead elements
    // on in this row, and its share of the next row's.
    TSLICE_INLINE void copy_sparse_row(std::int64_t run, const RowLines& next_lines) {
        const std::int64_t ahead = plan_.lines_ahead, stride = plan_.inner_stride;
        const std::int64_t entry = table_ ? table_[at_.table] : 0;
        const std::byte* start = base_ + at_.offset + column_ * stride + (entry == kZero ? 0 : entry);
        const std::int64_t pieces = (run + kSparsePiece - 1) / kSparsePiece;
        for (std::int64_t piece = 0; piece < pieces; ++piece) {
            const std::int64_t from = piece * kSparsePiece, to = std::min(run, from + kSparsePiece);
            if (entry != kZero) {
                for (std::int64_t i = from + ahead; i < std::min(run, to + ahead); ++i) prefetch_line<false>(start + i * stride);
            }
            next_lines.prefetch(next_lines.count * piece / pieces, next_lines.count * (piece + 1) / pieces, false);
            copy_part(from, to - from);
        }
    }

    // Elements [from, from + n) of the current row's run.
    TSLICE_INLINE void copy_part(std::int64_t from, std::int64_t n) {
        const std::int64_t start = at_.offset + (column_ + from) * plan_.inner_stride;
        if (!table_) {
            sink_.put_row(plan_.row, base_ + start, n);
        } else if (plan_.method == CopyPlan::Method::TableRows) {
            // One lookup for the whole row: a gathered block, or zeros.
            const std::int64_t entry = table_[at_.table];
            if (entry == kZero) {
                sink_.put_zeros(n);
            } else {
                sink_.put_row(plan_.row, base_ + start + entry, n);
            }
        } else {
            const std::int64_t stride = plan_.inner_stride, table_stride = plan_.inner_table_stride;
            const std::int64_t* entries = table_ + at_.table + (column_ + from) * table_stride;
            const std::byte* part = base_ + start;
            sink_.put(n, [&](std::byte* out, std::int64_t first_element, std::int64_t m, std::int64_t) {
                table_row_(part + first_element * stride, stride, entries + first_element * table_stride, table_stride,
                           out, m, plan_.layout.itemsize);
            });
        }
    }

    const CopyPlan& plan_;
    const std::byte* base_;
    const std::int64_t* table_;
    TableRowKernel table_row_;
    Sink sink_;
    std::int64_t count_;
    std::int64_t column_;
    Odometer at_;
    std::int64_t last_row_;
    bool prefetch_;
    Odometer next_;
    std::int64_t next_row_;
    std::int64_t element_bytes_;
};
#undef TSLICE_INLINE

}  // namespace

void copy_view(const std::byte* src, const View& view, std::byte* dst, std::int64_t first, std::int64_t count,
               InputMemory memory) {
    if (count <= 0) return;
    const CopyPlan plan = plan_copy(view, memory);
    if (plan.method == CopyPlan::Method::Element) {
        const std::int64_t* table = plan.layout.has_table() ? plan.layout.table->data() + plan.layout.table_offset : nullptr;
        const std::byte* element = src + plan.layout.byte_offset;
        if (table && table[0] == kZero) {
            std::memset(dst, 0, plan.layout.itemsize);
        } else {
            std::memcpy(dst, element + (table ? table[0] : 0), plan.layout.itemsize);
        }
        return;
    }
    CopyRun walk(plan, src, dst, first, count);
    walk.run();
}

}  // namespace tslice
