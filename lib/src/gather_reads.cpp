// How a gather is read from a file (see gather_reads.hpp).
#include "gather_reads.hpp"

#include <algorithm>

#include "row_reads.hpp"

namespace tslice {

GatherReads::GatherReads(const std::byte* data, const View& view, const InputPages& pages, const WriteSizes& sizes)
    : view_(view), pages_(pages), reads_rows_(reads_gathered_rows(view, pages, sizes)) {
    if (!reads_rows_ && ScatteredGather::suits(view, pages, sizes)) scattered_.emplace(data, view, pages, sizes);
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
