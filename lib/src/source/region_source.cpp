// Inputs read a region at a time (HDF5, Zarr): which inputs are such, and the box of one read
// into memory or a spool, seen by the pipeline as an ordinary view.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "source/region_bands.hpp"
#include "source/region_sources.hpp"
#include "source/spool.hpp"
#include "tslice/error.hpp"
#include "tslice/threads.hpp"
#include "tslice/source.hpp"

namespace tslice {
namespace {

// A box up to this size is read into memory; a larger one into a temporary file that is
// mapped, whose pages the copy releases as it goes, as for a mapped input.
constexpr std::int64_t kInMemoryBytes = std::int64_t{64} << 20;

// HDF5's format signature: at byte 0, or after a user block of 512, 1024, 2048... bytes, where
// the library looks for it too (H5Fopen finds the superblock there by itself).
constexpr char kHdf5Signature[] = "\x89HDF\r\n\x1a\n";


}  // namespace

std::int64_t Box::element_count() const {
    std::int64_t count = 1;
    for (std::size_t k = 0; k < start.size(); ++k) count *= stop[k] - start[k];
    return count;
}

std::optional<std::size_t> hdf5_signature_at(const std::byte* bytes, std::size_t size) {
    if (size >= 8 && std::memcmp(bytes, kHdf5Signature, 8) == 0) return 0;
    // After a user block only where the file is no other format tslice knows: each probe
    // touches a page of the file, which a .npy or a checkpoint must not pay for (a cold file's
    // pages would be read, and pages mapped here cannot be dropped from the page cache).
    const bool npy = size >= 6 && std::memcmp(bytes, "\x93NUMPY", 6) == 0;
    if (npy || detect_format(bytes, size) != ContainerFormat::Npy) return std::nullopt;
    for (std::size_t offset = 512; offset + 8 <= size && offset <= (std::size_t{1} << 20); offset *= 2)
        if (std::memcmp(bytes + offset, kHdf5Signature, 8) == 0) return offset;
    return std::nullopt;
}

std::shared_ptr<const RegionSource> open_region_source(const std::string& path, const std::byte* head,
                                                       std::size_t size) {
    if (!head) return open_zarr_store(path);
    if (hdf5_signature_at(head, size)) return open_hdf5_file(path);
    return nullptr;
}

View ArrayData::region_view(const ArrayInFile& array, const Box& box) {
    // The box in C order, seen as the whole array: element i sits at sum((i_k - start_k) *
    // stride_k), so the offset is negative and only the box's elements lie inside the data.
    View view;
    view.shape = array.shape;
    view.itemsize = array.type.itemsize();
    view.byte_strides.resize(array.shape.size());
    auto stride = static_cast<std::int64_t>(view.itemsize);
    for (std::size_t k = array.shape.size(); k-- > 0;) {
        view.byte_strides[k] = stride;
        view.byte_offset -= box.start[k] * stride;
        stride *= box.stop[k] - box.start[k];
    }
    return view;
}

ArrayData ArrayData::of_bytes(std::vector<std::byte> bytes, const ArrayInFile& array, const std::string& what) {
    ArrayData out;
    out.what_ = what;
    out.shape_ = array.shape;
    out.itemsize_ = array.type.itemsize();
    if (bytes.empty()) bytes.resize(1);  // data() is never null
    out.in_memory_ = std::move(bytes);
    out.data_ = out.in_memory_.data();
    out.region_view_ =
        View::contiguous({static_cast<std::int64_t>(out.in_memory_.size() / out.itemsize_)}, out.itemsize_);
    return out;
}

ArrayData ArrayData::open_in_bands(std::shared_ptr<RegionBands> bands, const ArrayInFile& array, const Box& box,
                                   const std::string& what) {
    ArrayData out;
    out.what_ = what;
    out.shape_ = array.shape;
    out.itemsize_ = array.type.itemsize();
    out.bands_ = std::move(bands);
    out.region_view_ = region_view(array, box);
    return out;
}

ArrayData ArrayData::open_region(const RegionSource& source, const ArrayInFile& array, const Box& box,
                                 const std::string& what, unsigned threads_wanted) {
    ArrayData out;
    out.what_ = what;
    out.shape_ = array.shape;
    out.itemsize_ = array.type.itemsize();
    const auto item = static_cast<std::int64_t>(out.itemsize_);
    const std::int64_t bytes = box.element_count() * item;  // within the array's size, checked when listed
    const unsigned threads = threads_wanted ? threads_wanted : default_thread_count();
    if (bytes <= kInMemoryBytes) {
        out.in_memory_.resize(static_cast<std::size_t>(std::max<std::int64_t>(bytes, 1)));
        out.data_ = out.in_memory_.data();
        source.read(array, box, out.in_memory_.data(), threads, {});
    } else {
        const int fd = open_temporary(what);
        // A box larger than the space left (a damaged file can claim a terabyte) is refused
        // before any of it is taken: fallocate fails with ENOSPC only after taking what there
        // is, which for a moment leaves every other writer of the file system without space.
        struct statvfs space {};
        std::uint64_t free_bytes = 0;
        if (::fstatvfs(fd, &space) == 0 &&
            !__builtin_mul_overflow(static_cast<std::uint64_t>(space.f_bavail), static_cast<std::uint64_t>(space.f_frsize),
                                    &free_bytes) &&
            free_bytes < static_cast<std::uint64_t>(bytes)) {
            ::close(fd);
            fail_input("cannot make a temporary file of " + std::to_string(bytes) + " bytes for " + what + ": " +
                       temporary_directory() + " has " + std::to_string(free_bytes) +
                       " bytes free (TMPDIR chooses the directory)");
        }
        // Then the file's blocks are taken now, so that the mapping's writes cannot fail later
        // (a SIGBUS) if others fill the file system meanwhile; a file system without fallocate
        // gets a sparse file instead.
        int made = ::fallocate(fd, 0, 0, bytes);
        if (made != 0 && (errno == EOPNOTSUPP || errno == ENOSYS)) made = ::ftruncate(fd, bytes);
        if (made != 0) {
            const int error = errno;
            ::close(fd);
            fail_input("cannot make a temporary file of " + std::to_string(bytes) + " bytes for " + what + ": " +
                       std::strerror(error) + " (TMPDIR chooses the directory)");
        }
        void* map = ::mmap(nullptr, static_cast<std::size_t>(bytes), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (map == MAP_FAILED) {
            const int error = errno;
            ::close(fd);
            fail_input("cannot map a temporary file for " + what + ": " + std::strerror(error));
        }
        out.inflated_ = Mapping(map, static_cast<std::size_t>(bytes), fd);
        out.data_ = out.inflated_.data();
        // What is written leaves this process's memory for the page cache as the read goes
        // on, so a box larger than memory is no more resident than the parts in flight.
        const Mapping& spool = out.inflated_;
        source.read(array, box, static_cast<std::byte*>(map), threads,
                    [&spool](std::byte* begin, std::byte* end) { spool.release(begin, end); });
    }
    out.region_view_ = region_view(array, box);
    return out;
}

}  // namespace tslice
