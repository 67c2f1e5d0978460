// Inputs as one mapping each (see source.hpp).
#include "tslice/source.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "source/inflate.hpp"
#include "read/input_paging.hpp"
#include "source/safetensors_header.hpp"
#include "tslice/container.hpp"
#include "tslice/error.hpp"

namespace tslice {

namespace {

[[noreturn]] void fail(const std::string& message, const std::string& file = {}) {
    throw Error(ErrorKind::Input, message, file);
}

constexpr std::size_t kStep = std::size_t{1} << 20;
// A stream's first bytes say what it is: the .npy magic and header length, a zip signature, or
// a safetensors header length and its '{'.
constexpr std::size_t kSniffBytes = 12;



// A descriptor of the same open file for a Mapping to keep, above the standard ones.
int duplicate(int fd) { return ::fcntl(fd, F_DUPFD_CLOEXEC, 3); }

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
        fail("cannot create a temporary file in " + dir + " to hold " + what + ": " + std::strerror(errno) +
                 " (TMPDIR chooses the directory)",
             file);
    ::unlink(path.c_str());
    ::fcntl(fallback, F_SETFD, FD_CLOEXEC);
    return fallback;
}

// Reads until `want` bytes were read or the end of input.
std::size_t read_full(int fd, std::byte* out, std::size_t want, const std::string& what) {
    std::size_t got = 0;
    while (got < want) {
        const ssize_t n = ::read(fd, out + got, want - got);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail("cannot read " + what + ": " + std::strerror(errno), what);
        }
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    return got;
}

std::uint64_t le(const std::byte* p, int bytes) {
    std::uint64_t value = 0;
    for (int k = bytes - 1; k >= 0; --k) value = (value << 8) | std::to_integer<std::uint64_t>(p[k]);
    return value;
}

// A safetensors stream as far as its header says the data reaches: a stream that only looks
// like one (its ninth byte is '{') fails after its header instead of being read forever. The
// header is read by the file reader's own parser (its limits: 100 MB, nesting 128 deep), so a
// hostile header costs a stream what it costs a file; one it refuses is spooled no further,
// and the listing of the spool says what is wrong.
void spool_safetensors(Spool& spool, int fd, std::string head, const std::string& what) {
    const std::uint64_t length = le(reinterpret_cast<const std::byte*>(head.data()), 8);
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

// How much of a stream that starts with `head` to spool: a .npy as far as its header promises
// (never to the end, so an endless stream that is not a .npy fails after its first bytes and
// one that is stops where the array does); a safetensors file as far as its tensors reach; a
// zip archive to its end, where its directory is.
// Returns whether the whole of the .npy is there.
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

}  // namespace

// -------------------------------------------------------------------------------------------------

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
    // mapped reads of a file cached in single pages stay slower until it leaves the cache
    // (float32 [..., 5] of a 1 GiB file, warm: 150-160 ms after a cold [1:-1] that asked,
    // 11 ms after one that read so; docs/performance-log.md, "Reading ahead with sendfile").
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
        if (got < 0) fail("cannot read " + what + ": " + std::strerror(errno));
        if (got == 0) fail("cannot read " + what + ": the file was truncated while tslice read it");
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

// -------------------------------------------------------------------------------------------------

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
            fail("cannot hold " + what_ + " in a temporary file in " + temporary_directory() + ": " +
                     std::strerror(errno) + " (TMPDIR chooses the directory)",
                 file_);
        }
        bytes += wrote;
        size -= static_cast<std::size_t>(wrote);
        size_ += static_cast<std::uint64_t>(wrote);
    }
}

std::uint64_t Spool::append_from(int fd, std::uint64_t limit) {
    std::vector<std::byte> buffer(kStep);
    std::uint64_t total = 0;
    while (size_ < limit) {
        const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(kStep, limit - size_));
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
    if (map == MAP_FAILED) fail("cannot map the temporary file holding " + what_ + ": " + std::strerror(errno), file_);
    return Mapping(map, static_cast<std::size_t>(size_), duplicate(fd_));
}

// -------------------------------------------------------------------------------------------------

InputBytes InputBytes::open(const std::string& path, bool headers_only) {
    const std::string name = file_display_name(path);
    int fd = 0;
    if (path != "-") {
        fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) fail("cannot open " + name + ": " + std::strerror(errno), name);
    }
    struct Closer {
        int fd;
        ~Closer() {
            if (fd > 0) ::close(fd);
        }
    } closer{fd};
    struct stat info {};
    if (::fstat(fd, &info) != 0) fail("cannot read " + name + ": " + std::strerror(errno), name);
    if (S_ISDIR(info.st_mode)) {
        if (const std::string format = unread_directory_format(path); !format.empty())
            throw Error(ErrorKind::Input, name + ": " + unread_format_error(format).what(), name);
        InputBytes input;
        input.region_ = open_region_source(path, nullptr, 0);
        return input;
    }

    InputBytes input;
    if (S_ISREG(info.st_mode)) {
        off_t position = 0;
        if (fd == 0) position = std::max<off_t>(0, ::lseek(fd, 0, SEEK_CUR));
        const auto size = static_cast<std::size_t>(info.st_size);
        if (size > static_cast<std::size_t>(position)) {
            void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
            if (map != MAP_FAILED) {
                input.mapping_ = Mapping(map, size, duplicate(fd));
                input.skip_ = static_cast<std::size_t>(position);
            } else if (errno == ENOMEM) {
                fail("cannot map " + name + ": " + std::strerror(errno), name);
            } else {
                // Some file systems (sysfs, some FUSE and network ones) cannot map files:
                // such a file is read like a stream, through the spool, in bounded memory.
                Spool spool(name, name);
                input.complete_ = spool_stream(spool, fd, name, headers_only);
                input.mapping_ = spool.map();
            }
        }
    } else {
        Spool spool(name, name);
        input.complete_ = spool_stream(spool, fd, name, headers_only);
        input.mapping_ = spool.map();
    }
    if (input.size() == 0) fail(name + ": " + (path == "-" ? "standard input is empty" : "the file is empty"), name);
    if (path != "-") input.region_ = open_region_source(path, input.data(), input.size());
    else if (hdf5_signature_at(input.data(), input.size()))
        fail("standard input is an HDF5 file, which tslice reads only from a path (the HDF5 library opens files by "
             "name): give the file's path", name);
    return input;
}

// -------------------------------------------------------------------------------------------------

namespace {

// A stored member's CRC-32, over all of it, before any of it is used, as Python's zipfile
// checks it when np.load reads a member: a changed byte is an error, never a changed value.
// The member is read through its mapping, where it stays for the copy; a large one a piece at
// a time, the next piece asked for ahead and each given back after, so that checking a member
// larger than memory does not keep it resident. (Reading it with pread instead, into one
// buffer, measured slower: docs/performance-log.md, "CRC-32 of stored members".)
void check_member_crc(const InputBytes& input, const ArrayBytes& bytes, const std::string& what) {
    static constexpr std::uint64_t kPiece = std::uint64_t{8} << 20;
    constexpr std::uint64_t kKeptBytes = std::uint64_t{256} << 20;  // smaller members stay mapped for the copy
    const Mapping& mapping = input.mapping();
    const std::byte* const begin = input.data() + bytes.member_offset;
    const std::byte* const end = begin + bytes.member_size;
    const bool release = bytes.member_size > kKeptBytes;
    std::uint32_t crc = 0;
    for (const std::byte* at = begin; at < end;) {
        const auto piece = [end](const std::byte* from) {
            return from + std::min<std::uint64_t>(kPiece, static_cast<std::uint64_t>(end - from));
        };
        const std::byte* const next = piece(at);
        if (next < end) mapping.read_ahead(next, piece(next));
        crc = crc32_update(crc, at, static_cast<std::size_t>(next - at));
        if (release) mapping.release(at, next);
        at = next;
    }
    if (crc != bytes.crc32) {
        char text[80];
        std::snprintf(text, sizeof text, "CRC-32 %08x, but the zip directory says %08x", crc, bytes.crc32);
        fail(what + " is corrupt: its bytes have " + text);
    }
}

}  // namespace

void require_sliceable(const ArrayInFile& array, const std::string& what) {
    if (!array.quantized.empty())
        throw Error(ErrorKind::Usage, what + " is of the quantized ggml type " + array.quantized +
                                          ", which tslice lists but does not slice as it is; --astype f4 dequantizes " +
                                          "Q8_0, Q4_0, Q4_1, Q5_0 and Q5_1");
}

std::vector<ArrayInFile> list_arrays(const InputBytes& input) {
    if (input.region()) return input.region()->list();
    return list_arrays(input.data(), input.size(), input.complete());
}

ArrayData ArrayData::open(const InputBytes& input, const ArrayInFile& array, const std::string& what,
                          const std::function<Box()>& reach) {
    if (array.bytes.kind == ArrayBytes::Kind::Region) {
        if (!input.region() || !reach)
            throw Error(ErrorKind::Internal, "internal: " + what + " is read by region, without a region");
        return open_region(*input.region(), array, reach(), what);
    }
    if (array.bytes.kind == ArrayBytes::Kind::Quantized) {
        if (!reach) throw Error(ErrorKind::Internal, "internal: " + what + " is decoded by region, without a region");
        return open_quantized(input, array, reach(), what);
    }
    ArrayData out;
    out.what_ = what;
    out.shape_ = array.shape;
    out.itemsize_ = array.type.itemsize();
    out.fortran_order_ = array.fortran_order;
    out.strides_ = array.strides;
    require_sliceable(array, what);
    if (array.bytes.kind == ArrayBytes::Kind::Mapped) {
        if (array.bytes.member_size > 0) check_member_crc(input, array.bytes, what);
        out.mapping_ = &input.mapping();
        out.data_ = input.data() + array.bytes.offset;
        return out;
    }
    if (array.bytes.inflated_size <= kWholeInflateBytes) {
        out.in_memory_ = inflate_whole(input.data() + array.bytes.offset, array.bytes.size, array.bytes.inflated_size,
                                       array.bytes.crc32, what);
        out.data_ = out.in_memory_.data() + array.bytes.data_offset;
        return out;
    }
    InflateStream stream(input.data() + array.bytes.offset, array.bytes.size, array.bytes.inflated_size,
                         array.bytes.crc32, what);
    Spool spool(what);
    std::vector<std::byte> buffer(kStep);
    // An incompressible member is about as large compressed as inflated: what has been read
    // of it is released as inflating goes on, so that it is not all resident by the end.
    const std::byte* const compressed = input.data() + array.bytes.offset;
    const std::byte* released = compressed;
    for (;;) {
        const std::size_t got = stream.read(buffer.data(), buffer.size());
        spool.append(buffer.data(), got);
        const std::byte* const next = stream.next_input();
        const auto back = std::min<std::int64_t>(released - compressed, InputPaging::kRefaultBytes);
        input.mapping().release(released - back, next);
        released = next;
        if (got < buffer.size()) break;
    }
    out.inflated_ = spool.map();
    out.data_ = out.inflated_.data() + array.bytes.data_offset;
    return out;
}

View ArrayData::view() const {
    if (region_view_) return *region_view_;
    if (strides_.empty()) return View::contiguous(shape_, itemsize_, fortran_order_);
    View view;
    view.shape = shape_;
    view.itemsize = itemsize_;
    for (const std::int64_t stride : strides_) view.byte_strides.push_back(stride * static_cast<std::int64_t>(itemsize_));
    return view;
}

const Mapping& ArrayData::mapping() const { return mapping_ ? *mapping_ : inflated_; }

void ArrayData::release(std::int64_t begin, std::int64_t end) const {
    if (in_memory_.empty()) mapping().release(data_ + begin, data_ + end);
}

InputPages ArrayData::pages() const {
    if (!in_memory_.empty()) return {};
    const Mapping* const mapping = &this->mapping();
    const std::byte* const data = data_;
    const std::string* const what = &what_;
    return {[mapping, data](std::int64_t begin, std::int64_t end) { mapping->release(data + begin, data + end); },
            [mapping, data](std::int64_t begin, std::int64_t end) { mapping->read_ahead(data + begin, data + end); },
            [mapping, data, what](std::int64_t begin, std::int64_t bytes, std::byte* dst) {
                mapping->read(data + begin, static_cast<std::size_t>(bytes), dst, *what);
            },
            [mapping, data](std::int64_t begin, std::int64_t bytes, std::byte* dst) {
                return static_cast<std::int64_t>(mapping->read_cached(data + begin, static_cast<std::size_t>(bytes), dst));
            },
            // A page of a private mapping never written is read again from the page cache:
            // the same call.
            [mapping, data](std::int64_t begin, std::int64_t end) { mapping->release(data + begin, data + end); },
            [mapping, data](std::int64_t begin, std::int64_t end) { mapping->map_ahead(data + begin, data + end); },
            [mapping, data](std::int64_t begin, std::int64_t end) { mapping->read_in(data + begin, data + end); },
            [mapping, data](std::int64_t at) { return mapping->cached(data + at); },
            mapping->file(),
            data - mapping->data()};
}

}  // namespace tslice
