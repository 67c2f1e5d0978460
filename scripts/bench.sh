#!/usr/bin/env bash
# The benchmark: is tslice's copy at the memory-bandwidth limit, and is a whole run
# at the I/O limit?
#
#   scripts/bench.sh            the full benchmark: 1 GiB inputs, takes several minutes
#   scripts/bench.sh --quick    the same with 1/64 of the sizes, in seconds (ctest: bench_quick)
#
# Environment: TSLICE_BENCH_DIR  where the inputs and outputs go (default build/bench-data;
#                                full/ and quick/ below it; about 5 GiB for the full inputs,
#                                kept between runs, never committed; a tmpfs such as /dev/shm
#                                keeps the disk out of the whole-process numbers)
#              TSLICE_BENCH_REPS repetitions per in-process measurement (default 7, quick 5)
#              TSLICE_KERNEL     passed through to tslice (e.g. "scalar" to force the scalar kernel)
#
# It installs what is missing (Debian packages, as scripts/setup.sh does, plus hyperfine),
# builds build/ in Release (tslice, and bench/: tslice_bench, tslice_io_floor,
# tslice_peak_rss), generates the inputs, and prints these parts:
#
# 1. In-process (bench/bench_copy.cpp), one row per case: float32 (256,1024,1024)
#    with [1:-1, :, :], [:, 100:900, 100:900], [:, :, ::-1], [:, :, ::2], [::-1, ::-1, ::-1],
#    [..., 5], [:, ::3, 1::4], [:, :, :64], [:, :, ::5], [:, :, ::-8], [:, :, ::100]; uint8
#    [:, :, ::7]; [:, :, ::-1] on uint8 (1024,1024,1024) and float64
#    (128,1024,1024); a gather of 100000 random rows of float32 (1000000, 256) along axis 0 and
#    of 1000 random columns of float32 (4096, 65536) along axis 1. Columns: the output and the
#    bytes read (64-byte lines touched), then median times in ms of tslice's copy_view into a
#    preallocated buffer on 1 thread and on all cores, memcpy of the output bytes (on 1 thread
#    and split over all cores: how much more cores can give at all), memcpy of the bytes read,
#    xtensor view assignment into a preallocated xt::xtensor, numpy (np.copyto into a
#    preallocated array; np.take(out=) for the gathers) in a separate /usr/bin/python3, one
#    copy in each of tslice's rounds, so that both are timed in the same minutes; then
#    the ratios 1T/memcpy-out, 1T/memcpy-read, numpy/1T (the median of each round's numpy copy
#    over a tslice copy timed right beside it), 1T/all-cores, each with its target
#    and PASS/MISS, memcpy's own all-cores gain, and a check column: every copy is
#    compared with a plain reference. Then the copy's choices on this CPU (bench/copy_choices.hpp):
#    each case again with each of tslice's choices changed (stores streamed or not, no prefetch,
#    prefetching twice and four times as far, the other row kernel); a choice passes unless a change is
#    more than 5% faster.
# 2. Whole process (bench/whole_process.py, hyperfine): `tslice IN EXPR -o OUT` against the I/O
#    floor (map the input, write() the same bytes; the two measured in alternating rounds) and
#    numpy's one-liner, plain and with np.load(mmap_mode='r'), each with its peak RSS; a
#    1 KiB .npy slice; --shape on the 1 GiB file; the containers; --update of a 4 MiB tensor
#    inside a 1 GiB safetensors checkpoint against cp of the file. Targets with PASS/MISS.
# 3. Cold page cache (bench/cold_cache.py): the 1 GiB input dropped from the page cache before
#    every run, against cold `cat` (or reading the selected rows in order, for [::4]; for the
#    gather of random rows, reading the rows it touches in sorted order), each tslice run paired
#    with a floor run of the same minute, and beside them cold `dd` of the file to where tslice
#    writes (reading and writing as many bytes, not judged), `dd` writing the result's bytes
#    from memory there (the writing alone; tslice over the slower of it and the floor shows
#    how near a perfect overlap of reading and writing it comes, not judged) and numpy's
#    np.load(mmap_mode='r'), with peak RSS.
# 4. Values (bench/values_bench.py): --stats of a 1 GiB float32 .npy against reading its bytes
#    from the mapping (tslice_read_floor) and numpy's np.load + nanmin/nanmax/nanmean/nanstd,
#    with peak RSS; --astype f4 of a 512 MiB BF16 safetensors tensor to .npy and --astype bf16
#    of the 1 GiB float32 to .safetensors, against tslice_io_floor writing as many bytes.
#
# Exit status: non-zero if anything fails to build or run, or any copy or output file differs
# from its reference; a MISS never fails (in quick mode the numbers mean nothing anyway).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

quick=()
mode=full
for argument in "$@"; do
    case "$argument" in
        --quick) quick=(--quick); mode=quick ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench.sh: unknown argument $argument (use --quick or nothing)" >&2; exit 2 ;;
    esac
done

tslice_install_missing --test
if ! command -v hyperfine >/dev/null; then
    echo "bench.sh: installing hyperfine" >&2
    sudo=()
    [[ $(id -u) -eq 0 ]] || sudo=(sudo)
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends hyperfine >&2
fi

build_dir="$tslice_root/build"
build_log="$(mktemp)"
out_dir=""
trap 'rm -f "$build_log"; [[ -z "$out_dir" ]] || rm -rf "$out_dir"' EXIT
# Configured (again) before building, so the build knows the bench targets; Release always.
if ! { cmake -S "$tslice_root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DTSLICE_BUILD_BENCH=ON &&
       cmake --build "$build_dir" -j "$(nproc)" --target tslice tslice_bench tslice_io_floor tslice_peak_rss tslice_read_floor
     } >"$build_log" 2>&1; then
    cat "$build_log" >&2
    exit 1
fi
bench_bin="$build_dir/bench"

data_dir="${TSLICE_BENCH_DIR:-$build_dir/bench-data}/$mode"
mkdir -p "$data_dir"
data_dir="$(cd "$data_dir" && pwd)"
reps=()
[[ -n "${TSLICE_BENCH_REPS:-}" ]] && reps=(--reps "$TSLICE_BENCH_REPS")

# CPU used by the whole machine and by this script's processes, in clock ticks: what others
# used meanwhile is printed at the end, as a measure of how noisy the run was.
machine_ticks() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8}' /proc/stat; }
own_ticks() { awk '{print $14 + $15 + $16 + $17}' "/proc/$$/stat"; }
read -r busy_start all_start < <(machine_ticks)
own_start=$(own_ticks)
report_noise() {
    local busy_end all_end own_end
    read -r busy_end all_end < <(machine_ticks)
    own_end=$(own_ticks)
    awk -v other=$((busy_end - busy_start - (own_end - own_start))) -v all=$((all_end - all_start)) \
        'BEGIN { if (other < 0) other = 0; noisy = (other / all > 0.05) ? ": the numbers are noisy" : ""
                 printf "other processes used %.0f%% of the machine during this run%s\n", 100 * other / all, noisy }'
}

echo "tslice benchmark ($mode): $(git -C "$tslice_root" rev-parse --short HEAD 2>/dev/null || echo '?')$(
    git -C "$tslice_root" diff --quiet HEAD 2>/dev/null || echo ' + local changes'), $(nproc) cores, $(
    sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), data in $data_dir"
"$bench_bin/tslice_bench" generate "$data_dir" "${quick[@]}"
status=0
"$bench_bin/tslice_bench" run "$data_dir" "${quick[@]}" "${reps[@]}" --python /usr/bin/python3 || status=$?

# The whole-process outputs go to a directory of this run's own, beside the inputs, with a copy
# of build/tslice (a rebuild while this runs must not change what is measured).
out_dir="$(mktemp -d "$data_dir/run.XXXXXX")"
cp "$build_dir/tslice" "$out_dir/tslice"
jobs="$out_dir/jobs.tsv"
"$bench_bin/tslice_bench" list "$data_dir" "${quick[@]}" >"$jobs"
runs=(--warmup 1)
[[ $mode == quick ]] && runs=(--runs 3 --warmup 1)
/usr/bin/python3 "$tslice_root/bench/whole_process.py" --jobs "$jobs" --dir "$out_dir" \
    --tslice "$out_dir/tslice" --floor "$bench_bin/tslice_io_floor" --peak-rss "$bench_bin/tslice_peak_rss" \
    --python /usr/bin/python3 "${runs[@]}" "${quick[@]}" || status=$?
/usr/bin/python3 "$tslice_root/bench/cold_cache.py" --jobs "$jobs" --tslice "$out_dir/tslice" \
    --peak-rss "$bench_bin/tslice_peak_rss" --python /usr/bin/python3 "${quick[@]}" || status=$?
/usr/bin/python3 "$tslice_root/bench/values_bench.py" --dir "$data_dir" --tslice "$out_dir/tslice" \
    --floor "$bench_bin/tslice_io_floor" --read-floor "$bench_bin/tslice_read_floor" \
    --peak-rss "$bench_bin/tslice_peak_rss" --python /usr/bin/python3 "${quick[@]}" || status=$?
report_noise
exit "$status"
