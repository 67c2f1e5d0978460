// Reading and writing NumPy .npy files.
//
// The header is parsed as the Python literal it is (no regexes, any key order or spacing);
// the data is never interpreted: element bytes are copied as they are, so every fixed-size
// dtype in either byte order round-trips with its dtype string intact.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tslice/view.hpp"

namespace tslice {

// A dtype as the header gives it. `descr` is the header's value re-serialised the way
// numpy writes it ('<f4', or a list of field tuples for structured dtypes), so an output
// file names exactly the input's dtype.
struct DType {
    std::string descr;        // Python literal, e.g. "'<f4'" or "[('x', '<i4'), ('y', '<f8')]"
    char byte_order = '|';    // '<', '>', '|' or '=' for a simple dtype; '|' for structured
    char kind = 'V';          // 'b','i','u','f','c','S','U','V','M','m'; 'V' for structured
    std::size_t itemsize = 0; // bytes per element, > 0
    bool structured = false;  // descr is a list of fields
    std::string type_string;  // for simple dtypes the string itself, e.g. "<f4"; empty if structured

    // For printing: the fields of a structured dtype (empty otherwise).
    struct Field {
        std::string name;
        std::size_t offset = 0;
        std::shared_ptr<const DType> type;
        std::vector<std::int64_t> subshape;  // sub-array shape, empty for a scalar field
    };
    std::vector<Field> fields;

    bool operator==(const DType& other) const { return descr == other.descr; }
};

struct NpyHeader {
    int major = 1, minor = 0;
    DType dtype;
    bool fortran_order = false;
    std::vector<std::int64_t> shape;
    std::size_t data_offset = 0;  // bytes from the start of the file to the first element

    std::int64_t element_count() const;  // product of shape (1 for 0-d)
    std::size_t data_bytes() const;      // element_count * itemsize
};

// Parses the magic, version, header length and header dict from the first bytes of a file.
// `available` is how many bytes the caller has; throws Error(Input) with a message that
// names what is wrong. Does not check that the data fits; see NpyArray.
NpyHeader parse_npy_header(const std::byte* bytes, std::size_t available);

// Parses a dtype descr value such as "'<f4'" or "[('a', '<i4')]" (the Python literal text).
DType parse_dtype_descr(std::string_view literal);

// The serialized header for a C-order array of `dtype` and `shape`: magic, version (1.0
// unless the header needs 2.0), length, dict, padded with spaces and '\n' so the data
// starts on a 64-byte boundary.
std::string make_npy_header(const DType& dtype, const std::vector<std::int64_t>& shape);

// An opened .npy input: a file is memory-mapped (never read whole); standard input is read
// into memory. Checks that the file holds all the data the header promises.
class NpyArray {
public:
    // `path` "-" means standard input.
    static NpyArray open(const std::string& path);
    // Parses a header only, reading as few bytes as possible (for --shape).
    static NpyHeader read_header(const std::string& path);
    // From bytes already in memory (tests); the bytes are copied.
    static NpyArray from_bytes(std::string bytes);

    NpyArray(NpyArray&&) noexcept;
    NpyArray& operator=(NpyArray&&) noexcept;
    ~NpyArray();

    const NpyHeader& header() const { return header_; }
    const std::byte* data() const { return data_; }
    // The whole array as a view over data(): C or Fortran strides as the header says.
    View view() const;
    // Tells the system that the mapped data bytes [begin, end) (offsets from data()) will not
    // be read again, so their pages leave this process's memory: a file larger than free
    // memory can be sliced. Reading them again later is still correct. No-op for stdin.
    void release(std::int64_t begin, std::int64_t end) const;

private:
    NpyArray() = default;
    NpyHeader header_;
    const std::byte* data_ = nullptr;
    void* map_ = nullptr;
    std::size_t map_size_ = 0;
    std::string owned_;  // for standard input and from_bytes
};

// Writes a C-order .npy: to a temporary file beside `path`, renamed into place only when
// everything was written, so a failure leaves no partial file and never harms an existing
// one. `path` "-" writes to standard output. The data comes in consecutive chunks of the
// output (C order): `source(first, count, scratch)` returns where the bytes of elements
// [first, first + count) are: `scratch` (room for count * itemsize bytes) after filling it,
// or bytes that already hold them (a contiguous input, written straight from its mapping).
// Chunks are bounded in size, so the result is never held whole in memory, and the next
// chunk is produced (on another thread) while the previous one is written. Nothing is
// written before the first chunk is produced.
using ChunkSource = std::function<const std::byte*(std::int64_t first, std::int64_t count, std::byte* scratch)>;
void write_npy(const std::string& path, const DType& dtype, const std::vector<std::int64_t>& shape,
               const ChunkSource& source);

// The same with a source that always fills the scratch buffer.
using ChunkFiller = std::function<void(std::byte* dst, std::int64_t first, std::int64_t count)>;
void write_npy(const std::string& path, const DType& dtype, const std::vector<std::int64_t>& shape,
               const ChunkFiller& fill);

// The bytes an output file holds around the array data: `prefix` before it and, when `suffix`
// is set, what it makes of the CRC-32 of the bytes from prefix[crc_from] through the data
// after it (an .npz member's CRC). A .npy's framing is its header alone; container.hpp makes
// those of .npz and .safetensors.
struct OutputFraming {
    std::string prefix;
    std::size_t crc_from = 0;
    std::function<std::string(std::uint32_t crc32)> suffix;
};

// How an output file is put in place.
struct WriteOptions {
    // fsync the file before it is renamed into place, and its directory after: the result
    // is then on stable storage when write_array returns (as rsync --fsync, dd conv=fsync).
    bool sync = false;
};

// write_npy with any framing: the same temporary file, chunks and overlap. `path` "-", and
// the names of an open descriptor (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N),
// write into that descriptor as it is, at its offset (a shell's `>>` appends). An existing
// file the user could not open for writing is refused, never replaced.
void write_array(const std::string& path, const OutputFraming& framing, std::size_t itemsize,
                 const std::vector<std::int64_t>& shape, const ChunkSource& source,
                 const WriteOptions& options = {});

// Unlinks the temporary file write_npy is writing, if any, so an interrupted run leaves nothing
// behind. Async-signal-safe: meant for a SIGINT/SIGTERM handler, which then ends the process.
void remove_pending_temporary() noexcept;

}  // namespace tslice
