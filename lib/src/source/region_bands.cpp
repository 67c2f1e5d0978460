// A region source's box read a band at a time (region_bands.hpp).
#include "source/region_bands.hpp"

#include <algorithm>
#include <utility>

#include "tslice/error.hpp"
#include "tslice/threads.hpp"

namespace tslice {
namespace {

// Rows of an unchunked source per band: enough for reads of a few MiB.
constexpr std::int64_t kUnchunkedBandBytes = std::int64_t{8} << 20;

}  // namespace

// A read in bands holds three bands, and each busy worker a chunk's stored bytes and the chunk
// decoded: with bands of n chunks, 3 n c + 2 c min(n, T) for chunks of c bytes and T threads,
// besides what the program itself holds (about 16 MiB). The bound it keeps is the one tslice
// promises for a chunked read, 64 MiB and two chunks per thread: so for n <= T,
// 3 n c + 2 n c <= 48 MiB + 2 c T. (band_layout adds a fourth band where it still fits.)
std::int64_t bands_limit_bytes(const std::vector<std::int64_t>& chunks, std::size_t itemsize, unsigned threads) {
    if (chunks.empty()) return kBandsLimitBytes;
    std::int64_t chunk_bytes = static_cast<std::int64_t>(itemsize);
    for (const std::int64_t length : chunks) chunk_bytes *= length;
    if (chunk_bytes <= 0) return kBandsLimitBytes;
    const std::int64_t most_chunks =
        std::min<std::int64_t>(threads, ((std::int64_t{48} << 20) + 2 * chunk_bytes * threads) / (5 * chunk_bytes));
    return std::max(kBandsLimitBytes, 3 * most_chunks * chunk_bytes);
}

std::optional<BandLayout> band_layout(const View& result, const Box& box, std::size_t itemsize,
                                      const std::vector<std::int64_t>& chunks, unsigned threads,
                                      std::int64_t limit_bytes) {
    const std::size_t rank = box.start.size();
    if (rank == 0 || result.has_table() || result.element_count() == 0 || box.element_count() == 0) return std::nullopt;
    BandLayout layout;
    layout.row_bytes = static_cast<std::int64_t>(itemsize);
    for (std::size_t k = 1; k < rank; ++k) layout.row_bytes *= box.stop[k] - box.start[k];
    const std::int64_t rows = box.stop[0] - box.start[0];
    const std::int64_t offset = result.byte_offset;
    if (offset < 0 || offset >= rows * layout.row_bytes) return std::nullopt;

    const std::int64_t in_row = offset % layout.row_bytes;
    layout.first_row = offset / layout.row_bytes;
    // The reach of the axes from `from` on, in bytes from an element's first.
    const auto reach_from = [&](std::size_t from) {
        std::pair<std::int64_t, std::int64_t> span{0, static_cast<std::int64_t>(result.itemsize)};
        for (std::size_t k = from; k < result.rank(); ++k) {
            const std::int64_t reach = (result.shape[k] - 1) * result.byte_strides[k];
            (reach < 0 ? span.first : span.second) += reach;
        }
        return span;
    };
    const auto within_row = [&](std::pair<std::int64_t, std::int64_t> span) {
        return in_row + span.first >= 0 && in_row + span.second <= layout.row_bytes;
    };
    if (within_row(reach_from(0))) {
        // The whole result lies in one row: one step.
        layout.inner = result.element_count();
    } else {
        // The walking axis: the first of more than one element; every element of one of its
        // steps must lie in one row of the box, and the steps must go down the rows.
        std::size_t walk = 0;
        while (result.shape[walk] < 2) ++walk;
        const std::int64_t stride = result.byte_strides[walk];
        if (stride == 0 || stride % layout.row_bytes != 0 || !within_row(reach_from(walk + 1))) return std::nullopt;
        layout.steps = result.shape[walk];
        layout.rows_per_step = stride / layout.row_bytes;
        for (std::size_t k = walk + 1; k < result.rank(); ++k) layout.inner *= result.shape[k];
        const std::int64_t last_row = layout.first_row + (layout.steps - 1) * layout.rows_per_step;
        if (last_row < 0 || last_row >= rows) return std::nullopt;
    }

    // Whole chunk rows per band: a chunk per thread where three bands fit the limit. (Bands
    // of four chunks at most, while 16 threads waited, made a Zarr read on the 16-core Xeon
    // stop gaining from 4 threads on: 500 ms on one, 208 on four, 206 on sixteen.)
    std::int64_t chunks_per_band = 0;  // 0: unchunked
    if (chunks.size() == rank) {
        std::int64_t across = 1;
        for (std::size_t k = 1; k < rank; ++k)
            across *= (box.stop[k] - 1) / chunks[k] - box.start[k] / chunks[k] + 1;
        const std::int64_t chunk_row_bytes = std::min(chunks[0], rows) * layout.row_bytes;
        if (3 * chunk_row_bytes > limit_bytes) return std::nullopt;
        std::int64_t per_band = 1;
        while (per_band * across < static_cast<std::int64_t>(threads) &&
               (per_band + 1) * chunk_row_bytes <= limit_bytes / 3)
            ++per_band;
        layout.band_rows = per_band * chunks[0];
        chunks_per_band = per_band * across;
    } else {
        layout.band_rows = std::max<std::int64_t>(1, std::min(kUnchunkedBandBytes, limit_bytes / 3) / layout.row_bytes);
        if (3 * layout.row_bytes > limit_bytes) return std::nullopt;
    }
    // A second band read ahead, where four bands fit. With one, a band's workers wait for its
    // slowest (while the band copied is written out, three threads share two cores), and then
    // for the copy to reach the next band: a Zarr read on 2 cores kept 1.47 of them busy. With
    // two, each is read on half the threads, beside the other (RegionBands::readers). For a
    // chunked source, within the bound bands_limit_bytes keeps, with the workers' chunks.
    const std::int64_t band_bytes = std::min(layout.band_rows, rows) * layout.row_bytes;
    bool fourth = 4 * band_bytes <= limit_bytes;
    if (chunks_per_band > 0 && fourth) {
        std::int64_t chunk_bytes = static_cast<std::int64_t>(itemsize);
        for (const std::int64_t length : chunks) chunk_bytes *= length;
        const std::int64_t readers = threads >= 2 ? 2 : 1;
        const std::int64_t workers = readers * std::min<std::int64_t>(chunks_per_band, threads / readers);
        fourth = 4 * band_bytes + 2 * chunk_bytes * workers <= (std::int64_t{48} << 20) + 2 * chunk_bytes * threads;
    }
    layout.ahead = fourth ? 2 : 1;
    return layout;
}

RegionBands::RegionBands(std::shared_ptr<const RegionSource> source, ArrayInFile array, Box box, BandLayout layout,
                         unsigned threads, std::string file)
    : source_(std::move(source)),
      array_(std::move(array)),
      box_(std::move(box)),
      layout_(layout),
      threads_(std::max(1u, threads)),
      file_(std::move(file)),
      total_(layout.steps * layout.inner),
      buffers_count_(2 + std::clamp(layout.ahead, 1, kMostBuffers - 2)),
      readers_(threads_ >= 2 && source_->reads_side_by_side() ? buffers_count_ - 2 : 1),
      threads_per_read_(threads_ / static_cast<unsigned>(readers_)) {
    // Without threads of their own, bands are read when they are reached.
    for (int i = 0; i < readers_; ++i)
        if (std::optional<std::thread> thread = try_start_thread([this] { ahead(); }))
            threads_ahead_.push_back(std::move(*thread));
}

RegionBands::~RegionBands() {
    {
        const std::lock_guard<std::mutex> lock(lock_);
        stopping_ = true;
    }
    changed_.notify_all();
    for (std::thread& thread : threads_ahead_) thread.join();
}

std::int64_t RegionBands::band_index(std::int64_t element) const {
    const std::int64_t row = layout_.first_row + element / layout_.inner * layout_.rows_per_step;  // from the box's start
    return (box_.start[0] + row) / layout_.band_rows;
}

std::int64_t RegionBands::band_end(std::int64_t band, std::int64_t element) const {
    const BandLayout& l = layout_;
    const std::int64_t end_row = std::min((band + 1) * l.band_rows, box_.stop[0]) - box_.start[0];
    const std::int64_t begin_row = std::max(band * l.band_rows, box_.start[0]) - box_.start[0];
    std::int64_t steps = l.steps;
    // The steps up to the band's edge in the walk's direction: its end going down the rows, its
    // beginning going up them.
    if (l.rows_per_step > 0)
        steps = std::min(steps, (end_row - l.first_row + l.rows_per_step - 1) / l.rows_per_step);
    else if (l.rows_per_step < 0)
        steps = std::min(steps, (l.first_row - begin_row) / -l.rows_per_step + 1);
    return std::max(element + 1, steps * l.inner);
}

int RegionBands::held(std::int64_t band) const {
    for (int b = 0; b < buffers_count_; ++b)
        if (held_[b] == band) return b;
    return -1;
}

bool RegionBands::being_read(std::int64_t band) const {
    for (int b = 0; b < buffers_count_; ++b)
        if (reading_[b] == band) return true;
    return false;
}

int RegionBands::free_buffer(int keep_a, int keep_b, bool or_wanted) const {
    int wanted = -1;
    for (int buffer = 0; buffer < buffers_count_; ++buffer) {
        if (buffer == keep_a || buffer == keep_b || reading_[buffer] >= 0) continue;
        if (held_[buffer] < 0 || (held_[buffer] != wanted_[0] && held_[buffer] != wanted_[1])) return buffer;
        wanted = buffer;
    }
    return or_wanted ? wanted : -1;
}

std::pair<std::int64_t, int> RegionBands::next_ahead() const {
    for (const std::int64_t band : wanted_) {
        if (band < 0 || band == ahead_failed_band_ || held(band) >= 0 || being_read(band)) continue;
        // A buffer that holds a band wanted nearer stays as it is.
        const int buffer = free_buffer(in_use_[0], in_use_[1], false);
        return buffer < 0 ? std::pair<std::int64_t, int>{-1, -1} : std::pair<std::int64_t, int>{band, buffer};
    }
    return {-1, -1};
}

void RegionBands::read_band(std::int64_t band, int buffer, unsigned threads) {
    const BandLayout& l = layout_;
    std::vector<std::byte>& memory = buffers_[buffer];
    if (memory.empty()) memory.resize(static_cast<std::size_t>(std::min(l.band_rows, box_.stop[0] - box_.start[0]) * l.row_bytes));
    Box part = box_;
    part.start[0] = std::max(band * l.band_rows, box_.start[0]);
    part.stop[0] = std::min((band + 1) * l.band_rows, box_.stop[0]);
    try {
        source_->read(array_, part, memory.data(), threads, {});
    } catch (const Error& error) {
        throw error_about_file(error, file_);
    }
}

void RegionBands::ahead() {
    std::unique_lock<std::mutex> lock(lock_);
    for (;;) {
        std::pair<std::int64_t, int> next{-1, -1};
        changed_.wait(lock, [&] { return stopping_ || (!reading_here_ && (next = next_ahead()).first >= 0); });
        if (stopping_) return;
        const auto [band, buffer] = next;
        reading_[buffer] = band;
        held_[buffer] = -1;
        lock.unlock();
        std::exception_ptr error;
        try {
            read_band(band, buffer, threads_per_read_);
        } catch (...) {
            error = std::current_exception();
        }
        lock.lock();
        if (error) {
            ahead_error_ = error;
            ahead_failed_band_ = band;
        } else {
            held_[buffer] = band;
        }
        reading_[buffer] = -1;
        changed_.notify_all();
    }
}

RegionBands::Band RegionBands::band_of(std::int64_t element, int keep) {
    const BandLayout& l = layout_;
    const std::int64_t band = band_index(element);
    const std::int64_t begin_row = std::max(band * l.band_rows, box_.start[0]) - box_.start[0];
    const std::int64_t end = band_end(band, element);

    std::unique_lock<std::mutex> lock(lock_);
    // The buffer copied before is done with, unless it holds this band (no read ahead takes it
    // while this call waits); the one handed out (`keep`) is not.
    in_use_[0] = held(band);
    in_use_[1] = keep;
    // A read ahead of this band finishes first. (A band held is handed out while the next one
    // is read.)
    changed_.wait(lock, [&] { return !being_read(band); });
    if (ahead_failed_band_ == band) std::rethrow_exception(ahead_error_);
    int buffer = held(band);
    if (buffer < 0) {
        // Read here, on every thread, once no read ahead is in flight; none starts meanwhile
        // (the bands wanted follow this one).
        wanted_[0] = wanted_[1] = -1;
        changed_.wait(lock, [&] { return std::count(reading_, reading_ + kMostBuffers, -1) == kMostBuffers; });
        buffer = free_buffer(keep, -1, true);
        held_[buffer] = -1;  // a read that fails leaves the buffer holding nothing
        in_use_[0] = buffer;
        reading_here_ = true;
        lock.unlock();
        try {
            read_band(band, buffer, threads_);
        } catch (...) {
            lock.lock();
            reading_here_ = false;
            changed_.notify_all();
            throw;
        }
        lock.lock();
        reading_here_ = false;
        held_[buffer] = band;
    }
    in_use_[0] = buffer;
    if (!threads_ahead_.empty()) {
        // The bands after this one, in the walk's order.
        std::int64_t at = end;
        for (int i = 0; i < 2; ++i) {
            wanted_[i] = -1;
            if (i < buffers_count_ - 2 && at < total_) {
                wanted_[i] = band_index(at);
                at = band_end(wanted_[i], at);
            }
        }
        changed_.notify_all();
    }
    return {buffers_[buffer].data() - begin_row * l.row_bytes, end, buffer};
}

}  // namespace tslice
