// Inputs as one mapping each, and an array's bytes in them (see source.hpp).
#include "tslice/source.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "source/inflate.hpp"
#include "source/spool.hpp"
#include "tslice/container.hpp"
#include "tslice/error.hpp"

namespace tslice {

InputBytes InputBytes::open(const std::string& path, bool headers_only) {
    const std::string name = file_display_name(path);
    int fd = 0;
    if (path != "-") {
        fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) fail_input("cannot open " + name + ": " + std::strerror(errno), name);
    }
    struct Closer {
        int fd;
        ~Closer() {
            if (fd > 0) ::close(fd);
        }
    } closer{fd};
    struct stat info {};
    if (::fstat(fd, &info) != 0) fail_input("cannot read " + name + ": " + std::strerror(errno), name);
    if (S_ISDIR(info.st_mode)) {
        if (const std::string format = unread_directory_format(path); !format.empty())
            fail_input(name + ": " + unread_format_error(format).what(), name);
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
                input.mapping_ = Mapping(map, size, duplicate_descriptor(fd));
                input.skip_ = static_cast<std::size_t>(position);
            } else if (errno == ENOMEM) {
                fail_input("cannot map " + name + ": " + std::strerror(errno), name);
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
    if (input.size() == 0)
        fail_input(name + ": " + (path == "-" ? "standard input is empty" : "the file is empty"), name);
    if (path != "-") input.region_ = open_region_source(path, input.data(), input.size());
    else if (hdf5_signature_at(input.data(), input.size()))
        fail_input("standard input is an HDF5 file, which tslice reads only from a path (the HDF5 library opens "
                   "files by name): give the file's path",
                   name);
    return input;
}

// -------------------------------------------------------------------------------------------------

namespace {

// A stored member's CRC-32, over all of it, before any of it is used, as Python's zipfile
// checks it when np.load reads a member: a changed byte is an error, never a changed value.
// The member is read through its mapping, where it stays for the copy; a large one a piece at
// a time, the next piece asked for ahead and each given back after, so that checking a member
// larger than memory does not keep it resident. (Reading it with pread instead, into one
// buffer, measured slower: docs/performance.md.)
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
        fail_input(what + " is corrupt: its bytes have " + text);
    }
}

}  // namespace

void require_sliceable(const ArrayInFile& array, const std::string& what) {
    if (!array.quantized.empty())
        fail_usage(what + " is of the quantized ggml type " + array.quantized +
                       ", which tslice lists but does not slice as it is; --astype f4 dequantizes " +
                       "Q8_0, Q4_0, Q4_1, Q5_0 and Q5_1");
}

std::vector<ArrayInFile> list_arrays(const InputBytes& input) {
    if (input.region()) return input.region()->list();
    return list_arrays(input.data(), input.size(), input.complete());
}

ArrayData ArrayData::open(const InputBytes& input, const ArrayInFile& array, const std::string& what,
                          const std::function<Box()>& reach, unsigned threads) {
    if (array.bytes.kind == ArrayBytes::Kind::Region) {
        if (!input.region() || !reach)
            throw Error(ErrorKind::Internal, "internal: " + what + " is read by region, without a region");
        return open_region(*input.region(), array, reach(), what, threads);
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
    std::vector<std::byte> buffer(kSpoolStepBytes);
    // An incompressible member is about as large compressed as inflated: what has been read
    // of it is released as inflating goes on, so that it is not all resident by the end.
    const std::byte* const compressed = input.data() + array.bytes.offset;
    const std::byte* released = compressed;
    for (;;) {
        const std::size_t got = stream.read(buffer.data(), buffer.size());
        spool.append(buffer.data(), got);
        const std::byte* const next = stream.next_input();
        const auto back = std::min<std::int64_t>(released - compressed, kLargestFolioBytes);
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
    if (in_memory_.empty() && !bands_) mapping().release(data_ + begin, data_ + end);
}

InputPages ArrayData::pages() const {
    if (bands_) return InputPages(*bands_);
    if (!in_memory_.empty()) return {};
    return InputPages(mapping(), data_, what_);
}

}  // namespace tslice
