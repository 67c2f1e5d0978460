// `tslice_bench generate`: the benchmark's inputs (bench/cases.hpp) written as .npy files, the
// same bytes on every machine; the other commands only read them.
#pragma once

#include "bench_common.hpp"

namespace tslice::bench {

// Writes the inputs and the gathers' indices into options.dir; a file already there with the
// right header and size is kept.
void generate(const Options& options);

}  // namespace tslice::bench
