// The output formats: which one a path or --format names, the bytes that frame a result in
// each, and the type a result is written as.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tslice/container.hpp"
#include "tslice/write.hpp"

namespace tslice {

enum class OutputFormat { Npy, Npz, Safetensors, Json, Csv, Zarr };

// `format` ("npy", "npz", "safetensors", "json", "csv", "zarr") when given, else the extension
// of `path` (.npz, .safetensors, .json, .csv, .zarr), else Zarr where `path` is in a Zarr
// group's directory (it holds .zgroup: the result becomes an array of the group); anything
// else, standard output included, is a .npy.
OutputFormat output_format_for(const std::string& path, const std::optional<std::string>& format);

// The bytes around an array of `type` and `shape` in `format`; `name` is its name inside a
// container (an .npz member without ".npy", a safetensors tensor). Error(Usage) when the format
// cannot hold the type (a complex array into safetensors, bfloat16 into .npy). For the binary
// formats only (JSON and CSV are text_values.hpp's).
// `metadata`: the text of a safetensors "__metadata__" object to carry (an input's), or empty.
OutputFraming output_framing(OutputFormat format, const ElementType& type, const std::vector<std::int64_t>& shape,
                             const std::string& name, const std::string& metadata = {});

// The type a result of `type` is written as with --astype `astype` (nullopt: unconverted), in
// `format`: safetensors holds little-endian numbers, so a big-endian target becomes its
// little-endian twin there. Error(Usage) where either type does not convert.
ElementType converted_type(const ElementType& type, const std::optional<ElementType>& astype,
                           std::optional<OutputFormat> format = std::nullopt);

}  // namespace tslice
