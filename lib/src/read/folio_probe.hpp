// How the page cache holds a mapped input, told by the faults that map it.
//
// Why it matters: Linux caches a file read in order in large folios (up to 2 MiB), and a fault
// on a mapping maps the whole folio it lands in; pages asked for (MADV_WILLNEED, fadvise) or
// read backwards enter the cache one 4 KiB page each, and a fault maps the 64 KiB around it.
// Reads through the mapping then take about ten times the faults (docs/performance.md), and a
// path that is quickest on the one cache is the slower on the other. Nothing but a fault tells them apart: mincore sees pages, not folios.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tslice/view.hpp"
#include "tslice/source.hpp"

namespace tslice {

// Page faults this thread has taken, minor and major.
std::int64_t faults_of_this_thread();

struct FolioProbe {
    int samples = 0;       // places probed
    int cached = 0;        // of those, places whose two pages were in the page cache
    int mapped_whole = 0;  // of those, places whose second page the first fault mapped

    // Whether most places were cached and mapped whole. Not where most were not cached: a
    // fault there waits for the device to read the kernel's read-around (as much as the
    // device's read_ahead_kb, 8 MiB on the development machine), of which a gather may need
    // one row.
    bool large_folios() const { return 2 * mapped_whole > samples; }
};

// Probes `samples` places spread over `span` (offsets from `data`, a mapping of the input):
// where two pages kFolioProbeDistance apart are both cached, touches the first and sees
// whether the second then faults. Touches nothing that is not cached (no read waits for the
// device) and hands each touched range to `pages.unmap`, so nothing stays mapped.
FolioProbe probe_folios(const std::byte* data, View::Span span, int samples, const InputPages& pages);

// Past the 64 KiB a fault maps around it (the kernel's default fault_around_bytes), within a
// folio of 256 KiB or more.
constexpr std::int64_t kFolioProbeDistance = 128 << 10;

}  // namespace tslice
