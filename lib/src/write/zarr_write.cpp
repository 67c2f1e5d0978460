// Zarr v2 output: chunks copied out of the result's view, compressed and written in parallel.
#include "tslice/zarr_write.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>

#include "tslice/copy.hpp"
#include "tslice/error.hpp"
#include "tslice/threads.hpp"
#include "read/result_reader.hpp"
#include "source/zarr_codecs.hpp"
#include "source/zarr_meta.hpp"
#include "write/output_file.hpp"
#include "write/zarr_consolidated.hpp"

namespace tslice {
namespace {

namespace fs = std::filesystem;

void write_file(const fs::path& path, const void* bytes, std::size_t size, bool sync) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) fail_input("cannot create " + path.string() + ": " + std::strerror(errno));
    const auto* at = static_cast<const char*>(bytes);
    while (size > 0) {
        const ssize_t wrote = ::write(fd, at, size);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote < 0) {
            const int error = errno;
            ::close(fd);
            fail_input("cannot write " + path.string() + ": " + std::strerror(error));
        }
        at += wrote;
        size -= static_cast<std::size_t>(wrote);
    }
    if ((sync && ::fsync(fd) != 0) || ::close(fd) != 0)
        fail_input("cannot write " + path.string() + ": " + std::strerror(errno));
}

void sync_directory(const fs::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

// The store being written, for remove_pending_zarr_store() in a signal handler.
char g_store_path[4096];
volatile std::sig_atomic_t g_store = 0;

// The temporary directory, removed with what it holds unless released.
class TemporaryStore {
public:
    explicit TemporaryStore(const fs::path& target) {
        const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
        std::string pattern = (parent / ("." + target.filename().string() + ".tslice-XXXXXX")).string();
        if (!::mkdtemp(pattern.data()))
            fail_input("cannot create a directory beside " + target.string() + ": " + std::strerror(errno));
        path_ = pattern;
        // mkdtemp makes the directory its owner's alone; a store is shared as any directory
        // (Dask's workers may run as another user): the mode of the store it replaces, else
        // what the umask gives a new directory.
        struct stat replaced {};
        const bool replaces = ::stat(target.c_str(), &replaced) == 0 && S_ISDIR(replaced.st_mode);
        ::chmod(pattern.c_str(), replaces ? replaced.st_mode & 07777 : new_entry_mode(0777));
        if (pattern.size() < sizeof g_store_path) {
            std::memcpy(g_store_path, pattern.c_str(), pattern.size() + 1);
            g_store = 1;
        }
    }
    TemporaryStore(const TemporaryStore&) = delete;
    TemporaryStore& operator=(const TemporaryStore&) = delete;
    ~TemporaryStore() {
        g_store = 0;
        if (!path_.empty()) {
            std::error_code ignored;
            fs::remove_all(path_, ignored);
        }
    }
    const fs::path& path() const { return path_; }
    void release() {
        g_store = 0;
        path_.clear();
    }

private:
    fs::path path_;
};

bool is_zarr_store(const fs::path& path) {
    std::error_code error;
    return fs::is_directory(path, error) && (fs::exists(path / ".zarray", error) || fs::exists(path / ".zgroup", error));
}

ZarrCompressor compressor_named(const std::string& name) {
    ZarrCompressor compressor;
    if (name == "zstd") {
        compressor.id = ZarrCompressor::Id::Zstd;
        compressor.level = 1;
    } else if (name == "blosc") {
        compressor.id = ZarrCompressor::Id::Blosc;
        compressor.level = 5;  // numcodecs' default Blosc(): lz4, level 5, byte shuffle
    } else if (name == "zlib") {
        compressor.id = ZarrCompressor::Id::Zlib;
        compressor.level = 1;
    } else if (name != "none") {
        fail_usage("--compressor " + name + ": tslice writes zstd, blosc, zlib or none");
    }
    return compressor;
}

// The .zarray "dtype" of a numpy dtype: its type string, or a list of fields.
nlohmann::json zarr_dtype(const DType& dtype) {
    if (!dtype.structured) return dtype.type_string;
    nlohmann::json fields = nlohmann::json::array();
    for (const auto& field : dtype.fields) {
        nlohmann::json entry = {field.name, zarr_dtype(*field.type)};
        if (!field.subshape.empty()) entry.push_back(field.subshape);
        fields.push_back(entry);
    }
    return fields;
}

// Whether a structured dtype's fields lie one after another with no padding (a list of
// fields in .zarray cannot say where a field is, only its order).
bool packed(const DType& dtype) {
    if (!dtype.structured) return true;
    std::size_t at = 0;
    for (const auto& field : dtype.fields) {
        if (field.offset != at || field.name.empty() || !packed(*field.type)) return false;
        std::size_t size = field.type->itemsize;
        for (const auto d : field.subshape) size *= static_cast<std::size_t>(d);
        at += size;
    }
    return at == dtype.itemsize;
}

}  // namespace

void remove_pending_zarr_store() noexcept {
    if (!g_store) return;
    // A few passes: a worker may create a chunk file between one pass and the rmdir.
    for (int pass = 0; pass < 4 && ::rmdir(g_store_path) != 0; ++pass) {
        const int dir = ::open(g_store_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir < 0) return;
        alignas(8) char buffer[8192];
        for (;;) {
            const long got = ::syscall(SYS_getdents64, dir, buffer, sizeof buffer);
            if (got <= 0) break;
            for (long at = 0; at < got;) {
                // struct linux_dirent64: inode, offset, record length, type, then the name.
                unsigned short length = 0;
                std::memcpy(&length, buffer + at + 16, sizeof length);
                const char* name = buffer + at + 19;
                if (!(name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0)))) ::unlinkat(dir, name, 0);
                at += length;
            }
        }
        ::close(dir);
    }
}

std::vector<std::int64_t> zarr_chunks(const std::vector<std::int64_t>& shape, std::size_t itemsize, std::int64_t target) {
    std::vector<std::int64_t> chunks(shape.size(), 1);
    std::int64_t inner = static_cast<std::int64_t>(itemsize);
    for (std::size_t k = shape.size(); k-- > 0;) {
        const std::int64_t whole = std::max<std::int64_t>(shape[k], 1);
        if (inner * whole <= target) {
            chunks[k] = whole;
            inner *= whole;
            continue;
        }
        chunks[k] = std::max<std::int64_t>(1, target / inner);
        break;
    }
    return chunks;
}

std::vector<std::int64_t> parse_zarr_chunks(const std::string& text) {
    std::vector<std::int64_t> chunks;
    std::size_t at = 0;
    while (at <= text.size()) {
        const std::size_t comma = std::min(text.find(',', at), text.size());
        const std::string part = text.substr(at, comma - at);
        std::size_t used = 0;
        long long value = 0;
        try {
            value = std::stoll(part, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (part.empty() || used != part.size() || value < 1)
            fail_usage("--chunks " + text + ": '" + part +
                       "' is not a positive integer (give one length per axis: 64,256,256)");
        chunks.push_back(value);
        at = comma + 1;
    }
    return chunks;
}

void check_zarr_output(const ElementType& type, const std::vector<std::int64_t>& shape, const ZarrOptions& options) {
    compressor_named(options.compressor);
    if (!type.safetensors_only.empty())
        fail_usage("Zarr has no dtype for " + type.name() + "; write it with --format safetensors");
    if (type.dtype.packed_itemsize)
        fail_usage(
            "a selection of some fields cannot be written to Zarr; select them into a .npy "
            "first, or select every field");
    if (!packed(type.dtype))
        fail_usage("the structured dtype " + type.dtype.descr +
                   " has padding or unnamed fields, which a Zarr v2 dtype cannot describe");
    if (!options.chunks.empty() && options.chunks.size() != shape.size())
        fail_usage("--chunks gives " + std::to_string(options.chunks.size()) + " lengths for a result of " +
                   std::to_string(shape.size()) + " axes " + format_shape(shape));
}

void write_zarr(const std::string& path, const std::byte* data, const View& view, const ElementType& type,
                const ZarrOptions& options, const WriteOptions& write, const InputPages& pages,
                const Conversion* conversion) {
    check_zarr_output(type, view.shape, options);
    const fs::path target = fs::path(path).lexically_normal().string().back() == '/' && path.size() > 1
                                ? fs::path(path).parent_path()
                                : fs::path(path);
    std::error_code error;
    if (fs::exists(fs::symlink_status(target, error)) && !is_zarr_store(target))
        fail_usage(path +
                   " exists and is not a Zarr store: tslice replaces only a Zarr store "
                   "(a directory with .zarray or .zgroup); remove it, or choose another path");
    // Read now: a group's consolidated metadata that cannot be updated fails before the write.
    const ConsolidatedMetadata consolidated(target);
    ZarrArrayMeta meta;
    meta.shape = view.shape;
    // The stored elements' size: the converted type's under --astype.
    const auto item = static_cast<std::int64_t>(conversion ? conversion->to_size() : view.itemsize);
    meta.chunks = options.chunks.empty() ? zarr_chunks(view.shape, static_cast<std::size_t>(item)) : options.chunks;
    meta.dtype = type.dtype;
    meta.compressor = compressor_named(options.compressor);
    meta.compressor.shuffle = 1;

    TemporaryStore store(target);
    nlohmann::ordered_json zarray;
    zarray["chunks"] = meta.chunks;
    zarray["compressor"] = meta.compressor.to_json();
    zarray["dimension_separator"] = ".";
    zarray["dtype"] = zarr_dtype(type.dtype);
    // Every chunk is written, so no fill value is ever read: none is given. (xarray takes a
    // fill value for its _FillValue, and would read every 0 of a store that said 0 as NaN.)
    zarray["fill_value"] = nullptr;
    zarray["filters"] = nullptr;
    zarray["order"] = "C";
    zarray["shape"] = meta.shape;
    zarray["zarr_format"] = 2;
    const std::string text = zarray.dump(4) + "\n";
    write_file(store.path() / ".zarray", text.data(), text.size(), write.sync);
    // The names of the axes, as xarray reads them from an array's attributes.
    nlohmann::ordered_json attributes;
    attributes["_ARRAY_DIMENSIONS"] = nlohmann::json::array();
    for (std::size_t k = 0; k < meta.shape.size(); ++k) attributes["_ARRAY_DIMENSIONS"].push_back("dim_" + std::to_string(k));
    const std::string attrs = attributes.dump(4) + "\n";
    write_file(store.path() / ".zattrs", attrs.data(), attrs.size(), write.sync);

    const std::size_t rank = meta.shape.size();
    std::vector<std::int64_t> grid(rank);
    std::int64_t total = 1;
    for (std::size_t k = 0; k < rank; ++k) {
        grid[k] = (meta.shape[k] + meta.chunks[k] - 1) / meta.chunks[k];
        total *= grid[k];
    }
    const std::int64_t chunk_elements = meta.chunk_elements();
    const std::int64_t total_bytes = view.element_count() * item;
    std::mutex progress_lock;
    std::int64_t written = 0;
    // A row of the chunk grid: the chunks that share the first axis's index. The workers take
    // the chunks of as many rows at a time as give each of them one: a row of four chunks at a
    // time kept a 16-core Xeon's store at the speed of four threads (929 ms on 16, 892 on 4,
    // 3071 on 1).
    const std::int64_t per_row = rank == 0 ? 1 : total / std::max<std::int64_t>(grid[0], 1);
    const auto threads = static_cast<std::int64_t>(std::max(1u, write.threads));
    const std::int64_t rows_at_once =
        rank == 0 || per_row == 0
            ? 1
            : std::clamp<std::int64_t>((threads + per_row - 1) / per_row, 1, std::max<std::int64_t>(grid[0], 1));
    WorkerPool pool(static_cast<unsigned>(std::clamp<std::int64_t>(per_row * rows_at_once, 1, threads)));
    const std::int64_t inner = rank == 0 ? 1 : view.element_count() / std::max<std::int64_t>(meta.shape[0], 1);
    // Each part's buffers, made once for the whole store: made per chunk, their allocation
    // and page faults cost more system time than the compression's user time.
    struct Buffers {
        std::vector<std::byte> chunk, dense, stored, unconverted;
    };
    std::vector<Buffers> buffers(pool.size());
    // A region read in bands holds no bytes to copy from: the rows of the chunk grid the
    // workers take at once are read through the read stage into a slab, which the chunks are
    // cut from.
    std::optional<ResultReader> banded;
    std::vector<std::byte> slab;
    if (pages.bands() && total > 0) banded.emplace(data, view, pages, ReadOptions{std::max(1u, write.threads)});
    for (std::int64_t row_first = 0; row_first < total; row_first += per_row * rows_at_once) {
        const std::int64_t row_end = std::min(total, row_first + per_row * rows_at_once);
        const std::byte* row_data = data;
        View row_view = view;
        if (banded) {
            // A 0-d result is one row of one element.
            const std::int64_t first_row = rank == 0 ? 0 : row_first / per_row * meta.chunks[0];
            const std::int64_t end_row = rank == 0 ? 1 : std::min(meta.shape[0], row_end / per_row * meta.chunks[0]);
            const std::int64_t units = banded->elements() / view.element_count();  // parts of an element
            slab.resize(static_cast<std::size_t>((end_row - first_row) * inner) * view.itemsize);
            banded->read(slab.data(), first_row * inner * units, (end_row - first_row) * inner * units);
            row_view = View::contiguous(view.shape, view.itemsize);
            row_view.byte_offset = -first_row * inner * static_cast<std::int64_t>(view.itemsize);
            row_data = slab.data();
        }
        pool.run(pool.size(), [&](unsigned part) {
            std::vector<std::byte>& chunk = buffers[part].chunk;
            std::vector<std::byte>& dense = buffers[part].dense;
            std::vector<std::byte>& stored = buffers[part].stored;
            chunk.resize(static_cast<std::size_t>(chunk_elements * item));
            std::vector<std::int64_t> index(rank);
            for (std::int64_t n = row_first + part; n < row_end; n += pool.size()) {
                std::int64_t rest = n;
                View sub = row_view;
                bool edge = false;
                for (std::size_t k = rank; k-- > 0;) {
                    index[k] = rest % grid[k];
                    rest /= grid[k];
                    const std::int64_t origin = index[k] * meta.chunks[k];
                    sub.shape[k] = std::min(meta.chunks[k], meta.shape[k] - origin);
                    edge = edge || sub.shape[k] != meta.chunks[k];
                    sub.byte_offset += origin * row_view.byte_strides[k];
                    if (sub.has_table()) sub.table_offset += origin * row_view.table_strides[k];
                }
                const std::int64_t count = sub.element_count();
                // The chunk's elements in C order into `to`, converted where they are.
                const auto make = [&](std::byte* to) {
                    if (!conversion) {
                        copy_view(row_data, sub, to, 0, count);
                        return;
                    }
                    std::vector<std::byte>& unconverted = buffers[part].unconverted;
                    unconverted.resize(static_cast<std::size_t>(count) * view.itemsize);
                    copy_view(row_data, sub, unconverted.data(), 0, count);
                    conversion->run(unconverted.data(), to, count);
                };
                if (!edge) {
                    make(chunk.data());
                } else {
                    // An edge chunk is stored whole: its elements in place, the rest zeros.
                    dense.resize(static_cast<std::size_t>(count * item));
                    make(dense.data());
                    std::fill(chunk.begin(), chunk.end(), std::byte{0});
                    std::vector<std::int64_t> at(rank, 0);
                    const std::int64_t run = sub.shape[rank - 1] * item;
                    for (std::int64_t row = 0; row * sub.shape[rank - 1] < count; ++row) {
                        std::int64_t offset = 0, stride = item;
                        for (std::size_t k = rank; k-- > 0;) {
                            offset += at[k] * stride;
                            stride *= meta.chunks[k];
                        }
                        std::memcpy(chunk.data() + offset, dense.data() + row * run, static_cast<std::size_t>(run));
                        for (std::size_t k = rank - 1; k-- > 0;) {
                            if (++at[k] < sub.shape[k]) break;
                            at[k] = 0;
                        }
                    }
                }
                const std::size_t size =
                    encode_zarr_chunk_into(meta.compressor, chunk.data(), chunk.size(), type.dtype.itemsize, stored);
                write_file(store.path() / meta.chunk_key(index), stored.data(), size, write.sync);
                if (write.progress) {
                    const std::lock_guard<std::mutex> lock(progress_lock);
                    written += count * item;
                    write.progress(written, total_bytes);
                }
            }
        });
        if (pages.mapped() && !view.has_table() && rank > 0) {
            const std::int64_t first_row = row_first / per_row * meta.chunks[0];
            const std::int64_t end_row = std::min(meta.shape[0], row_end / per_row * meta.chunks[0]);
            const View::Span span = view.span_of(first_row * inner, end_row * inner);
            if (span.begin < span.end) pages.release(span.begin, span.end);
        }
    }
    if (write.sync) sync_directory(store.path());
    // Into place: over nothing, or exchanged with the old store, which is then removed.
    if (::renameat2(AT_FDCWD, store.path().c_str(), AT_FDCWD, target.c_str(), RENAME_NOREPLACE) != 0) {
        if (errno != EEXIST && errno != ENOTEMPTY)
            fail_input("cannot move the new store into place as " + path + ": " + std::strerror(errno));
        if (::renameat2(AT_FDCWD, store.path().c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) != 0)
            fail_input("cannot replace the store " + path + ": " + std::strerror(errno));
        // The old store now has the temporary name: the destructor removes it.
    } else {
        store.release();
    }
    if (write.sync) sync_directory(target.has_parent_path() ? target.parent_path() : fs::path("."));
    consolidated.update(text, attrs, write.sync);
}

}  // namespace tslice
