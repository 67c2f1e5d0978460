// How a gather is read from a file (see gather_reads.hpp).
#include "read/gather_reads.hpp"

#include <algorithm>

#include "read/folio_probe.hpp"
#include "read/row_reads.hpp"

namespace tslice {

namespace {

// Places the probe of a gather's input samples: 0.10 ms in all on a 1 GiB input cached in large
// folios, 0.24 ms on one cached in single pages (each place unmaps what its faults mapped).
constexpr int kFolioSamples = 16;

}  // namespace

GatherReads::GatherReads(const std::byte* data, const View& view, const InputPages& pages, const WriteSizes& sizes)
    : view_(view), pages_(pages) {
    const bool long_rows = reads_gathered_rows(view, pages, sizes);
    if (ScatteredGather::suits(view, pages, sizes)) scattered_.emplace(data, view, pages, sizes);
    // Long rows spread far are read with pread unless the page cache holds the input in large
    // folios, which the mapping maps a folio per fault: then the scattered copy is quicker
    // (100,000 rows of 1 KiB from a 1 GiB file: 70 against 90 ms for the whole run, where on
    // a cache of single pages it took 143 against 89; docs/performance-log.md). A cold input
    // is read with pread, which asks for each chunk's rows at once.
    if (long_rows && scattered_ && !probe_folios(data, scattered_->hull(), kFolioSamples, pages.unmap).large_folios())
        scattered_.reset();
    reads_rows_ = long_rows && !scattered_;
}

void GatherReads::copy(WorkerPool& pool, std::byte* dst, std::int64_t first, std::int64_t count) {
    if (scattered_) {
        scattered_->copy(pool, dst, first, count);
        return;
    }
    // A cold input's next rows are asked for while these are read: as many as these.
    read_gathered_rows(pool, view_, pages_, dst, first, count, std::min(count, view_.element_count() - first - count));
}

}  // namespace tslice
