// The read stage: a result's bytes, chunk by chunk, in the order its sink asks for them.
//
// A sink (the binary writer, the converting writer, the text writer) asks for elements
// [first, first + count) of the result, forwards or, for a walk down a cold file that the
// output lets be written from its end, from the last chunk to the first. The reader decides
// how each chunk is made and owns what that does to the input's pages:
//   - a contiguous result of a file is read with pread into the chunk (or, for a sink that
//     reads each byte once itself, handed out where it lies in the mapping); of data in
//     memory, handed out where it lies;
//   - a gather of a file reads its rows where they lie, or a window at a time in the input's
//     order (gather_reads.hpp);
//   - anything else is copied (copy_view, over the worker threads for large results) in
//     pieces of bounded input, so that a small result of a large file never maps all of it;
//   - the pages the rest of the result cannot read are released behind the copy, and those it
//     reads next asked for ahead of it (input_paging.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "read/gather_reads.hpp"
#include "read/input_paging.hpp"
#include "read/read_sizes.hpp"
#include "tslice/npy.hpp"
#include "tslice/threads.hpp"
#include "tslice/source.hpp"
#include "tslice/view.hpp"

namespace tslice {

// A view whose elements are larger than `chunk_bytes`, as a view of parts of them: a trailing
// axis over each element's bytes in the largest units that divide the element and fit a
// chunk. The bytes are the same, in the same order. Other views are returned as they are.
View in_chunk_sized_units(const View& view, std::size_t chunk_bytes);

// The elements of a chunk of at most `chunk_bytes` (at least one element).
std::int64_t elements_per_chunk(std::size_t itemsize, std::size_t chunk_bytes);

struct ReadOptions {
    // The threads that copy a large result (1: the calling thread only).
    unsigned threads = 1;
    // The sink asks for the chunks from the last to the first (see walks_cold_file_down): the
    // read ahead and the releases then see the view walked from its last element to its first.
    bool backwards = false;
    // A selection of fields (DType::packed_itemsize set) whose elements are handed out packed,
    // the selected fields one after another, instead of whole.
    const DType* packed = nullptr;
    // A contiguous result of a file is handed out where it lies in the mapping instead of read
    // (pread) into the chunk: for a sink that reads each byte once itself (a conversion,
    // text), where the pread would be a copy more.
    bool map_contiguous = false;
};

class ResultReader {
public:
    // `data` (the input's first byte), `view` and `pages` must outlive the reader.
    ResultReader(const std::byte* data, const View& view, const InputPages& pages, const ReadOptions& options = {});
    ResultReader(const ResultReader&) = delete;
    ResultReader& operator=(const ResultReader&) = delete;

    // The result as the reader hands it out: elements larger than a chunk as their parts
    // (in_chunk_sized_units; not a packed selection, whose elements are packed whole).
    const View& view() const { return view_; }
    // The bytes of one handed-out element (the packed size for a packed selection).
    std::size_t itemsize() const { return itemsize_; }
    std::int64_t elements() const { return total_; }
    // The elements of one chunk (sizes.chunk_bytes of output).
    std::int64_t chunk_elements() const { return elements_per_chunk(itemsize_, sizes_.chunk_bytes); }
    std::size_t chunk_bytes() const { return sizes_.chunk_bytes; }

    // Elements [first, first + count) of view(): returns where their bytes are: `scratch`
    // (room for count * itemsize() bytes) after filling it, or the input's own bytes, valid
    // until the call after next (a sink may still write one chunk while the next is made).
    // Calls in the order the reader was made for (forwards, or backwards chunk by chunk).
    const std::byte* chunk(std::int64_t first, std::int64_t count, std::byte* scratch);
    // The same, always into `dst`.
    void read(std::byte* dst, std::int64_t first, std::int64_t count);

    // A contiguous result of a file: the sink may move its bytes itself (file_splice.hpp), from
    // pages().file() at this offset, telling moved() as it goes. nullopt for any other.
    std::optional<std::int64_t> file_offset_of_contiguous() const;
    // The sink moved elements [0, element) itself: their pages may go.
    void moved(std::int64_t element) { paging_.before(element); }
    const InputPages& pages() const { return pages_; }
    // The reader's worker threads (started at first use), for a sink that works on its chunks
    // in parts (a conversion).
    WorkerPool& pool();

private:
    // Elements [from, to) are copied: in order, the rest is after them; backwards, before.
    void copied(std::int64_t from, std::int64_t to) { paging_.before(backwards_ ? total_ - from : to); }
    // Copies elements [first, first + count) from `data` into `scratch`, in pieces of bounded input.
    void copy_pieces(const std::byte* data, std::int64_t first, std::int64_t count, std::byte* scratch);

    const std::byte* data_;
    InputPages pages_;
    ReadSizes sizes_;
    const DType* packs_;
    View view_;
    std::size_t itemsize_;
    std::int64_t total_;
    bool backwards_;
    View walked_;  // backwards: the view walked from its last element to its first
    RegionBands* bands_;  // a region read a band at a time; null for any other input
    std::int64_t units_per_element_;  // parts an element is handed out in (in_chunk_sized_units)
    bool contiguous_, bands_contiguous_, by_pread_;
    int handed_out_ = -1;  // the band buffer of the chunk handed out last
    InputPaging paging_;
    GatherReads gather_reads_;
    double bytes_read_per_element_ = 0;  // of the input, where the copy releases as it goes
    std::optional<WorkerPool> pool_;     // started at the first chunk that copies
    unsigned threads_;
    std::int64_t previous_first_ = 0;
    std::vector<std::byte> whole_;  // a packed selection's whole elements
};

// Whether a copy of `view` (handed out in chunks of `chunk_elements`) walks a file downwards
// (its last chunk reads wholly below its first: a reversed outer axis) that the page cache
// does not mostly hold: read from its last chunk to its first, it then reads the file upwards,
// the order its device and the kernel's readahead stream best.
// `packed` as ReadOptions::packed.
bool walks_cold_file_down(const View& view, const InputPages& pages, const DType* packed = nullptr);

}  // namespace tslice
