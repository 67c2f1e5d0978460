// A whole run in one call, from a file to a file: what `tslice INPUT [EXPR] -o OUTPUT` does,
// for programs. The preparation it starts with is prepare.hpp's, which the dry runs share.
//
//   tslice::RunRequest request;
//   request.input = "in.npy";
//   request.expr = tslice::parse_index_expr("[1:, ..., ::-1]");
//   request.output = "out.npy";
//   tslice::run(request);
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tslice/container.hpp"
#include "tslice/expr.hpp"
#include "tslice/ops.hpp"
#include "tslice/text_values.hpp"
#include "tslice/write.hpp"
#include "tslice/zarr_write.hpp"

namespace tslice {

enum class OutputFormat { Npy, Npz, Safetensors, Json, Csv, Zarr };

// `format` ("npy", "npz", "safetensors", "json", "csv", "zarr") when given, else the extension
// of `path` (.npz, .safetensors, .json, .csv, .zarr); anything else, standard output included,
// is a .npy.
OutputFormat output_format_for(const std::string& path, const std::optional<std::string>& format);

// The bytes around an array of `type` and `shape` in `format`; `name` is its name inside a
// container (an .npz member without ".npy", a safetensors tensor). Error(Usage) when the format
// cannot hold the type (a complex array into safetensors, bfloat16 into .npy). For the binary
// formats only (JSON and CSV are text_values.hpp's).
// `metadata`: the text of a safetensors "__metadata__" object to carry (an input's), or empty.
OutputFraming output_framing(OutputFormat format, const ElementType& type, const std::vector<std::int64_t>& shape,
                             const std::string& name, const std::string& metadata = {});

struct RunRequest {
    std::string input;               // a path, or "-" for standard input
    // The arrays of an .npz or .safetensors input: names or globs (select_arrays). None: the
    // only one. Several results go into one container, each under its name.
    std::vector<std::string> keys;
    // Replace or add the results in `output`, an existing container (created if missing),
    // keeping every other array there as it is.
    bool update = false;
    std::optional<std::string> as_name;  // the one result's name in a container
    std::vector<OpSpec> ops;         // run first, left to right
    std::optional<IndexExpr> expr;   // then the expression
    std::string output;              // a path, or "-" for standard output
    std::optional<OutputFormat> format;  // default: output_format_for(output, nullopt)
    std::optional<ElementType> astype;   // convert the result to this type (convert.hpp)
    WriteOptions write;
    ZarrOptions zarr;  // a Zarr output's chunks and compressor
};

// Prepares (opens the input, chooses the arrays, plans the ops and the expression for each) and
// writes the results: the copy in bounded chunks, to a temporary renamed into place. Error(Usage) for
// several results into anything but a container, and for an output that is the input
// container and would lose arrays without `update`. Errors are tslice::Error and name the
// file they are about.
void run(const RunRequest& request);

// The type a result of `type` is written as with --astype `astype` (nullopt: unconverted), in
// `format`: safetensors holds little-endian numbers, so a big-endian target becomes its
// little-endian twin there. Error(Usage) where either type does not convert.
ElementType converted_type(const ElementType& type, const std::optional<ElementType>& astype,
                           std::optional<OutputFormat> format = std::nullopt);

}  // namespace tslice
