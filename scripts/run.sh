#!/usr/bin/env bash
# Installs what is missing, builds if needed, and runs build/tslice with the arguments given.
# With no arguments, runs a short demo on a sample file in data/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

tslice_install_missing
build_log="$(mktemp)"
trap 'rm -f "$build_log"' EXIT
# The program alone: the tests and the bench are test.sh's and bench.sh's to build.
if ! tslice_build tslice >"$build_log" 2>&1; then
    cat "$build_log" >&2
    exit 1
fi
tslice="$tslice_root/build/tslice"

if (($# > 0)); then
    "$tslice" "$@"
    exit $?
fi

cd "$tslice_root"
demo() {
    local shown=()
    for argument in "$@"; do
        if [[ "$argument" == *[\ \[\]]* ]]; then shown+=("\"$argument\""); else shown+=("$argument"); fi
    done
    echo "\$ tslice ${shown[*]}"
    "$tslice" "$@" || true
    echo
}
demo data/arange_2x3x4_f4.npy
demo data/arange_2x3x4_f4.npy "[1:, ..., ::-1]"
demo data/arange_2x3x4_f4.npy "[:, None, -1, ::2]" --shape
demo data/arange_2x3x4_f4.npy "[..., 0]" --shape --json
demo data/arange_2x3x4_f4.npy "[0, 5]"
