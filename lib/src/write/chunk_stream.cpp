#include "write/chunk_stream.hpp"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>

#include "tslice/container.hpp"
#include "tslice/error.hpp"
#include "tslice/threads.hpp"

namespace tslice {

namespace {

[[noreturn]] void fail_write(int error, const std::string& target) {
    // A result written straight from the input's mapping: the kernel could not read the
    // mapped pages, which is the input's fault, not the output's.
    if (error == EFAULT)
        fail_input("a mapped input could not be read (EFAULT): the file was truncated while tslice read it, "
                   "or its storage failed");
    fail_input("cannot write " + target + ": " + std::strerror(error));
}

// pwrite() of all `size` bytes at `offset`.
void write_all_at(int fd, const char* data, std::size_t size, std::int64_t offset, const std::string& target) {
    while (size > 0) {
        const ssize_t wrote = ::pwrite(fd, data, size, static_cast<off_t>(offset));
        if (wrote < 0) {
            if (errno == EINTR) continue;
            fail_write(errno, target);
        }
        data += wrote;
        size -= static_cast<std::size_t>(wrote);
        offset += wrote;
    }
}

// The chunks of `total` elements, `chunk_elements` each but the last, in the order they are
// produced and written.
struct Chunks {
    std::int64_t total = 0, chunk_elements = 1;
    bool backwards = false;

    std::int64_t count() const { return (total + chunk_elements - 1) / chunk_elements; }
    // The first element of the chunk produced `index`th, and its elements.
    std::int64_t first(std::int64_t index) const {
        return (backwards ? count() - 1 - index : index) * chunk_elements;
    }
    std::int64_t size(std::int64_t index) const { return std::min(chunk_elements, total - first(index)); }
};

// Produces the chunks on a thread of its own, at most two ahead of the writer.
class ChunkPipeline {
public:
    ChunkPipeline(const ChunkSource& source, const Chunks& chunks, std::size_t itemsize)
        : source_(source), chunks_(chunks) {
        for (auto& buffer : buffers_) buffer.resize(static_cast<std::size_t>(chunks.chunk_elements) * itemsize);
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

    // The bytes of the chunk produced `index`th, once produced; rethrows what the source threw.
    const std::byte* wait(std::int64_t index) {
        if (!producer_.joinable()) return source_(chunks_.first(index), chunks_.size(index), buffers_[index % 2].data());
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return produced_ > index || error_; });
        if (produced_ > index) return ready_[index % 2];
        std::rethrow_exception(error_);
    }

    // That chunk is written: its buffer may be filled again.
    void done(std::int64_t index) {
        {
            std::lock_guard lock(mutex_);
            written_ = index + 1;
        }
        changed_.notify_all();
    }

private:
    void produce() {
        for (std::int64_t index = 0; index < chunks_.count(); ++index) {
            {
                std::unique_lock lock(mutex_);
                changed_.wait(lock, [&] { return cancelled_ || written_ + 2 > index; });
                if (cancelled_) return;
            }
            bool failed = false;
            try {
                const std::byte* bytes = source_(chunks_.first(index), chunks_.size(index), buffers_[index % 2].data());
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
    const Chunks chunks_;
    std::vector<std::byte> buffers_[2];
    const std::byte* ready_[2] = {nullptr, nullptr};
    std::mutex mutex_;
    std::condition_variable changed_;
    std::int64_t produced_ = 0, written_ = 0;
    bool cancelled_ = false;
    std::exception_ptr error_;
    std::thread producer_;
};

// The CRC-32 of the data, from chunks produced in either order: each chunk's own, joined to
// those of the chunks after it (zlib's crc32_combine; libdeflate, which computes each chunk's
// faster, has no such function).
class DataCrc {
public:
    // `prefix_crc`: the CRC-32 of the bytes before the data that it covers.
    DataCrc(bool backwards, std::uint32_t prefix_crc)
        : backwards_(backwards), prefix_crc_(prefix_crc), crc_(backwards ? 0 : prefix_crc) {}

    void add(const std::byte* bytes, std::size_t size) {
        if (!backwards_) {
            crc_ = crc32_update(crc_, bytes, size);
            return;
        }
        crc_ = static_cast<std::uint32_t>(
            crc32_combine64(crc32_update(0, bytes, size), crc_, static_cast<z_off64_t>(length_)));
        length_ += size;
    }
    // The CRC-32 of the prefix's part and all the data added.
    std::uint32_t value() const {
        if (!backwards_) return crc_;
        return static_cast<std::uint32_t>(crc32_combine64(prefix_crc_, crc_, static_cast<z_off64_t>(length_)));
    }

private:
    bool backwards_;
    std::uint32_t prefix_crc_;
    std::uint32_t crc_;  // in order: of the prefix's part and the data; backwards: of the data added
    std::uint64_t length_ = 0;  // backwards: the bytes added
};

}  // namespace

void write_all(int fd, const char* data, std::size_t size, const std::string& target) {
    while (size > 0) {
        const ssize_t wrote = ::write(fd, data, size);
        if (wrote < 0) {
            if (errno == EINTR) continue;
            fail_write(errno, target);
        }
        data += wrote;
        size -= static_cast<std::size_t>(wrote);
    }
}

void stream_framed(int fd, const std::string& target, const OutputFraming& framing, std::size_t itemsize,
                   const std::vector<std::int64_t>& shape, const ChunkSource& data_source, std::size_t chunk_bytes,
                   const ChunkOrder& order) {
    std::int64_t total = 1;
    for (auto dim : shape) total *= dim;
    const Chunks chunks{total, std::min(elements_per_chunk(itemsize, chunk_bytes), std::max<std::int64_t>(total, 1)),
                        order.backwards && total > 0};

    std::uint32_t prefix_crc = 0;
    if (framing.suffix && framing.crc_from < framing.prefix.size())
        prefix_crc = crc32_update(0, reinterpret_cast<const std::byte*>(framing.prefix.data()) + framing.crc_from,
                                  framing.prefix.size() - framing.crc_from);
    DataCrc data_crc(chunks.backwards, prefix_crc);
    // The CRC-32 is computed on the producing thread, so that it overlaps the writing.
    const ChunkSource crc_source = [&](std::int64_t first, std::int64_t count, std::byte* scratch) {
        const std::byte* bytes = data_source(first, count, scratch);
        data_crc.add(bytes, static_cast<std::size_t>(count) * itemsize);
        return bytes;
    };
    const ChunkSource& source = framing.suffix ? crc_source : data_source;

    // In order, each piece follows the last; backwards, it goes to `offset` in the descriptor.
    const auto put = [&](const void* bytes, std::size_t size, std::int64_t offset) {
        if (chunks.backwards)
            write_all_at(fd, static_cast<const char*>(bytes), size, offset, target);
        else
            write_all(fd, static_cast<const char*>(bytes), size, target);
    };
    const auto data_offset = order.base + static_cast<std::int64_t>(framing.prefix.size());
    const auto write_chunk = [&](const std::byte* bytes, std::int64_t first, std::int64_t count) {
        const auto item = static_cast<std::int64_t>(itemsize);
        put(bytes, static_cast<std::size_t>(count * item), data_offset + first * item);
    };
    const auto write_prefix = [&] { put(framing.prefix.data(), framing.prefix.size(), order.base); };
    const auto write_suffix = [&] {
        if (chunks.backwards) {
            // Written in order from here: the descriptor is left at the result's end.
            const std::int64_t end = data_offset + total * static_cast<std::int64_t>(itemsize);
            if (::lseek(fd, static_cast<off_t>(end), SEEK_SET) < 0) fail_write(errno, target);
        }
        if (!framing.suffix) return;
        const std::string suffix = framing.suffix(data_crc.value());
        write_all(fd, suffix.data(), suffix.size(), target);
    };

    if (total == 0) {
        write_prefix();
        write_suffix();
        return;
    }
    if (chunks.count() == 1) {
        // One chunk: nothing to overlap, so no thread to start.
        std::vector<std::byte> scratch(static_cast<std::size_t>(total) * itemsize);
        const std::byte* bytes = source(0, total, scratch.data());
        write_prefix();
        write_chunk(bytes, 0, total);
        write_suffix();
        return;
    }
    ChunkPipeline pipeline(source, chunks, itemsize);
    for (std::int64_t index = 0; index < chunks.count(); ++index) {
        const std::byte* bytes = pipeline.wait(index);
        if (index == 0 && !chunks.backwards) write_prefix();
        write_chunk(bytes, chunks.first(index), chunks.size(index));
        pipeline.done(index);
    }
    // Backwards, the prefix (a .npy's header) comes last: a write that fails or is killed
    // half way leaves no header before a hole of zeros, which a reader would take for data.
    if (chunks.backwards) write_prefix();
    write_suffix();
}

}  // namespace tslice
