// An HDF5 dataset's stored chunks read as they are and decoded by tslice, on every thread,
// where its filters are the usual ones: deflate (h5py's gzip), with or without shuffle.
// The library decodes a chunk on the one thread that reads, and with zlib: for a gzip
// dataset that was three quarters of tslice's CPU. It does not let its deflate filter be
// replaced (H5Zregister refuses the ids below 256), so the chunks are read raw
// (H5Dread_chunk) and inflated with libdeflate, which tslice already links for zip members.
// Everything else (other filters, chunks not written yet) stays with the library.
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tslice/source.hpp"

namespace tslice {

// A dataset's filters, in the order they were applied when it was written.
struct Hdf5Pipeline {
    struct Filter {
        bool deflate = false;           // else shuffle
        std::size_t shuffle_bytes = 0;  // the element size shuffle worked in
    };
    std::vector<Filter> filters;
};

// The pipeline of a chunked dataset's creation property list, where tslice decodes it itself:
// deflate once, shuffle at most once, nothing else; nullopt otherwise. `item`: the element size.
std::optional<Hdf5Pipeline> decodable_pipeline(hid_t dcpl, std::size_t item);

// Reads `part` (a box of the dataset, whole chunk rows or the box's edge) into `dst` (its
// bytes in C order) from the stored chunks, decoded on `threads` workers. False, with nothing
// promised of `dst`, where a chunk is not stored or the library does not say where: the
// caller then reads the part through the library. Error(Input) for a chunk that does not
// decode; `where` names the dataset.
bool read_stored_chunks(hid_t dataset, const Hdf5Pipeline& pipeline, const std::vector<hsize_t>& chunk,
                        std::size_t item, const Box& part, std::byte* dst, unsigned threads,
                        const std::string& where);

}  // namespace tslice
