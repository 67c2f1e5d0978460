// The unit tests' main: doctest's, after clearing what the environment could change.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>

int main(int argc, char** argv) {
    // The kernel set is chosen once, at the first copy, from TSLICE_KERNEL: the tests force
    // each set themselves and expect "auto" to mean the best one, whatever the caller's shell
    // has set.
    ::unsetenv("TSLICE_KERNEL");
    doctest::Context context(argc, argv);
    return context.run();
}
