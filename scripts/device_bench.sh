#!/usr/bin/env bash
# The in-process bench and its table of copy choices, on a machine without a compiler, from
# binaries packed by scripts/pack_device.sh: what a run on another CPU needs to say whether
# tslice's choices hold there. Everything goes to stdout.
#
#   scripts/device_bench.sh PACK [--quick]
#
# PACK: the packed folder (build-device/, with bin/, lib/, lib-fallback/ and scripts/), or any
# folder holding tslice_bench, numpy_copy.py and the libraries side by side. It prints the
# machine (CPU model, cores, caches as sysfs and glibc see them, glibc's own copy thresholds),
# generates the inputs of the in-process cases (about 5 GiB; --quick: 1/64) and runs
# `tslice_bench run` with --reps 3: the in-process table, then the CPU and the choices tslice
# made for it, then each choice timed against its alternatives. Meant for a 7-minute slot on
# a 16-core machine: it stops itself after TSLICE_DEVICE_LIMIT seconds (default 390), and
# prints how long each step took.
#
# Environment: TSLICE_DEVICE_DATA  where the inputs go (default /tmp/tslice-device-data;
#                                  removed at the end unless TSLICE_DEVICE_KEEP=1)
#              TSLICE_DEVICE_REPS  repetitions (default 3)
set -uo pipefail

pack="${1:?usage: scripts/device_bench.sh PACK [--quick]}"
quick=()
[[ "${2:-}" == "--quick" ]] && quick=(--quick)
pack="$(cd "$pack" && pwd)"
find_in_pack() {
    local name="$1" dir
    for dir in "$pack/bin" "$pack/scripts" "$pack"; do
        [[ -e "$dir/$name" ]] && { echo "$dir/$name"; return 0; }
    done
    echo "device_bench: no $name in $pack" >&2
    return 1
}
bench="$(find_in_pack tslice_bench)" || exit 1
numpy_script="$(find_in_pack numpy_copy.py)" || exit 1
data="${TSLICE_DEVICE_DATA:-/tmp/tslice-device-data}"
reps="${TSLICE_DEVICE_REPS:-3}"
limit="${TSLICE_DEVICE_LIMIT:-390}"
start=$SECONDS
elapsed() { echo "[device_bench: $((SECONDS - start)) s]"; }

# The packed libraries first; libstdc++ and libgcc_s only where the machine lacks its own.
libs="$pack/lib"
[[ -d "$libs" ]] || libs="$pack"
export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [[ -d "$pack/lib-fallback" ]] && ldd "$bench" | grep -q "not found"; then
    export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$pack/lib-fallback"
    echo "using the packed libstdc++/libgcc_s (this machine lacks them)"
fi
if ldd "$bench" | grep "not found"; then
    echo "device_bench: tslice_bench cannot find the libraries above" >&2
    exit 1
fi

python=""
for candidate in /usr/bin/python3 python3; do
    if "$candidate" -c "import numpy" 2>/dev/null; then python="$candidate"; break; fi
done
[[ -n "$python" ]] || { echo "device_bench: no python3 with numpy" >&2; exit 1; }

echo "== machine ($(date -u '+%Y-%m-%d %H:%M UTC'))"
echo "CPU: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1); $(nproc) CPUs online;" \
     "flags: $(grep -o -w -E 'avx2|avx512f|avx512bw|avx512vbmi|erms|fsrm' /proc/cpuinfo | sort -u | tr '\n' ' ')"
echo "memory: $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo);" \
     "glibc $(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}'); python $("$python" -c 'import sys, numpy; print(sys.version.split()[0], "numpy", numpy.__version__)')"
for index in /sys/devices/system/cpu/cpu0/cache/index*; do
    [[ -r "$index/size" ]] || continue
    echo "sysfs cache: level $(cat "$index/level") $(cat "$index/type") $(cat "$index/size")," \
         "shared by CPUs $(cat "$index/shared_cpu_list" 2>/dev/null || echo '?')"
done
echo "glibc sysconf: L2 $(getconf LEVEL2_CACHE_SIZE 2>/dev/null) bytes, L3 $(getconf LEVEL3_CACHE_SIZE 2>/dev/null) bytes"
for loader in /lib64/ld-linux-x86-64.so.2 /lib/ld-linux-x86-64.so.2; do
    if [[ -x "$loader" ]]; then
        "$loader" --list-tunables 2>/dev/null | grep -E "x86_(non_temporal|rep_movsb|shared_cache)" |
            sed 's/^/glibc tunable: /'
        break
    fi
done
echo "data: $data ($(df -h "$(dirname "$data")" | awk 'NR == 2 {print $4 " free on " $1}'))"
elapsed

echo "== inputs"
"$bench" generate "$data" --in-process "${quick[@]}" || { echo "device_bench: generate failed" >&2; exit 1; }
elapsed

echo "== tslice_bench run --reps $reps"
status=0
if ((limit - (SECONDS - start) < 10)); then
    echo "device_bench: no time left of ${limit} s for the run"
    exit 1
fi
TSLICE_BENCH_SCRIPTS="$(dirname "$numpy_script")" \
    timeout --signal=INT --kill-after=10 "$((limit - (SECONDS - start)))" \
    "$bench" run "$data" "${quick[@]}" --reps "$reps" --python "$python" 2>&1 || status=$?
[[ $status -eq 124 || $status -eq 130 ]] && echo "device_bench: stopped after ${limit} s in all"
elapsed
[[ "${TSLICE_DEVICE_KEEP:-0}" == 1 ]] || rm -rf "$data"
exit "$status"
