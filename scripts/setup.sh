#!/usr/bin/env bash
# Installs what tslice needs to build (and, with --test, to test) from Debian's packages,
# only where something is missing, then configures and builds into build/.
# Sourced or run by scripts/test.sh and scripts/run.sh.
#
# tslice_install_missing [--test] [--checks]
#   --test    python3 and numpy (the oracle of the tests); groff, bash-completion, zsh, fish,
#             dpkg-dev and file (the man page, completion, install and .deb tests)
#   --checks  valgrind, and clang with its sanitizer and libFuzzer runtimes (libclang-rt-dev:
#             libclang-rt-14-dev on Debian 12), for the sanitizer build and the fuzz targets
# tslice_build              build/       Release, gcc: what scripts/run.sh runs
# tslice_build_sanitized    build-asan/  gcc with AddressSanitizer and UndefinedBehaviorSanitizer:
#                                        the library, the CLI, every test and fuzz replay
# tslice_build_fuzz         build-fuzz/  clang, the same sanitizers and libFuzzer: only the
#                                        fuzz targets (tests/fuzz/, target tslice_fuzz_targets)
set -euo pipefail

tslice_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# The sanitizers of build-asan and build-fuzz; -fno-sanitize-recover makes every report fatal.
tslice_sanitize_flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"

tslice_install_missing() {
    local packages=(cmake make g++ libxtensor-dev libxsimd-dev libcli11-dev nlohmann-json3-dev doctest-dev zlib1g-dev libdeflate-dev pkg-config libhdf5-dev libblosc-dev libzstd-dev)
    local option
    for option in "$@"; do
        case "$option" in
            # and what the install, man page, completion and package tests run
            --test) packages+=(python3 python3-numpy python3-torch groff bash-completion zsh fish dpkg-dev file python3-h5py python3-zarr python3-numcodecs python3-dask python3-xarray) ;;
            --checks) packages+=(valgrind clang libclang-rt-dev strace) ;;
        esac
    done
    local missing=()
    for package in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    if ((${#missing[@]})); then
        echo "tslice: installing ${missing[*]}" >&2
        local sudo=()
        [[ $(id -u) -eq 0 ]] || sudo=(sudo)
        "${sudo[@]}" apt-get update -qq
        DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
    fi
}

# tslice_build [TARGET...]: build/ in Release; only the targets named (run.sh builds tslice
# alone: not the tests and the bench it does not run), or everything.
tslice_build() {
    local build_dir="$tslice_root/build"
    if [[ ! -f "$build_dir/CMakeCache.txt" ]]; then
        cmake -S "$tslice_root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release
    fi
    cmake --build "$build_dir" -j "$(nproc)" ${1:+--target "$@"}
}

tslice_build_sanitized() {
    local build_dir="$tslice_root/build-asan"
    if [[ ! -f "$build_dir/CMakeCache.txt" ]]; then
        cmake -S "$tslice_root" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTSLICE_BUILD_BENCH=OFF \
            -DCMAKE_CXX_FLAGS="$tslice_sanitize_flags"
    fi
    cmake --build "$build_dir" -j "$(nproc)"
}

tslice_build_fuzz() {
    local build_dir="$tslice_root/build-fuzz"
    if [[ ! -f "$build_dir/CMakeCache.txt" ]]; then
        cmake -S "$tslice_root" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTSLICE_BUILD_BENCH=OFF \
            -DCMAKE_CXX_COMPILER=clang++ -DTSLICE_FUZZ=ON \
            -DCMAKE_CXX_FLAGS="$tslice_sanitize_flags -fsanitize=fuzzer-no-link"
    fi
    cmake --build "$build_dir" -j "$(nproc)" --target tslice_fuzz_targets
}
