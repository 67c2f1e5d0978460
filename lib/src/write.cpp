// The write stage: a result's elements in C order, chunk by chunk, to a file or a stream.
//
// A chunk is at most WriteSizes::chunk_bytes (an element larger than that is written in parts).
// It is produced on a thread of its own, at most two ahead of the writer (one being written,
// one being filled), so copying and writing overlap, and the result is never held whole in
// memory. A chunk of a contiguous input is read from the file into the writer's buffer (or,
// for data in memory, written straight from it); anything else is copied (over the worker
// threads, for large results) into the writer's buffer. Input
// pages the remaining chunks cannot read are released as the copy moves on, so a file larger
// than memory can be sliced.
#include "tslice/write.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

#include "dtype.hpp"
#include "input_paging.hpp"
#include "output_file.hpp"
#include "gather_reads.hpp"
#include "write_sizes.hpp"
#include "tslice/container.hpp"
#include "tslice/copy.hpp"
#include "tslice/error.hpp"
#include "tslice/fields.hpp"
#include "tslice/parallel.hpp"

namespace tslice {

namespace {

[[noreturn]] void fail(const std::string& message) { throw Error(ErrorKind::Input, message); }

WriteSizes g_sizes;

void write_all(int fd, const char* data, std::size_t size, const std::string& target) {
    while (size > 0) {
        const ssize_t wrote = ::write(fd, data, size);
        if (wrote < 0) {
            if (errno == EINTR) continue;
            // A result written straight from the input's mapping: the kernel could not read
            // the mapped pages, which is the input's fault, not the output's.
            if (errno == EFAULT)
                fail("a mapped input could not be read (EFAULT): the file was truncated while tslice read it, "
                     "or its storage failed");
            fail("cannot write " + target + ": " + std::strerror(errno));
        }
        data += wrote;
        size -= static_cast<std::size_t>(wrote);
    }
}

// Streams the header and the data to `fd`. The first chunk is filled before anything is
// written, so a fill that fails at once leaves even a stream untouched.
// Produces chunks on a thread of its own, at most two ahead of the writer (one being
// written, one being filled), so copying and writing overlap.
class ChunkPipeline {
public:
    ChunkPipeline(const ChunkSource& source, std::int64_t total, std::int64_t chunk_elements, std::size_t itemsize)
        : source_(source), total_(total), chunk_elements_(chunk_elements) {
        for (auto& buffer : buffers_) buffer.resize(static_cast<std::size_t>(chunk_elements) * itemsize);
        // Where no thread can start, the writer produces each chunk itself when it needs it:
        // slower, never a failure.
        if (std::optional<std::thread> producer = try_start_thread([this] { produce(); }))
            producer_ = std::move(*producer);
    }
    ChunkPipeline(const ChunkPipeline&) = delete;
    ChunkPipeline& operator=(const ChunkPipeline&) = delete;
    ~ChunkPipeline() {
        {
            std::lock_guard lock(mutex_);
            cancelled_ = true;
        }
        changed_.notify_all();
        if (producer_.joinable()) producer_.join();
    }

    // The bytes of chunk `index`, once produced; rethrows what the source threw.
    const std::byte* wait(std::int64_t index) {
        if (!producer_.joinable()) {
            const std::int64_t first = index * chunk_elements_;
            return source_(first, std::min(chunk_elements_, total_ - first), buffers_[index % 2].data());
        }
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return produced_ > index || error_; });
        if (produced_ > index) return ready_[index % 2];
        std::rethrow_exception(error_);
    }

    // Chunk `index` is written: its buffer may be filled again.
    void done(std::int64_t index) {
        {
            std::lock_guard lock(mutex_);
            written_ = index + 1;
        }
        changed_.notify_all();
    }

private:
    void produce() {
        for (std::int64_t index = 0, first = 0; first < total_; ++index, first += chunk_elements_) {
            {
                std::unique_lock lock(mutex_);
                changed_.wait(lock, [&] { return cancelled_ || written_ + 2 > index; });
                if (cancelled_) return;
            }
            const std::int64_t count = std::min(chunk_elements_, total_ - first);
            bool failed = false;
            try {
                const std::byte* bytes = source_(first, count, buffers_[index % 2].data());
                std::lock_guard lock(mutex_);
                ready_[index % 2] = bytes;
                produced_ = index + 1;
            } catch (...) {
                std::lock_guard lock(mutex_);
                error_ = std::current_exception();
                failed = true;
            }
            changed_.notify_all();
            if (failed) return;
        }
    }

    const ChunkSource& source_;
    const std::int64_t total_, chunk_elements_;
    std::vector<std::byte> buffers_[2];
    const std::byte* ready_[2] = {nullptr, nullptr};
    std::mutex mutex_;
    std::condition_variable changed_;
    std::int64_t produced_ = 0, written_ = 0;
    bool cancelled_ = false;
    std::exception_ptr error_;
    std::thread producer_;
};

// The framing's prefix, the data and its suffix, with the CRC-32 the suffix needs computed
// from the data as it is produced: on the producing thread, in order, so that it overlaps the
// writing (the prefix's part is known before any chunk is produced).
void stream_framed(int fd, const std::string& target, const OutputFraming& framing, std::size_t itemsize,
                   const std::vector<std::int64_t>& shape, const ChunkSource& data_source) {
    std::uint32_t crc = 0;
    if (framing.suffix && framing.crc_from < framing.prefix.size())
        crc = crc32_update(crc, reinterpret_cast<const std::byte*>(framing.prefix.data()) + framing.crc_from,
                           framing.prefix.size() - framing.crc_from);
    const ChunkSource crc_source = [&](std::int64_t first, std::int64_t count, std::byte* scratch) {
        const std::byte* bytes = data_source(first, count, scratch);
        crc = crc32_update(crc, bytes, static_cast<std::size_t>(count) * itemsize);
        return bytes;
    };
    const ChunkSource& source = framing.suffix ? crc_source : data_source;
    const auto write_data = [&](const std::byte* bytes, std::size_t size) {
        write_all(fd, reinterpret_cast<const char*>(bytes), size, target);
    };
    const auto write_prefix = [&] { write_all(fd, framing.prefix.data(), framing.prefix.size(), target); };
    const auto write_suffix = [&] {
        if (!framing.suffix) return;
        const std::string suffix = framing.suffix(crc);
        write_all(fd, suffix.data(), suffix.size(), target);
    };
    std::int64_t total = 1;
    for (auto dim : shape) total *= dim;
    if (total == 0) {
        write_prefix();
        write_suffix();
        return;
    }
    const auto per_chunk = static_cast<std::int64_t>(std::max<std::size_t>(1, g_sizes.chunk_bytes / itemsize));
    const std::int64_t chunk_elements = std::min(per_chunk, total);
    if (chunk_elements == total) {
        // One chunk: nothing to overlap, so no thread to start.
        std::vector<std::byte> scratch(static_cast<std::size_t>(total) * itemsize);
        const std::byte* bytes = source(0, total, scratch.data());
        write_prefix();
        write_data(bytes, scratch.size());
        write_suffix();
        return;
    }
    ChunkPipeline pipeline(source, total, chunk_elements, itemsize);
    for (std::int64_t index = 0, first = 0; first < total; ++index, first += chunk_elements) {
        const std::int64_t count = std::min(chunk_elements, total - first);
        const std::byte* bytes = pipeline.wait(index);
        if (index == 0) write_prefix();
        write_data(bytes, static_cast<std::size_t>(count) * itemsize);
        pipeline.done(index);
    }
    write_suffix();
}

}  // namespace

WriteSizes write_sizes() { return g_sizes; }
void set_write_sizes(const WriteSizes& sizes) { g_sizes = sizes; }

void write_npy(const std::string& path, const DType& dtype, const std::vector<std::int64_t>& shape,
               const ChunkFiller& fill) {
    write_npy(path, dtype, shape, ChunkSource([&](std::int64_t first, std::int64_t count, std::byte* scratch) {
                  fill(scratch, first, count);
                  return static_cast<const std::byte*>(scratch);
              }));
}

void write_npy(const std::string& path, const DType& dtype, const std::vector<std::int64_t>& shape,
               const ChunkSource& fill) {
    if (dtype.itemsize == 0) fail("cannot write a dtype with zero-byte elements");
    checked_element_count(shape, dtype.itemsize, "the output shape");
    write_array(path, OutputFraming{make_npy_header(dtype, shape), 0, {}}, dtype.itemsize, shape, fill);
}

void write_array(const std::string& path, const OutputFraming& framing, std::size_t itemsize,
                 const std::vector<std::int64_t>& shape, const ChunkSource& fill, const WriteOptions& options) {
    if (itemsize == 0) fail("cannot write a dtype with zero-byte elements");
    checked_element_count(shape, itemsize, "the output shape");
    OutputFile output(path);
    stream_framed(output.fd(), output.name(), framing, itemsize, shape, fill);
    output.commit(options.sync);
}

void write_text(const std::string& path, const TextSource& next, const WriteOptions& options) {
    OutputFile output(path);
    std::string piece;
    for (bool more = true; more;) {
        piece.clear();
        more = next(piece);
        write_all(output.fd(), piece.data(), piece.size(), output.name());
    }
    output.commit(options.sync);
}

namespace {

// Reverses the bytes of each of `count` elements: a big-endian input written little-endian.
void swap_elements(std::byte* bytes, std::int64_t count, std::size_t itemsize) {
    for (std::int64_t i = 0; i < count; ++i, bytes += itemsize) std::reverse(bytes, bytes + itemsize);
}

// A view whose elements are larger than a chunk, as a view of parts of them: a trailing axis
// over each element's bytes in units of at most `chunk_bytes` (the largest that divides the
// element), so that the writer's two chunk buffers stay bounded in bytes whatever the item
// size. The bytes are the same, in the same order. Other views are returned as they are.
View in_chunk_sized_units(const View& view, std::size_t chunk_bytes) {
    if (view.itemsize <= chunk_bytes) return view;
    std::size_t unit = 1;
    for (std::size_t divisor = 1; divisor * divisor <= view.itemsize; ++divisor) {
        if (view.itemsize % divisor != 0) continue;
        if (divisor <= chunk_bytes) unit = std::max(unit, divisor);
        if (view.itemsize / divisor <= chunk_bytes) unit = std::max(unit, view.itemsize / divisor);
    }
    View units = view;
    units.shape.push_back(static_cast<std::int64_t>(view.itemsize / unit));
    units.byte_strides.push_back(static_cast<std::int64_t>(unit));
    if (units.has_table()) units.table_strides.push_back(0);
    units.itemsize = unit;
    return units;
}

}  // namespace

void write_view(const std::string& path, const OutputFraming& framing, const std::byte* data,
                const View& result_view, const InputPages& pages, const WriteOptions& options) {
    const WriteSizes sizes = g_sizes;
    // A selection of fields is packed from whole elements, so its elements are not split.
    const View view = options.packed_selection ? result_view : in_chunk_sized_units(result_view, sizes.chunk_bytes);
    const auto itemsize = static_cast<std::int64_t>(view.itemsize);
    // A selection of fields is copied whole, a bounded piece at a time, into `whole`, then
    // packed into the chunk; what a file holds of an element is then `written` bytes.
    const DType* packs = options.packed_selection ? &*options.packed_selection : nullptr;
    const auto written = static_cast<std::int64_t>(packs ? packs->packed_itemsize : view.itemsize);
    std::vector<std::byte> whole;
    const bool contiguous = !packs && view.is_c_contiguous();
    // A contiguous result is read with pread (below), not through the mapping.
    InputPaging input(view, pages, sizes, !(contiguous && pages.read));
    GatherReads gather_reads(data, view, pages, sizes);
    WorkerPool pool(view.element_count() * itemsize >= sizes.threaded_bytes ? options.threads : 1);
    const double bytes_read_per_element =
        input.releases() && view.element_count() > 0
            ? static_cast<double>(input.whole().end - input.whole().begin) / static_cast<double>(view.element_count())
            : 0;
    std::int64_t previous_first = 0;

    write_array(path, framing, static_cast<std::size_t>(written), view.shape,
                ChunkSource([&](std::int64_t first, std::int64_t count, std::byte* scratch) {
                    const std::byte* bytes = scratch;
                    if (contiguous && pages.read) {
                        // Read into the chunk, not written from the mapping: write() from a
                        // file mapping took 1.3 to 1.4x as long for [1:-1] of a 1 GiB file (to
                        // ext4 and to tmpfs alike; why was not measured: likely the faults that
                        // map each page first), and the reading overlaps the writing of the
                        // chunk before.
                        pages.read(view.byte_offset + first * itemsize, count * itemsize, scratch);
                        input.before(first + count);
                    } else if (contiguous) {
                        bytes = data + view.byte_offset + first * itemsize;
                        if (options.swap_bytes) {
                            std::memcpy(scratch, bytes, static_cast<std::size_t>(count * itemsize));
                            bytes = scratch;
                        }
                        // The writer is still writing the previous chunk from the mapping; the
                        // one before it is written.
                        input.before(previous_first);
                        previous_first = first;
                    } else if (gather_reads && !packs) {
                        gather_reads.copy(pool, scratch, first, count);
                    } else {
                        // Pieces of at most release_bytes read; a packed one, of chunk_bytes copied.
                        const double bytes_per_piece =
                            packs ? static_cast<double>(sizes.chunk_bytes) : sizes.release_bytes;
                        const double bytes_per_element = packs ? static_cast<double>(itemsize) : bytes_read_per_element;
                        const std::int64_t pieces = std::clamp<std::int64_t>(
                            static_cast<std::int64_t>(
                                std::ceil(static_cast<double>(count) * bytes_per_element / bytes_per_piece)),
                            1, count);
                        for (std::int64_t piece = 0; piece < pieces; ++piece) {
                            const std::int64_t from = count * piece / pieces;
                            const std::int64_t to = count * (piece + 1) / pieces;
                            if (packs) {
                                whole.resize(static_cast<std::size_t>((to - from) * itemsize));
                                if (gather_reads)
                                    gather_reads.copy(pool, whole.data(), first + from, to - from);
                                else
                                    copy_view_parallel(pool, data, view, whole.data(), first + from, to - from,
                                                       pages.memory());
                                pack_elements(*packs, whole.data(), to - from, scratch + from * written);
                            } else {
                                copy_view_parallel(pool, data, view, scratch + from * itemsize, first + from, to - from,
                                                   pages.memory());
                            }
                            input.before(first + to);
                        }
                    }
                    if (options.swap_bytes) swap_elements(scratch, count, view.itemsize);
                    if (options.progress) options.progress((first + count) * written, view.element_count() * written);
                    return bytes;
                }),
                options);
}

}  // namespace tslice
