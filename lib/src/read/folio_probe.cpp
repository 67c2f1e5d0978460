// Probing how a mapped input's pages are held (see folio_probe.hpp).
#include "read/folio_probe.hpp"

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

namespace tslice {

std::int64_t faults_of_this_thread() {
    rusage usage{};
    if (::getrusage(RUSAGE_THREAD, &usage) != 0) return 0;
    return usage.ru_minflt + usage.ru_majflt;
}

namespace {

bool page_cached(std::uintptr_t page, std::uintptr_t page_bytes) {
    unsigned char resident = 0;
    return ::mincore(reinterpret_cast<void*>(page), page_bytes, &resident) == 0 && (resident & 1) != 0;
}

// Reads the byte at `address`, unchecked by AddressSanitizer, which would first read its
// shadow of the byte: a fault there would count as the probe's.
__attribute__((noinline, no_sanitize("address"))) void touch(std::uintptr_t address) {
    (void)*reinterpret_cast<const volatile std::byte*>(address);
}

}  // namespace

FolioProbe probe_folios(const std::byte* data, View::Span span, int samples, const InputPages& pages) {
    FolioProbe probe;
    const auto page_bytes = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto base = reinterpret_cast<std::uintptr_t>(data);
    // Whole pages of the span only: the pages at its ends may hold bytes of something else.
    const std::uintptr_t first = (base + static_cast<std::uintptr_t>(span.begin) + page_bytes - 1) / page_bytes * page_bytes;
    const std::uintptr_t end = (base + static_cast<std::uintptr_t>(span.end)) / page_bytes * page_bytes;
    const auto reach = static_cast<std::uintptr_t>(kFolioProbeDistance) + page_bytes;
    if (samples <= 0 || end < first + reach) return probe;
    const std::uintptr_t room = end - reach - first;  // where a sample may start, from `first`
    probe.samples = samples;
    for (int k = 0; k < samples; ++k) {
        const std::uintptr_t near =
            first + (room / static_cast<std::uintptr_t>(samples)) * static_cast<std::uintptr_t>(k) / page_bytes * page_bytes;
        const std::uintptr_t far = near + static_cast<std::uintptr_t>(kFolioProbeDistance);
        if (!page_cached(near, page_bytes) || !page_cached(far, page_bytes)) continue;
        ++probe.cached;
        touch(near);
        const std::int64_t faults = faults_of_this_thread();
        touch(far);
        if (faults_of_this_thread() == faults) ++probe.mapped_whole;
        // What the faults may have mapped: the folios of up to 2 MiB the two pages are in.
        const auto offset = static_cast<std::int64_t>(near - base);
        if (pages.mapped())
            pages.unmap(std::max(span.begin, offset - kLargestFolioBytes),
                        std::min(span.end, offset + kFolioProbeDistance + kLargestFolioBytes));
    }
    return probe;
}

}  // namespace tslice
