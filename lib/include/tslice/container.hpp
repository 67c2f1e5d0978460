// Arrays where they live: a plain .npy file, a member of an .npz archive (np.savez, stored, or
// np.savez_compressed, deflated), or a tensor of a .safetensors file.
//
// Everything here reads a file that is already in memory (mapped, or spooled to a temporary
// file and mapped), and only its headers: the zip directory, each member's .npy header, the
// safetensors JSON header. Where an array's bytes are is described, never copied, so listing
// a multi-GiB checkpoint touches a few pages of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tslice/error.hpp"
#include "tslice/npy.hpp"
#include "tslice/view.hpp"

namespace tslice {

enum class ContainerFormat {
    Npy, Npz, Safetensors,
    Torch,  // torch.save: a zip whose first member is ARCHIVE/data.pkl, or a legacy (pre-1.6) save
    Gguf,   // llama.cpp's GGUF ("GGUF")
};

// What the first bytes of a file say it is. Anything that is neither a zip archive nor a
// safetensors header counts as .npy, whose parser describes what is wrong with it.
ContainerFormat detect_format(const std::byte* bytes, std::size_t size);

// A format tslice does not read, named for an error: "a PyTorch checkpoint (torch.save, a zip
// holding NAME/data.pkl)", "an HDF5 file", "a GGUF file", ...; empty where the bytes (and,
// for a zip archive, its members' names) look like none tslice knows of. Readers of these
// formats replace their case here as they come.
std::string unread_format(const std::byte* bytes, std::size_t size, const std::vector<std::string>& zip_members = {});
// The same for a directory (a Zarr store holds .zarray or .zgroup); empty for another.
std::string unread_directory_format(const std::string& path);
// The error for an input in such a format: what it is, and what tslice reads.
Error unread_format_error(const std::string& format);

// An element type: numpy's dtype, or one numpy does not have (bfloat16, the float8 types),
// known by its safetensors name. Such a type still has a numpy stand-in of the same size
// ('|V2', '|V1'), so that its bytes can be viewed and copied like any other.
struct ElementType {
    DType dtype;
    std::string safetensors_only;  // "BF16", "F8_E4M3", "F8_E5M2", "F8_E8M0"; empty when numpy has the type
                                   // (or a GGUF quantized type's name, "Q4_K", which only lists)

    std::size_t itemsize() const { return dtype.itemsize; }
    // numpy's descr ('<f4', or a structured descr) where numpy has the type, else the
    // safetensors name: what --list prints.
    std::string name() const;
    bool operator==(const ElementType& other) const = default;
};

// numpy's type for a safetensors dtype name ("F32" -> '<f4'); nullopt for a name the format
// does not define. BF16 and F8_* give a stand-in with safetensors_only set.
std::optional<ElementType> safetensors_element_type(std::string_view name);
// The safetensors name for an element type ('<f4' -> "F32"), nullopt where safetensors has
// none (complex, strings, structured, datetimes, f16 beyond half). Big-endian types give the
// name of their little-endian twin: the writer swaps their bytes.
std::optional<std::string> safetensors_name(const ElementType& type);

// Where an array's element bytes are in the file.
struct ArrayBytes {
    enum class Kind {
        Mapped,    // in place: [offset, offset + size) of the file (a .npy, a stored member, a tensor)
        Deflated,  // inside a deflated .npz member, which must be inflated from its start
        Region,    // read a box at a time by the input's RegionSource (HDF5, Zarr); offsets unused
        Quantized,  // [offset, offset + size) holds ggml blocks of ggml_type, decoded to float32 when read
    };
    Kind kind = Kind::Mapped;
    std::uint64_t offset = 0;  // Mapped: the first element; Deflated: the first compressed byte
    std::uint64_t size = 0;    // Mapped: the data bytes; Deflated: the compressed bytes
    // Deflated only: the member as the directory describes it, and where in the inflated
    // member the data starts (after its .npy header).
    std::uint64_t inflated_size = 0;
    std::uint32_t crc32 = 0;
    std::uint64_t data_offset = 0;
    // A stored .npz member: the whole member (its .npy header and data) in the file, whose
    // CRC-32 must be crc32 before any of it is used. member_size 0: nothing to check.
    std::uint64_t member_offset = 0;
    std::uint64_t member_size = 0;
    std::string ggml_type;  // Quantized only: the blocks' type ("Q8_0")
    bool operator==(const ArrayBytes& other) const = default;
};

// An .npz member as its archive holds it, whatever it holds: what copying it unchanged into
// another archive needs (its compressed bytes and CRC-32 are copied, never recomputed).
struct MemberBytes {
    std::uint64_t offset = 0;       // its first stored byte (compressed, when deflated)
    std::uint64_t stored_size = 0;  // bytes in the file
    std::uint64_t size = 0;         // bytes once inflated
    std::uint32_t crc32 = 0;
    std::uint16_t method = 0;  // 0 stored, 8 deflated, or another the archive names
    bool encrypted = false;    // copied as it is, it would lose what decrypts it
    bool found() const { return offset != 0; }  // a local header always comes first
    bool operator==(const MemberBytes& other) const = default;
};

struct ArrayInFile {
    std::optional<std::string> name;  // nullopt for a plain .npy; an .npz member without ".npy"
    std::string member;               // an .npz member's full name ("x.npy"); empty otherwise
    ElementType type;
    std::vector<std::int64_t> shape;
    bool fortran_order = false;
    // A strided view (a torch tensor that is a transpose or slice of its storage): a stride in
    // elements per axis, none negative; bytes.offset is then element [0, ..., 0] and bytes.size
    // reaches the last element. Empty for a C- or Fortran-order array.
    std::vector<std::int64_t> strides;
    // A GGUF tensor of a block-quantized ggml type ("Q4_K"; see gguf.hpp): listed, --shape
    // works, and reading it is Error(Usage) until it is dequantized. Empty for any other.
    std::string quantized;
    ArrayBytes bytes;
    // .npz: how many earlier members have this one's name. np.load reads the last of them
    // (zipfile's name lookup), and so does tslice; --list says so.
    std::uint32_t duplicates = 0;
    // Why tslice cannot read this array (an object member, a member that is not a .npy, a
    // safetensors dtype it cannot slice, an HDF5 dataset of
    // variable-length strings), or empty. Such an array is listed and stops nothing
    // until it is chosen; `type` then means nothing, and `stored_type` is its dtype as the
    // file names it ('|O', "F4"; "?" where the file names none).
    std::string error;
    std::string stored_type;
    bool shape_known = true;   // false where the error left no shape to show
    MemberBytes member_bytes;  // an .npz member's; zero otherwise

    std::uint64_t data_bytes() const;  // elements * item size
    // The dtype as --list shows it: type.name(), or stored_type for an array with an error.
    std::string type_name() const { return error.empty() ? type.name() : stored_type; }
};

// Every array of a file held whole in memory (`size` bytes), in the file's order. Throws
// Error(Input) for a broken container: the message says what is wrong and where.
// `complete` false: only a plain .npy's header is there, so its data is not checked.
std::vector<ArrayInFile> list_arrays(const std::byte* file, std::size_t size, bool complete = true);

// The arrays of one format (list_arrays dispatches on detect_format).
std::vector<ArrayInFile> list_npz(const std::byte* file, std::size_t size);
std::vector<ArrayInFile> list_safetensors(const std::byte* file, std::size_t size);
std::vector<ArrayInFile> list_torch(const std::byte* file, std::size_t size);
std::vector<ArrayInFile> list_gguf(const std::byte* file, std::size_t size);
// Whether the first bytes are a torch.save file's (its zip's first member ARCHIVE/data.pkl,
// or the legacy format's magic number).
bool looks_like_torch(const std::byte* bytes, std::size_t size);

// The array --key names, or the only one: an .npz member matches with or without ".npy".
// Throws Error(Usage) for a key on a plain .npy, no key on several arrays, or a key that
// matches none (the message lists the names there are, nearest to the key first), and
// Error(Input) for a container that holds no array.
const ArrayInFile& select_array(const std::vector<ArrayInFile>& arrays, const std::optional<std::string>& key);

// A name (a member's, an array's, a key) for a message: quoted and escaped as Python's repr()
// writes it ('a.npy', 'line\nbreak'), a byte that is not UTF-8 as '\udcff'.
std::string quoted_name(std::string_view name);
// A name shown in a column or a heading (--list, the NAME: lines of several arrays): as it is
// where that is unambiguous, else as quoted_name gives it.
std::string shown_name(const std::string& name);
// An array for a message: "the .npz member 'x.npy'", "the tensor 'w'", "the array".
std::string array_what(const ArrayInFile& array);

// The arrays the --key values choose, in the file's order, each once. A key is a name (an
// .npz member with or without ".npy"), or a shell-style glob (`*`, `?`, `[...]`, as Python's
// fnmatch: `*` crosses dots and slashes) when no array has it as its name. No keys: the
// only array. Throws Error(Usage) as select_array does for each key (one that chooses nothing
// names the nearest names there are), and Error(Input) naming why for a chosen array with an
// error.
// `refuse_unreadable` false (--list): arrays with an error are chosen like any other.
std::vector<const ArrayInFile*> select_arrays(const std::vector<ArrayInFile>& arrays,
                                              const std::vector<std::string>& keys, bool refuse_unreadable = true);

// --list: one line per array, name, dtype and shape in aligned columns (an array with an error
// adds it after them); --list --json: a JSON array of {"name", "dtype", "shape"} (name null
// for a plain .npy), with "error" for an array that has one.
std::string format_array_list(const std::vector<ArrayInFile>& arrays, bool json);

// ---------------------------------------------------------------------------------------------
// Writing: the bytes around the array data, as pure functions. The write stage streams
//   prefix, the data, suffix
// and computes the CRC-32 an .npz needs from the bytes as they go by.

// An .npz of one stored member `member` (such as "x.npy") of `member_size` bytes (the .npy
// header and the data): a local header, then (after the member) a data descriptor with the
// CRC-32, the central directory and the end record, in zip64 form where the sizes need it.
// The CRC comes last, so the member can be streamed (Python's zipfile and np.load read data
// descriptors).
std::string npz_prefix(std::string_view member, std::uint64_t member_size);
std::string npz_suffix(std::string_view member, std::uint64_t member_size, std::uint32_t crc32);

// What the header of a .safetensors says of one tensor; its data follows the previous one's.
struct SafetensorsTensorHeader {
    std::string_view name, dtype_name;
    const std::vector<std::int64_t>& shape;
    std::uint64_t data_bytes = 0;
};

// The start of a .safetensors of these tensors, in this order: the 8-byte header length and
// the JSON header, padded with spaces so the data starts on an 8-byte boundary. No suffix.
// `metadata`: the text of a "__metadata__" JSON object to carry (an input's), or empty.
std::string safetensors_prefix(const std::vector<SafetensorsTensorHeader>& tensors, std::string_view metadata = {});
// The same of one tensor `name`.
std::string safetensors_prefix(std::string_view name, std::string_view dtype_name,
                               const std::vector<std::int64_t>& shape, std::uint64_t data_bytes,
                               std::string_view metadata = {});

// The text of the "__metadata__" object of a safetensors file held whole in memory, as the
// file has it, or empty where it has none (or is no safetensors file).
std::string safetensors_metadata(const std::byte* file, std::size_t size);

// The CRC-32 of zip archives, continued from `crc` (0 to start).
std::uint32_t crc32_update(std::uint32_t crc, const std::byte* bytes, std::size_t size);

}  // namespace tslice
