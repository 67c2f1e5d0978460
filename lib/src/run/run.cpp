// The whole run from a file to a file: the shared preparation (prepare.hpp: open, choose,
// plan), then the checks an output needs, then the view, copy and write of each result.
#include "tslice/run.hpp"

#include <sys/stat.h>

#include <algorithm>

#include "tslice/convert.hpp"
#include "tslice/error.hpp"
#include "tslice/npy.hpp"
#include "tslice/prepare.hpp"
#include "tslice/source.hpp"
#include "tslice/text_values.hpp"
#include "write/container_write.hpp"
#include "write/write_into.hpp"

namespace tslice {

namespace {

// One prepared array as it is written: its type and its name in a container.
struct Planned {
    std::size_t index = 0;  // in Prepared::planned()
    ElementType source_type;  // the result's type as sliced
    ElementType type;         // as written: --astype's, or source_type
    std::vector<std::int64_t> shape;
    std::string name;

    bool converts() const { return !(type == source_type); }
};

bool is_container(OutputFormat format) { return format == OutputFormat::Npz || format == OutputFormat::Safetensors; }

// Whether two paths name one file (a missing one is no file).
bool same_file(const std::string& a, const std::string& b) {
    struct stat sa {}, sb {};
    return a != "-" && b != "-" && ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 &&
           sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

// The options a result is written with: safetensors is little-endian, so a big-endian .npy's
// elements are turned around; a selection of fields is packed.
WriteOptions options_for(const RunRequest& request, OutputFormat format, const ElementType& type) {
    WriteOptions options = request.write;
    options.swap_bytes = format == OutputFormat::Safetensors && type.dtype.byte_order == '>' && type.itemsize() > 1;
    if (type.dtype.kind == 'c') options.swap_unit = type.itemsize() / 2;  // C64: two float32s
    if (type.dtype.packed_itemsize) options.packed_selection = type.dtype;
    return options;
}

std::uint64_t result_bytes(const Planned& planned) {
    std::uint64_t bytes = planned.type.dtype.file_itemsize();
    for (const auto dim : planned.shape) bytes *= static_cast<std::uint64_t>(dim);
    return bytes;
}

// The results, and the arrays of `existing` (the output as it is, for --update; null for
// none) that they do not replace, in the order the output holds them: an existing container's
// arrays where they were (a safetensors file's by where their data is), each replaced by the
// result of its name, then the results that replace none.
std::vector<ContainerEntry> container_entries(const RunRequest& request, OutputFormat format,
                                              const Prepared& prepared, const std::vector<Planned>& results,
                                              const InputBytes* existing, const std::vector<ArrayInFile>& kept) {
    const bool npz = format == OutputFormat::Npz;
    const auto result_entry = [&](const Planned& planned) {
        ContainerEntry entry;
        entry.name = npz ? planned.name + ".npy" : planned.name;
        entry.shape = planned.shape;
        entry.data_bytes = result_bytes(planned);
        if (npz)
            entry.npy_header = make_npy_header(planned.type.dtype, entry.shape);
        else
            entry.dtype = *safetensors_name(planned.type);
        const WriteOptions options = options_for(request, format, planned.type);
        entry.write = [&prepared, &planned, options](OutputFile& output, const OutputFraming& framing) {
            const ViewedArray viewed = prepared.view(planned.index, {options.threads, true});
            const Result& result = viewed.result;
            if (planned.converts())
                write_view_converted_into(output, framing, result.data, result.view, viewed.pages(), options,
                                          Conversion(planned.source_type, planned.type));
            else
                write_view_into(output, framing, result.data, result.view, viewed.pages(), options, false);
        };
        return entry;
    };
    std::vector<bool> placed(results.size(), false);
    std::vector<ContainerEntry> entries;
    std::vector<const ArrayInFile*> order;
    for (const ArrayInFile& array : kept) order.push_back(&array);
    if (!npz)
        std::stable_sort(order.begin(), order.end(),
                         [](const ArrayInFile* a, const ArrayInFile* b) { return a->bytes.offset < b->bytes.offset; });
    for (const ArrayInFile* array : order) {
        const auto replaced = std::find_if(results.begin(), results.end(),
                                           [&](const Planned& planned) { return planned.name == *array->name; });
        if (replaced != results.end()) {
            if (!placed[replaced - results.begin()]) entries.push_back(result_entry(*replaced));
            placed[replaced - results.begin()] = true;
            continue;
        }
        ContainerEntry entry;
        entry.from = existing;
        if (npz) {
            if (!array->member_bytes.found() || array->member_bytes.encrypted)
                throw error_about_file(
                    Error(ErrorKind::Input, "--update keeps every other member as it is, and the .npz member '" +
                                                array->member + "' cannot be copied: " + array->error),
                    existing == &prepared.input() ? request.input : request.output);
            entry.name = array->member;
            entry.member = array->member_bytes;
        } else {
            entry.name = *array->name;
            entry.dtype = array->stored_type;
            entry.shape = array->shape;
            entry.offset = array->bytes.offset;
            entry.data_bytes = array->bytes.size;
        }
        entries.push_back(std::move(entry));
    }
    for (std::size_t i = 0; i < results.size(); ++i)
        if (!placed[i]) entries.push_back(result_entry(results[i]));
    return entries;
}

// Error(Usage) for an output that cannot take what is chosen, before any indices file is read.
void check_output(const RunRequest& request, OutputFormat format, std::size_t chosen) {
    if (chosen > 1 && !is_container(format))
        fail_usage(std::to_string(chosen) +
                       " arrays are chosen: the output must be a container that holds each under "
                       "its name (-o NAME.npz or NAME.safetensors, or --format npz|safetensors)");
    if (request.as_name && chosen > 1)
        fail_usage("--as names one result, but " + std::to_string(chosen) +
                       " arrays are chosen; each keeps its own name");
    if (request.update && !is_container(format))
        fail_usage("--update replaces or adds arrays in an .npz or .safetensors file; -o " +
                       request.output + " is neither (name it so, or give --format)");
    if (request.update && request.output == "-")
        fail_usage("--update rewrites a file; -o - is standard output");
    if (format == OutputFormat::Zarr && request.output == "-")
        fail_usage("a Zarr store is a directory: give -o DIR.zarr, not -o -");
}

// Each planned array as it is written: its type after --astype, and its name in a container
// (--as, else its key where keys were given or an existing container is updated, else numpy's
// arr_0).
std::vector<Planned> results_of(const RunRequest& request, OutputFormat format, const Prepared& prepared) {
    std::vector<Planned> results;
    for (std::size_t i = 0; i < prepared.planned().size(); ++i) {
        const PlannedArray& array = prepared.planned()[i];
        Planned planned;
        planned.index = i;
        planned.source_type = array.type;
        planned.type = converted_type(planned.source_type, request.astype, format);
        planned.shape = array.pipeline.output_shape();
        planned.name = request.as_name ? *request.as_name
                       : array.array->name && (!request.keys.empty() || request.update) ? *array.array->name
                                                                                         : "arr_0";
        results.push_back(std::move(planned));
    }
    return results;
}

// Error(Usage) where the results, written over the input container they come from (without
// --update), would take the place of arrays they do not replace.
void check_nothing_lost(const RunRequest& request, OutputFormat format, const Prepared& prepared,
                        const std::vector<Planned>& results, bool safetensors_input) {
    const std::vector<ArrayInFile>& arrays = prepared.arrays();
    if (arrays.empty() || !arrays[0].name) return;  // a plain .npy holds no other array
    const bool same_kind = format == (safetensors_input ? OutputFormat::Safetensors : OutputFormat::Npz);
    std::size_t lost = 0;
    for (const ArrayInFile& array : arrays)
        lost += !same_kind || std::none_of(results.begin(), results.end(),
                                           [&](const Planned& planned) { return planned.name == *array.name; });
    if (lost > 0)
        fail_usage("-o " + request.output + " is the input, which holds " + std::to_string(arrays.size()) +
                       " arrays: writing the result" + (results.size() > 1 ? "s" : "") + " over it would lose " +
                       std::to_string(lost) + " of them; the file is left as it is. Add --update to replace or "
                       "add the result" + (results.size() > 1 ? "s" : "") + " and keep every other array");
}

// Several results, or --update: one container, with the other arrays of the output as it is
// (--update; created if missing) kept.
void write_results_into_container(const RunRequest& request, OutputFormat format, const Prepared& prepared,
                                  const std::vector<Planned>& results, const std::string& input_metadata,
                                  bool into_input) {
    InputBytes existing_bytes;
    const InputBytes* existing = nullptr;
    std::vector<ArrayInFile> kept;
    std::string metadata = format == OutputFormat::Safetensors ? input_metadata : "";
    struct stat st {};
    if (request.update && (into_input || ::stat(request.output.c_str(), &st) == 0)) {
        const auto about_output = [&](auto step) -> decltype(step()) {
            try {
                return step();
            } catch (const Error& error) {
                throw error_about_file(error, request.output);
            }
        };
        if (!into_input) existing_bytes = about_output([&] { return InputBytes::open(request.output); });
        existing = into_input ? &prepared.input() : &existing_bytes;
        const ContainerFormat found = detect_format(existing->data(), existing->size());
        const bool npz = format == OutputFormat::Npz;
        if (found != (npz ? ContainerFormat::Npz : ContainerFormat::Safetensors))
            throw error_about_file(
                Error(ErrorKind::Input, std::string("--update writes into an existing ") +
                                            (npz ? ".npz archive" : ".safetensors file") + ", and this is not one"),
                request.output);
        kept = into_input ? prepared.arrays()
                          : about_output([&] { return list_arrays(existing->data(), existing->size()); });
        metadata = npz ? "" : safetensors_metadata(existing->data(), existing->size());
    }
    const std::vector<ContainerEntry> entries = container_entries(request, format, prepared, results, existing, kept);
    write_container(request.output, format == OutputFormat::Npz, entries, metadata, request.write.sync);
}

// One result, in any format.
void write_result(const RunRequest& request, OutputFormat format, Prepared& prepared, const Planned& planned,
                  const OutputFraming& framing) {
    const bool text = format == OutputFormat::Json || format == OutputFormat::Csv;
    const bool zarr = format == OutputFormat::Zarr;
    const TextFormat text_format = format == OutputFormat::Json ? TextFormat::Json : TextFormat::Csv;
    const ElementType& type = planned.type;
    // The binary and Zarr writers read a region source's box a band at a time through the read
    // stage; the text writers read the view themselves.
    const ViewedArray viewed = prepared.view(planned.index, {request.write.threads, !text});
    const Result& result = viewed.result;
    prepared.forget_plan(planned.index);
    const InputPages pages = viewed.pages();
    // A conversion to the type the result has already is none: the plain copy (which may
    // splice) writes the same bytes.
    if (planned.converts()) {
        const Conversion conversion(planned.source_type, type);
        if (text) {
            // Converted a chunk at a time as the text goes out.
            write_values_as_text(request.output, text_format, result.data, result.view, type, pages, request.write,
                                 &conversion);
            return;
        }
        if (zarr) {
            // Converted chunk by chunk as the store is written.
            write_zarr(request.output, result.data, result.view, type, request.zarr, request.write, pages, &conversion);
            return;
        }
        write_view_converted(request.output, framing, result.data, result.view, pages,
                             options_for(request, format, type), conversion);
        return;
    }
    if (zarr)
        write_zarr(request.output, result.data, result.view, type, request.zarr, request.write, pages);
    else if (text)
        write_values_as_text(request.output, text_format, result.data, result.view, type, pages, request.write);
    else
        write_view(request.output, framing, result.data, result.view, pages, options_for(request, format, type));
}

}  // namespace

void run(const RunRequest& request) {
    Prepared prepared = Prepared::open(request.input);
    // A conversion reads a quantized GGUF tensor as the floats its blocks decode to.
    prepared.choose(request.keys, {.converting = request.astype.has_value()});
    const OutputFormat format = request.format.value_or(output_format_for(request.output, std::nullopt));
    check_output(request, format, prepared.chosen().size());
    prepared.plan(request.ops, request.expr, {.refuse_unsliceable = true});
    const std::vector<Planned> results = results_of(request, format, prepared);

    const InputBytes& input = prepared.input();
    const bool safetensors_input = detect_format(input.data(), input.size()) == ContainerFormat::Safetensors;
    const std::string input_metadata = safetensors_input ? safetensors_metadata(input.data(), input.size()) : "";
    const bool into_input = same_file(request.input, request.output);
    if (into_input && !request.update) check_nothing_lost(request, format, prepared, results, safetensors_input);
    // Each result's framing, for the check that the format can hold its type, before anything is written.
    const bool zarr = format == OutputFormat::Zarr;
    const bool binary = !zarr && format != OutputFormat::Json && format != OutputFormat::Csv;
    std::vector<OutputFraming> framings;
    for (const Planned& planned : results) {
        if (zarr) check_zarr_output(planned.type, planned.shape, request.zarr);
        framings.push_back(binary ? output_framing(format, planned.type, planned.shape, planned.name, input_metadata)
                                  : OutputFraming{});
    }

    if (results.size() > 1 || request.update)
        write_results_into_container(request, format, prepared, results, input_metadata, into_input);
    else
        write_result(request, format, prepared, results[0], framings[0]);
}

}  // namespace tslice
