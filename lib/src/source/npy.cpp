// Opening a .npy file: mapped in place (never read whole), or standard input read into memory;
// the header as npy_header.cpp parses it, and a check that the data the header promises is there.
#include "tslice/npy.hpp"
#include "tslice/threads.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <signal.h>
#include <sys/xattr.h>
#include <cstring>
#include <exception>
#include <mutex>
#include <system_error>
#include <limits>
#include <optional>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "tslice/error.hpp"

namespace tslice {

namespace {

// Every error here is about one file, and names it (`file`, as Error::file says).

}  // namespace

// -------------------------------------------------------------------------------------------------
// Reading files

namespace {

std::string errno_text(int error) { return std::strerror(error); }

// Closes a descriptor on every path out of a function.
struct FdCloser {
    int fd = -1;
    ~FdCloser() {
        if (fd >= 0) ::close(fd);
    }
};

// Reads until `count` bytes were appended or end of input; returns how many were.
std::size_t read_some(int fd, std::string& out, std::size_t count, const std::string& name) {
    std::size_t total = 0;
    constexpr std::size_t kStep = 1 << 20;
    while (total < count) {
        const std::size_t want = std::min(count - total, kStep);
        const std::size_t old = out.size();
        out.resize(old + want);
        const ssize_t got = ::read(fd, out.data() + old, want);
        if (got < 0) {
            out.resize(old);
            if (errno == EINTR) continue;
            fail_input("cannot read " + name + ": " + errno_text(errno), name);
        }
        out.resize(old + static_cast<std::size_t>(got));
        if (got == 0) break;
        total += static_cast<std::size_t>(got);
    }
    return total;
}

// A stream (a pipe, a terminal, /dev/zero) read as far as its .npy needs: the header, then
// exactly the data bytes it promises. Never to its end: an endless stream that is not a .npy
// fails after its first bytes instead of filling memory, and one that is stops where the array
// does. (What the header promises is read as it arrives, a MiB at a time; a stream that ends
// early is reported by the caller's check that the data fits.)
std::string read_npy_stream(int fd, const std::string& name) {
    std::string out;
    read_some(fd, out, kNpyPreludeBytes, name);
    const auto extent = npy_header_extent(reinterpret_cast<const std::byte*>(out.data()), out.size());
    if (extent && out.size() < *extent) read_some(fd, out, *extent - out.size(), name);
    if (out.empty()) return out;
    try {
        const NpyHeader header = parse_npy_header(reinterpret_cast<const std::byte*>(out.data()), out.size());
        const std::size_t end = header.data_offset + header.data_bytes();
        if (out.size() < end) read_some(fd, out, end - out.size(), name);
    } catch (const Error&) {
        // The caller parses again and reports it.
    }
    return out;
}

// `name` (empty for bytes with no name) prefixes the message.
void check_data_fits(const NpyHeader& header, std::size_t have, const std::string& name) {
    const std::size_t need = header.data_bytes();
    if (have >= need) return;
    fail_input((name.empty() ? std::string() : name + ": ") + "the file is too short for its header: shape " +
                   format_shape(header.shape) + " of " + header.dtype.descr + " needs " + std::to_string(need) +
                   " data bytes, the file has " + std::to_string(have),
               name);
}

// Opens `path` for reading (fd 0 for "-"); refuses directories.
int open_input(const std::string& path, struct stat& info, FdCloser& closer) {
    int fd = 0;
    if (path != "-") {
        fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) fail_input("cannot open '" + path + "': " + errno_text(errno), file_display_name(path));
        closer.fd = fd;
    }
    if (::fstat(fd, &info) != 0)
        fail_input("cannot read " + file_display_name(path) + ": " + errno_text(errno), file_display_name(path));
    if (S_ISDIR(info.st_mode)) fail_input("'" + path + "' is a directory, not a .npy file", file_display_name(path));
    return fd;
}

}  // namespace

NpyArray NpyArray::open(const std::string& path) {
    struct stat info {};
    FdCloser closer;
    const int fd = open_input(path, info, closer);
    const std::string name = file_display_name(path);

    NpyArray array;
    std::size_t skip = 0;  // where the .npy starts in the mapping (standard input may be partly read)
    if (S_ISREG(info.st_mode)) {
        off_t position = 0;
        if (fd == 0) {
            position = ::lseek(fd, 0, SEEK_CUR);
            if (position < 0) position = 0;
        }
        const auto size = static_cast<std::size_t>(info.st_size);
        if (size <= static_cast<std::size_t>(position))
            fail_input(name + ": not a .npy file: " +
                           (fd == 0 ? std::string("standard input is empty") : std::string("the file is empty")),
                       name);
        void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED)
            fail_input("cannot map " + file_display_name(path) + ": " + errno_text(errno), file_display_name(path));
        array.map_ = map;
        array.map_size_ = size;
        skip = static_cast<std::size_t>(position);
    } else {
        // A pipe, a terminal, a character device: no mapping possible, so read it.
        array.owned_ = read_npy_stream(fd, file_display_name(path));
        if (array.owned_.empty())
            fail_input(name + ": not a .npy file: " +
                           (fd == 0 ? std::string("standard input is empty") : std::string("the file is empty")),
                       name);
    }

    const std::byte* base = array.map_ ? static_cast<const std::byte*>(array.map_) + skip
                                       : reinterpret_cast<const std::byte*>(array.owned_.data());
    const std::size_t size = array.map_ ? array.map_size_ - skip : array.owned_.size();
    try {
        array.header_ = parse_npy_header(base, size);
    } catch (const Error& e) {
        fail_input(name + ": " + e.what(), name);
    }
    check_data_fits(array.header_, size - array.header_.data_offset, name);
    array.data_ = base + array.header_.data_offset;
    return array;
}

NpyHeader NpyArray::read_header(const std::string& path) {
    struct stat info {};
    FdCloser closer;
    const int fd = open_input(path, info, closer);
    const std::string name = file_display_name(path);
    const bool seekable = S_ISREG(info.st_mode) && fd != 0;

    std::string bytes;
    // Reads up to `total` bytes in all; a regular file by offset, anything else as a stream (so
    // standard input is consumed only up to the end of the header).
    const auto fill_to = [&](std::size_t total) {
        if (seekable && total > static_cast<std::size_t>(info.st_size))
            total = static_cast<std::size_t>(info.st_size);  // never allocate what is not there
        while (bytes.size() < total) {
            const std::size_t old = bytes.size();
            if (!seekable) {
                if (read_some(fd, bytes, total - old, file_display_name(path)) == 0) return;
                continue;
            }
            bytes.resize(total);
            const ssize_t got = ::pread(fd, bytes.data() + old, total - old, static_cast<off_t>(old));
            if (got < 0) {
                bytes.resize(old);
                if (errno == EINTR) continue;
                fail_input("cannot read " + file_display_name(path) + ": " + errno_text(errno),
                           file_display_name(path));
            }
            bytes.resize(old + static_cast<std::size_t>(got));
            if (got == 0) return;
        }
    };

    fill_to(kNpyPreludeBytes);
    if (bytes.empty())
        fail_input(name + ": not a .npy file: " +
                       (path == "-" ? std::string("standard input is empty") : std::string("the file is empty")),
                   name);
    if (const auto extent = npy_header_extent(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()))
        fill_to(*extent);
    NpyHeader header;
    try {
        header = parse_npy_header(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size());
    } catch (const Error& e) {
        fail_input(name + ": " + e.what(), name);
    }
    // A file's size is known without reading its data, so a header that promises more than
    // the file holds is refused here too; a stream cannot be checked without reading it.
    if (seekable) check_data_fits(header, static_cast<std::size_t>(info.st_size) - header.data_offset, name);
    return header;
}

NpyArray NpyArray::from_bytes(std::string bytes) {
    NpyArray array;
    array.owned_ = std::move(bytes);
    const auto* base = reinterpret_cast<const std::byte*>(array.owned_.data());
    array.header_ = parse_npy_header(base, array.owned_.size());
    check_data_fits(array.header_, array.owned_.size() - array.header_.data_offset, "");
    array.data_ = base + array.header_.data_offset;
    return array;
}

NpyArray::NpyArray(NpyArray&& other) noexcept { *this = std::move(other); }

NpyArray& NpyArray::operator=(NpyArray&& other) noexcept {
    if (this == &other) return *this;
    if (map_) ::munmap(map_, map_size_);
    // data_ may point into other's string buffer, which moves with it (or, for a short
    // string, is copied into ours), so it is rebuilt from its offset.
    const bool in_owned = !other.map_ && other.data_;
    const std::ptrdiff_t offset =
        in_owned ? other.data_ - reinterpret_cast<const std::byte*>(other.owned_.data()) : 0;
    header_ = std::move(other.header_);
    owned_ = std::move(other.owned_);
    map_ = std::exchange(other.map_, nullptr);
    map_size_ = std::exchange(other.map_size_, 0);
    data_ = in_owned ? reinterpret_cast<const std::byte*>(owned_.data()) + offset : other.data_;
    other.data_ = nullptr;
    return *this;
}

NpyArray::~NpyArray() {
    if (map_) ::munmap(map_, map_size_);
}

void NpyArray::release(std::int64_t begin, std::int64_t end) const {
    if (!map_ || begin >= end) return;
    // The mapping is private and never written, so dropping a page only means reading it from
    // the page cache again if it is needed: the range is widened to whole pages. (Leaving the
    // pages at the ends mapped keeps far more than them resident on kernels that map large
    // folios at once.)
    static const std::uintptr_t page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto map_begin = reinterpret_cast<std::uintptr_t>(map_);
    const std::uintptr_t from = std::max(map_begin, reinterpret_cast<std::uintptr_t>(data_ + begin) / page * page);
    const std::uintptr_t to = std::min(map_begin + map_size_,
                                       (reinterpret_cast<std::uintptr_t>(data_ + end) + page - 1) / page * page);
    if (from < to) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
}

View NpyArray::view() const {
    return View::contiguous(header_.shape, header_.dtype.itemsize, header_.fortran_order);
}
}  // namespace tslice
