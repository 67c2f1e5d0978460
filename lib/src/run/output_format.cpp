// The output formats: which one a path or --format names, the bytes framing a result in each,
// and the type a result is written as.
#include "tslice/output_format.hpp"

#include <sys/stat.h>

#include "tslice/convert.hpp"
#include "tslice/error.hpp"
#include "tslice/npy.hpp"
#include "base/python_text.hpp"

namespace tslice {

namespace {

// Whether `path` names an entry of a Zarr group: the directory it is in holds a .zgroup.
bool inside_zarr_group(std::string path) {
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    const auto slash = path.rfind('/');
    const std::string directory = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
    struct stat info {};
    return ::stat((directory + "/.zgroup").c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

}  // namespace

OutputFormat output_format_for(const std::string& path, const std::optional<std::string>& given) {
    const std::string format = given.value_or("");
    const auto ends_with = [&](const std::string& suffix) {
        return path.size() > suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    if (format == "json" || (format.empty() && ends_with(".json"))) return OutputFormat::Json;
    if (format == "csv" || (format.empty() && ends_with(".csv"))) return OutputFormat::Csv;
    if (format == "npz" || (format.empty() && ends_with(".npz"))) return OutputFormat::Npz;
    if (format == "safetensors" || (format.empty() && ends_with(".safetensors"))) return OutputFormat::Safetensors;
    if (format == "zarr" || (format.empty() && (ends_with(".zarr") || ends_with(".zarr/")))) return OutputFormat::Zarr;
    // An array written into a Zarr group (-o climate.zarr/temperature) is a Zarr array of it.
    if (format.empty() && path != "-" && inside_zarr_group(path)) return OutputFormat::Zarr;
    return OutputFormat::Npy;
}

OutputFraming output_framing(OutputFormat format, const ElementType& type, const std::vector<std::int64_t>& shape,
                             const std::string& name, const std::string& metadata) {
    // A member name flagged UTF-8 that is not (a name read from a zip directory as it was)
    // makes an .npz that Python's zipfile cannot open; a safetensors header must be UTF-8 too.
    if (format == OutputFormat::Npz && name.find('\0') != std::string::npos)
        fail_usage("the array's name " + quoted_name(name) +
                       " holds a NUL byte, where Python's zipfile would end an .npz member's name; "
                       "write a .npy or a .safetensors instead");
    if (format != OutputFormat::Npy && !valid_utf8(name))
        fail_usage("the array's name " + quoted_name(name) + " is not valid UTF-8, which " +
                       (format == OutputFormat::Npz ? "an .npz member's name" : "a safetensors tensor's name") +
                       " must be (Python's zipfile and safetensors could not read it); write a .npy instead");
    std::uint64_t data_bytes = type.dtype.file_itemsize();
    for (const auto dim : shape) data_bytes *= static_cast<std::uint64_t>(dim);  // checked by the planner
    if (format == OutputFormat::Safetensors) {
        const std::optional<std::string> dtype = safetensors_name(type);
        if (!dtype)
            fail_usage("safetensors has no dtype for " + type.name() +
                           " (it holds booleans, integers, floats and complex64: BOOL, U8-U64, I8-I64, F16, "
                           "BF16, F32, F64, F8_E4M3, F8_E5M2, F8_E8M0, C64); write a .npy or .npz instead");
        return {safetensors_prefix(name, *dtype, shape, data_bytes, metadata), 0, {}};
    }
    if (!type.safetensors_only.empty())
        fail_usage("numpy has no dtype for " + type.name() + ", so it cannot be written to a " +
                       (format == OutputFormat::Npz ? ".npz" : ".npy") +
                       "; write it with --format safetensors (or -o NAME.safetensors)");
    const std::string header = make_npy_header(type.dtype, shape);
    if (format == OutputFormat::Npy) return {header, 0, {}};
    const std::string member = name + ".npy";
    const std::uint64_t member_size = header.size() + data_bytes;
    const std::string prefix = npz_prefix(member, member_size);
    return {prefix + header, prefix.size(), [member, member_size](std::uint32_t crc) {
                return npz_suffix(member, member_size, crc);
            }};
}

ElementType converted_type(const ElementType& type, const std::optional<ElementType>& astype,
                           std::optional<OutputFormat> format) {
    if (!astype) return type;
    ElementType target = *astype;
    if (format == OutputFormat::Safetensors && target.safetensors_only.empty() && target.dtype.byte_order == '>')
        target.dtype = parse_dtype_descr("'<" + target.dtype.type_string.substr(1) + "'");
    const Conversion check(type, target);  // says which of the two does not convert
    (void)check;
    return target;
}

}  // namespace tslice
