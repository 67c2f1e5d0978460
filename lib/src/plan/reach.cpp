// The box a pipeline reads, found by applying its plan to a probe view.
//
// The probe gives every input axis a field of bits of its own in the byte offset:
//
//   shape (5, 300), itemsize 4: the byte field has 2 + 1 bits, axis 1 ceil(log2 300) + 1 = 10,
//   axis 0 ceil(log2 5) + 1 = 4; strides (2^13, 2^3); element (i, j) sits at i*2^13 + j*2^3.
//
// Every step adds, scales and offsets these strides the way it would real ones, so each
// offset and stride of the result is a sum of per-axis terms, each term smaller in magnitude
// than its axis (a slice of step 3 over 300 elements moves axis 1 by 3, never by 300 or more:
// a result axis of one element has no stride that matters, and one of two or more elements
// of step s over an axis of n has |s| < n). The extra bit in each field makes those signed
// terms unique to read back (digits in [-2^(bits-1), 2^(bits-1))), even for a reversed axis
// (a negative stride) next to a forward one in a gather's table entry.
#include "tslice/reach.hpp"

#include <algorithm>
#include <array>
#include <bit>

namespace tslice {
namespace {

struct Fields {
    std::vector<int> shift;  // per input axis, where its field starts
    std::vector<int> width;
    int byte_width = 0;

    // The per-axis signed digits of `value`, into `digits` (one per axis).
    void split(std::int64_t value, std::int64_t* digits) const {
        // The byte field first: its digit is the position inside an element (a field of a
        // structured dtype), which every element of the box covers anyway.
        value = carry_out(value, byte_width, nullptr);
        for (std::size_t k = shift.size(); k-- > 0;) value = carry_out(value, width[k], &digits[k]);
    }
    std::vector<std::int64_t> split(std::int64_t value) const {
        std::vector<std::int64_t> digits(shift.size());
        split(value, digits.data());
        return digits;
    }

    static std::int64_t carry_out(std::int64_t value, int bits, std::int64_t* digit) {
        const std::int64_t size = std::int64_t{1} << bits;
        std::int64_t low = value & (size - 1);
        if (low >= size / 2) low -= size;
        if (digit) *digit = low;
        return (value - low) >> bits;
    }
};

Box whole(const std::vector<std::int64_t>& shape) {
    Box box;
    box.start.assign(shape.size(), 0);
    box.stop = shape;
    return box;
}

Box empty_box(const std::vector<std::int64_t>& shape) {
    Box box;
    box.start.assign(shape.size(), 0);
    box.stop.assign(shape.size(), 0);
    return box;
}

int bits_for(std::int64_t count) {
    return count <= 1 ? 0 : 64 - std::countl_zero(static_cast<std::uint64_t>(count - 1));
}

}  // namespace

Box reached_box(const Pipeline& pipeline, std::size_t itemsize) {
    const std::vector<std::int64_t>& shape = pipeline.input_shape;
    for (const auto dim : shape)
        if (dim == 0) return empty_box(shape);
    Fields fields;
    fields.byte_width = bits_for(static_cast<std::int64_t>(itemsize)) + 1;
    int used = fields.byte_width;
    fields.shift.resize(shape.size());
    fields.width.resize(shape.size());
    View probe;
    probe.shape = shape;
    probe.itemsize = itemsize;
    probe.byte_strides.resize(shape.size());
    for (std::size_t k = shape.size(); k-- > 0;) {
        fields.width[k] = bits_for(shape[k]) + 1;
        fields.shift[k] = used;
        used += fields.width[k];
        if (used > 62) return whole(shape);
        probe.byte_strides[k] = std::int64_t{1} << fields.shift[k];
    }

    View view = probe;
    for (const auto& step : pipeline.steps) {
        if (const auto* slice = std::get_if<SlicePlan>(&step.plan)) {
            view = apply_plan(*slice, view);
        } else if (const auto* selected = std::get_if<FieldPlan>(&step.plan)) {
            view = apply_fields(*selected, view);
        } else {
            if (view.has_table()) return whole(shape);  // the pipeline copies it first
            view = apply_gather(std::get<GatherPlan>(step.plan), view);
        }
    }
    if (view.element_count() == 0) return empty_box(shape);

    std::vector<std::int64_t> low = fields.split(view.byte_offset), high = low;
    for (std::size_t r = 0; r < view.rank(); ++r) {
        if (view.shape[r] < 2) continue;
        const std::vector<std::int64_t> move = fields.split(view.byte_strides[r]);
        for (std::size_t k = 0; k < shape.size(); ++k) {
            const std::int64_t reach = move[k] * (view.shape[r] - 1);
            (reach < 0 ? low[k] : high[k]) += reach;
        }
    }
    if (view.has_table()) {
        // Fixed arrays, not vectors: the rank is at most kMaxRank.
        std::array<std::int64_t, kMaxRank> least, most, digits{};
        least.fill(INT64_MAX);
        most.fill(INT64_MIN);
        bool any = false;
        for (const auto entry : *view.table) {
            if (entry == View::kZeroElement) continue;
            any = true;
            fields.split(entry, digits.data());
            for (std::size_t k = 0; k < shape.size(); ++k) {
                least[k] = std::min(least[k], digits[k]);
                most[k] = std::max(most[k], digits[k]);
            }
        }
        if (!any) return empty_box(shape);  // zeros only: nothing is read
        for (std::size_t k = 0; k < shape.size(); ++k) low[k] += least[k], high[k] += most[k];
    }
    for (std::size_t k = 0; k < shape.size(); ++k) {
        // A box outside the array would mean the reading back went wrong: read everything
        // rather than too little.
        if (low[k] < 0 || high[k] >= shape[k] || low[k] > high[k]) return whole(shape);
        ++high[k];
    }
    return Box{std::move(low), std::move(high)};
}

}  // namespace tslice
