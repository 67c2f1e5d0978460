// The chunks a box touches, and a decoded chunk's part inside it copied into place
// (chunk_place.hpp).
#include "source/chunk_place.hpp"

#include <algorithm>
#include <cstring>

namespace tslice {

ChunkGrid::ChunkGrid(const std::vector<std::int64_t>& chunk, const Box& box)
    : chunk_(chunk), first_(chunk.size()), across_(chunk.size()), box_(box) {
    for (std::size_t k = 0; k < chunk_.size(); ++k) {
        first_[k] = box.start[k] / chunk_[k];
        across_[k] = (box.stop[k] - 1) / chunk_[k] - first_[k] + 1;
        count_ *= across_[k];
    }
}

void ChunkGrid::at(std::int64_t n, Chunk& chunk) const {
    const std::size_t rank = chunk_.size();
    chunk.grid.resize(rank);
    chunk.origin.resize(rank);
    chunk.from.resize(rank);
    chunk.to.resize(rank);
    for (std::size_t k = rank; k-- > 0;) {
        chunk.grid[k] = first_[k] + n % across_[k];
        n /= across_[k];
        chunk.origin[k] = chunk.grid[k] * chunk_[k];
        chunk.from[k] = std::max(chunk.origin[k], box_.start[k]);
        chunk.to[k] = std::min(chunk.origin[k] + chunk_[k], box_.stop[k]);
    }
}

void place_chunk(const std::byte* chunk, const std::vector<std::int64_t>& chunk_strides, std::size_t itemsize,
                 const Box& box, const std::vector<std::int64_t>& origin, const std::vector<std::int64_t>& from,
                 const std::vector<std::int64_t>& to, std::byte* dst) {
    const std::size_t rank = chunk_strides.size();
    const auto item = static_cast<std::int64_t>(itemsize);
    if (rank == 0) {
        std::memcpy(dst, chunk, static_cast<std::size_t>(item));
        return;
    }
    const std::vector<std::int64_t>& src_stride = chunk_strides;
    std::vector<std::int64_t> dst_stride(rank);
    std::int64_t d = item;
    for (std::size_t k = rank; k-- > 0;) {
        dst_stride[k] = d;
        d *= box.stop[k] - box.start[k];
    }
    std::int64_t src0 = 0, dst0 = 0;
    for (std::size_t k = 0; k < rank; ++k) {
        src0 += (from[k] - origin[k]) * src_stride[k];
        dst0 += (from[k] - box.start[k]) * dst_stride[k];
    }
    const std::int64_t run = to[rank - 1] - from[rank - 1];
    const bool contiguous = src_stride[rank - 1] == item;
    std::vector<std::int64_t> at(rank, 0);
    for (;;) {
        std::int64_t so = src0, dof = dst0;
        for (std::size_t k = 0; k + 1 < rank; ++k) so += at[k] * src_stride[k], dof += at[k] * dst_stride[k];
        if (contiguous) {
            std::memcpy(dst + dof, chunk + so, static_cast<std::size_t>(run * item));
        } else {
            for (std::int64_t i = 0; i < run; ++i)
                std::memcpy(dst + dof + i * item, chunk + so + i * src_stride[rank - 1], static_cast<std::size_t>(item));
        }
        std::size_t k = rank - 1;
        for (;;) {
            if (k == 0) return;
            --k;
            if (++at[k] < to[k] - from[k]) break;
            at[k] = 0;
        }
    }
}

}  // namespace tslice
