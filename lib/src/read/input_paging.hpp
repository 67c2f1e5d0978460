// The input's pages around a copy through a view, as it moves on: the bytes it has done with
// are given back, and the bytes it reads next are asked for ahead of it. Used by the result
// reader (result_reader.hpp) and by --stats, so that slicing a file larger than memory keeps only what is
// still to be read resident, and a cold file is read at the speed of its device, whatever the
// order the copy walks it in.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include "read/read_sizes.hpp"
#include "tslice/copy.hpp"
#include "tslice/source.hpp"
#include "tslice/view.hpp"

namespace tslice {

// How the copy reads data with these pages: a mapping it faults in, or memory the process
// holds (copy.hpp).
inline InputMemory input_memory(const InputPages& pages) {
    return pages.mapped() ? InputMemory::Mapped : InputMemory::Resident;
}

class InputPaging {
public:
    // Nothing is released or read ahead for data in memory (`pages` not mapped); a view
    // with a gather table is not read ahead (its reads are scattered), and is released only
    // where its walk leaves the rows of the input behind (a gather of columns, say).
    // `sizes` says how far ahead. `through_mapping`: whether the copy reads the input through
    // its mapping (not with pread), so that what it reads next may be mapped ahead of it.
    InputPaging(const View& view, const InputPages& pages, const ReadSizes& sizes, bool through_mapping = true);
    ~InputPaging();
    InputPaging(const InputPaging&) = delete;
    InputPaging& operator=(const InputPaging&) = delete;

    bool releases() const { return releases_; }
    bool reads_ahead() const { return block_elements_ > 0; }
    // The bytes the whole view reads.
    View::Span whole() const { return whole_; }
    // The elements a read ahead asks for at once, never crossing a block's end.
    std::int64_t block_elements() const { return block_elements_; }

    // Elements [element, end) are all that is left to read: the rest of the input goes, and
    // kLargestFolioBytes of what went before (within what the view reads); the elements after
    // `element` are asked for, as far as read_ahead_bytes reaches. A release reaches
    // kLargestFolioBytes back into what went before: a fault there maps its whole folio.
    void before(std::int64_t element);

private:
    // Bytes to ask for, and the element after the last that reads them.
    struct Request {
        View::Span span;
        std::int64_t end = 0;
    };
    void read_ahead_from(std::int64_t element);
    // Hands a request to the asking thread (started at the first), or makes it here.
    void ask(const Request& request);
    void asking();
    // Makes a request: reads its bytes in where it goes on from the last (read_in), else asks.
    void fetch(const View::Span& span);
    // The bytes elements [element, end) may still read (View::span_from, widened by the
    // table's entries for a gather).
    View::Span span_from(std::int64_t element) const;

    const View& view_;
    View affine_;  // a gather's view without its table
    std::int64_t table_low_ = 0, table_high_ = 0;
    bool table_reads_ = false;  // whether any table entry reads (is not kZeroElement)
    InputPages pages_;
    bool releases_ = false;
    std::atomic<bool> map_ahead_{false};  // cleared by the asking thread (see asking())
    std::int64_t read_in_bytes_ = 0;
    bool skip_cached_ = false;
    std::optional<View::Span> fetched_;  // the last request made (by one thread at a time)
    View::Span whole_, unread_;
    std::int64_t total_ = 0;
    std::int64_t block_elements_ = 0;  // 0: no read ahead
    std::int64_t ahead_elements_ = 0, step_elements_ = 0;
    std::int64_t asked_ = 0;  // elements before this one were asked for

    // Reading ahead (fetch: a walk without gaps read into the page cache, other ranges asked
    // for) is work the copy need not wait for (docs/performance.md). A thread of its own makes
    // the requests, in order; with
    // ReadSizes::read_ahead_thread unset, or where no thread can start, the copy's thread
    // does. That thread also maps what the copy reads through the mapping, kMapLag requests
    // behind what it asks for (mapping waits for the device, asking does not), so that the
    // copy's own reads do not fault; only what the page cache holds already (its last page
    // there): on a cold file, mapping ahead waited for each stretch before asking for the
    // next, and the whole was slower.
    static constexpr std::size_t kMapLag = 2;
    bool use_thread_ = false;
    std::optional<std::thread> asker_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<Request> requests_;
    bool stopping_ = false;
    std::atomic<std::int64_t> copied_{0};  // the copy has read the elements before this one
};

}  // namespace tslice
