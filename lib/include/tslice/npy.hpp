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
#include <optional>
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

    // A selection of fields (a[['z', 'x']]) keeps them where they are in the input's elements
    // of `itemsize` bytes; a file holds them packed, one after another, in this many bytes, as
    // `descr` says. 0 for every other dtype, whose elements are written whole.
    std::size_t packed_itemsize = 0;
    // The bytes an element takes in a file.
    std::size_t file_itemsize() const { return packed_itemsize ? packed_itemsize : itemsize; }

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

// How many bytes a .npy's magic, version, length field and header dict take, judged from its
// first bytes (kNpyPreludeBytes are always enough): nullopt unless they start with the magic
// and a version tslice reads, and the length is one it accepts (at most 1 MiB). A reader of a
// stream reads that far, then parse_npy_header says what is wrong with anything else.
constexpr std::size_t kNpyPreludeBytes = 12;
std::optional<std::size_t> npy_header_extent(const std::byte* bytes, std::size_t available);

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

}  // namespace tslice
