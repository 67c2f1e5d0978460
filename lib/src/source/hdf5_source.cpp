// HDF5 files as a region source, through the HDF5 C library (serial). Every dataset is listed
// with numpy's dtype as h5py gives it; a box is read as hyperslab selections a block of rows at
// a time, with no type conversion (the bytes as stored, byte order kept). The library does the
// decompressing (fletcher32, szip, ... whatever it was built with), except for the usual
// deflate with or without shuffle, whose stored chunks tslice decodes itself on every thread
// (hdf5_chunks.hpp).
//
// The library's own error printing is switched off: a failure becomes one tslice message with
// what the library said, innermost cause last.
#include <hdf5.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>

#include "source/dtype.hpp"
#include "source/hdf5_chunks.hpp"
#include "source/region_sources.hpp"
#include "tslice/error.hpp"
#include "tslice/npy.hpp"

namespace tslice {
namespace {

// The read is split into blocks of at most this many bytes, so that the library's own
// buffers (type conversion, gathering a hyperslab) stay bounded whatever the box.
constexpr std::int64_t kBlockBytes = std::int64_t{64} << 20;
// The chunk cache is sized to the chunks one block's rows cross, up to this.
constexpr std::int64_t kMaxChunkCache = std::int64_t{256} << 20;

// Per thread: a thread-safe library keeps an error stack, and its printing, per thread, and a
// read in bands reads on a thread of its own.
void quiet_library() {
    thread_local bool quiet = false;
    if (!quiet) H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    quiet = true;
}

// What the library's error stack says, outermost first: "unable to open file: truncated file".
std::string library_message() {
    std::vector<std::string> messages;
    H5Ewalk2(
        H5E_DEFAULT, H5E_WALK_DOWNWARD,
        [](unsigned, const H5E_error2_t* error, void* data) -> herr_t {
            auto* list = static_cast<std::vector<std::string>*>(data);
            if (error->desc && *error->desc && (list->empty() || list->back() != error->desc)) list->push_back(error->desc);
            return 0;
        },
        &messages);
    H5Eclear2(H5E_DEFAULT);
    if (messages.empty()) return "the HDF5 library gave no reason";
    std::string text = messages.front();
    if (messages.size() > 1) text += ": " + messages.back();
    return text;
}

[[noreturn]] void fail(const std::string& what) { fail_input(what + " (HDF5: " + library_message() + ")"); }

class Handle {
public:
    Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    ~Handle() {
        if (id_ >= 0) close_(id_);
    }
    hid_t get() const { return id_; }
    bool ok() const { return id_ >= 0; }

private:
    hid_t id_;
    herr_t (*close_)(hid_t);
};

// A dataset's element type as numpy's descr (as h5py maps it), or why tslice does not read it.
struct TypeInfo {
    std::string descr;   // a descr literal: "'<f4'", "[('a', '<i4'), ...]"
    std::string reason;  // non-empty: not readable, and what it is ("variable-length strings")
    std::string name;    // for --list where not readable
};

std::string quoted(const std::string& text) {
    std::string out = "'";
    for (const char c : text) {
        if (c == '\\' || c == '\'') out += '\\';
        out += c;
    }
    return out + "'";
}

TypeInfo unreadable(const std::string& name, const std::string& reason) { return {"", reason, name}; }

char order_char(hid_t type, std::size_t size) {
    if (size == 1) return '|';
    return H5Tget_order(type) == H5T_ORDER_BE ? '>' : '<';
}

bool is_ieee(hid_t type, std::size_t size) {
    std::size_t spos = 0, epos = 0, esize = 0, mpos = 0, msize = 0;
    if (H5Tget_fields(type, &spos, &epos, &esize, &mpos, &msize) < 0) return false;
    const std::size_t bits = size * 8;
    if (spos != bits - 1 || mpos != 0 || epos != msize || H5Tget_offset(type) != 0) return false;
    return (size == 2 && esize == 5 && msize == 10) || (size == 4 && esize == 8 && msize == 23) ||
           (size == 8 && esize == 11 && msize == 52);
}

TypeInfo describe_type(hid_t type, int depth = 0) {
    const std::size_t size = H5Tget_size(type);
    if (depth > 16) return unreadable("compound", "compound types nested too deeply");
    switch (H5Tget_class(type)) {
        case H5T_INTEGER: {
            if ((size != 1 && size != 2 && size != 4 && size != 8) || H5Tget_precision(type) != size * 8)
                return unreadable("int" + std::to_string(size * 8), "integers of " + std::to_string(H5Tget_precision(type)) + " bits");
            const bool is_signed = H5Tget_sign(type) == H5T_SGN_2;
            return {quoted(std::string(1, order_char(type, size)) + (is_signed ? "i" : "u") + std::to_string(size)), "", ""};
        }
        case H5T_FLOAT:
            if (!is_ieee(type, size))
                return unreadable("float" + std::to_string(size * 8), "floats that are not IEEE binary16, 32 or 64");
            return {quoted(std::string(1, order_char(type, size)) + "f" + std::to_string(size)), "", ""};
        case H5T_ENUM: {
            const Handle base(H5Tget_super(type), H5Tclose);
            // h5py's bool: an int8 enum of FALSE = 0 and TRUE = 1.
            if (size == 1 && H5Tget_nmembers(type) == 2) {
                signed char value = 0;
                bool is_bool = true;
                for (unsigned i = 0; i < 2; ++i) {
                    char* member = H5Tget_member_name(type, i);
                    H5Tget_member_value(type, i, &value);
                    is_bool = is_bool && member && std::strcmp(member, i == 0 ? "FALSE" : "TRUE") == 0 && value == static_cast<signed char>(i);
                    H5free_memory(member);
                }
                if (is_bool) return {"'|b1'", "", ""};
            }
            return describe_type(base.get(), depth + 1);  // h5py reads an enum as its integers
        }
        case H5T_STRING:
            if (H5Tis_variable_str(type) > 0) return unreadable("vlen str", "variable-length strings");
            return {quoted("|S" + std::to_string(size)), "", ""};
        case H5T_OPAQUE:
            return {quoted("|V" + std::to_string(size)), "", ""};
        case H5T_ARRAY:
            return unreadable("array", "array-typed elements");
        case H5T_COMPOUND: {
            const int count = H5Tget_nmembers(type);
            struct Member {
                std::string name;
                std::size_t offset, size;
                hid_t type;
            };
            std::vector<Member> members;
            std::vector<std::unique_ptr<Handle>> held;
            for (int i = 0; i < count; ++i) {
                char* name = H5Tget_member_name(type, static_cast<unsigned>(i));
                held.push_back(std::make_unique<Handle>(H5Tget_member_type(type, static_cast<unsigned>(i)), H5Tclose));
                members.push_back({name ? name : "", H5Tget_member_offset(type, static_cast<unsigned>(i)),
                                   H5Tget_size(held.back()->get()), held.back()->get()});
                H5free_memory(name);
            }
            // h5py's complex numbers: two floats of one type named r and i.
            if (count == 2 && members[0].name == "r" && members[1].name == "i" && members[0].offset == 0 &&
                members[1].offset == members[0].size && size == 2 * members[0].size &&
                H5Tget_class(members[0].type) == H5T_FLOAT && H5Tequal(members[0].type, members[1].type) > 0 &&
                (members[0].size == 4 || members[0].size == 8) && is_ieee(members[0].type, members[0].size))
                return {quoted(std::string(1, order_char(members[0].type, members[0].size)) + "c" +
                               std::to_string(size)),
                        "", ""};
            std::sort(members.begin(), members.end(), [](const Member& a, const Member& b) { return a.offset < b.offset; });
            std::string descr = "[";
            std::size_t at = 0;
            for (const Member& member : members) {
                if (member.offset < at) return unreadable("compound", "compound types with overlapping members");
                if (member.offset > at) descr += "('', '|V" + std::to_string(member.offset - at) + "'), ";
                std::string field;
                if (H5Tget_class(member.type) == H5T_ARRAY) {
                    const int rank = H5Tget_array_ndims(member.type);
                    std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(rank, 0)));
                    H5Tget_array_dims2(member.type, dims.data());
                    const Handle base(H5Tget_super(member.type), H5Tclose);
                    const TypeInfo inner = describe_type(base.get(), depth + 1);
                    if (!inner.reason.empty()) return unreadable("compound", "compound types with " + inner.reason);
                    std::string shape = "(";
                    for (const auto d : dims) shape += std::to_string(d) + ",";
                    field = inner.descr + ", " + shape + ")";
                } else {
                    const TypeInfo inner = describe_type(member.type, depth + 1);
                    if (!inner.reason.empty()) return unreadable("compound", "compound types with " + inner.reason);
                    field = inner.descr;
                }
                descr += "(" + quoted(member.name) + ", " + field + "), ";
                at = member.offset + member.size;
            }
            if (at < size) descr += "('', '|V" + std::to_string(size - at) + "'), ";
            if (descr.size() > 1) descr.resize(descr.size() - 2);
            return {descr + "]", "", ""};
        }
        case H5T_REFERENCE:
            return unreadable("reference", "references");
        case H5T_VLEN:
            return unreadable("vlen", "variable-length sequences");
        case H5T_BITFIELD:
            return unreadable("bitfield", "bitfields");
        case H5T_TIME:
            return unreadable("time", "time types");
        default:
            return unreadable("unknown", "this type");
    }
}

class Hdf5File final : public RegionSource {
public:
    explicit Hdf5File(const std::string& path) : path_(path) {
        quiet_library();
        file_ = std::make_unique<Handle>(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
        if (!file_->ok()) fail("cannot open the HDF5 file");
        hsize_t size = 0;
        if (H5Fget_filesize(file_->get(), &size) >= 0) file_size_ = size;
        walk();
    }

    std::vector<ArrayInFile> list() const override { return arrays_; }

    std::vector<std::int64_t> chunk_shape(const ArrayInFile& array) const override {
        const std::size_t rank = array.shape.size();
        if (rank == 0 || !array.error.empty()) return {};
        quiet_library();
        const Handle dataset(H5Dopen2(file_->get(), array.member.c_str(), H5P_DEFAULT), H5Dclose);
        if (!dataset.ok()) return {};
        const Handle dcpl(H5Dget_create_plist(dataset.get()), H5Pclose);
        if (!dcpl.ok() || H5Pget_layout(dcpl.get()) != H5D_CHUNKED) return {};
        std::vector<hsize_t> chunk(rank);
        if (H5Pget_chunk(dcpl.get(), static_cast<int>(rank), chunk.data()) != static_cast<int>(rank)) return {};
        return std::vector<std::int64_t>(chunk.begin(), chunk.end());
    }

    void read(const ArrayInFile& array, const Box& box, std::byte* dst, unsigned threads,
              const Written& written) const override {
        quiet_library();
        if (!array.error.empty()) fail_input(array.error);
        const std::string where = "the dataset '" + *array.name + "'";
        if (box.element_count() == 0) return;
        const Handle dapl(H5Pcreate(H5P_DATASET_ACCESS), H5Pclose);
        Handle probe(H5Dopen2(file_->get(), array.member.c_str(), H5P_DEFAULT), H5Dclose);
        if (!probe.ok()) fail("cannot open " + where);
        const std::size_t rank = array.shape.size();
        const auto item = static_cast<std::int64_t>(array.type.itemsize());
        // Block rows along the first axis, a whole number of chunk rows where the dataset is chunked.
        std::int64_t row_bytes = item, chunk_rows = 1, cache = 1 << 20;
        for (std::size_t k = 1; k < rank; ++k) row_bytes *= box.stop[k] - box.start[k];
        // Where tslice decodes the dataset's filters itself: its chunk shape and pipeline.
        std::vector<hsize_t> chunk;
        std::optional<Hdf5Pipeline> pipeline;
        {
            const Handle dcpl(H5Dget_create_plist(probe.get()), H5Pclose);
            if (rank > 0 && dcpl.ok() && H5Pget_layout(dcpl.get()) == H5D_CHUNKED) {
                chunk.resize(rank);
                H5Pget_chunk(dcpl.get(), static_cast<int>(rank), chunk.data());
                pipeline = decodable_pipeline(dcpl.get(), static_cast<std::size_t>(item));
                chunk_rows = static_cast<std::int64_t>(chunk[0]);
                std::int64_t across = item * chunk_rows;
                for (std::size_t k = 1; k < rank; ++k)
                    across *= static_cast<std::int64_t>(chunk[k]) *
                              ((box.stop[k] - box.start[k] + static_cast<std::int64_t>(chunk[k]) - 1) / static_cast<std::int64_t>(chunk[k]) + 1);
                cache = std::clamp<std::int64_t>(across, 1 << 20, kMaxChunkCache);
            }
        }
        H5Pset_chunk_cache(dapl.get(), 12421, static_cast<std::size_t>(cache), 1.0);
        const Handle dataset(H5Dopen2(file_->get(), array.member.c_str(), dapl.get()), H5Dclose);
        if (!dataset.ok()) fail("cannot open " + where);
        const Handle type(H5Dget_type(dataset.get()), H5Tclose);
        const Handle file_space(H5Dget_space(dataset.get()), H5Sclose);
        if (!type.ok() || !file_space.ok()) fail("cannot read " + where);
        if (rank == 0) {
            if (H5Dread(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, dst) < 0) fail("cannot read " + where);
            return;
        }
        std::int64_t rows = std::max<std::int64_t>(1, kBlockBytes / std::max<std::int64_t>(row_bytes, 1));
        if (rows > chunk_rows) rows -= rows % chunk_rows;
        std::vector<hsize_t> start(rank), count(rank);
        for (std::size_t k = 0; k < rank; ++k) {
            start[k] = static_cast<hsize_t>(box.start[k]);
            count[k] = static_cast<hsize_t>(box.stop[k] - box.start[k]);
        }
        for (std::int64_t row = box.start[0]; row < box.stop[0];) {
            // The block ends on a chunk boundary, so no chunk is decompressed for two blocks.
            std::int64_t end = std::min(box.stop[0], (row + rows) / chunk_rows * chunk_rows);
            if (end <= row) end = std::min(box.stop[0], row + rows);
            // Where the rows end within chunk rows (a block smaller than one), each chunk is
            // read for several blocks: the library's chunk cache keeps them decoded.
            const bool whole_chunk_rows = (row == box.start[0] || row % chunk_rows == 0) &&
                                          (end == box.stop[0] || end % chunk_rows == 0);
            if (pipeline && whole_chunk_rows) {
                Box part = box;
                part.start[0] = row;
                part.stop[0] = end;
                if (read_stored_chunks(dataset.get(), *pipeline, chunk, static_cast<std::size_t>(item), part,
                                       dst + (row - box.start[0]) * row_bytes, threads, where)) {
                    if (written) written(dst + (row - box.start[0]) * row_bytes, dst + (end - box.start[0]) * row_bytes);
                    row = end;
                    continue;
                }
                H5Eclear2(H5E_DEFAULT);  // what the library said of the chunk it could not find
            }
            start[0] = static_cast<hsize_t>(row);
            count[0] = static_cast<hsize_t>(end - row);
            const Handle memory(H5Screate_simple(static_cast<int>(rank), count.data(), nullptr), H5Sclose);
            if (H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) < 0 ||
                !memory.ok() ||
                H5Dread(dataset.get(), type.get(), memory.get(), file_space.get(), H5P_DEFAULT,
                        dst + (row - box.start[0]) * row_bytes) < 0)
                fail("cannot read rows " + std::to_string(row) + " to " + std::to_string(end) + " of " + where);
            if (written) written(dst + (row - box.start[0]) * row_bytes, dst + (end - box.start[0]) * row_bytes);
            row = end;
        }
    }

private:
    struct Walk {
        Hdf5File* self;
        std::string error;
    };

    void walk() {
        Walk state{this, {}};
        const herr_t status = H5Lvisit(
            file_->get(), H5_INDEX_NAME, H5_ITER_INC,
            [](hid_t group, const char* name, const H5L_info_t* info, void* data) -> herr_t {
                auto* state = static_cast<Walk*>(data);
                if (info->type != H5L_TYPE_HARD) return 0;  // soft and external links name objects listed elsewhere, or outside
                try {
                    // An object that does not open is damage, not something to leave out.
                    const Handle object(H5Oopen(group, name, H5P_DEFAULT), H5Oclose);
                    if (!object.ok()) fail(std::string("cannot open the object '") + name + "'");
                    if (H5Iget_type(object.get()) != H5I_DATASET) return 0;
                    state->self->add(object.get(), name);
                } catch (const Error& error) {
                    state->error = error.what();
                    return -1;
                }
                return 0;
            },
            &state);
        if (!state.error.empty()) fail_input(state.error);
        if (status < 0) fail("cannot list the datasets");
    }

    void add(hid_t dataset, const std::string& name) {
        ArrayInFile array;
        array.name = name;
        array.member = "/" + name;
        array.bytes.kind = ArrayBytes::Kind::Region;
        const Handle space(H5Dget_space(dataset), H5Sclose);
        const Handle type(H5Dget_type(dataset), H5Tclose);
        if (!space.ok() || !type.ok()) fail("cannot read the dataset '" + name + "'");
        const H5S_class_t kind = H5Sget_simple_extent_type(space.get());
        if (kind == H5S_SIMPLE) {
            const int rank = H5Sget_simple_extent_ndims(space.get());
            if (rank < 0 || rank > static_cast<int>(kMaxRank)) fail("the dataset '" + name + "' has too many axes");
            std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
            H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
            for (const auto d : dims) {
                // (A damaged file can say anything here; the library does not check.)
                if (d > static_cast<hsize_t>(std::numeric_limits<std::int64_t>::max()))
                    fail_input("the dataset '" + name + "' has a dimension of " + std::to_string(d) +
                               ", more than 64-bit sizes hold");
                array.shape.push_back(static_cast<std::int64_t>(d));
            }
        }
        const TypeInfo info = describe_type(type.get());
        if (info.reason.empty()) {
            try {
                array.type.dtype = parse_dtype_descr(info.descr);
            } catch (const Error& error) {
                fail_input("the dataset '" + name + "'" + ": its type " + info.descr + ": " + error.what());
            }
        } else {
            array.type.dtype = parse_dtype_descr(quoted("|V" + std::to_string(std::max<std::size_t>(1, H5Tget_size(type.get())))));
            array.stored_type = info.name;
            array.error = "the dataset '" + name + "'" + " holds " + info.reason +
                               ", which tslice lists but does not read (it reads numbers, bools, fixed-length strings "
                               "and compounds of them)";
        }
        try {
            checked_element_count(array.shape, array.type.dtype.itemsize, "the shape");
        } catch (const Error& error) {
            fail_input("the dataset '" + name + "': " + error.what());
        }
        if (array.error.empty() && kind == H5S_SIMPLE) map_if_contiguous(dataset, array);
        if (kind == H5S_NULL) {
            if (array.stored_type.empty()) array.stored_type = array.type.name();
            array.error = "the dataset '" + name + "'" + " has a null dataspace (h5py's Empty): it holds no array";
        }
        arrays_.push_back(std::move(array));
    }

    // A contiguous dataset whose bytes are allocated in this file (not compact, not external,
    // never filtered) is an ordinary array at an offset: it is mapped in place, as a .npy is,
    // and the library is not asked for it. Elements in the file's byte order, as the type says.
    void map_if_contiguous(hid_t dataset, ArrayInFile& array) const {
        const Handle dcpl(H5Dget_create_plist(dataset), H5Pclose);
        if (!dcpl.ok() || H5Pget_layout(dcpl.get()) != H5D_CONTIGUOUS || H5Pget_external_count(dcpl.get()) != 0) return;
        const haddr_t offset = H5Dget_offset(dataset);
        if (offset == HADDR_UNDEF) return;  // never written: the library gives its fill value
        const std::uint64_t bytes = array.data_bytes();
        if (H5Dget_storage_size(dataset) != bytes || offset > file_size_ || file_size_ - offset < bytes) return;
        array.bytes.kind = ArrayBytes::Kind::Mapped;
        array.bytes.offset = offset;
        array.bytes.size = bytes;
    }

    std::string path_;
    std::uint64_t file_size_ = 0;
    std::unique_ptr<Handle> file_;
    std::vector<ArrayInFile> arrays_;
};

}  // namespace

std::shared_ptr<const RegionSource> open_hdf5_file(const std::string& path) { return std::make_shared<Hdf5File>(path); }

}  // namespace tslice
