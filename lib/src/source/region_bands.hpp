// A region source's box read a band at a time, for a result that walks the box's first axis
// (either way): the copy asks for the band holding the elements it copies next, which is read
// (the source decodes only the chunks the band touches, in parallel) into one of three or four
// buffers made once, and the one or two bands after it are read ahead. Never more than four
// bands are held, so a box larger than memory costs no spool, and no page is faulted in twice.
//
// A band is a run of rows of the box's first axis, the rows of whole chunks where the source
// is chunked, so that no chunk is decoded for two bands.
#pragma once

#include <cstddef>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tslice/source.hpp"
#include "tslice/view.hpp"

namespace tslice {

// What the bands may hold at most (three are held: the one copied, the one the sink may
// still write from, the one read ahead; a fourth, read ahead after it, where it fits): 64 MiB,
// or more where the source is chunked and many threads read it, so that a band holds a chunk
// for more workers (bands_limit_bytes).
constexpr std::int64_t kBandsLimitBytes = std::int64_t{64} << 20;
std::int64_t bands_limit_bytes(const std::vector<std::int64_t>& chunks, std::size_t itemsize, unsigned threads);

// How a result's elements fall into bands of the box's first axis.
struct BandLayout {
    std::int64_t band_rows = 1;     // rows of the array's first axis per band (bands start at multiples)
    std::int64_t row_bytes = 1;     // bytes of one row of the box
    std::int64_t inner = 1;         // result elements per step of the result's walking axis
    std::int64_t steps = 1;         // the walking axis's length
    std::int64_t first_row = 0;     // the box row (from the box's start) of the first element
    std::int64_t rows_per_step = 0;  // box rows the walking axis moves by per step (0: one step; < 0: up)
    int ahead = 1;                   // bands read ahead of the one copied: 1, or 2 where four bands fit
};

// The layout of `result` (a view over the box's bytes in C order, from offset 0; see
// ArrayData::open) in bands, or nullopt where it cannot be read so: a table (a gather), inner
// axes that cross a row of the first axis, or
// bands of at least a chunk row that would not fit `limit_bytes` three times. `chunks`: the
// source's chunk shape (empty: rows need no alignment); `threads`: a band holds at least
// a chunk per thread where it can, so that each band keeps every worker busy; a second band is
// read ahead where four bands and the workers' chunks fit the bound bands_limit_bytes keeps.
std::optional<BandLayout> band_layout(const View& result, const Box& box, std::size_t itemsize,
                                      const std::vector<std::int64_t>& chunks, unsigned threads,
                                      std::int64_t limit_bytes);

class RegionBands {
public:
    // `file` names the input in the errors of a read.
    RegionBands(std::shared_ptr<const RegionSource> source, ArrayInFile array, Box box, BandLayout layout,
                unsigned threads, std::string file);
    RegionBands(const RegionBands&) = delete;
    RegionBands& operator=(const RegionBands&) = delete;
    ~RegionBands();

    struct Band {
        const std::byte* base;  // box byte b of this band is at base + b
        std::int64_t end;       // the first result element past this band
        int buffer;             // which buffer holds it, for `keep`
    };
    // The band holding result element `element`, read unless it is held or being read ahead;
    // the bands after it (layout.ahead) are then read ahead, on threads of their own. The buffer
    // `keep` (-1: none), whose bytes the caller handed out before, is not read into.
    Band band_of(std::int64_t element, int keep = -1);

private:
    // The band copied, the one handed out before, those read ahead.
    static constexpr int kMostBuffers = 4;

    // Reads `band` into `buffer` on `threads` workers.
    void read_band(std::int64_t band, int buffer, unsigned threads);
    void ahead();  // the read-ahead thread's loop
    // The band of result element `element`.
    std::int64_t band_index(std::int64_t element) const;
    // The first result element past band `band`, from `element` in it, in the walk's order.
    std::int64_t band_end(std::int64_t band, std::int64_t element) const;
    // A buffer other than `keep_a`, `keep_b` and those being read into, one that holds no
    // band wanted ahead, or (`or_wanted`) one that does where there is no other; -1 where
    // there is none. Under the lock.
    int free_buffer(int keep_a, int keep_b, bool or_wanted) const;
    int held(std::int64_t band) const;
    bool being_read(std::int64_t band) const;
    // The next band to read ahead and a buffer for it, or {-1, -1}. Under the lock.
    std::pair<std::int64_t, int> next_ahead() const;

    std::shared_ptr<const RegionSource> source_;
    ArrayInFile array_;
    Box box_;
    BandLayout layout_;
    unsigned threads_;
    std::string file_;
    std::int64_t total_;  // the result's elements
    int buffers_count_;            // 2 + layout.ahead
    // Threads reading ahead: layout.ahead; 1 on one thread, or where the source reads one box
    // at a time (reads_side_by_side).
    int readers_;
    unsigned threads_per_read_;    // the workers of a read ahead: threads_ shared by the readers
    std::vector<std::byte> buffers_[kMostBuffers];
    std::int64_t held_[kMostBuffers] = {-1, -1, -1, -1};  // the band each buffer holds (complete)

    // The read ahead: the bands after the one copied, in order, on the readers_ threads, into
    // buffers neither copied nor handed out; asked for and waited on under the lock.
    std::mutex lock_;
    std::condition_variable changed_;
    std::int64_t wanted_[2] = {-1, -1};  // the bands to read ahead, nearest first; -1: none
    int in_use_[2] = {-1, -1};           // the buffers copied and handed out
    std::int64_t reading_[kMostBuffers] = {-1, -1, -1, -1};  // the band being read ahead into each buffer
    bool reading_here_ = false;  // the copy's thread reads the band it needs, on every thread
    std::exception_ptr ahead_error_;
    std::int64_t ahead_failed_band_ = -1;
    bool stopping_ = false;
    std::vector<std::thread> threads_ahead_;
};

}  // namespace tslice
