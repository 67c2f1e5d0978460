// What the command line prints instead of writing a file, each from one preparation
// (prepare.hpp): the array list (--list), the result's shape (--shape), the plan (--explain),
// the values as numpy prints them, and their statistics (--stats). The first three read no
// array data. Each text ends with its newline, so that a caller only writes it out.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "tslice/container.hpp"
#include "tslice/expr.hpp"
#include "tslice/prepare.hpp"
#include "tslice/print.hpp"

namespace tslice {

// The dtype shown for an element type: numpy's, or for a type numpy lacks its safetensors
// name ("BF16") as both descr and type string.
DType shown_dtype(const ElementType& type);

// --list: the chosen arrays, or every array of the input where none was chosen (a GGUF's
// JSON list then comes with the file's metadata: {"arrays": [...], "metadata": {...}}).
std::string list_report(const Prepared& prepared, bool json);

// --shape: the result's shape ("(4, 3)"), or {"shape": [...], "dtype": "..."}, of the type
// --astype gives; for several arrays a "NAME: (4, 3)" line each, or a JSON array of
// {"name", "shape", "dtype"}.
std::string shape_report(const Prepared& prepared, const std::optional<ElementType>& astype, bool json);

// --explain: the plan of the one planned array (explain.hpp), as text or one JSON object.
std::string explain_report(const Prepared& prepared, const std::optional<IndexExpr>& expr,
                           const std::optional<ElementType>& astype, bool json);

// The i-th planned array's values as numpy's str() shows them, after --astype's conversion;
// where several arrays are planned, after a line with the array's name.
std::string values_report(const Prepared& prepared, std::size_t i, const std::optional<ElementType>& astype,
                          const PrintOptions& options, unsigned threads);

// Error(Usage) unless every planned array's statistics can be computed (after --astype):
// checked before any array is read.
void check_stats_types(const Prepared& prepared, const std::optional<ElementType>& astype);

// --stats of the i-th planned array: one line, or one JSON object (without a newline, so that
// several can be joined into a JSON array).
std::string stats_report(const Prepared& prepared, std::size_t i, const std::optional<ElementType>& astype, bool json,
                         unsigned threads);

}  // namespace tslice
