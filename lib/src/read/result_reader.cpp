// A result's bytes chunk by chunk (see result_reader.hpp).
#include "read/result_reader.hpp"

#include <algorithm>
#include <cmath>

#include "tslice/copy.hpp"
#include "source/region_bands.hpp"
#include "tslice/fields.hpp"

namespace tslice {

namespace {

// The same elements of an affine view, from the last to the first: every axis reversed.
View walked_backwards(const View& view) {
    View backwards = view;
    for (std::size_t axis = 0; axis < view.rank(); ++axis) {
        backwards.byte_offset += (view.shape[axis] - 1) * view.byte_strides[axis];
        backwards.byte_strides[axis] = -view.byte_strides[axis];
    }
    return backwards;
}

// Whether the page cache holds most of `span`: the pages of 16 places spread over it. Asked
// without reading (InputPages::cached): a read that must not wait (RWF_NOWAIT) still starts the
// kernel's readahead where it misses, which on a cold file read up to 16 windows of
// read_ahead_kb at once, out of the copy's order.
bool mostly_cached(const InputPages& pages, View::Span span) {
    constexpr int kPlaces = 16;
    int cached = 0;
    for (int place = 0; place < kPlaces; ++place)
        if (pages.cached(span.begin + (span.end - 1 - span.begin) * place / (kPlaces - 1))) ++cached;
    return 2 * cached > kPlaces;
}

View units_of(const View& view, const DType* packed, std::size_t chunk_bytes) {
    // A selection of fields is packed from whole elements, so its elements are not split.
    return packed ? view : in_chunk_sized_units(view, chunk_bytes);
}

std::size_t g_test_chunk_bytes = 0;

}  // namespace

ReadSizes read_sizes() { return g_test_chunk_bytes ? ReadSizes(g_test_chunk_bytes) : ReadSizes(); }
void set_read_chunk_for_tests(std::size_t chunk_bytes) { g_test_chunk_bytes = chunk_bytes; }

std::int64_t elements_per_chunk(std::size_t itemsize, std::size_t chunk_bytes) {
    return static_cast<std::int64_t>(std::max<std::size_t>(1, chunk_bytes / itemsize));
}

// The writers' two chunk buffers stay bounded in bytes whatever the item size: an element
// larger than a chunk is handed out in parts.
View in_chunk_sized_units(const View& view, std::size_t chunk_bytes) {
    if (view.itemsize <= chunk_bytes) return view;
    std::size_t unit = 1;
    for (std::size_t divisor = 1; divisor * divisor <= view.itemsize; ++divisor) {
        if (view.itemsize % divisor != 0) continue;
        if (divisor <= chunk_bytes) unit = std::max(unit, divisor);
        if (view.itemsize / divisor <= chunk_bytes) unit = std::max(unit, view.itemsize / divisor);
    }
    View units = view;
    units.shape.push_back(static_cast<std::int64_t>(view.itemsize / unit));
    units.byte_strides.push_back(static_cast<std::int64_t>(unit));
    if (units.has_table()) units.table_strides.push_back(0);
    units.itemsize = unit;
    return units;
}

bool walks_cold_file_down(const View& result, const InputPages& pages, const DType* packed) {
    if (!pages.mapped()) return false;
    const std::size_t chunk_bytes = read_sizes().chunk_bytes;
    const View view = units_of(result, packed, chunk_bytes);
    const std::int64_t chunk = elements_per_chunk(packed ? packed->packed_itemsize : view.itemsize, chunk_bytes);
    const std::int64_t total = view.element_count();
    if (view.has_table() || total <= chunk) return false;
    const std::int64_t last = (total - 1) / chunk * chunk;
    if (view.span_of(last, total).end > view.span_of(0, chunk).begin) return false;
    // Not where the page cache holds the input already: there is nothing to gain, and written
    // so to ext4 the runs had more slow outliers (docs/performance.md).
    return !mostly_cached(pages, view.span_of(0, total));
}

ResultReader::ResultReader(const std::byte* data, const View& view, const InputPages& pages,
                           const ReadOptions& options)
    : data_(data),
      pages_(pages),
      sizes_(read_sizes()),
      packs_(options.packed),
      view_(units_of(view, options.packed, sizes_.chunk_bytes)),
      itemsize_(packs_ ? packs_->packed_itemsize : view_.itemsize),
      total_(view_.element_count()),
      backwards_(options.backwards),
      walked_(backwards_ ? walked_backwards(view_) : View{}),
      bands_(pages.bands()),
      units_per_element_(static_cast<std::int64_t>(view.itemsize / view_.itemsize)),
      // A region read in bands holds no bytes outside the band being copied: nothing is handed
      // out where it lies.
      contiguous_(!packs_ && !bands_ && view_.is_c_contiguous()),
      bands_contiguous_(!packs_ && bands_ && view_.is_c_contiguous()),
      by_pread_(contiguous_ && pages.mapped() && !options.map_contiguous),
      // What is read with pread is not mapped ahead.
      paging_(backwards_ ? walked_ : view_, pages_, sizes_, !by_pread_),
      gather_reads_(data, view_, pages_, sizes_),
      threads_(total_ * static_cast<std::int64_t>(view_.itemsize) >= sizes_.threaded_bytes ? options.threads : 1) {
    if (paging_.releases() && total_ > 0)
        bytes_read_per_element_ =
            static_cast<double>(paging_.whole().end - paging_.whole().begin) / static_cast<double>(total_);
}

WorkerPool& ResultReader::pool() {
    if (!pool_) pool_.emplace(threads_);
    return *pool_;
}

std::optional<std::int64_t> ResultReader::file_offset_of_contiguous() const {
    if (!contiguous_ || pages_.file() < 0) return std::nullopt;
    return pages_.file_offset() + view_.byte_offset;
}

void ResultReader::read(std::byte* dst, std::int64_t first, std::int64_t count) {
    const std::byte* bytes = chunk(first, count, dst);
    if (bytes != dst) std::copy(bytes, bytes + count * static_cast<std::int64_t>(itemsize_), dst);
}

const std::byte* ResultReader::chunk(std::int64_t first, std::int64_t count, std::byte* scratch) {
    const auto itemsize = static_cast<std::int64_t>(view_.itemsize);
    if (by_pread_) {
        // Read into the chunk, not handed out from the mapping: write() from a file mapping
        // was slower (docs/performance.md), and the reading overlaps the writing of the chunk
        // before.
        pages_.read(view_.byte_offset + first * itemsize, count * itemsize, scratch);
        copied(first, first + count);
        return scratch;
    }
    if (contiguous_) {
        // The sink may still be writing the previous chunk from the mapping; the one before it
        // is done with. (A contiguous view walks upwards: never backwards.)
        paging_.before(previous_first_);
        previous_first_ = first;
        return data_ + view_.byte_offset + first * itemsize;
    }
    if (gather_reads_ && !packs_) {
        gather_reads_.copy(pool(), scratch, first, count);
        return scratch;
    }
    if (bands_) {
        // Band by band: each is read when the copy first reaches it, the next read ahead. The
        // band of the chunk handed out before is kept: the sink may still be writing it.
        const int keep = handed_out_;
        handed_out_ = -1;
        for (std::int64_t at = first; at < first + count;) {
            // The bands count whole elements; an element larger than a chunk is handed out in parts.
            const RegionBands::Band band = bands_->band_of(at / units_per_element_, keep);
            const std::int64_t end = std::min(first + count, band.end * units_per_element_);
            if (at == first && end == first + count && bands_contiguous_) {
                handed_out_ = band.buffer;
                return band.base + view_.byte_offset + first * itemsize;
            }
            copy_pieces(band.base, at, end - at, scratch + (at - first) * static_cast<std::int64_t>(itemsize_));
            at = end;
        }
        return scratch;
    }
    copy_pieces(data_, first, count, scratch);
    return scratch;
}

void ResultReader::copy_pieces(const std::byte* data, std::int64_t first, std::int64_t count, std::byte* scratch) {
    const auto itemsize = static_cast<std::int64_t>(view_.itemsize);
    // Pieces of at most release_bytes read; a packed one, of chunk_bytes copied.
    const double bytes_per_piece = packs_ ? static_cast<double>(sizes_.chunk_bytes) : sizes_.release_bytes;
    const double bytes_per_element = packs_ ? static_cast<double>(itemsize) : bytes_read_per_element_;
    const std::int64_t pieces = std::clamp<std::int64_t>(
        static_cast<std::int64_t>(std::ceil(static_cast<double>(count) * bytes_per_element / bytes_per_piece)), 1,
        count);
    const auto written = static_cast<std::int64_t>(itemsize_);
    for (std::int64_t step = 0; step < pieces; ++step) {
        const std::int64_t piece = backwards_ ? pieces - 1 - step : step;
        const std::int64_t from = count * piece / pieces;
        const std::int64_t to = count * (piece + 1) / pieces;
        if (packs_) {
            whole_.resize(static_cast<std::size_t>((to - from) * itemsize));
            if (gather_reads_)
                gather_reads_.copy(pool(), whole_.data(), first + from, to - from);
            else
                copy_view_parallel(pool(), data, view_, whole_.data(), first + from, to - from, input_memory(pages_));
            pack_elements(*packs_, whole_.data(), to - from, scratch + from * written);
        } else {
            copy_view_parallel(pool(), data, view_, scratch + from * itemsize, first + from, to - from,
                               input_memory(pages_));
        }
        copied(first + from, first + to);
    }
}

}  // namespace tslice
