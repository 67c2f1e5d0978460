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

#include "tslice/expr.hpp"
#include "tslice/ops.hpp"
#include "tslice/output_format.hpp"
#include "tslice/write.hpp"
#include "tslice/zarr_write.hpp"

namespace tslice {

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

// Prepares (opens the input, chooses the arrays, plans the ops and the expression for each)
// and writes the results: the copy in bounded chunks, to a temporary renamed into place.
// Error(Usage) for several results into anything but a container, and for an output that is
// the input container and would lose arrays without `update`, before anything is written.
// Errors are tslice::Error and name the file they are about.
void run(const RunRequest& request);

}  // namespace tslice
