// The one plan every op compiles into: a view of the input bytes. Affine (offset plus a byte
// stride per axis) for every slicing op; with an offset table for a gather.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tslice {

// The most axes an array may have: the input, every step's result and the output. numpy 1.24's
// NPY_MAXDIMS: np.load refuses a file with more ("maximum supported dimension for an ndarray is
// 32"), and indexing refuses a result with more. It also bounds the recursion of printing.
constexpr std::size_t kMaxRank = 32;

// Element (i0, i1, ...) of the view lives at byte
//   byte_offset + i0 * byte_strides[0] + i1 * byte_strides[1] + ...
// from the start of the input's data. Strides may be negative or zero (a new axis).
//
// A gather adds an offset table: when `table` is set, the element lives at
//   byte_offset + sum(ik * byte_strides[k]) + (*table)[table_offset + sum(ik * table_strides[k])]
// An axis that walks the gathered indices has a table stride (and usually byte stride 0); an
// axis that walks the data has a byte stride (and table stride 0); a batch axis has both.
// A table entry equal to kZeroElement stands for zeros: OpenVINO's out-of-range indices.
// Slicing a table view (apply_plan) slices both strides alike, so it stays one view.
struct View {
    // The table entry for "this element (or the whole inner block) is zeros".
    static constexpr std::int64_t kZeroElement = std::numeric_limits<std::int64_t>::min();

    std::int64_t byte_offset = 0;
    std::vector<std::int64_t> shape;
    std::vector<std::int64_t> byte_strides;
    std::size_t itemsize = 1;

    // The offset table; null (and table_strides empty) for an affine view.
    std::shared_ptr<const std::vector<std::int64_t>> table;
    std::int64_t table_offset = 0;
    std::vector<std::int64_t> table_strides;  // one per axis when `table` is set

    std::size_t rank() const { return shape.size(); }
    std::int64_t element_count() const;  // 1 for a 0-d view, 0 if any axis is empty
    bool has_table() const { return table != nullptr; }

    // The byte offset of the element at `index` (one entry per axis), or kZeroElement for an
    // element of a table view that reads as zeros. For code that reads single elements
    // (printing); copies go through copy_view.
    std::int64_t element_offset(const std::vector<std::int64_t>& index) const;

    // Whether the elements lie one after another in C order: a run of the input that can be
    // written as it is (an affine view only).
    bool is_c_contiguous() const;

    // The bytes (offsets from the data start, end exclusive) that elements [first, end) of
    // an affine view can read, found without walking them: the copy is done with what lies
    // outside once element `first` is reached. Conservative: the whole of the outermost
    // row that holds `first` counts. A table view, or an empty range, gives {0, 0}.
    struct Span {
        std::int64_t begin = 0, end = 0;
    };
    Span span_from(std::int64_t first) const;
    // The exact bytes elements [first, end) of an affine view read, lowest to highest: the
    // window a read ahead asks for. A table view, or an empty range, gives {0, 0}.
    Span span_of(std::int64_t first, std::int64_t end) const;

    // The lowest and highest entries of a table view's table that read (not kZeroElement):
    // every entry, not only those the view reaches, so a bound, found in one pass. None for an
    // affine view, or a table of zeros only.
    struct EntryRange {
        std::int64_t low = 0, high = 0;
    };
    std::optional<EntryRange> table_entry_range() const;

    // The view of a C-order (or Fortran-order) array of this shape at offset 0.
    static View contiguous(const std::vector<std::int64_t>& shape, std::size_t itemsize,
                           bool fortran_order = false);

    // Equal layouts: tables are compared by content, not by address.
    bool operator==(const View& other) const;
};

// numpy's shape tuple text: "(4, 3, 3)", "(5,)", "()".
std::string format_shape(const std::vector<std::int64_t>& shape);

}  // namespace tslice
