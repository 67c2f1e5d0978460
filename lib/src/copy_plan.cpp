// The choices of a copy, made once per view (see copy_plan.hpp).
#include "copy_plan.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>

#include "tslice/copy.hpp"

namespace tslice {
namespace {

// A copy writing at least this many bytes streams them. Far beyond the L2 and most of a
// shared L3, so a result this large cannot be in cache for its reader anyway, and above the
// writer's chunks (1 MiB), which are read back right away and should stay in cache.
// Measured on 1 GiB copies: 0.63 to 0.8x the time of memcpy streaming, 1.0 to 1.5x not.
constexpr std::size_t kStreamBytes = std::size_t{16} << 20;
std::atomic<std::size_t> stream_bytes{kStreamBytes};

// Rows ahead of the copied one are prefetched up to this many bytes on (see copy.cpp).
constexpr std::int64_t kPrefetchAhead = 4096;

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

std::size_t stream_threshold() { return stream_bytes.load(); }
void set_stream_threshold(std::size_t bytes) { stream_bytes.store(bytes); }

CopyPlan plan_copy(const View& view) {
    CopyPlan plan;
    plan.layout = normalise(view);
    plan.set = &kernels::active_set();
    const View& layout = plan.layout;
    const std::size_t rank = layout.rank();
    if (rank == 0) {
        plan.method = CopyPlan::Method::Element;
        return plan;
    }
    const bool table = layout.has_table();
    plan.row_length = layout.shape[rank - 1];
    plan.inner_stride = layout.byte_strides[rank - 1];
    plan.inner_table_stride = table ? layout.table_strides[rank - 1] : 0;
    plan.set->prepare_row(plan.row, plan.inner_stride, layout.itemsize, plan.row_length);
    if (table) {
        plan.method = plan.inner_table_stride != 0 ? CopyPlan::Method::TableElements : CopyPlan::Method::TableRows;
    } else if (plan.set->tile != nullptr && wants_tiles(layout)) {
        plan.method = CopyPlan::Method::Tiles;
    }
    if (plan.set->prefetch && plan.method != CopyPlan::Method::Tiles) {
        // A row that walks the table reads a line per element, wherever the entries say.
        const std::int64_t row_bytes =
            std::abs((plan.row_length - 1) * plan.inner_stride) + static_cast<std::int64_t>(layout.itemsize);
        plan.prefetch_ahead = plan.method == CopyPlan::Method::TableElements
                                  ? 1
                                  : std::clamp<std::int64_t>(kPrefetchAhead / row_bytes, 1, 64);
    }
    return plan;
}

bool copy_streams(const CopyPlan& plan, std::int64_t count) {
    // The staging buffer holds at least eight elements.
    return plan.set->stream_copy != nullptr && plan.layout.itemsize <= kStageBytes / 8 &&
           static_cast<std::size_t>(count) * plan.layout.itemsize >= stream_bytes.load(std::memory_order_relaxed);
}

std::string describe_copy(const View& view) {
    if (view.element_count() == 0) return "nothing (the result is empty)";
    const CopyPlan plan = plan_copy(view);
    const std::string set = plan.set->name;
    switch (plan.method) {
        case CopyPlan::Method::Element: return "one element";
        case CopyPlan::Method::Tiles:
            return "2-D tiles of the two innermost axes (kernel set " + set + ")";
        case CopyPlan::Method::TableElements:
            return "a table lookup an element, rows of " + std::to_string(plan.row_length) + " (kernel set " + set + ")";
        case CopyPlan::Method::TableRows:
        case CopyPlan::Method::Rows: break;
    }
    std::string text = std::string(plan.method == CopyPlan::Method::TableRows ? "a table lookup a row, " : "") +
                       "rows of " + std::to_string(plan.row_length) + " elements " +
                       std::to_string(plan.inner_stride) + " bytes apart: " + plan.row.name + " row kernel (kernel set " +
                       set + ")";
    if (plan.prefetch_ahead > 0) text += ", prefetching " + std::to_string(plan.prefetch_ahead) + " rows ahead";
    return text;
}

}  // namespace tslice
