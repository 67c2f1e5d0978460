#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the doctest units, the command-line
# cases, the differential tests against numpy, the output-fault tests, valgrind, and the fuzz
# targets' corpora; then all of it again in a sanitizer build; then each fuzz target for a
# few seconds under libFuzzer. Exits non-zero if anything fails (every stage runs regardless).
#
#   scripts/test.sh [CTEST-ARGS...]     e.g. scripts/test.sh -R cli
#
# Stages (CTEST-ARGS go to the first two):
#   1. build/       Release (gcc): every test (ctest); then the kernel, copy, conversion and
#                   stats units and the command-line cases with TSLICE_KERNEL_CAP at avx2
#                   and at sse4.2
#   2. build-asan/  AddressSanitizer + UndefinedBehaviorSanitizer (gcc): every test but
#                   bench_quick (valgrind is left out by the build itself)
#   3. build-fuzz/  clang + libFuzzer + the sanitizers: each fuzz target for
#                   TSLICE_FUZZ_SECONDS (default 15) from its corpus (ctest -L fuzz_run)
# TSLICE_TEST_STAGES=1 (or 1,2) runs only those stages.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

stages="${TSLICE_TEST_STAGES:-1,2,3}"
tslice_install_missing --test --checks
cd "$tslice_root"

failed=()
stage() { [[ ",$stages," == *",$1,"* ]]; }
# Tests run two or more at a time (at most 4): each is one process or a few, so on the 2 cores
# of a CI machine two at once took stage 1 from 342 to 261 s and stage 2 from 612 to 420 s.
test_jobs=$(nproc)
if (( test_jobs > 4 )); then test_jobs=4; fi
if (( test_jobs < 2 )); then test_jobs=2; fi

if stage 1; then
    echo "== stage 1: build/ (Release)"
    tslice_build
    ctest --test-dir build --output-on-failure --timeout 1800 -j "$test_jobs" "$@" || failed+=("build/ (Release)")
    # The kernel, copy, conversion and statistics units and the command-line cases again, as
    # if the CPU ran no kernel set above each cap: a machine with AVX-512 so shows that they also pass on the CPUs
    # without it (and one without AVX2, that they pass on SSE4.2 alone).
    for cap in avx2 sse4.2; do
        echo "== stage 1, TSLICE_KERNEL_CAP=$cap: the kernel, copy, conversion and stats units, the command-line cases"
        TSLICE_KERNEL_CAP=$cap build/tests/tslice_unit_tests --test-case='kernels*,copy*,convert*,stats*' ||
            failed+=("build/ kernel, copy, conversion and stats units capped at $cap")
        TSLICE_KERNEL_CAP=$cap ctest --test-dir build --output-on-failure --timeout 1800 -R '^cli$' ||
            failed+=("build/ command-line cases capped at $cap")
    done
fi

# Every sanitizer report is fatal, with an exit status no test expects.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:exitcode=86:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=86}"
# Leaks inside the HDF5 library on damaged files are the library's (tests/sanitizer/lsan.supp).
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$tslice_root/tests/sanitizer/lsan.supp:print_suppressions=0}"

if stage 2; then
    echo "== stage 2: build-asan/ (AddressSanitizer, UndefinedBehaviorSanitizer)"
    if tslice_build_sanitized; then
        ctest --test-dir build-asan --output-on-failure --timeout 1800 -j "$test_jobs" -E '^bench_quick$' "$@" ||
            failed+=("build-asan/ (sanitizers)")
    else
        failed+=("build-asan/ (does not build)")
    fi
fi

if stage 3; then
    echo "== stage 3: build-fuzz/ (libFuzzer, ${TSLICE_FUZZ_SECONDS:-15} s a target)"
    if tslice_build_fuzz; then
        cmake -S . -B build-fuzz -DTSLICE_FUZZ_SECONDS="${TSLICE_FUZZ_SECONDS:-15}" >/dev/null
        ctest --test-dir build-fuzz --output-on-failure --timeout 1800 -L fuzz_run || failed+=("build-fuzz/ (fuzzing)")
    else
        failed+=("build-fuzz/ (does not build)")
    fi
fi

if ((${#failed[@]})); then
    printf 'tslice: tests failed in: %s\n' "${failed[*]}" >&2
    exit 1
fi
echo "tslice: every stage passed ($stages)"
