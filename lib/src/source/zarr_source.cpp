// Zarr v2 stores as a region source: a directory holding an array (.zarray) or a group
// (.zgroup) of arrays and groups. A box is read chunk by chunk, only the chunks it touches,
// decompressed in parallel, each copied into place; a missing chunk is its fill value.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <utility>

#include "source/chunk_place.hpp"
#include "source/region_sources.hpp"
#include "source/store_files.hpp"
#include "tslice/error.hpp"
#include "tslice/threads.hpp"
#include "source/zarr_meta.hpp"

namespace tslice {
namespace {

namespace fs = std::filesystem;

// A stored chunk's bytes: a large one mapped (the page cache's pages mapped in at once, not
// copied: on a cached store the copy of a read cost more than the mapping), a small one read
// into the worker's buffer, which it passes chunk after chunk, so that its memory is allocated,
// and its pages faulted in, once per worker rather than once per chunk.
class ChunkBytes {
public:
    ChunkBytes() = default;
    ChunkBytes(const ChunkBytes&) = delete;
    ChunkBytes& operator=(const ChunkBytes&) = delete;
    ~ChunkBytes() { unmap(); }

    // False where the file does not exist (open_file). `whole`: every byte will be read, so a
    // mapping's pages are mapped in at once; else only those read are (a chunk decoded only in
    // part reads the start of a stream's stored bytes, or some of blosc's blocks).
    bool load(std::vector<std::byte>& buffer, const std::string& path, const std::string& shown, std::uint64_t limit,
              bool whole) {
        unmap();
        OpenFile file;
        if (!open_file(file, path, shown, limit)) return false;
        if (file.size >= kMappedChunkBytes) {
            void* map = ::mmap(nullptr, file.size, PROT_READ, MAP_PRIVATE | (whole ? MAP_POPULATE : 0), file.fd, 0);
            if (map != MAP_FAILED) {
                mapped_ = static_cast<std::byte*>(map);
                data_ = mapped_;
                size_ = file.size;
                return true;
            }
        }
        read_into(file, buffer, shown);
        data_ = buffer.data();
        size_ = buffer.size();
        return true;
    }
    const std::byte* data() const { return data_; }
    std::size_t size() const { return size_; }

private:
    static constexpr std::size_t kMappedChunkBytes = std::size_t{256} << 10;
    void unmap() {
        if (mapped_) ::munmap(mapped_, size_);
        mapped_ = nullptr;
    }
    std::byte* mapped_ = nullptr;
    const std::byte* data_ = nullptr;
    std::size_t size_ = 0;
};

bool has(const fs::path& path) {
    std::error_code error;
    return fs::exists(path, error);
}

constexpr std::uint64_t kMetadataLimit = 64 << 20;

// A path inside the store as messages show it: from the store's top ("g/x/.zarray").
std::string inside(const fs::path& root, const fs::path& path) { return path.lexically_relative(root).string(); }

ZarrArrayMeta read_meta(const fs::path& root, const fs::path& dir) {
    const std::string where = inside(root, dir / ".zarray");
    const auto text = read_file((dir / ".zarray").string(), where, kMetadataLimit);
    if (!text) fail_input(where + " is missing");
    return parse_zarray(std::string_view(reinterpret_cast<const char*>(text->data()), text->size()), where);
}

ArrayInFile entry(const ZarrArrayMeta& meta, std::optional<std::string> name) {
    ArrayInFile array;
    array.name = std::move(name);
    array.type.dtype = meta.dtype;
    array.shape = meta.shape;
    array.bytes.kind = ArrayBytes::Kind::Region;
    return array;
}

// The byte strides of a decoded chunk's axes, in its order (C or F).
std::vector<std::int64_t> chunk_strides(const ZarrArrayMeta& meta) {
    const std::size_t rank = meta.shape.size();
    std::vector<std::int64_t> strides(rank);
    std::int64_t s = static_cast<std::int64_t>(meta.dtype.itemsize);
    for (std::size_t j = 0; j < rank; ++j) {
        const std::size_t k = meta.fortran_order ? j : rank - 1 - j;
        strides[k] = s;
        s *= meta.chunks[k];
    }
    return strides;
}

// The bytes of a decoded chunk that hold its part inside the box, whose array indices run
// from `from` to `to` - 1: from the first of them to just past the last.
std::pair<std::size_t, std::size_t> chunk_bytes_needed(const ZarrArrayMeta& meta, const std::vector<std::int64_t>& origin,
                                                       const std::vector<std::int64_t>& from,
                                                       const std::vector<std::int64_t>& to) {
    const std::vector<std::int64_t> strides = chunk_strides(meta);
    std::int64_t begin = 0, end = static_cast<std::int64_t>(meta.dtype.itemsize);
    for (std::size_t k = 0; k < strides.size(); ++k) {
        begin += (from[k] - origin[k]) * strides[k];
        end += (to[k] - 1 - origin[k]) * strides[k];
    }
    return {static_cast<std::size_t>(begin), static_cast<std::size_t>(end)};
}

// Copies the part of a decoded chunk inside the box (chunk_place.hpp).
void place(const ZarrArrayMeta& meta, const std::byte* chunk, const Box& box, const std::vector<std::int64_t>& origin,
           const std::vector<std::int64_t>& from, const std::vector<std::int64_t>& to, std::byte* dst) {
    place_chunk(chunk, chunk_strides(meta), meta.dtype.itemsize, box, origin, from, to, dst);
}

void fill_region(const ZarrArrayMeta& meta, const Box& box, const std::vector<std::int64_t>& from,
                 const std::vector<std::int64_t>& to, std::byte* dst) {
    // A chunk of the fill value, as big as the intersection, placed like a decoded one.
    ZarrArrayMeta dense = meta;
    dense.fortran_order = false;
    std::int64_t count = 1;
    for (std::size_t k = 0; k < from.size(); ++k) {
        dense.chunks[k] = to[k] - from[k];
        count *= dense.chunks[k];
    }
    std::vector<std::byte> chunk(static_cast<std::size_t>(count) * meta.fill.size());
    for (std::int64_t i = 0; i < count; ++i)
        std::memcpy(chunk.data() + i * static_cast<std::int64_t>(meta.fill.size()), meta.fill.data(), meta.fill.size());
    place(dense, chunk.data(), box, from, from, to, dst);
}

class ZarrStore final : public RegionSource {
public:
    explicit ZarrStore(fs::path root) : root_(std::move(root)) {
        if (has(root_ / ".zarray")) {
            arrays_.push_back(entry(read_meta(root_, root_), std::nullopt));
            paths_.push_back(root_);
            return;
        }
        if (!has(root_ / ".zgroup"))
            fail_input(
                "a directory, but not a Zarr store: it has no .zarray or .zgroup (tslice reads .npy, .npz, "
                ".safetensors and HDF5 files, and Zarr v2 stores)");
        walk(root_, "");
    }

    std::vector<ArrayInFile> list() const override { return arrays_; }

    std::vector<std::int64_t> chunk_shape(const ArrayInFile& array) const override {
        return read_meta(root_, path_of(array)).chunks;
    }

    // Each read has its own chunks and buffers; the spare buffers are shared under a lock.
    bool reads_side_by_side() const override { return true; }

    void read(const ArrayInFile& array, const Box& box, std::byte* dst, unsigned threads,
              const Written& written) const override {
        const fs::path dir = path_of(array);
        const ZarrArrayMeta meta = read_meta(root_, dir);
        if (meta.shape != array.shape || !(meta.dtype == array.type.dtype))
            fail_input(inside(root_, dir / ".zarray") + " changed while tslice read the store");
        const std::size_t rank = meta.shape.size();
        if (box.element_count() == 0) return;
        const ChunkGrid chunks(meta.chunks, box);
        const std::int64_t total = chunks.count();
        const auto chunk_bytes = static_cast<std::size_t>(meta.chunk_elements()) * meta.dtype.itemsize;
        const std::uint64_t stored_limit = stored_chunk_limit(chunk_bytes);
        WorkerPool pool(static_cast<unsigned>(std::clamp<std::int64_t>(total, 1, threads)));
        // Chunks go to the workers in order, so a worker's buffers are reused chunk after chunk.
        pool.run(static_cast<unsigned>(pool.size()), [&](unsigned part) {
            // A read in bands reads chunk after chunk, read after read: the buffers of the
            // reads before are taken again, so their pages are faulted in once.
            Buffers buffers = take_buffers();
            std::vector<std::byte>& decoded = buffers.decoded;
            std::vector<std::byte>& stored = buffers.stored;
            decoded.resize(chunk_bytes);
            struct Giver {
                const ZarrStore* store;
                Buffers& buffers;
                ~Giver() { store->give_back(std::move(buffers)); }
            } giver{this, buffers};
            std::pair<std::byte*, std::byte*> placed;
            ChunkBytes chunk;
            ChunkGrid::Chunk at;
            for (std::int64_t n = part; n < total; n += pool.size()) {
                chunks.at(n, at);
                const auto& [grid, origin, from, to] = at;
                if (written) {
                    // The bytes of the box this chunk's part spans (it also crosses other
                    // chunks' rows, which only come back from the page cache if released early).
                    std::int64_t low = 0, high = 0, stride = static_cast<std::int64_t>(meta.dtype.itemsize);
                    for (std::size_t k = rank; k-- > 0;) {
                        low += (from[k] - box.start[k]) * stride;
                        high += (to[k] - 1 - box.start[k]) * stride;
                        stride *= box.stop[k] - box.start[k];
                    }
                    placed = {dst + low, dst + high + static_cast<std::int64_t>(meta.dtype.itemsize)};
                }
                const fs::path path = dir / meta.chunk_key(grid);
                const std::string what = "the chunk " + inside(root_, path);
                // Where the part inside the box is well under the chunk (one time step of a
                // chunk of many), only what the codec needs for it is decoded: the stream
                // codecs up to its end, blosc the blocks that hold it.
                const auto [begin, end] = chunk_bytes_needed(meta, origin, from, to);
                const bool in_part = part_decode_bytes(meta.compressor, begin, end, chunk_bytes) <= chunk_bytes / 4 * 3;
                if (!chunk.load(stored, path.string(), what, stored_limit, !in_part)) {
                    fill_region(meta, box, from, to, dst);
                } else {
                    if (!in_part || !decode_zarr_chunk_part(meta.compressor, chunk.data(), chunk.size(), decoded.data(),
                                                            chunk_bytes, begin, end, what))
                        decode_zarr_chunk(meta.compressor, chunk.data(), chunk.size(), decoded.data(), chunk_bytes,
                                          what);
                    place(meta, decoded.data(), box, origin, from, to, dst);
                }
                if (written) written(placed.first, placed.second);
            }
        });
    }

private:
    const fs::path& path_of(const ArrayInFile& array) const {
        std::size_t index = 0;
        while (index < arrays_.size() && arrays_[index].name != array.name) ++index;
        return paths_.at(index);
    }

    void walk(const fs::path& dir, const std::string& prefix) {
        std::vector<fs::path> children;
        std::error_code error;
        for (const auto& child : fs::directory_iterator(dir, error))
            if (child.is_directory(error) && child.path().filename().string()[0] != '.') children.push_back(child.path());
        if (error) fail_input("cannot list " + inside(root_, dir) + ": " + error.message());
        std::sort(children.begin(), children.end());
        for (const auto& child : children) {
            const std::string name = prefix + child.filename().string();
            if (has(child / ".zarray")) {
                arrays_.push_back(entry(read_meta(root_, child), name));
                paths_.push_back(child);
            } else if (has(child / ".zgroup")) {
                if (prefix.size() > 4096) fail_input("groups nested too deeply");
                walk(child, name + "/");
            }
        }
    }

    struct Buffers {
        std::vector<std::byte> decoded, stored;
    };
    Buffers take_buffers() const {
        const std::lock_guard<std::mutex> lock(spare_lock_);
        if (spare_.empty()) return {};
        Buffers buffers = std::move(spare_.back());
        spare_.pop_back();
        return buffers;
    }
    void give_back(Buffers buffers) const {
        const std::lock_guard<std::mutex> lock(spare_lock_);
        spare_.push_back(std::move(buffers));
    }

    fs::path root_;
    mutable std::mutex spare_lock_;
    mutable std::vector<Buffers> spare_;  // chunk buffers of reads done, for the next
    std::vector<ArrayInFile> arrays_;
    std::vector<fs::path> paths_;
};

}  // namespace

std::shared_ptr<const RegionSource> open_zarr_store(const std::string& path) {
    return std::make_shared<ZarrStore>(fs::path(path));
}

}  // namespace tslice
