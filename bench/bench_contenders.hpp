// The copies besides memcpy that tslice's is timed against: xtensor's view assignment, in this
// process, and numpy's, in a process of its own (bench/numpy_copy.py). A file of their own so
// that xtensor's templates are compiled here only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench_common.hpp"

namespace tslice::bench {

// One case's copy by xtensor into an xt::xtensor of its own: run() copies, data() and bytes()
// are the result.
struct XtRunner {
    std::function<void()> run;
    std::function<const std::byte*()> data;
    std::function<std::size_t()> bytes;
};

// None where the bench has no xtensor expression for the case.
std::optional<XtRunner> xtensor_runner(const CaseSpec& spec, const std::byte* in, std::size_t itemsize,
                                       const std::vector<std::int64_t>& in_shape,
                                       const std::vector<std::int64_t>& out_shape,
                                       const std::vector<std::int64_t>& indices);

// A sum of a sample of the bytes, as numpy_copy.py sums its result's: how numpy's copy is
// checked without sending the result back.
std::uint64_t sample_sum(const std::byte* data, std::size_t bytes);

struct NumpyResult {
    double median = 0;
    std::vector<std::int64_t> shape;
    std::uint64_t sample_sum = 0;
    std::string method;
    // A contiguous slice: numpy's process timing a plain memmove of the same bytes beside its
    // copy (0: not timed), and the huge pages that process holds (-1: unknown).
    double memmove_median = 0;
    std::int64_t huge_pages_mib = -1;
};

// numpy_copy.py run on the case, copying `reps` times.
NumpyResult run_numpy(const Options& options, const CaseSpec& spec, int reps);

}  // namespace tslice::bench
