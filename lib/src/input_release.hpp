// The input bytes a copy through a view has done with, given back as it moves on: by the
// write stage and by the text writers, so that slicing a file larger than memory keeps only
// what is still to be read resident.
#pragma once

#include <algorithm>
#include <cstdint>

#include "tslice/view.hpp"
#include "tslice/write.hpp"

namespace tslice {

class InputRelease {
public:
    // How far each release reaches back into what was released before: a file's page cache
    // may hold large folios (up to a PMD, 2 MiB with 4 KiB pages on x86-64 and arm64), and a
    // fault on one maps the whole folio back in, the part released before included.
    static constexpr std::int64_t kRefaultBytes = std::int64_t{2} << 20;

    // Nothing is released without `release`, or for a view with a gather table (its reads
    // are scattered).
    InputRelease(const View& view, const ReleaseInput& release)
        : view_(view), release_(view.has_table() ? ReleaseInput{} : release), whole_(view.span_from(0)),
          unread_(whole_) {}

    bool active() const { return static_cast<bool>(release_); }
    // The bytes the whole view reads.
    View::Span whole() const { return whole_; }

    // Elements [element, end) are all that is left to read: the rest of the input goes, and
    // kRefaultBytes of what went before (within what the view reads).
    void before(std::int64_t element) {
        if (!release_) return;
        const View::Span still = view_.span_from(element);
        release_(std::max(whole_.begin, unread_.begin - kRefaultBytes), still.begin);
        release_(still.end, std::min(whole_.end, unread_.end + kRefaultBytes));
        unread_ = still;
    }

private:
    const View& view_;
    ReleaseInput release_;
    View::Span whole_, unread_;
};

}  // namespace tslice
