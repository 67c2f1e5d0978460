// --stats: what numpy's nanmin, nanmax, nanmean and nanstd (population) say of a result in
// float64, with the counts of its elements, NaNs and infinities, computed in one pass over the
// view on every core, without writing the result anywhere.
//
// Accuracy: each block of a few thousand elements is summed in float64 partial sums: float32
// in one pass, as deviations from the mean of the block before (summed and squared), float64
// in two (its sum, then the squared deviations from its own mean, while it is in the cache);
// blocks and parts are merged with Chan's formula in a balanced tree, so the error grows with
// the logarithm of the count, not the count: 1e-12 relative over 10^9 elements.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "tslice/container.hpp"
#include "tslice/source.hpp"
#include "tslice/view.hpp"

namespace tslice {

struct ArrayStats {
    std::int64_t count = 0;   // elements
    std::int64_t nan = 0;     // NaN elements
    std::int64_t posinf = 0;  // +inf elements
    std::int64_t neginf = 0;  // -inf elements
    // Of the elements that are not NaN; unset when there is none. Integers (bool as 0 and 1)
    // keep their exact min and max.
    using Extreme = std::variant<std::int64_t, std::uint64_t, double>;
    std::optional<Extreme> min, max;
    std::optional<double> mean, std;
};

// The statistics of the elements `view` selects from `data`, whose type is `type`, after
// converting them to `astype` when given. `pages`: the input's pages, released as the
// reduction moves on. Error(Usage) for complex, strings, structured and other types that are
// not numbers (the message names the types that are).
ArrayStats compute_stats(const std::byte* data, const View& view, const ElementType& type,
                         const std::optional<ElementType>& astype = std::nullopt, const InputPages& pages = {},
                         unsigned threads = 1);

// Error(Usage) unless compute_stats takes `type` (after `astype`): checked before any data is read.
void check_stats_type(const ElementType& type, const std::optional<ElementType>& astype = std::nullopt);

// One line for people:
//   NAME  DTYPE  SHAPE  count N  nan N  +inf N  -inf N  min X  max X  mean X  std X
// (NAME left out where there is none: a plain .npy); values as Python's repr of a float64
// (integers' min and max as integers), nan where there is none.
std::string stats_line(const ArrayStats& stats, const std::optional<std::string>& name, const ElementType& type,
                       const std::vector<std::int64_t>& shape);

// One JSON object: {"name", "dtype", "shape", "count", "nan", "posinf", "neginf", "min", "max",
// "mean", "std"}; a value that is not finite is the string "inf", "-inf" or "nan"; with no
// value (empty, all NaN) min/max/mean/std are null. name null where there is none.
std::string stats_json(const ArrayStats& stats, const std::optional<std::string>& name, const ElementType& type,
                       const std::vector<std::int64_t>& shape);

}  // namespace tslice
