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

// numpy_copy.py --serve on the case, in its own process, started before tslice's timed rounds
// and asked for one copy in each, so that numpy's times come from the same minutes as
// tslice's. Its set-up (np.load of the input) runs while tslice's checks do.
class NumpyServer {
public:
    NumpyServer(const Options& options, const CaseSpec& spec);
    ~NumpyServer();
    NumpyServer(const NumpyServer&) = delete;
    NumpyServer& operator=(const NumpyServer&) = delete;

    // One timed copy (and, for a contiguous slice, one memmove) in numpy's process; returns
    // the copy's seconds.
    double round();
    // The medians of the rounds, the result's shape and sample sum; ends the process.
    NumpyResult finish();

private:
    std::string read_line();

    std::string command_;
    int pid_ = -1;
    std::FILE* to_ = nullptr;
    std::FILE* from_ = nullptr;
    bool ready_ = false;
};

}  // namespace tslice::bench
