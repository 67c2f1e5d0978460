// An HDF5 dataset's stored chunks decoded by tslice (hdf5_chunks.hpp).
#include "source/hdf5_chunks.hpp"

#include <libdeflate.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "source/chunk_place.hpp"
#include "tslice/error.hpp"
#include "tslice/threads.hpp"

namespace tslice {
namespace {

// The most a chunk is decoded to here: HDF5 chunks are below 4 GiB.
constexpr std::size_t kMostChunkBytes = std::size_t{1} << 32;

struct Decompressor {
    libdeflate_decompressor* state = libdeflate_alloc_decompressor();
    Decompressor() = default;
    Decompressor(const Decompressor&) = delete;
    Decompressor& operator=(const Decompressor&) = delete;
    ~Decompressor() { libdeflate_free_decompressor(state); }
};

// HDF5's shuffle undone: byte j of every element was stored together, element after element;
// the bytes past the last whole element were left where they were.
void unshuffle(const std::byte* in, std::size_t size, std::size_t element, std::byte* out) {
    const std::size_t count = element > 1 ? size / element : 0;
    for (std::size_t j = 0; j < element && count > 0; ++j)
        for (std::size_t i = 0; i < count; ++i) out[i * element + j] = in[j * count + i];
    std::memcpy(out + count * element, in + count * element, size - count * element);
}

std::string at_text(const std::vector<std::int64_t>& origin) {
    std::string text = "(";
    for (std::size_t k = 0; k < origin.size(); ++k) text += (k ? ", " : "") + std::to_string(origin[k]);
    return text + ")";
}

}  // namespace

std::optional<Hdf5Pipeline> decodable_pipeline(hid_t dcpl, std::size_t item) {
    const int count = H5Pget_nfilters(dcpl);
    if (count <= 0 || count > 2) return std::nullopt;
    Hdf5Pipeline pipeline;
    int deflates = 0, shuffles = 0;
    for (int i = 0; i < count; ++i) {
        unsigned flags = 0, config = 0, values[8] = {};
        std::size_t value_count = 8;
        const H5Z_filter_t id = H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &value_count, values, 0,
                                               nullptr, &config);
        Hdf5Pipeline::Filter filter;
        if (id == H5Z_FILTER_DEFLATE) {
            filter.deflate = true;
            ++deflates;
        } else if (id == H5Z_FILTER_SHUFFLE) {
            // The element size the library gave it when the dataset was made; the type's where
            // it gave none.
            filter.shuffle_bytes = value_count > 0 && values[0] > 0 ? values[0] : item;
            ++shuffles;
        } else {
            return std::nullopt;
        }
        pipeline.filters.push_back(filter);
    }
    // Shuffle alone is a copy the library makes as fast.
    if (deflates != 1 || shuffles > 1) return std::nullopt;
    return pipeline;
}

bool read_stored_chunks(hid_t dataset, const Hdf5Pipeline& pipeline, const std::vector<hsize_t>& chunk,
                        std::size_t item, const Box& part, std::byte* dst, unsigned threads,
                        const std::string& where) {
    const std::size_t rank = chunk.size();
    if (rank == 0 || part.start.size() != rank) return false;
    std::size_t chunk_bytes = item;
    for (const hsize_t length : chunk)
        if (length == 0 || __builtin_mul_overflow(chunk_bytes, static_cast<std::size_t>(length), &chunk_bytes))
            return false;
    if (chunk_bytes == 0 || chunk_bytes > kMostChunkBytes) return false;
    std::vector<std::int64_t> strides(rank);
    std::int64_t stride = static_cast<std::int64_t>(item);
    for (std::size_t k = rank; k-- > 0;) {
        strides[k] = stride;
        stride *= static_cast<std::int64_t>(chunk[k]);
    }

    // The chunks the part touches (chunk n of the grid is stored[n]), each read as stored,
    // here: the library is not thread-safe.
    struct Stored {
        std::uint32_t skipped = 0;  // the filters this chunk was not passed through (bit i: filter i)
        std::vector<std::byte> bytes;
    };
    const ChunkGrid chunks(std::vector<std::int64_t>(chunk.begin(), chunk.end()), part);
    const std::int64_t total = chunks.count();
    const std::uint64_t stored_limit = stored_chunk_limit(chunk_bytes);
    std::vector<Stored> stored;  // grown as read: a chunk not stored ends the walk early
    std::vector<hsize_t> offset(rank);
    ChunkGrid::Chunk at;
    for (std::int64_t n = 0; n < total; ++n) {
        chunks.at(n, at);
        for (std::size_t k = 0; k < rank; ++k) offset[k] = static_cast<hsize_t>(at.origin[k]);
        unsigned mask = 0;
        haddr_t address = HADDR_UNDEF;
        hsize_t size = 0;
        if (H5Dget_chunk_info_by_coord(dataset, offset.data(), &mask, &address, &size) < 0 || address == HADDR_UNDEF ||
            size == 0 || size > stored_limit)
            return false;
        Stored& one = stored.emplace_back();
        one.bytes.resize(static_cast<std::size_t>(size));
        std::uint32_t filters = 0;
        if (H5Dread_chunk(dataset, H5P_DEFAULT, offset.data(), &filters, one.bytes.data()) < 0) return false;
        one.skipped = filters;
    }

    WorkerPool pool(static_cast<unsigned>(std::clamp<std::int64_t>(total, 1, std::max(1u, threads))));
    pool.run(pool.size(), [&](unsigned worker) {
        Decompressor decompressor;
        if (decompressor.state == nullptr) fail_input("cannot read " + where + ": out of memory for libdeflate");
        // Written before they are read: not zeroed first.
        const std::unique_ptr<std::byte[]> a(new std::byte[chunk_bytes]), b(new std::byte[chunk_bytes]);
        ChunkGrid::Chunk cell;
        for (std::int64_t n = worker; n < total; n += pool.size()) {
            const Stored& one = stored[static_cast<std::size_t>(n)];
            chunks.at(n, cell);
            const auto corrupt = [&](const std::string& why) {
                fail_input("cannot read " + where + ": its chunk at " + at_text(cell.origin) + " " + why);
            };
            const std::byte* data = one.bytes.data();
            std::size_t size = one.bytes.size();
            // Undone in the reverse of the order they were applied.
            for (std::size_t i = pipeline.filters.size(); i-- > 0;) {
                if (one.skipped & (1u << i)) continue;
                std::byte* out = data == a.get() ? b.get() : a.get();
                if (pipeline.filters[i].deflate) {
                    std::size_t produced = 0;
                    if (libdeflate_zlib_decompress(decompressor.state, data, size, out, chunk_bytes, &produced) !=
                        LIBDEFLATE_SUCCESS)
                        corrupt("is not a zlib stream of at most " + std::to_string(chunk_bytes) + " bytes");
                    size = produced;
                } else {
                    if (size > chunk_bytes) corrupt("holds more than its " + std::to_string(chunk_bytes) + " bytes");
                    unshuffle(data, size, pipeline.filters[i].shuffle_bytes, out);
                }
                data = out;
            }
            if (size != chunk_bytes)
                corrupt("holds " + std::to_string(size) + " bytes, not the " + std::to_string(chunk_bytes) +
                        " of its shape");
            place_chunk(data, strides, item, part, cell.origin, cell.from, cell.to, dst);
        }
    });
    return true;
}

}  // namespace tslice
