// A region source's box read a band at a time, for a result that walks the box's first axis
// (either way): the copy asks for the band holding the elements it copies next, which is read
// (the source decodes only the chunks the band touches, in parallel) into one of three buffers
// made once, and the band after it is read ahead. Never more than three bands are held, so a
// box larger than memory costs no spool, and no page is faulted in twice.
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
#include <vector>

#include "tslice/source.hpp"
#include "tslice/view.hpp"

namespace tslice {

// What the bands may hold at most (three are held: the one copied, the one the sink may
// still write from, the one read ahead): 64 MiB, or more where the source is chunked and many
// threads read it, so that a band holds a chunk for more workers (bands_limit_bytes).
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
};

// The layout of `result` (a view over the box's bytes in C order, from offset 0; see
// ArrayData::open) in bands, or nullopt where it cannot be read so: a table (a gather), inner
// axes that cross a row of the first axis, or
// bands of at least a chunk row that would not fit `limit_bytes` three times. `chunks`: the
// source's chunk shape (empty: rows need no alignment); `threads`: a band holds at least
// a chunk per thread where it can, so that each band keeps every worker busy.
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
    // the next band is then read ahead, on a thread of its own. The buffer `keep` (-1: none),
    // whose bytes the caller handed out before, is not read into.
    Band band_of(std::int64_t element, int keep = -1);

private:
    static constexpr int kBuffers = 3;  // the band copied, the one handed out before, the one read ahead

    void read_band(std::int64_t band, int buffer);
    void ahead();  // the read-ahead thread's loop
    // The band of result element `element`.
    std::int64_t band_index(std::int64_t element) const;
    int free_buffer(int keep_a, int keep_b) const;

    std::shared_ptr<const RegionSource> source_;
    ArrayInFile array_;
    Box box_;
    BandLayout layout_;
    unsigned threads_;
    std::string file_;
    std::int64_t total_;  // the result's elements
    std::vector<std::byte> buffers_[kBuffers];
    std::int64_t held_[kBuffers] = {-1, -1, -1};  // the band each buffer holds (complete)

    // The read ahead: one band at a time, asked for and waited on under the lock.
    std::mutex lock_;
    std::condition_variable changed_;
    std::int64_t ahead_band_ = -1;  // asked for or being read; -1: none
    int ahead_buffer_ = -1;
    std::exception_ptr ahead_error_;
    std::int64_t ahead_failed_band_ = -1;
    bool stopping_ = false;
    std::optional<std::thread> thread_;
};

}  // namespace tslice
