#!/usr/bin/env bash
# Installs what tslice needs to build (and, with --test, to test) from Debian's packages,
# only where something is missing, then configures and builds into build/.
# Sourced or run by scripts/test.sh and scripts/run.sh.
set -euo pipefail

tslice_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

tslice_install_missing() {
    local packages=(cmake make g++ libxtensor-dev libxsimd-dev libcli11-dev nlohmann-json3-dev doctest-dev)
    if [[ "${1:-}" == "--test" ]]; then packages+=(python3 python3-numpy); fi
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

tslice_build() {
    local build_dir="$tslice_root/build"
    if [[ ! -f "$build_dir/CMakeCache.txt" ]]; then
        cmake -S "$tslice_root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release
    fi
    cmake --build "$build_dir" -j "$(nproc)"
}
