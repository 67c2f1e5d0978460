// The unit tests' main: doctest's, after clearing what the environment could change.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>
#include <iostream>

#include "kernel_sets_fixture.hpp"
#include "machine_skips.hpp"

int main(int argc, char** argv) {
    // The kernel set is chosen once, at the first copy, from TSLICE_KERNEL: the tests force
    // each set themselves and expect "auto" to mean the best one, whatever the caller's shell
    // has set.
    ::unsetenv("TSLICE_KERNEL");
    doctest::Context context(argc, argv);
    const int status = context.run();
    // The kernel sets' own tests ran for the sets this CPU runs; the rest were not tested here
    // (TSLICE_KERNEL_CAP, or the CPU), which a run on another machine must cover.
    if (!context.shouldExit()) {
        const auto skipped = kernel_sets_fixture::skipped_kernel_sets();
        std::cout << "kernel sets tested: ";
        for (const auto& set : tslice::available_kernel_sets()) std::cout << set << " ";
        std::cout << "\nkernel sets skipped (this CPU does not run them";
        if (!tslice::kernel_set_cap().empty()) std::cout << ", or TSLICE_KERNEL_CAP=" << tslice::kernel_set_cap() << " leaves them out";
        std::cout << "): ";
        for (const auto& set : skipped) std::cout << set << " ";
        std::cout << (skipped.empty() ? "none\n" : "\n");
        for (const auto& skip : machine_skips::skipped()) std::cout << "skipped on this machine: " << skip << "\n";
    }
    return status;
}
