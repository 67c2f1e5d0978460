// The copy split over the pool (the pool itself, like every thread tslice starts, is the
// ground floor's: base/threads.cpp).
#include "tslice/threads.hpp"

#include <algorithm>

#include "tslice/copy.hpp"

namespace tslice {

void copy_view_parallel(WorkerPool& pool, const std::byte* src, const View& view, std::byte* dst,
                        std::int64_t first, std::int64_t count, InputMemory memory) {
    constexpr std::int64_t kMinBytesPerPart = std::int64_t{1} << 20;
    const auto itemsize = static_cast<std::int64_t>(view.itemsize);
    const std::int64_t by_size = std::max<std::int64_t>(1, count * itemsize / kMinBytesPerPart);
    const auto parts = static_cast<unsigned>(std::min<std::int64_t>(pool.size(), by_size));
    if (parts <= 1) {
        copy_view(src, view, dst, first, count, memory);
        return;
    }
    const std::int64_t share = count / parts;
    pool.run(parts, [&](unsigned part) {
        const std::int64_t begin = part * share;
        const std::int64_t length = part + 1 == parts ? count - begin : share;
        copy_view(src, view, dst + begin * itemsize, first + begin, length, memory);
    });
}

}  // namespace tslice
