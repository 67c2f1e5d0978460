// What the tests of the ops' planners share: an op's spec from its JSON, the message of the
// usage error a plan throws, and the values a plan gives from an input whose element i holds
// first + i.
#pragma once

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <numeric>
#include <string>
#include <variant>
#include <vector>

#include "thrown_error.hpp"
#include "tslice/copy.hpp"
#include "tslice/error.hpp"
#include "tslice/ops.hpp"
#include "tslice/plan.hpp"

namespace plan_ops_fixture {

using Shape = std::vector<std::int64_t>;
using Ints = std::vector<std::int64_t>;

template <class Spec>
Spec spec_of(const std::string& json) {
    const auto ops = tslice::parse_ops_json(json);
    REQUIRE(ops.size() == 1);
    return std::get<Spec>(ops[0].spec);
}

// The message of the Error(Usage) that `plan` throws.
inline std::string error_of(const std::function<void()>& plan) {
    return tslice_test::message_of(tslice::ErrorKind::Usage, plan);
}

// The result's values when the plan is applied to an input whose element i (C order) holds
// first + i.
inline Ints run(const tslice::SlicePlan& plan, std::int64_t first = 0) {
    std::int64_t count = 1;
    for (auto dim : plan.input_shape) count *= dim;
    Ints input(static_cast<std::size_t>(count));
    std::iota(input.begin(), input.end(), first);
    const tslice::View view =
        tslice::apply_plan(plan, tslice::View::contiguous(plan.input_shape, sizeof(std::int64_t)));
    Ints output(static_cast<std::size_t>(view.element_count()));
    tslice::copy_view(reinterpret_cast<const std::byte*>(input.data()), view,
                      reinterpret_cast<std::byte*>(output.data()), 0, view.element_count());
    return output;
}

}  // namespace plan_ops_fixture
