// Gathers for the tests of the parts that copy them (row reads, scattered gathers): a view
// that gathers along one axis, input bytes that differ at every offset, random indices.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "tslice/gather.hpp"
#include "tslice/view.hpp"

namespace gather_fixture {

using Shape = std::vector<std::int64_t>;

inline tslice::View gather(const Shape& shape, std::int64_t axis, const std::vector<std::int64_t>& indices,
                           std::size_t itemsize = 4) {
    tslice::GatherSpec spec;
    spec.indices = tslice::IntArray{{static_cast<std::int64_t>(indices.size())}, indices};
    spec.axis = axis;
    return tslice::apply_gather(tslice::plan_gather(spec, shape, "op"), tslice::View::contiguous(shape, itemsize));
}

inline std::vector<std::byte> input_bytes(std::size_t size) {
    std::vector<std::byte> bytes(size);
    for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<std::byte>(i * 7 + i / 251);
    return bytes;
}

inline std::vector<std::int64_t> random_indices(std::int64_t count, std::int64_t below, unsigned seed) {
    std::mt19937 random(seed);
    std::vector<std::int64_t> indices(static_cast<std::size_t>(count));
    for (auto& index : indices) index = std::uniform_int_distribution<std::int64_t>(0, below - 1)(random);
    return indices;
}

}  // namespace gather_fixture
