// OpenVINO Gather-8 as a plan, and any GatherPlan applied to a view.
//
// Gather-8 (seed 003, errata S003-1..3; OpenVINO's reference gather.hpp and
// gather_shape_inference.hpp): with b = batch_dims,
//   output[p_0 .. p_{axis-1}, i_b .. i_{M-1}, p_{axis+1} .. p_{N-1}] =
//     data[p_0 .. p_{axis-1}, indices[p_0 .. p_{b-1}, i_b .. i_{M-1}], p_{axis+1} .. p_{N-1}]
// The indices of a file are read before planning (read_indices_files). Checks, in this order:
// axis in [-N, N-1] (normalised with N, the data rank); the indices given; batch_dims in [-M, M] (normalised with M, the indices rank, not min(N, M): S003-3);
// batch_dims <= axis; data.shape[:b] == indices.shape[:b]; the table size, then the result's
// rank and size (gather.hpp's limits).
// Example 7: indices [3, 10, -20] on data [1, 2, 3, 4, 5] normalise to 3, out of range, out
// of range; the output is [4, 0, 0].
#include <algorithm>
#include <bit>
#include <cstring>

#include "tslice/error.hpp"
#include "tslice/gather.hpp"

namespace tslice {
namespace {

using Shape = std::vector<std::int64_t>;

// The one place that decides OpenVINO's out-of-range rule: an index in [-dim, dim - 1] counts
// from the end when negative; anything else selects zeros.
std::int64_t normalise_gather_index(std::int64_t index, std::int64_t dim) {
    if (index < -dim || index >= dim) return View::kZeroElement;
    return index < 0 ? index + dim : index;
}

std::int64_t product(const Shape& shape) {
    std::int64_t count = 1;
    for (const auto dim : shape) count *= dim;
    return count;
}

// The product of a shape, or -1 when it does not fit in int64.
std::int64_t checked_product(const Shape& shape) {
    std::int64_t count = 1;
    for (const auto dim : shape) {
        if (dim == 0) return 0;
    }
    for (const auto dim : shape)
        if (__builtin_mul_overflow(count, dim, &count)) return -1;
    return count;
}

}  // namespace

const char* kind_name(GatherAxisKind kind) {
    switch (kind) {
        case GatherAxisKind::Batch: return "batch";
        case GatherAxisKind::Outer: return "outer";
        case GatherAxisKind::Indices: return "indices";
        case GatherAxisKind::Inner: return "inner";
        case GatherAxisKind::Sliced: return "sliced";
        case GatherAxisKind::NewAxis: return "new axis";
    }
    return "?";
}

bool IndexArray::operator==(const IndexArray& other) const {
    if (source_axis != other.source_axis || shape != other.shape) return false;
    if (values == other.values) return true;
    if (!values || !other.values) return false;
    return *values == *other.values;
}

std::vector<std::int64_t> GatherPlan::output_shape() const {
    Shape shape;
    shape.reserve(axes.size());
    for (const auto& axis : axes) shape.push_back(axis.length);
    return shape;
}

std::int64_t GatherPlan::table_size() const { return product(table_shape); }

GatherPlan plan_gather(const GatherSpec& spec, const std::vector<std::int64_t>& input_shape,
                       const std::string& path) {
    const auto data_rank = static_cast<std::int64_t>(input_shape.size());
    // axis, against the data rank.
    if (data_rank == 0)
        fail_usage(path + ".axis: the data is 0-dimensional (shape ()); Gather needs an axis to gather along");
    std::int64_t axis = spec.axis;
    if (axis < -data_rank || axis >= data_rank)
        fail_usage(path + ".axis: axis " + std::to_string(spec.axis) + " is out of range for data of rank " +
                   std::to_string(data_rank) + " (allowed " + std::to_string(-data_rank) + ".." +
                   std::to_string(data_rank - 1) + ")");
    if (axis < 0) axis += data_rank;

    // The indices.
    const std::string indices_field = path + ".indices";
    if (!spec.indices) {
        if (spec.indices_path)
            throw Error(ErrorKind::Internal, indices_field + ": the indices file was not read before planning");
        fail_usage(indices_field +
                   ": missing; give a (nested) integer list, an integer or the path of an integer .npy file");
    }
    const IntArray& indices = *spec.indices;
    const auto indices_rank = static_cast<std::int64_t>(indices.shape.size());

    // batch_dims, against the indices rank (OpenVINO's shape inference; S003-3).
    std::int64_t batch_dims = spec.batch_dims;
    if (batch_dims < -indices_rank || batch_dims > indices_rank)
        fail_usage(path + ".batch_dims: batch_dims " + std::to_string(spec.batch_dims) +
                   " is out of range for indices of rank " + std::to_string(indices_rank) + " (allowed " +
                   std::to_string(-indices_rank) + ".." + std::to_string(indices_rank) + ")");
    if (batch_dims < 0) batch_dims += indices_rank;
    auto described = [](std::int64_t given, std::int64_t normalised) {
        return std::to_string(given) + (given == normalised ? "" : " (" + std::to_string(normalised) + " after normalisation)");
    };
    if (batch_dims > axis)
        fail_usage(path + ".batch_dims: batch_dims " + described(spec.batch_dims, batch_dims) +
                   " is greater than axis " + described(spec.axis, axis));
    for (std::int64_t k = 0; k < batch_dims; ++k) {
        if (input_shape[k] != indices.shape[k])
            fail_usage(indices_field + ": batch dimension " + std::to_string(k) + " of the indices has size " +
                       std::to_string(indices.shape[k]) + " but the data's has size " + std::to_string(input_shape[k]) +
                       " (batch_dims " + std::to_string(batch_dims) + " needs data.shape[:" +
                       std::to_string(batch_dims) + "] == indices.shape[:" + std::to_string(batch_dims) +
                       "]: " + format_shape(Shape(input_shape.begin(), input_shape.begin() + batch_dims)) + " and " +
                       format_shape(Shape(indices.shape.begin(), indices.shape.begin() + batch_dims)) + ")");
    }

    // Sizes, before anything large is allocated.
    const std::int64_t table_entries = checked_product(indices.shape);
    if (table_entries < 0 || table_entries > kMaxGatherTable)
        fail_usage(indices_field + ": indices of shape " + format_shape(indices.shape) +
                   " are more than a gather may use (" + std::to_string(kMaxGatherTable) + " indices)");
    if (!spec.indices_shape_only && static_cast<std::int64_t>(indices.values.size()) != table_entries)
        fail_usage(indices_field + ": " + std::to_string(indices.values.size()) + " values for indices of shape " +
                   format_shape(indices.shape));

    GatherPlan plan;
    plan.input_shape = input_shape;
    plan.axis = axis;
    plan.batch_dims = batch_dims;
    plan.table_shape = indices.shape;
    const int gather_axis = static_cast<int>(axis);
    const std::int64_t dim = input_shape[static_cast<std::size_t>(axis)];
    for (int k = 0; k < gather_axis; ++k) {
        const std::int64_t length = input_shape[static_cast<std::size_t>(k)];
        const bool batch = k < batch_dims;
        plan.axes.push_back(GatherAxis{batch ? GatherAxisKind::Batch : GatherAxisKind::Outer, k, batch ? k : -1, 0,
                                       length, 1, length});
    }
    for (auto j = static_cast<std::size_t>(batch_dims); j < indices.shape.size(); ++j) {
        const std::int64_t length = indices.shape[j];
        plan.axes.push_back(GatherAxis{GatherAxisKind::Indices, -1, static_cast<int>(j), 0, length, 1, length});
    }
    for (int k = gather_axis + 1; k < static_cast<int>(data_rank); ++k) {
        const std::int64_t length = input_shape[static_cast<std::size_t>(k)];
        plan.axes.push_back(GatherAxis{GatherAxisKind::Inner, k, -1, 0, length, 1, length});
    }
    if (plan.axes.size() > kMaxRank)
        fail_usage(indices_field + ": the result would have " + std::to_string(plan.axes.size()) +
                   " dimensions; numpy arrays have at most " + std::to_string(kMaxRank));
    const std::int64_t output_elements = checked_product(plan.output_shape());
    if (output_elements < 0 || output_elements > kMaxGatherOutput)
        fail_usage(indices_field + ": the result of shape " + format_shape(plan.output_shape()) + " has " +
                   (output_elements < 0 ? std::string("more elements than fit in 64 bits")
                                        : std::to_string(output_elements) + " elements") +
                   ", more than a gather may produce (" + std::to_string(kMaxGatherOutput) + ")");

    std::shared_ptr<std::vector<std::int64_t>> values;  // none for a dry run's plan
    if (!spec.indices_shape_only) {
        values = std::make_shared<std::vector<std::int64_t>>(indices.values);
        for (auto& value : *values) value = normalise_gather_index(value, dim);
    }
    plan.indices.push_back(IndexArray{gather_axis, indices.shape, std::move(values)});
    return plan;
}

View gather_layout(const GatherPlan& plan, const View& input) {
    if (input.shape != plan.input_shape)
        throw Error(ErrorKind::Internal, "internal: gather plan for shape " + format_shape(plan.input_shape) +
                                          " applied to shape " + format_shape(input.shape));
    if (input.has_table())
        throw Error(ErrorKind::Internal, "internal: apply_gather needs an affine view; copy the gathered view first");

    View view;
    view.itemsize = input.itemsize;
    view.byte_offset = input.byte_offset;
    const std::size_t table_rank = plan.table_shape.size();
    Shape table_strides(table_rank, 0);  // C order over table_shape
    for (std::size_t j = table_rank, stride = 1; j-- > 0;) {
        table_strides[j] = static_cast<std::int64_t>(stride);
        stride *= static_cast<std::size_t>(std::max<std::int64_t>(plan.table_shape[j], 1));
    }
    for (const auto& axis : plan.axes) {
        view.shape.push_back(axis.length);
        std::int64_t byte_stride = 0, table_stride = 0;
        if (axis.source_axis >= 0) {
            const std::int64_t stride = input.byte_strides[static_cast<std::size_t>(axis.source_axis)];
            if (axis.length > 0) view.byte_offset += axis.start * stride;
            if (axis.length > 1) byte_stride = axis.step * stride;
        }
        if (axis.table_axis >= 0 && axis.length > 1) table_stride = table_strides[static_cast<std::size_t>(axis.table_axis)];
        view.byte_strides.push_back(byte_stride);
        view.table_strides.push_back(table_stride);
    }

    view.table = std::make_shared<std::vector<std::int64_t>>();
    return view;
}

View apply_gather(const GatherPlan& plan, const View& input) {
    for (const IndexArray& array : plan.indices)
        if (!array.values)
            throw Error(ErrorKind::Internal, "internal: a gather planned from the indices' shape alone cannot be applied");
    View view = gather_layout(plan, input);
    const std::size_t table_rank = plan.table_shape.size();

    // The table: entry t is the sum over the index arrays of value * (byte stride of its
    // source axis), each array broadcast to table_shape; zeros if any value is out of range.
    // An empty result reads nothing, so it gets an empty table.
    auto table = std::make_shared<std::vector<std::int64_t>>();
    const std::int64_t entries = plan.table_size();
    if (view.element_count() > 0 && entries > 0) {
        table->assign(static_cast<std::size_t>(entries), 0);
        struct Walk {
            const std::int64_t* values;
            std::int64_t byte_stride;
            Shape strides;  // per table axis, 0 where the array is broadcast
            std::int64_t position = 0;
        };
        std::vector<Walk> walks;
        for (const auto& array : plan.indices) {
            // True/False (source axis -1) add an axis but read no input axis: stride 0.
            const std::int64_t byte_stride =
                array.source_axis < 0 ? 0 : input.byte_strides[static_cast<std::size_t>(array.source_axis)];
            Walk walk{array.values->data(), byte_stride,
                      Shape(table_rank, 0)};
            const std::size_t rank = array.shape.size();
            std::int64_t stride = 1;
            for (std::size_t k = rank; k-- > 0;) {
                const std::size_t j = table_rank - rank + k;
                walk.strides[j] = array.shape[k] == 1 ? 0 : stride;
                stride *= array.shape[k];
            }
            walks.push_back(std::move(walk));
        }
        Shape index(table_rank, 0);
        for (auto& entry : *table) {
            std::int64_t sum = 0;
            for (const auto& walk : walks) {
                const std::int64_t value = walk.values[walk.position];
                if (value == View::kZeroElement) {
                    sum = View::kZeroElement;
                    break;
                }
                sum += value * walk.byte_stride;
            }
            entry = sum;
            for (std::size_t j = table_rank; j-- > 0;) {
                for (auto& walk : walks) walk.position += walk.strides[j];
                if (++index[j] < plan.table_shape[j]) break;
                for (auto& walk : walks) walk.position -= index[j] * walk.strides[j];
                index[j] = 0;
            }
        }
    }
    view.table = std::move(table);
    return view;
}

}  // namespace tslice
