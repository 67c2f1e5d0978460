// How a gather is read from a file (see gather_reads.hpp).
#include "read/gather_reads.hpp"

#include <algorithm>

#include "read/folio_probe.hpp"
#include "read/row_reads.hpp"

namespace tslice {

namespace {

// Places the probe of a gather's input samples: few enough that the probe costs a fraction of
// a millisecond (each place unmaps what its faults mapped), enough to see most of the input.
constexpr int kFolioSamples = 16;

}  // namespace

GatherReads::GatherReads(const std::byte* data, const View& view, const InputPages& pages, const ReadSizes& sizes)
    : view_(view), pages_(pages) {
    const bool long_rows = reads_gathered_rows(view, pages, sizes);
    if (ScatteredGather::suits(view, pages, sizes)) scattered_.emplace(data, view, pages, sizes);
    // Long rows spread far are read with pread unless the page cache holds the input in large
    // folios, which the mapping maps a folio per fault: then the scattered copy is quicker,
    // where on a cache of single pages it is the slower (docs/performance.md). A cold input
    // is read with pread, which asks for each chunk's rows at once.
    if (long_rows && scattered_ && !probe_folios(data, scattered_->hull(), kFolioSamples, pages).large_folios())
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
