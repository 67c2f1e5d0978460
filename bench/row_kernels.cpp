// tslice_row_kernels: one row kernel against another, in process, on the kernel set the CPU
// runs (or TSLICE_KERNEL's). Rows of ROW_BYTES bytes, one after the other in a buffer of
// TOTAL bytes, each copied with a step of STEP elements of ITEMSIZE bytes (negative: backwards)
// to dense output, as the copy's row loop hands them to a kernel (with a register's worth of
// slack after each row but the last). The two kernels are timed side by side, in turn first
// and second, and judged by the median of their ratios.
//
//   tslice_row_kernels ITEMSIZE STEP ROW_BYTES TOTAL REPS A B
//
// A and B: chosen (as tslice chooses for memory it holds), mapped (as for a file mapping),
// register (the stepped or merged kernel, wherever one can take the row), plain (the plain
// loop as chosen), unrolled (the plain loop unrolled). A 256 KiB TOTAL stays in L2 and times
// the kernel; 1 GiB times it against memory.
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "copy/kernels.hpp"

namespace {

using tslice::kernels::RowKernel;
namespace kernels = tslice::kernels;

[[noreturn]] void usage() {
    std::fprintf(stderr, "usage: tslice_row_kernels ITEMSIZE STEP ROW_BYTES TOTAL REPS A B "
                         "(A, B: chosen, mapped, register, plain, unrolled)\n");
    std::exit(2);
}

RowKernel prepare(const std::string& how, std::int64_t stride, std::size_t itemsize, std::int64_t count) {
    RowKernel kernel;
    if (how == "register") kernels::set_stepped_choice(kernels::SteppedChoice::Always);
    if (how == "plain" || how == "unrolled") kernels::set_stepped_choice(kernels::SteppedChoice::Never);
    if (how == "unrolled") kernels::set_unrolled_choice(kernels::UnrolledChoice::Always);
    if (how != "chosen" && how != "mapped" && how != "register" && how != "plain" && how != "unrolled") usage();
    kernels::active_set().prepare_row(kernel, stride, itemsize, count, how != "mapped");
    kernels::set_stepped_choice(kernels::SteppedChoice::Chosen);
    kernels::set_unrolled_choice(kernels::UnrolledChoice::Chosen);
    return kernel;
}

std::byte* huge_buffer(std::size_t bytes) {
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        std::perror("mmap");
        std::exit(1);
    }
    ::madvise(p, bytes, MADV_HUGEPAGE);
    return static_cast<std::byte*>(p);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 8) usage();
    const auto itemsize = static_cast<std::size_t>(std::atol(argv[1]));
    const std::int64_t step = std::atol(argv[2]);
    const std::int64_t row_bytes = std::atol(argv[3]);
    const auto total = static_cast<std::size_t>(std::atol(argv[4]));
    const int reps = std::max(1, std::atoi(argv[5]));
    const auto size = static_cast<std::int64_t>(itemsize);
    if (itemsize == 0 || step == 0 || row_bytes < size || total < static_cast<std::size_t>(row_bytes)) usage();
    const std::int64_t stride = step * size;
    const std::int64_t count = (row_bytes - size) / std::abs(stride) + 1;  // elements a row
    const std::int64_t rows = static_cast<std::int64_t>(total) / row_bytes;
    std::byte* in = huge_buffer(total);
    std::byte* out = huge_buffer(static_cast<std::size_t>(rows * count) * itemsize + 64);
    for (std::size_t i = 0; i < total; ++i) in[i] = static_cast<std::byte>(i * 7 + (i >> 12));
    std::memset(out, 1, static_cast<std::size_t>(rows * count) * itemsize + 64);
    const RowKernel a = prepare(argv[6], stride, itemsize, count);
    const RowKernel b = prepare(argv[7], stride, itemsize, count);
    const auto copy = [&](const RowKernel& kernel) {
        const auto start = std::chrono::steady_clock::now();
        std::byte* dst = out;
        // A falling row starts at its last element.
        const std::int64_t first = stride < 0 ? (count - 1) * -stride : 0;
        for (std::int64_t r = 0; r < rows; ++r, dst += count * size)
            kernel(in + r * row_bytes + first, dst, count, r + 1 < rows ? 64 : 0);
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    // Both outputs must be the same bytes.
    copy(a);
    std::vector<std::byte> first_out(out, out + rows * count * size);
    copy(b);
    if (std::memcmp(first_out.data(), out, first_out.size()) != 0) {
        std::fprintf(stderr, "the two kernels' outputs differ\n");
        return 1;
    }
    std::vector<double> ta, tb, ratio;
    for (int rep = 0; rep < reps; ++rep) {
        double x = 0, y = 0;
        if (rep % 2 == 0) {
            x = copy(a);
            y = copy(b);
        } else {
            y = copy(b);
            x = copy(a);
        }
        ta.push_back(x);
        tb.push_back(y);
        ratio.push_back(x / y);
    }
    const auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    std::printf("set %s, %zu-byte items every %lld, rows of %lld bytes, %.1f MiB: A %s (%s) %.3f ms, B %s (%s) "
                "%.3f ms, A/B median %.3f of %d alternating pairs\n",
                kernels::active_set().name, itemsize, static_cast<long long>(step), static_cast<long long>(row_bytes),
                static_cast<double>(total) / (1 << 20), argv[6], a.name, median(ta) * 1e3, argv[7], b.name,
                median(tb) * 1e3, median(ratio), reps);
    return 0;
}
