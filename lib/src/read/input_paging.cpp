// Why tslice asks for its input ahead instead of leaving it to the kernel: a mapping's faults
// get the kernel's read-around (a window centred on each fault), which keeps a forward walk
// busy but not a backward one ([::-1] reads each window's pages after the fault that brought
// them in), nor one that skips ([::4] starts a new small window at every row). Asking for the
// next stretch of the bytes the copy will read, in the order it reads them, lets the device
// stream whatever that order is; on a file already in the page cache the request finds every
// page there (measured warm, with and without: no slower).
#include "read/input_paging.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "read/folio_probe.hpp"
#include "tslice/threads.hpp"

namespace tslice {

namespace {

// The bytes of pages the elements of one block of trailing axes [axis, rank) touch, at most:
// a row of an axis takes its inner block's pages, or at least the page its stride crosses,
// and never more than the block's hull.
struct TrailingBlock {
    std::int64_t elements = 1;
    std::int64_t hull = 0;       // from its lowest byte to its highest
    std::int64_t footprint = 0;  // the bytes of the pages it reads, about
};

}  // namespace

InputPaging::InputPaging(const View& view, const InputPages& pages, const ReadSizes& sizes, bool through_mapping)
    : view_(view), pages_(pages), releases_(pages.mapped()), total_(view.element_count()) {
    if (view.has_table()) {
        affine_ = view;
        affine_.table = nullptr;
        affine_.table_strides.clear();
        if (releases_)
            if (const std::optional<View::EntryRange> entries = view.table_entry_range()) {
                table_low_ = entries->low;
                table_high_ = entries->high;
                table_reads_ = true;
            }
    }
    whole_ = unread_ = span_from(0);
    if (view.has_table()) return;
    if (!pages.mapped() || total_ == 0 || sizes.read_ahead_bytes <= 0) return;

    // The largest block of trailing axes the copy reads at least half the pages of: inside
    // one, the next elements' hull is what they read; past one, it may be mostly gaps (the
    // rows [::4] skips), so a read ahead never crosses a block's end.
    TrailingBlock block{1, static_cast<std::int64_t>(view.itemsize), static_cast<std::int64_t>(view.itemsize)};
    for (std::size_t axis = view.rank(); axis-- > 0;) {
        const std::int64_t length = view.shape[axis], stride = std::llabs(view.byte_strides[axis]);
        if (length == 1) continue;
        TrailingBlock outer;
        outer.elements = block.elements * length;
        outer.hull = block.hull + (length - 1) * stride;
        outer.footprint =
            std::min(outer.hull, length * std::max(block.footprint, std::min(std::max<std::int64_t>(stride, 1), kPageBytes)));
        if (2 * outer.footprint < outer.hull) break;
        block = outer;
    }
    if (block.hull < sizes.read_ahead_block_bytes) return;
    read_in_bytes_ = sizes.read_in_bytes;
    skip_cached_ = sizes.read_in_skips_cached;
    block_elements_ = block.elements;
    const double bytes_per_element = static_cast<double>(block.hull) / static_cast<double>(block.elements);
    ahead_elements_ = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(sizes.read_ahead_bytes / bytes_per_element)));
    // Asked for a quarter of the distance at a time: the device always has the next stretch
    // queued, and the calls stay few.
    step_elements_ = std::max<std::int64_t>(1, ahead_elements_ / 4);
    use_thread_ = sizes.read_ahead_thread;
    // Mapping ahead pays where the copy would fault more than it copies: a result of at most
    // a quarter of the bytes it reads. On two cores a result as large as the input was
    // slower so: the mapping took CPU time from the writing (docs/performance.md). Measured
    // on page caches of single pages (files written with write()); on one of large folios it
    // neither paid nor cost (docs/performance.md).
    const std::int64_t result_bytes = total_ * static_cast<std::int64_t>(view.itemsize);
    map_ahead_ = through_mapping && use_thread_ && 4 * result_bytes <= whole_.end - whole_.begin;
    read_ahead_from(0);
}

InputPaging::~InputPaging() {
    if (!asker_) return;
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;  // requests still queued are advice no one needs any more
    }
    wake_.notify_one();
    asker_->join();
}

void InputPaging::ask(const Request& request) {
    if (use_thread_ && !asker_) {
        asker_ = try_start_thread([this] { asking(); });
        use_thread_ = asker_.has_value();
    }
    if (!use_thread_) {
        fetch(request.span);
        return;
    }
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        requests_.push_back(request);
    }
    wake_.notify_one();
}

void InputPaging::asking() {
    std::deque<Request> to_map;  // asked for, not mapped yet
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        wake_.wait(lock, [this] { return stopping_ || !requests_.empty(); });
        if (stopping_) return;
        const Request request = requests_.front();
        requests_.pop_front();
        lock.unlock();
        fetch(request.span);
        if (map_ahead_.load(std::memory_order_relaxed)) {
            to_map.push_back(request);
            if (to_map.size() > kMapLag) {
                const Request next = to_map.front();
                to_map.pop_front();
                // Not what the copy has read already (and perhaps released).
                std::byte last{};
                if (next.end > copied_.load(std::memory_order_relaxed) && next.span.begin < next.span.end &&
                    pages_.read_cached(next.span.end - 1, 1, &last) == 1) {
                    pages_.map_ahead(next.span.begin, next.span.end);
                }
            }
        }
        lock.lock();
    }
}

void InputPaging::fetch(const View::Span& span) {
    // A walk without gaps, forwards or backwards (each request touches the last), is read in
    // (see Mapping::read_in: the page cache then holds large folios, and it was faster cold).
    // Requests with gaps between them are asked for, so that the device reads them together:
    // read in one after another, each waits for the device, which made [::4] twice as slow
    // (docs/performance.md). (A backward walk whose blocks
    // take several requests, read forwards, jumps back at each block: its first request there
    // is asked for, the rest read in.)
    //
    // Where the page cache holds the stretch already (its first, middle and last pages, asked
    // without reading), nothing is read in: sendfile would only walk the cached pages, and on
    // a warm file that walk was a sixth of the CPU time of --stats, taken from the threads
    // that reduce (docs/performance-log.md).
    const bool goes_on = !fetched_ || (span.begin <= fetched_->end && span.end >= fetched_->begin);
    fetched_ = span;
    if (goes_on && span.end - span.begin >= read_in_bytes_) {
        const bool held = skip_cached_ && pages_.cached(span.begin) && pages_.cached(span.begin + (span.end - span.begin) / 2) &&
                          pages_.cached(span.end - 1);
        if (!held) pages_.read_in(span.begin, span.end);
    } else {
        pages_.read_ahead(span.begin, span.end);
    }
}

View::Span InputPaging::span_from(std::int64_t element) const {
    if (!view_.has_table()) return view_.span_from(element);
    if (!table_reads_ || element >= total_) return {};
    const View::Span affine = affine_.span_from(element);
    return {affine.begin + table_low_, affine.end + table_high_};
}

void InputPaging::before(std::int64_t element) {
    copied_.store(element, std::memory_order_relaxed);
    if (releases_) {
        const View::Span still = span_from(element);
        const std::int64_t below = std::max(whole_.begin, unread_.begin - kLargestFolioBytes);
        const std::int64_t above = std::min(whole_.end, unread_.end + kLargestFolioBytes);
        pages_.release(below, still.begin);  // either may be empty: nothing goes
        pages_.release(still.end, above);
        unread_ = still;
    }
    if (reads_ahead()) read_ahead_from(element);
}

void InputPaging::read_ahead_from(std::int64_t element) {
    asked_ = std::max(asked_, element);
    const std::int64_t horizon = std::min(total_, element + ahead_elements_);
    while (asked_ < horizon) {
        const std::int64_t block_end = (asked_ / block_elements_ + 1) * block_elements_;
        const std::int64_t end = std::min({asked_ + step_elements_, block_end, total_});
        ask({view_.span_of(asked_, end), end});
        asked_ = end;
    }
}

}  // namespace tslice
