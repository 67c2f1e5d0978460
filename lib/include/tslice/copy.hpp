// Copying a View into C-order bytes. Kernels know nothing of ops: they see a normalised
// layout (length-1 axes dropped, axes that are contiguous together merged) and byte strides.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tslice/view.hpp"

namespace tslice {

// A view reduced to the fewest axes that describe the same element order: axes of length 1
// dropped, neighbouring axes merged where the outer stride is the inner stride times the
// inner length (for a table view: in the table strides too). An empty view keeps a single
// axis of length 0.
View normalise(const View& view);

// Where copy_view's input lies: in memory the process holds, its pages mapped already
// (Resident: a buffer it filled, a small deflated .npz member inflated whole), or in a file
// mapping whose pages the copy's own reads fault in (Mapped: a file, or the temporary file a
// piped input or a large deflated member is spooled to). Two choices depend on it: the
// unrolled plain loop, faster on the first and slower on the second (kernels_body.hpp); and,
// where the machine gains from it, a further prefetch of rows stepping over several elements
// (copy_machine.cpp), which a mapping's faults make no faster.
enum class InputMemory { Resident, Mapped };

// Copies elements [first, first + count) of `view` (in C order of the view's shape) from
// `src` (the start of the input data) to `dst`, densely. The whole result is
// copy_view(src, view, dst, 0, view.element_count()), and any split of it into element
// ranges gives the same bytes, so threads may copy ranges of one view at once. A table view
// is copied a row (an inner block) at a time with one table lookup per row; a kZeroElement
// entry writes zeros. A call whose output is large (many MiB) writes it with non-temporal
// stores, which do not keep it in the caches.
void copy_view(const std::byte* src, const View& view, std::byte* dst, std::int64_t first,
               std::int64_t count, InputMemory memory = InputMemory::Resident);

// How copy_view will copy `view`, in words for --explain: the row length and stride, the
// row kernel, the kernel set, tiles or table lookups, short rows a plane at a time,
// prefetching.
std::string describe_copy(const View& view, InputMemory memory = InputMemory::Resident);

// The kernels behind copy_view come in sets, one per instruction set: "scalar" (plain
// loops, the reference), "sse4.2", "avx2", "avx512". copy_view uses the best set this CPU
// runs, or the one the environment variable TSLICE_KERNEL names (an unknown or unsupported
// name gives a warning, kernel_set_warning(), and the best set is used instead).

// Why TSLICE_KERNEL is not followed, for the front end to show; empty when it is, or unset.
std::string kernel_set_warning();

// The sets this build has and this CPU runs, worst to best; "scalar" always first. The
// environment variable TSLICE_KERNEL_CAP (a set's name) leaves out the sets above it, as if
// the CPU did not run them.
std::vector<std::string> available_kernel_sets();

// TSLICE_KERNEL_CAP where it names a set (the sets above it are left out); empty otherwise.
std::string kernel_set_cap();

// The set copy_view uses now.
std::string active_kernel_set();

// Makes copy_view use the set `name` from now on; "" or "auto" goes back to the set chosen at
// start. For tests and benchmarks: not to be called while copies run. Throws Error(Usage) for
// a set that is not available.
void force_kernel_set(std::string_view name);

class WorkerPool;  // tslice/threads.hpp

// copy_view over elements [first, first + count), split into one part per worker when the
// range is large enough (at least ~1 MiB a part) for threads to pay off.
void copy_view_parallel(WorkerPool& pool, const std::byte* src, const View& view, std::byte* dst,
                        std::int64_t first, std::int64_t count, InputMemory memory = InputMemory::Resident);

}  // namespace tslice
