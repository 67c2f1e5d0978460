// Gathers: OpenVINO Gather-8 (--op gather) and numpy's integer-array ("advanced") indexing.
//
// Both compile into a GatherPlan, and a GatherPlan applied to an affine View gives a table
// View (view.hpp): the output axes that walk the data keep byte strides, the axes that walk
// the indices walk an offset table whose entries are the gathered byte offsets. So a gather
// is still "a view" and the copy kernels know nothing of gathers.
//
// Worked example (seed 003, example 4): data (2, 1, 5, 4), indices (2, 3), axis 2,
// batch_dims 1. Output (2, 1, 3, 4), its axes:
//   0  batch    data axis 0 and table axis 0 (the batch walks both)
//   1  outer    data axis 1
//   2  indices  table axis 1
//   3  inner    data axis 3
// The table has the indices' shape (2, 3); entry [b, j] is indices[b, j] * (the byte stride of
// data axis 2), or View::kZeroElement when the index is outside [-5, 4].
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tslice/expr.hpp"
#include "tslice/ops.hpp"
#include "tslice/view.hpp"

namespace tslice {

enum class GatherAxisKind {
    Batch,    // Gather-8: a leading batch axis, shared by data and indices
    Outer,    // Gather-8: a data axis before `axis`, taken whole
    Indices,  // an axis of the indices (Gather-8) or of the broadcast index arrays (numpy)
    Inner,    // Gather-8: a data axis after `axis`, taken whole
    Sliced,   // numpy: an axis taken by a slice (or whole, by '...' or implicitly)
    NewAxis,  // numpy: an axis of length 1 inserted by None
};

// "batch", "outer", "indices", "inner", "sliced", "new axis" (for --explain).
const char* kind_name(GatherAxisKind kind);

// One axis of the result.
struct GatherAxis {
    GatherAxisKind kind = GatherAxisKind::Sliced;
    int source_axis = -1;  // the input axis it walks (byte strides), or -1
    int table_axis = -1;   // the axis of the index table it walks, or -1
    // Which elements of the source axis: Python's slice.indices() as in SlicePlan; whole
    // axes are start 0, step 1. For an axis without a source axis: start 0, stop = length.
    std::int64_t start = 0, stop = 0, step = 1, length = 0;
    bool operator==(const GatherAxis&) const = default;
};

// One index array: Gather-8's indices, or one integer list (or integer, a 0-d array) of a
// numpy expression. Its shape is right-aligned against the plan's table_shape and broadcast
// to it (numpy's rules; for Gather-8 it is exactly table_shape).
struct IndexArray {
    int source_axis = 0;              // the input axis it selects along; -1 for True/False (none)
    std::vector<std::int64_t> shape;  // its own shape
    // Values in C order, normalised to [0, dim), or View::kZeroElement for an index outside
    // [-dim, dim - 1] (Gather-8 gives zeros there; numpy rejects it while planning).
    std::shared_ptr<const std::vector<std::int64_t>> values;
    bool operator==(const IndexArray& other) const;
};

struct GatherPlan {
    std::vector<std::int64_t> input_shape;
    std::vector<GatherAxis> axes;            // in output order
    std::vector<std::int64_t> table_shape;   // Gather-8: indices.shape; numpy: the broadcast shape
    std::vector<IndexArray> indices;         // one for Gather-8; one per list or integer for numpy
    // Gather-8's attributes after normalisation (axis -1 for a numpy expression), for --explain.
    std::int64_t axis = -1;
    std::int64_t batch_dims = 0;

    std::vector<std::int64_t> output_shape() const;
    std::int64_t table_size() const;  // product of table_shape
    bool operator==(const GatherPlan&) const = default;
};

// A gather's limits, checked while planning, before anything is allocated:
//  - the offset table, held in memory at 8 bytes an entry (as are the indices of an .npy file):
//    at most 2^27 entries (1 GiB; the product of the indices' shape, or of the broadcast shape
//    of numpy's index arrays);
//  - the result: at most 2^40 elements. It is streamed to the output, never held whole, but a
//    few indices can repeat a large input without bound (indices [0] * 1000 of a (1, 10^9)
//    input are 10^12 elements), and no real output is that large.
// Anything larger is Error(Usage) (ExprError for an expression) naming the limit.
constexpr std::int64_t kMaxGatherTable = std::int64_t{1} << 27;
constexpr std::int64_t kMaxGatherOutput = std::int64_t{1} << 40;

// OpenVINO Gather-8 (seed 003 and errata S003-*): output shape
// data.shape[:axis] + indices.shape[batch_dims:] + data.shape[axis+1:]; a negative axis
// counts from the data rank, a negative batch_dims from the indices rank; batch_dims <= axis
// and equal leading batch dimensions are checked; negative indices count from the end and
// indices outside [-dim, dim - 1] give zeros. The indices are spec.indices, or read from the
// integer .npy spec.indices_path (any int/uint dtype, either byte order, C or Fortran order).
// `path` names the op ("ops[1]"): an invalid spec is Error(Usage) whose message starts with
// the field's path ("ops[1].batch_dims: batch_dims 2 is greater than axis 1"); an unreadable
// indices file is Error(Input).
GatherPlan plan_gather(const GatherSpec& spec, const std::vector<std::int64_t>& input_shape,
                       const std::string& path);

// numpy's integer-array indexing mixed with slices, integers, '...' and None (an expression
// for which has_advanced() is true): integers are 0-d index arrays, all index arrays
// broadcast together, and the broadcast axes replace them in place when they are next to
// each other in the expression (nothing, not even None or '...', between them), else they
// come first. Throws ExprError at the item's column with numpy's words, in numpy's order:
// the checks of plan_index, then "shape mismatch: indexing arrays could not be broadcast
// together with shapes (2,) (3,)", then "index 5 is out of bounds for axis 0 with size 2"
// (also when a slice or an empty axis leaves the result empty, as numpy 2 raises where numpy
// 1.x only warned; not when the index arrays broadcast to nothing).
GatherPlan plan_advanced_index(const IndexExpr& expr, const std::vector<std::int64_t>& input_shape);

// The table view of the result. `input` must have the plan's input shape and no table of its
// own (materialise a table view before gathering from it again).
View apply_gather(const GatherPlan& plan, const View& input);

// apply_gather's view with its offset table left empty: the layout alone (shape, byte and
// table strides), which is all that deciding how to copy it needs, without building a table
// of up to kMaxGatherTable entries or needing the indices' values.
View gather_layout(const GatherPlan& plan, const View& input);

}  // namespace tslice
