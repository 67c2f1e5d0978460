// A gather copied window by window in the input's order (see scattered_gather.hpp).
#include "read/scattered_gather.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>


namespace tslice {

namespace {

// A window's reads are listed a piece at a time (twice: to count each region's rows, then to
// place them), so that only the sorted list is held whole.
constexpr std::int64_t kListPieceElements = 1 << 16;
// Fewer rows than this a part are not worth a thread.
constexpr std::size_t kRowsPerPart = 4096;
// How many rows ahead the copy prefetches: a region is larger than the caches nearest the
// core, and its rows are visited in no order within it.
constexpr std::size_t kPrefetchRows = 16;

int region_shift_for(std::int64_t bytes) {
    int shift = 0;
    while (shift < 31 && (std::int64_t{2} << shift) <= bytes) ++shift;
    return shift;
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

// Copies rows of `Size` bytes (0: of `bytes`), prefetching ahead.
template <std::size_t Size>
void copy_rows(const std::byte* data, const ScatteredGather::Row* rows, std::size_t count, std::byte* window,
               std::size_t bytes) {
    for (std::size_t k = 0; k < count; ++k) {
        if (k + kPrefetchRows < count) __builtin_prefetch(data + rows[k + kPrefetchRows].input);
        std::memcpy(window + rows[k].output, data + rows[k].input, Size ? Size : bytes);
    }
}

using RowCopy = void (*)(const std::byte*, const ScatteredGather::Row*, std::size_t, std::byte*, std::size_t);

RowCopy row_copy_for(std::int64_t bytes) {
    switch (bytes) {
        case 1: return copy_rows<1>;
        case 2: return copy_rows<2>;
        case 4: return copy_rows<4>;
        case 8: return copy_rows<8>;
        case 16: return copy_rows<16>;
        case 32: return copy_rows<32>;
        case 64: return copy_rows<64>;
        default: return copy_rows<0>;
    }
}

}  // namespace

bool ScatteredGather::suits(const View& view, const InputPages& pages, const ReadSizes& sizes) {
    if (!view.has_table() || !pages.mapped() || view.element_count() == 0) return false;
    const std::optional<View::EntryRange> entries = view.table_entry_range();
    return entries && entries->high - entries->low > sizes.scattered_gather_bytes;
}

ScatteredGather::ScatteredGather(const std::byte* data, const View& view, const InputPages& pages,
                                 const ReadSizes& sizes)
    : data_(data),
      view_(view),
      pages_(pages),
      // A power of two (the region of a row is a shift away), at most 2 GiB (a row's offset
      // within its region is 32-bit).
      region_shift_(region_shift_for(sizes.gather_region_bytes)),
      region_bytes_(std::int64_t{1} << region_shift_),
      row_bytes_(std::max(gathered_row_bytes(view), static_cast<std::int64_t>(view.itemsize))) {
    const auto itemsize = static_cast<std::int64_t>(view.itemsize);
    // What the view may read: where the affine part of it reaches, widened by the table's entries.
    View affine = view;
    affine.table = nullptr;
    affine.table_strides.clear();
    const View::Span affine_hull = affine.span_from(0);
    const View::EntryRange entries = view.table_entry_range().value_or(View::EntryRange{});
    hull_ = {affine_hull.begin + entries.low, affine_hull.end + entries.high};
    // Output offsets within a window are 32-bit.
    const std::int64_t window_bytes = std::clamp<std::int64_t>(sizes.gather_window_bytes, 1, std::int64_t{1} << 31);
    // As many rows as the window's bytes allow, and half as many bytes of its list of rows.
    const std::int64_t rows =
        std::max<std::int64_t>(1, std::min<std::int64_t>(window_bytes / row_bytes_, window_bytes / 2 / sizeof(Row)));
    window_elements_ = std::clamp<std::int64_t>(std::min(rows * (row_bytes_ / itemsize), window_bytes / itemsize), 1,
                                                view.element_count());
}

ScatteredGather::Memory::~Memory() {
    if (map_) ::munmap(map_, size_);
}

std::byte* ScatteredGather::Memory::get(std::size_t bytes) {
    if (bytes > size_) {
        if (map_) ::munmap(map_, size_);
        map_ = nullptr;
        size_ = 0;
        void* map = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (map == MAP_FAILED) throw std::bad_alloc();
        ::madvise(map, bytes, MADV_HUGEPAGE);  // advice: without it, 4 KiB pages
        map_ = map;
        size_ = bytes;
    }
    return static_cast<std::byte*>(map_);
}

void ScatteredGather::copy(WorkerPool& pool, std::byte* dst, std::int64_t first, std::int64_t count) {
    const auto itemsize = static_cast<std::int64_t>(view_.itemsize);
    while (count > 0) {
        if (first < window_first_ || first >= window_first_ + window_count_) make_window(pool, first);
        const std::int64_t n = std::min(count, window_first_ + window_count_ - first);
        std::memcpy(dst, window_ + (first - window_first_) * itemsize, static_cast<std::size_t>(n * itemsize));
        dst += n * itemsize;
        first += n;
        count -= n;
    }
}

void ScatteredGather::make_window(WorkerPool& pool, std::int64_t first) {
    const auto itemsize = static_cast<std::int64_t>(view_.itemsize);
    window_first_ = first;
    window_count_ = std::min(window_elements_, view_.element_count() - first);
    window_ = window_memory_.get(static_cast<std::size_t>(window_count_ * itemsize));

    // The window's reads, a piece at a time. Whole rows are left to `row`; zeros and the
    // parts of rows cut by the window's edges are copied by the first listing.
    std::vector<RowRead> piece;
    bool first_listing = true;
    const auto each_piece = [&](auto&& row) {
        for (std::int64_t from = 0; from < window_count_; from += kListPieceElements) {
            piece.clear();
            list_row_reads(view_, first + from, std::min(kListPieceElements, window_count_ - from), piece);
            for (RowRead& read : piece) {
                read.output += from * itemsize;
                if (read.input != View::kZeroElement && read.bytes == row_bytes_)
                    row(read);
                else if (!first_listing)
                    continue;
                else if (read.input == View::kZeroElement)
                    std::memset(window_ + read.output, 0, static_cast<std::size_t>(read.bytes));
                else
                    std::memcpy(window_ + read.output, data_ + read.input, static_cast<std::size_t>(read.bytes));
            }
        }
        first_listing = false;
    };
    // Regions aligned in the address space, as the folios a mapping maps whole are, so that
    // one seldom straddles two regions.
    const auto address = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(data_));
    const std::int64_t base = floor_div(address, region_bytes_) * region_bytes_ - address;
    const auto region_of = [&](std::int64_t input) { return static_cast<std::size_t>((input - base) >> region_shift_); };
    const auto region_begin = [&](std::size_t region) {
        return base + static_cast<std::int64_t>(region) * region_bytes_;
    };

    // Counting sort by region (the order within one does not matter: its pages are all
    // mapped while it is walked), listing the reads twice instead of holding them twice.
    // starts[r]: the first row of region r.
    std::vector<std::size_t> starts;
    each_piece([&](const RowRead& read) {
        const std::size_t region = region_of(read.input);
        if (region + 2 > starts.size()) starts.resize(region + 2, 0);
        ++starts[region + 1];
    });
    for (std::size_t r = 1; r < starts.size(); ++r) starts[r] += starts[r - 1];
    const std::size_t total = starts.empty() ? 0 : starts.back();
    if (total == 0) return;
    rows_ = reinterpret_cast<Row*>(rows_memory_.get(total * sizeof(Row)));
    {
        std::vector<std::size_t> next(starts);
        each_piece([&](const RowRead& read) {
            const std::size_t region = region_of(read.input);
            rows_[next[region]++] = Row{static_cast<std::uint32_t>(read.input - region_begin(region)),
                                        static_cast<std::uint32_t>(read.output)};
        });
    }

    const RowCopy copy_rows_of_region = row_copy_for(row_bytes_);
    const auto parts = static_cast<unsigned>(std::clamp<std::size_t>(total / kRowsPerPart, 1, pool.size()));
    pool.run(parts, [&](unsigned part) {
        const std::size_t end = total * (part + 1) / parts;
        std::size_t k = total * part / parts;
        auto region = static_cast<std::size_t>(std::upper_bound(starts.begin(), starts.end(), k) - starts.begin()) - 1;
        while (k < end) {
            // The rows of one region: copied, then its pages go, with what a fault on a folio
            // straddling its start mapped back of the region before. Not what a row reaches
            // past its end: a release that ends inside a folio the kernel maps whole (a PMD)
            // splits its mapping into pages, and every later fault there maps 64 KiB instead
            // of 2 MiB (the kernel's behaviour; not measured apart from the rest). The next
            // region's release takes those.
            while (starts[region + 1] <= k) ++region;
            const std::size_t region_end = std::min(end, starts[region + 1]);
            const std::int64_t begin = region_begin(region);
            copy_rows_of_region(data_ + begin, rows_ + k, region_end - k, window_, static_cast<std::size_t>(row_bytes_));
            const std::int64_t from = std::max(hull_.begin, begin - kLargestFolioBytes);
            const std::int64_t to = std::min(hull_.end, begin + region_bytes_);
            if (from < to) pages_.unmap(from, to);
            k = region_end;
        }
    });
}

}  // namespace tslice
