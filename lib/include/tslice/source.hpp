// Where the pipeline reads an input's bytes from: one mapping, whatever the input is.
//
//   a regular file                 mapped in place (a .npy, an .npz, a .safetensors)
//   a stream (pipe, terminal)      spooled to an unlinked temporary file, then mapped
//   a deflated .npz member         inflated into an unlinked temporary file, then mapped
//
// A spool is written in order through a small buffer, so memory stays bounded whatever the
// size: its pages live in the page cache, and the copy releases them from this process as it
// moves on, as it does for a mapped file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tslice/container.hpp"
#include "tslice/view.hpp"

namespace tslice {

// A region of an array: per axis, the indices [start, stop).
struct Box {
    std::vector<std::int64_t> start, stop;
    std::int64_t element_count() const;  // 1 for a 0-d box
    bool operator==(const Box& other) const = default;
};

// An input that cannot be mapped and viewed in place (an HDF5 file, a Zarr store): it lists
// its arrays, and reads a box of one into memory, in C order (region_source.cpp).
class RegionSource {
public:
    virtual ~RegionSource() = default;
    virtual std::vector<ArrayInFile> list() const = 0;
    // Tells a read that bytes [begin, end) of its destination are written and may leave the
    // process's memory (a spool's pages; unset for a buffer in memory). Safe to call for bytes
    // another thread still writes: they come back from the page cache.
    using Written = std::function<void(std::byte* begin, std::byte* end)>;
    // Fills `dst` with the box's elements, C order, `threads` workers at most.
    virtual void read(const ArrayInFile& array, const Box& box, std::byte* dst, unsigned threads,
                      const Written& written) const = 0;
    // The shape of the pieces the array is stored in (its chunks), whose rows a read in bands
    // keeps whole; empty where it is not chunked.
    virtual std::vector<std::int64_t> chunk_shape(const ArrayInFile&) const { return {}; }
    // Whether two reads may run at once, on threads of their own: not where the library
    // underneath is not thread-safe (HDF5's serial build).
    virtual bool reads_side_by_side() const { return false; }
};

class RegionBands;

// The source of `path` when it is one (a directory holding a Zarr array or group, a file
// starting with HDF5's signature `head`, as far as `size` bytes of it are given); null for
// every other input. Error(Input) for a directory that is not a Zarr store.
std::shared_ptr<const RegionSource> open_region_source(const std::string& path, const std::byte* head, std::size_t size);

// Where HDF5's signature is in `bytes`: at 0, or after a user block of 512 bytes or a power of
// two above; nullopt for none.
std::optional<std::size_t> hdf5_signature_at(const std::byte* bytes, std::size_t size);

// The largest folio a file's page cache holds (a PMD: 2 MiB with 4 KiB pages on x86-64 and
// arm64). A fault on a mapping maps the whole folio it lands in, so pages given back just
// before a place still read may come back with it: a release reaches this far back.
constexpr std::int64_t kLargestFolioBytes = std::int64_t{2} << 20;

// A read-only mapping of a file (from its start) that can give back pages it will not read
// again, ask for those it reads next, and read bytes without mapping them. The page calls are
// virtual so that tests can stand in for the page cache and see what a copy asks of it.
class Mapping {
public:
    Mapping() = default;
    // Takes `file` (the descriptor mapped, or -1), which it closes.
    Mapping(void* map, std::size_t size, int file);
    Mapping(Mapping&& other) noexcept { *this = std::move(other); }
    Mapping& operator=(Mapping&& other) noexcept;
    virtual ~Mapping();

    const std::byte* data() const;
    std::size_t size() const { return size_; }
    // The pages wholly or partly inside [begin, end) leave this process's memory; reading them
    // again later reads them again from the file.
    virtual void release(const std::byte* begin, const std::byte* end) const;
    // The same for pages a copy may read again (a gather copied window by window): a page of
    // a private mapping never written comes back from the page cache when it is read.
    virtual void unmap(const std::byte* begin, const std::byte* end) const { release(begin, end); }
    // The pages wholly or partly inside [begin, end) are read from the file ahead of their
    // first use (MADV_WILLNEED): the reads start, and the call does not wait for them.
    virtual void read_ahead(const std::byte* begin, const std::byte* end) const;
    // The pages wholly or partly inside [begin, end) are read into the page cache now, in
    // order, and the call returns when they are there (sendfile to /dev/null: through the
    // kernel's readahead, which caches large folios, and no copy into this process). Where
    // the file system cannot, they are asked for as read_ahead does.
    virtual void read_in(const std::byte* begin, const std::byte* end) const;
    // The pages wholly or partly inside [begin, end) are mapped now (MADV_POPULATE_READ),
    // read from the file first if they must be, so that the reads of them do not fault.
    // Advice: a kernel without it (before Linux 5.14) leaves them to the faults.
    virtual void map_ahead(const std::byte* begin, const std::byte* end) const;
    // Copies `bytes` bytes from `at` (inside the mapping) to `dst` by reading the file
    // (pread), so that the pages do not become this process's memory: scattered reads (a
    // gather's rows) that would otherwise leave the file mapped. `what` names it in errors.
    virtual void read(const std::byte* at, std::size_t bytes, std::byte* dst, const std::string& what) const;
    // As read, but only what the page cache holds, never waiting for the device (preadv2 with
    // RWF_NOWAIT): the bytes read, from the first on. Where a page is missing, the kernel still
    // starts reading it ahead (`cached` asks without that).
    virtual std::size_t read_cached(const std::byte* at, std::size_t bytes, std::byte* dst) const;
    // Whether the page holding `at` (inside the mapping) is in the page cache, by mincore: it
    // reads nothing and, unlike a read that must not wait, starts no readahead there. Linux
    // tells the page cache's state only for a file the process may write or owns; for
    // another, only whether the page is mapped here.
    virtual bool cached(const std::byte* at) const;
    // The descriptor mapped (-1 for none), for reads of the file that do not go through the
    // mapping; it stays this mapping's.
    int file() const { return file_; }

private:
    // The whole pages [begin, end) reaches into, within the mapping: false if none.
    bool pages_of(const std::byte*& begin, const std::byte*& end) const;

    void* map_ = nullptr;
    std::size_t size_ = 0;
    int file_ = -1;
    // The same file opened again (-1 where that failed): read_in's reads keep their own
    // readahead state, apart from the copy's faults and preads.
    int reader_ = -1;
};

// The pages under one array's bytes, in offsets from its first byte: what a copy that reads
// them may do with them (Mapping's calls). Empty for data the process holds in memory, which
// has no pages to give back or ask for. Valid while the mapping lives.
class InputPages {
public:
    InputPages() = default;
    // `data`: the array's first byte, inside `mapping`; `what` names it in read errors.
    InputPages(const Mapping& mapping, const std::byte* data, const std::string& what)
        : mapping_(&mapping), data_(data), what_(&what) {}

    // Whether the data is a file's (or a spool's) mapping, which a copy faults in as it reads.
    bool mapped() const { return mapping_ != nullptr; }

    void release(std::int64_t begin, std::int64_t end) const { mapping_->release(data_ + begin, data_ + end); }
    void unmap(std::int64_t begin, std::int64_t end) const { mapping_->unmap(data_ + begin, data_ + end); }
    void read_ahead(std::int64_t begin, std::int64_t end) const { mapping_->read_ahead(data_ + begin, data_ + end); }
    void read_in(std::int64_t begin, std::int64_t end) const { mapping_->read_in(data_ + begin, data_ + end); }
    void map_ahead(std::int64_t begin, std::int64_t end) const { mapping_->map_ahead(data_ + begin, data_ + end); }
    void read(std::int64_t begin, std::int64_t bytes, std::byte* dst) const {
        mapping_->read(data_ + begin, static_cast<std::size_t>(bytes), dst, *what_);
    }
    std::int64_t read_cached(std::int64_t begin, std::int64_t bytes, std::byte* dst) const {
        return static_cast<std::int64_t>(mapping_->read_cached(data_ + begin, static_cast<std::size_t>(bytes), dst));
    }
    bool cached(std::int64_t at) const { return mapping_->cached(data_ + at); }
    // The file the bytes are read from (-1 where there is none), and where the array's first
    // byte is in it: a contiguous result is moved from it to the output without being copied
    // into this process (file_splice.hpp).
    int file() const { return mapping_ ? mapping_->file() : -1; }
    std::int64_t file_offset() const { return mapping_ ? data_ - mapping_->data() : 0; }

    // A region read a band at a time (source/region_bands.hpp): its bands, which the copy asks
    // for as it goes, instead of data it can read anywhere. Not mapped.
    explicit InputPages(RegionBands& bands) : bands_(&bands) {}
    RegionBands* bands() const { return bands_; }

private:
    RegionBands* bands_ = nullptr;
    const Mapping* mapping_ = nullptr;
    const std::byte* data_ = nullptr;
    const std::string* what_ = nullptr;
};

// An unlinked temporary file in TMPDIR (O_TMPFILE where the file system has it, else mkstemp
// and unlink at once, so nothing is left behind even by SIGKILL), written in order, then mapped.
class Spool {
public:
    // `what` names the data in errors ("standard input", "member 'x.npy'"); `file` is the
    // input file's name when `what` is that name (see Error::file).
    explicit Spool(std::string what, std::string file = {});
    Spool(const Spool&) = delete;
    Spool& operator=(const Spool&) = delete;
    ~Spool();

    void append(const std::byte* bytes, std::size_t size);
    // Reads `fd` until its end or until the spool holds `limit` bytes; returns the bytes read.
    std::uint64_t append_from(int fd, std::uint64_t limit);
    std::uint64_t size() const { return size_; }
    // Maps what was written; the spool takes no more.
    Mapping map();

private:
    std::string what_;
    std::string file_;
    int fd_ = -1;
    std::uint64_t size_ = 0;
};

// The bytes of an input file, or of standard input for "-".
class InputBytes {
public:
    // `headers_only`: a .npy stream is read only through its header (--shape, --list); its
    // data is then not there (complete() is false).
    static InputBytes open(const std::string& path, bool headers_only = false);

    bool complete() const { return complete_; }
    // The source reading this input a region at a time (HDF5, Zarr); null for a mapped one.
    const std::shared_ptr<const RegionSource>& region() const { return region_; }
    const std::byte* data() const { return mapping_.data() + skip_; }
    std::size_t size() const { return mapping_.size() - skip_; }
    const Mapping& mapping() const { return mapping_; }

private:
    Mapping mapping_;
    std::size_t skip_ = 0;  // standard input redirected from a file may start partway in
    bool complete_ = true;
    std::shared_ptr<const RegionSource> region_;
};

// Error(Usage) for an array whose bytes cannot be sliced as they are (a quantized GGUF tensor),
// naming it by `what`; ArrayData::open checks it, and a writer before it frames an output.
void require_sliceable(const ArrayInFile& array, const std::string& what);
// Every array of an input: its region source's, or list_arrays over its bytes.
std::vector<ArrayInFile> list_arrays(const InputBytes& input);

// One array's element bytes, ready for the pipeline: in the input's mapping, or inflated.
class ArrayData {
public:
    // `what` names the array in errors. A deflated member is inflated whole here (checked
    // against its CRC): into memory when small, else into a spool; a mapped one is only
    // pointed at.
    // An array of a region source (HDF5, Zarr) reads only the box `reach` gives (reached_box
    // of the pipeline): into memory when small, else into a spool; view() is then a view of the
    // whole array's shape whose reached elements lie in that box.
    // `threads`: the workers a region source reads with (0: default_thread_count()).
    static ArrayData open(const InputBytes& input, const ArrayInFile& array, const std::string& what,
                          const std::function<Box()>& reach = {}, unsigned threads = 0);
    // An array of a region source whose result is read a band at a time (region_bands.hpp):
    // nothing is read here, data() is null, view() is as open's, and pages() hands the read
    // stage the bands.
    static ArrayData open_in_bands(std::shared_ptr<RegionBands> bands, const ArrayInFile& array, const Box& box,
                                   const std::string& what);
    // Bytes read from a region source into memory and viewed by the caller (a gather's rows,
    // region_rows.hpp): view() is a flat view of them.
    static ArrayData of_bytes(std::vector<std::byte> bytes, const ArrayInFile& array, const std::string& what);
    // The view open gives an array of a region source whose box is `box`.
    static View region_view(const ArrayInFile& array, const Box& box);

    const std::byte* data() const { return data_; }
    // The whole array as a view over data(): C or Fortran strides as its header says, or the
    // strides of a strided tensor.
    View view() const;
    // Offsets from data(), as Mapping::release (nothing for an array inflated into memory).
    void release(std::int64_t begin, std::int64_t end) const;
    // The pages under data(), for the read stage (none for an array inflated into memory);
    // valid while this ArrayData lives.
    InputPages pages() const;

private:
    // The mapping data() points into: the input's, or the spool a large member was inflated into.
    const Mapping& mapping() const;
    static ArrayData open_region(const RegionSource& source, const ArrayInFile& array, const Box& box,
                                 const std::string& what, unsigned threads = 0);
    // A quantized GGUF tensor's box, decoded to float32 (ggml_blocks_source.cpp).
    static ArrayData open_quantized(const InputBytes& input, const ArrayInFile& array, const Box& box,
                                    const std::string& what);

    const Mapping* mapping_ = nullptr;
    Mapping inflated_;                 // a large deflated member, spooled
    std::vector<std::byte> in_memory_;  // a small one
    const std::byte* data_ = nullptr;
    std::string what_;
    std::vector<std::int64_t> shape_;
    std::size_t itemsize_ = 0;
    bool fortran_order_ = false;
    std::vector<std::int64_t> strides_;  // elements; empty for C or Fortran order
    std::optional<View> region_view_;  // a region source's box, seen as the whole array
    std::shared_ptr<RegionBands> bands_;  // a region read in bands
};

}  // namespace tslice
