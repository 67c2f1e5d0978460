// The whole run from a file to a file, stage after stage: read, parse (done by the caller),
// plan, view, copy and write; and the framing of each output format.
#include "tslice/slice.hpp"

#include "python_text.hpp"
#include "tslice/convert.hpp"
#include "tslice/error.hpp"
#include "tslice/npy.hpp"
#include "tslice/reach.hpp"
#include "tslice/source.hpp"
#include "tslice/steps.hpp"

namespace tslice {

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
    return OutputFormat::Npy;
}

OutputFraming output_framing(OutputFormat format, const ElementType& type, const std::vector<std::int64_t>& shape,
                             const std::string& name) {
    // A member name flagged UTF-8 that is not (a name read from a zip directory as it was)
    // makes an .npz that Python's zipfile cannot open; a safetensors header must be UTF-8 too.
    if (format == OutputFormat::Npz && name.find('\0') != std::string::npos)
        throw Error(ErrorKind::Usage, "the array's name " + quoted_name(name) +
                                          " holds a NUL byte, where Python's zipfile would end an .npz member's name; "
                                          "write a .npy or a .safetensors instead");
    if (format != OutputFormat::Npy && !valid_utf8(name))
        throw Error(ErrorKind::Usage,
                    "the array's name " + quoted_name(name) + " is not valid UTF-8, which " +
                        (format == OutputFormat::Npz ? "an .npz member's name" : "a safetensors tensor's name") +
                        " must be (Python's zipfile and safetensors could not read it); write a .npy instead");
    std::uint64_t data_bytes = type.dtype.file_itemsize();
    for (const auto dim : shape) data_bytes *= static_cast<std::uint64_t>(dim);  // checked by the planner
    if (format == OutputFormat::Safetensors) {
        const std::optional<std::string> dtype = safetensors_name(type);
        if (!dtype)
            throw Error(ErrorKind::Usage,
                                "safetensors has no dtype for " + type.name() +
                                    " (it holds booleans, integers and floats: BOOL, U8-U64, I8-I64, F16, BF16, F32, "
                                    "F64, F8_E4M3, F8_E5M2, F8_E8M0); write a .npy or .npz instead");
        return {safetensors_prefix(name, *dtype, shape, data_bytes), 0, {}};
    }
    if (!type.safetensors_only.empty())
        throw Error(ErrorKind::Usage,
                            "numpy has no dtype for " + type.name() + ", so it cannot be written to a " +
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

void slice_file(const SliceRequest& request) {
    // Errors of the input name it.
    const auto reading = [&](auto step) -> decltype(step()) {
        try {
            return step();
        } catch (const Error& error) {
            throw error_about_file(error, request.input);
        }
    };
    const InputBytes input = reading([&] { return InputBytes::open(request.input); });
    const std::vector<ArrayInFile> arrays =
        reading([&] { return list_arrays(input); });
    const ArrayInFile& array = reading([&]() -> const ArrayInFile& { return select_array(arrays, request.key); });
    require_readable(array);
    std::vector<OpSpec> ops = request.ops;
    read_indices_files(ops);
    Pipeline pipeline = plan_pipeline(array.shape, ops, request.expr, array.type.dtype);
    ops = {};  // the plan holds the indices now: a large gather's would be resident twice
    const ElementType source_type{pipeline.output_dtype(), array.type.safetensors_only};
    const OutputFormat format = request.format.value_or(output_format_for(request.output, std::nullopt));
    const ElementType type = converted_type(source_type, request.astype, format);
    const bool text = format == OutputFormat::Json || format == OutputFormat::Csv;
    const std::string what = tslice::array_what(array);
    reading([&] { require_sliceable(array, what); });
    const std::string name = array.name && request.key ? *array.name : "arr_0";
    const bool zarr = format == OutputFormat::Zarr;
    if (zarr) {
        if (request.output == "-") throw Error(ErrorKind::Usage, "a Zarr store is a directory: give -o DIR.zarr, not -o -");
        check_zarr_output(type, pipeline.output_shape(), request.zarr);
    }
    const OutputFraming framing =
        text || zarr ? OutputFraming{} : output_framing(format, type, pipeline.output_shape(), name);

    const ArrayData data = reading([&] {
        return ArrayData::open(input, array, what, [&] { return reached_box(pipeline, array.type.itemsize()); });
    });
    const Result result = apply_pipeline(pipeline, data.data(), data.view());
    // The view's offset table holds all the write needs of a gather now: its indices would
    // stay resident beside it, 8 bytes each.
    pipeline = {};
    const InputPages pages = result.data == data.data() ? data.pages() : InputPages{};
    // A conversion to the type the result has already is none: the plain copy (which may
    // splice) writes the same bytes.
    if (request.astype && !(type == source_type)) {
        const Conversion conversion(source_type, type);
        if (text || zarr) {
            // The text and Zarr writers read values from a view: the converted result is made
            // whole first.
            const std::vector<std::byte> converted =
                convert_view(result.data, result.view, conversion, request.write.threads);
            const View converted_view = View::contiguous(result.view.shape, type.itemsize());
            if (zarr)
                write_zarr(request.output, converted.data(), converted_view, type, request.zarr, request.write, {});
            else
                write_values_as_text(request.output, format == OutputFormat::Json ? TextFormat::Json : TextFormat::Csv,
                                     converted.data(), converted_view, type, {}, request.write);
            return;
        }
        write_view_converted(request.output, framing, result.data, result.view, pages, request.write, conversion);
        return;
    }
    if (zarr) {
        write_zarr(request.output, result.data, result.view, type, request.zarr, request.write, pages);
        return;
    }
    if (text) {
        write_values_as_text(request.output, format == OutputFormat::Json ? TextFormat::Json : TextFormat::Csv,
                             result.data, result.view, type, pages, request.write);
        return;
    }
    WriteOptions options = request.write;
    // safetensors is little-endian; a big-endian .npy's elements are turned around.
    options.swap_bytes = format == OutputFormat::Safetensors && type.dtype.byte_order == '>' && type.itemsize() > 1;
    if (type.dtype.packed_itemsize) options.packed_selection = type.dtype;
    write_view(request.output, framing, result.data, result.view, pages, options);
}

}  // namespace tslice
