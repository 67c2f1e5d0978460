// The indices of gathers that name an integer .npy file, read before planning so that the
// planners stay pure functions of specs and shapes.
#include <string>

#include "source/element_integer.hpp"
#include "tslice/error.hpp"
#include "tslice/gather.hpp"
#include "tslice/npy.hpp"
#include "tslice/ops.hpp"

namespace tslice {
namespace {

// The file's errors name it; `field` says which op asked for it.
template <typename Read>
auto read_naming(const std::string& file, const std::string& field, Read read) {
    try {
        return read(file);
    } catch (const Error& error) {
        throw error_about_file(error, file, field);
    }
}

void check_indices_header(const NpyHeader& header, const std::string& file, const std::string& field) {
    const std::string name = file_display_name(file);
    const DType& dtype = header.dtype;
    const bool integer = !dtype.structured && (dtype.kind == 'i' || dtype.kind == 'u') &&
                         (dtype.itemsize == 1 || dtype.itemsize == 2 || dtype.itemsize == 4 || dtype.itemsize == 8);
    if (!integer)
        fail_usage(field + ": the indices file " + name + " has dtype " +
                   (dtype.structured ? dtype.descr : "'" + dtype.type_string + "'") +
                   "; gather indices must be integers (int8 to int64 or uint8 to uint64)");
    const std::int64_t count = header.element_count();
    if (count > kMaxGatherTable)
        fail_usage(field + ": the indices file " + name + " holds " + std::to_string(count) +
                   " indices, more than a gather may use (" + std::to_string(kMaxGatherTable) + ")");
}

IntArray read_indices_file(const std::string& file, const std::string& field, bool shape_only) {
    IntArray indices;
    if (shape_only) {
        const NpyHeader header = read_naming(file, field, [](const std::string& f) { return NpyArray::read_header(f); });
        check_indices_header(header, file, field);
        indices.shape = header.shape;
        return indices;
    }
    const NpyArray array = read_naming(file, field, [](const std::string& f) { return NpyArray::open(f); });
    const NpyHeader& header = array.header();
    check_indices_header(header, file, field);
    indices.shape = header.shape;
    const std::int64_t count = header.element_count();
    indices.values.reserve(static_cast<std::size_t>(count));
    const View layout = array.view();
    const std::size_t rank = layout.rank();
    std::vector<std::int64_t> index(rank, 0);
    for (std::int64_t n = 0; n < count; ++n) {
        std::int64_t offset = 0;
        for (std::size_t k = 0; k < rank; ++k) offset += index[k] * layout.byte_strides[k];
        const Int128 value = load_integer(array.data() + offset, header.dtype);
        indices.values.push_back(value > INT64_MAX ? INT64_MAX : static_cast<std::int64_t>(value));
        for (std::size_t k = rank; k-- > 0;) {
            if (++index[k] < header.shape[k]) break;
            index[k] = 0;
        }
    }
    return indices;
}

}  // namespace

void read_indices_files(std::vector<OpSpec>& ops, bool shape_only) {
    for (OpSpec& op : ops) {
        auto* gather = std::get_if<GatherSpec>(&op.spec);
        if (!gather || !gather->indices_path || gather->indices) continue;
        gather->indices = read_indices_file(*gather->indices_path, op.path + ".indices", shape_only);
        gather->indices_shape_only = shape_only;
    }
}

}  // namespace tslice
