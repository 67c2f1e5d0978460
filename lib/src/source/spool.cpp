// Streams spooled to an unlinked temporary file (see source.hpp and source/spool.hpp).
#include "source/spool.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "base/bytes.hpp"
#include "source/safetensors_header.hpp"
#include "tslice/container.hpp"
#include "tslice/error.hpp"

namespace tslice {

namespace {

// A stream's first bytes say what it is: the .npy magic and header length, a zip signature, or
// a safetensors header length and its '{'.
constexpr std::size_t kSniffBytes = 12;

// Reads until `want` bytes were read or the end of input.
std::size_t read_full(int fd, std::byte* out, std::size_t want, const std::string& what) {
    std::size_t got = 0;
    while (got < want) {
        const ssize_t n = ::read(fd, out + got, want - got);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail_input("cannot read " + what + ": " + std::strerror(errno), what);
        }
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    return got;
}

// A safetensors stream as far as its header says the data reaches: a stream that only looks
// like one (its ninth byte is '{') fails after its header instead of being read forever. The
// header is read by the file reader's own parser (its limits: 100 MB, nesting 128 deep), so a
// hostile header costs a stream what it costs a file; one it refuses is spooled no further,
// and the listing of the spool says what is wrong.
void spool_safetensors(Spool& spool, int fd, std::string head, const std::string& what) {
    const std::uint64_t length = load_le<std::uint64_t>(reinterpret_cast<const std::byte*>(head.data()));
    if (length <= kMaxSafetensorsHeaderBytes && head.size() < 8 + length) {
        const std::size_t have = head.size();
        head.resize(static_cast<std::size_t>(8 + length));
        head.resize(have + read_full(fd, reinterpret_cast<std::byte*>(head.data()) + have, head.size() - have, what));
    }
    spool.append(reinterpret_cast<const std::byte*>(head.data()), head.size());
    if (length > kMaxSafetensorsHeaderBytes || head.size() < 8 + length) return;  // the listing reports it
    std::uint64_t end = 0;
    try {
        end = safetensors_data_end(std::string_view(head).substr(8));
    } catch (const Error&) {
        return;
    }
    spool.append_from(fd, 8 + length + end);
}

}  // namespace

std::string temporary_directory() {
    const char* dir = std::getenv("TMPDIR");
    return dir && *dir ? dir : "/tmp";
}

int open_temporary(const std::string& what, const std::string& file) {
    const std::string dir = temporary_directory();
#ifdef O_TMPFILE
    const int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
#endif
    std::string path = dir + "/.tslice-spool-XXXXXX";
    const int fallback = ::mkstemp(path.data());
    if (fallback < 0)
        fail_input("cannot create a temporary file in " + dir + " to hold " + what + ": " + std::strerror(errno) +
                       " (TMPDIR chooses the directory)",
                   file);
    ::unlink(path.c_str());
    ::fcntl(fallback, F_SETFD, FD_CLOEXEC);
    return fallback;
}

int duplicate_descriptor(int fd) { return ::fcntl(fd, F_DUPFD_CLOEXEC, 3); }

bool spool_stream(Spool& spool, int fd, const std::string& what, bool headers_only) {
    std::string head(kSniffBytes, '\0');
    head.resize(read_full(fd, reinterpret_cast<std::byte*>(head.data()), kSniffBytes, what));
    const auto* bytes = reinterpret_cast<const std::byte*>(head.data());
    const ContainerFormat format = detect_format(bytes, head.size());
    if (format == ContainerFormat::Npz || format == ContainerFormat::Torch || format == ContainerFormat::Gguf) {
        spool.append(bytes, head.size());
        spool.append_from(fd, UINT64_MAX);
        return true;
    }
    if (format == ContainerFormat::Safetensors) {
        spool_safetensors(spool, fd, head, what);
        return true;
    }
    const auto extent = npy_header_extent(bytes, head.size());
    if (extent && head.size() < *extent) {
        const std::size_t have = head.size();
        head.resize(*extent);
        head.resize(have + read_full(fd, reinterpret_cast<std::byte*>(head.data()) + have, *extent - have, what));
    }
    spool.append(reinterpret_cast<const std::byte*>(head.data()), head.size());
    if (headers_only) return false;
    try {
        const NpyHeader header = parse_npy_header(reinterpret_cast<const std::byte*>(head.data()), head.size());
        spool.append_from(fd, header.data_offset + header.data_bytes());
    } catch (const Error&) {
        // The caller parses again and reports it.
    }
    return true;
}


Spool::Spool(std::string what, std::string file)
    : what_(std::move(what)), file_(std::move(file)), fd_(open_temporary(what_, file_)) {}

Spool::~Spool() {
    if (fd_ >= 0) ::close(fd_);
}

void Spool::append(const std::byte* bytes, std::size_t size) {
    while (size > 0) {
        const ssize_t wrote = ::write(fd_, bytes, size);
        if (wrote < 0) {
            if (errno == EINTR) continue;
            fail_input("cannot hold " + what_ + " in a temporary file in " + temporary_directory() + ": " +
                           std::strerror(errno) + " (TMPDIR chooses the directory)",
                       file_);
        }
        bytes += wrote;
        size -= static_cast<std::size_t>(wrote);
        size_ += static_cast<std::uint64_t>(wrote);
    }
}

std::uint64_t Spool::append_from(int fd, std::uint64_t limit) {
    std::vector<std::byte> buffer(kSpoolStepBytes);
    std::uint64_t total = 0;
    while (size_ < limit) {
        const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(kSpoolStepBytes, limit - size_));
        const std::size_t got = read_full(fd, buffer.data(), want, what_);
        append(buffer.data(), got);
        total += got;
        if (got < want) break;
    }
    return total;
}

Mapping Spool::map() {
    if (size_ == 0) return {};
    void* map = ::mmap(nullptr, static_cast<std::size_t>(size_), PROT_READ, MAP_PRIVATE, fd_, 0);
    if (map == MAP_FAILED)
        fail_input("cannot map the temporary file holding " + what_ + ": " + std::strerror(errno), file_);
    return Mapping(map, static_cast<std::size_t>(size_), duplicate_descriptor(fd_));
}

}  // namespace tslice
