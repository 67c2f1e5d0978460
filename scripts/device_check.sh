#!/usr/bin/env bash
# Everything a lent machine of another CPU can tell, in one run of a bounded time: the unit
# tests (as the CPU has it, and capped at avx2 and at sse4.2), the differential tests against
# that machine's own Python libraries (often newer than Debian's: numpy, torch, h5py), then
# scripts/device_bench.sh (the in-process bench and its copy choices). The binaries come from
# scripts/pack_device.sh, built on the development machine; the machine needs no compiler.
#
#   scripts/device_check.sh PACK [SECONDS] [--tests-only | --bench-only]
#                        (TSLICE_DEVICE_QUICK=1: the bench at 1/64 of its sizes)
#
# PACK: the packed folder (build-device/). SECONDS: the whole run's budget (default 540); the
# tests get at most a third of it (all of it with --tests-only), the bench what is left. A test whose Python library is
# missing there is reported as skipped, not passed. Prints a summary line per step, the tests'
# last lines and the bench whole; the tests' whole output goes to $OUT/device_tests.log (or
# $TMPDIR), the bench's to $OUT/device_bench.log too.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pack="$(cd "${1:?usage: scripts/device_check.sh PACK [SECONDS]}" && pwd)"
budget="${2:-540}"
only="${3:-}"
[[ -z "$only" || "$only" == --tests-only || "$only" == --bench-only ]] ||
    { echo "device_check: unknown option $only" >&2; exit 2; }
start=$SECONDS
left() { echo $((budget - (SECONDS - start))); }

export LD_LIBRARY_PATH="$pack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [[ -d "$pack/lib-fallback" ]] && ldd "$pack/bin/tslice" | grep -q "not found"; then
    export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$pack/lib-fallback"
fi
python=""
for candidate in python3 /usr/bin/python3; do
    if "$candidate" -c "import numpy" 2>/dev/null; then python="$candidate"; break; fi
done
[[ -n "$python" ]] || { echo "device_check: no python3 with numpy" >&2; exit 1; }
tslice="$pack/bin/tslice"
logs="${OUT:-${TMPDIR:-/tmp}}"
summary=()
step() {  # step NAME SECONDS COMMAND...: runs it within SECONDS, records how it ended
    local name="$1" limit="$2" status=0 began=$SECONDS
    shift 2
    echo "== $name" | tee -a "$logs/device_tests.log"
    # The whole output to the log, its last lines here.
    timeout --kill-after=5 "$limit" "$@" >>"$logs/device_tests.log" 2>&1 || status=$?
    tail -n 3 "$logs/device_tests.log"
    local verdict="passed"
    ((status == 124 || status == 137)) && verdict="STOPPED after ${limit} s"
    ((status == 77)) && verdict="skipped"
    ((status != 0 && status != 124 && status != 137 && status != 77)) && verdict="FAILED (exit $status)"
    summary+=("$name: $verdict in $((SECONDS - began)) s")
}
needs() {  # needs MODULE...: 0 when the Python there has them all
    "$python" -c "import $(IFS=,; echo "$*")" 2>/dev/null
}

echo "device_check: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs;" \
     "$("$python" -c 'import sys, numpy; print("python", sys.version.split()[0], "numpy", numpy.__version__)')"
for module in torch h5py safetensors zarr numcodecs ml_dtypes; do
    version="$("$python" -c "import $module; print($module.__version__)" 2>/dev/null || echo "missing")"
    echo "  $module $version"
done

tests_budget=$((budget / 3))
[[ "$only" == --tests-only ]] && tests_budget=$budget
[[ "$only" == --bench-only ]] && tests_budget=0
tests_end=$((SECONDS + tests_budget))
tests_left() { local n=$((tests_end - SECONDS)); ((n < 5)) && n=5; echo "$n"; }
differential() {  # differential NAME CASES [MODULE...] [-- EXTRA ARGS...]
    local name="$1" cases="$2"
    shift 2
    local modules=() extra=()
    while (($#)); do
        if [[ "$1" == "--" ]]; then shift; extra=("$@"); break; fi
        modules+=("$1")
        shift
    done
    if ((${#modules[@]})) && ! needs "${modules[@]}"; then
        summary+=("$name: skipped (no ${modules[*]} in $python)")
        return
    fi
    step "$name" "$(tests_left)" "$python" "$root/tests/differential/$name.py" --tslice "$tslice" --cases "$cases" \
        "${extra[@]}"
}
run_tests() {
    step "unit tests" "$(tests_left)" "$pack/bin/tslice_unit_tests"
    for cap in avx2 sse4.2; do
        step "kernel, copy, conversion and stats units capped at $cap" "$(tests_left)" \
            env TSLICE_KERNEL_CAP="$cap" "$pack/bin/tslice_unit_tests" -tc='*kernel*,*copy*,convert*,stats*'
    done
    cd "$root" || exit 1
    differential numpy_differential 600
    differential values_differential 400
    differential hdf5_differential 150 h5py
    differential torch_differential 30 torch
    differential checkpoint_differential 80
    differential container_differential 200
    differential gguf_differential 30 -- --dequantize "$pack/bin/ggml_dequantize"
    echo "== tests took $((SECONDS - start)) s"
}
[[ "$only" == --bench-only ]] || run_tests
if [[ "$only" == --tests-only ]]; then
    echo "== summary ($((SECONDS - start)) s in all)"
    printf '  %s\n' "${summary[@]}"
    exit 0
fi

echo "== device_bench"
bench_start=$SECONDS
status=0
TSLICE_DEVICE_LIMIT="$(($(left) - 10))" TSLICE_DEVICE_REPS="${TSLICE_DEVICE_REPS:-5}" \
    bash "$root/scripts/device_bench.sh" "$pack" ${TSLICE_DEVICE_QUICK:+--quick} 2>&1 | tee "$logs/device_bench.log" || status=${PIPESTATUS[0]}
summary+=("device_bench: exit $status in $((SECONDS - bench_start)) s")
echo "== summary ($((SECONDS - start)) s in all)"
printf '  %s\n' "${summary[@]}"
