// A file's mapping and what a copy may do with its pages (see source.hpp).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "tslice/error.hpp"
#include "tslice/source.hpp"

namespace tslice {

Mapping::Mapping(void* map, std::size_t size, int file) : map_(map), size_(size), file_(file) {
    // A descriptor of its own (not a dup, which would share the file's readahead state); where
    // /proc is missing, read_in only asks.
    if (file_ >= 0) reader_ = ::open(("/proc/self/fd/" + std::to_string(file_)).c_str(), O_RDONLY | O_CLOEXEC);
}

Mapping& Mapping::operator=(Mapping&& other) noexcept {
    if (this == &other) return *this;
    if (map_) ::munmap(map_, size_);
    if (file_ >= 0) ::close(file_);
    if (reader_ >= 0) ::close(reader_);
    map_ = std::exchange(other.map_, nullptr);
    size_ = std::exchange(other.size_, 0);
    file_ = std::exchange(other.file_, -1);
    reader_ = std::exchange(other.reader_, -1);
    return *this;
}

Mapping::~Mapping() {
    if (map_) ::munmap(map_, size_);
    if (file_ >= 0) ::close(file_);
    if (reader_ >= 0) ::close(reader_);
}

const std::byte* Mapping::data() const {
    static const std::byte empty[1] = {};
    return map_ ? static_cast<const std::byte*>(map_) : empty;
}

bool Mapping::pages_of(const std::byte*& begin, const std::byte*& end) const {
    if (!map_ || begin >= end) return false;
    static const std::uintptr_t page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto map_begin = reinterpret_cast<std::uintptr_t>(map_);
    const std::uintptr_t from = std::max(map_begin, reinterpret_cast<std::uintptr_t>(begin) / page * page);
    const std::uintptr_t to =
        std::min(map_begin + size_, (reinterpret_cast<std::uintptr_t>(end) + page - 1) / page * page);
    begin = reinterpret_cast<const std::byte*>(from);
    end = reinterpret_cast<const std::byte*>(to);
    return from < to;
}

void Mapping::release(const std::byte* begin, const std::byte* end) const {
    // The mapping is private and never written, so dropping a page only means reading it from
    // the page cache again if it is needed: the range is widened to whole pages.
    if (pages_of(begin, end))
        ::madvise(const_cast<std::byte*>(begin), static_cast<std::size_t>(end - begin), MADV_DONTNEED);
}

void Mapping::read_ahead(const std::byte* begin, const std::byte* end) const {
    // Advice only: a file system that cannot read ahead leaves the reads to the faults.
    if (pages_of(begin, end))
        ::madvise(const_cast<std::byte*>(begin), static_cast<std::size_t>(end - begin), MADV_WILLNEED);
}

void Mapping::read_in(const std::byte* begin, const std::byte* end) const {
    // Why not read_ahead: pages asked for with MADV_WILLNEED enter the page cache one 4 KiB
    // page each, where the kernel's readahead of a read in order caches large folios, and
    // mapped reads of a file cached in single pages stay far slower until it leaves the cache
    // (docs/performance.md).
    static const int discard = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (!pages_of(begin, end)) return;
    if (reader_ >= 0 && discard >= 0) {
        auto offset = static_cast<off_t>(begin - data());
        const auto to = static_cast<off_t>(end - data());
        for (;;) {
            const ssize_t sent = ::sendfile(discard, reader_, &offset, static_cast<std::size_t>(to - offset));
            if (sent < 0 && errno == EINTR) continue;
            if (sent == 0 || offset >= to) return;  // read; or the file ends sooner (cut: the copy says so)
            if (sent < 0) break;                    // a file system without it: asked for below
        }
        begin = data() + offset;
    }
    read_ahead(begin, end);
}

bool Mapping::cached(const std::byte* at) const {
    const std::byte* end = at + 1;
    if (!pages_of(at, end)) return false;
    unsigned char resident = 0;
    return ::mincore(const_cast<std::byte*>(at), 1, &resident) == 0 && (resident & 1) != 0;
}

void Mapping::map_ahead(const std::byte* begin, const std::byte* end) const {
#ifndef MADV_POPULATE_READ
    constexpr int MADV_POPULATE_READ = 22;  // Linux 5.14; older C libraries lack the name
#endif
    // Advice here too: EINVAL from an older kernel, EFAULT where the file cannot be read (the
    // copy's own read of the page then reports it).
    if (pages_of(begin, end))
        ::madvise(const_cast<std::byte*>(begin), static_cast<std::size_t>(end - begin), MADV_POPULATE_READ);
}

void Mapping::read(const std::byte* at, std::size_t bytes, std::byte* dst, const std::string& what) const {
    if (file_ < 0) {
        std::memcpy(dst, at, bytes);
        return;
    }
    auto offset = static_cast<off_t>(at - data());
    while (bytes > 0) {
        const ssize_t got = ::pread(file_, dst, bytes, offset);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) fail_input("cannot read " + what + ": " + std::strerror(errno));
        if (got == 0) fail_input("cannot read " + what + ": the file was truncated while tslice read it");
        dst += got;
        bytes -= static_cast<std::size_t>(got);
        offset += got;
    }
}

std::size_t Mapping::read_cached(const std::byte* at, std::size_t bytes, std::byte* dst) const {
    if (file_ < 0) {
        std::memcpy(dst, at, bytes);
        return bytes;
    }
    std::size_t done = 0;
    while (done < bytes) {
        iovec part{dst + done, bytes - done};
        const ssize_t got = ::preadv2(file_, &part, 1, static_cast<off_t>(at - data()) + static_cast<off_t>(done),
                                      RWF_NOWAIT);
        if (got < 0 && errno == EINTR) continue;
        // EAGAIN: a page is not cached; anything else (a kernel without RWF_NOWAIT for this
        // file system, an error) is left to the waiting read, which reports errors.
        if (got <= 0) break;
        done += static_cast<std::size_t>(got);
    }
    return done;
}

}  // namespace tslice
