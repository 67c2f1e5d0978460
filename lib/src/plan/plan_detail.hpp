// Shared by the planners; not part of the library's interface.
#pragma once

#include <cstdint>
#include <vector>

#include "tslice/expr.hpp"
#include "tslice/plan.hpp"

namespace tslice::detail {

// plan_index, with the result's rank counted as its own plus `rank_adjustment`:
// plan_advanced_index plans its expression with every integer list replaced by a full slice,
// one axis each, while numpy's result has the broadcast lists' axes instead; it passes the
// difference, so that numpy's rank check stays in numpy's order (after "too many indices",
// before any bound is resolved).
SlicePlan plan_basic_index(const IndexExpr& expr, const std::vector<std::int64_t>& input_shape,
                           std::int64_t rank_adjustment);

}  // namespace tslice::detail
