"""The --stats and --astype rows of scripts/bench.sh: whole runs of build/tslice against their
I/O floors and numpy, warm page cache, with peak RSS.

    /usr/bin/python3 bench/values_bench.py --dir DIR --tslice T --floor F --read-floor R --peak-rss P [--quick]

  - --stats of a 1 GiB float32 .npy against tslice_read_floor (map it and read every byte,
    one thread) and numpy (np.load, then nanmin, nanmax, nanmean, nanstd); peak RSS of each.
    Targets: tslice/floor <= 1.3, numpy/tslice >= 5, tslice's RSS <= 32 MiB.
  - --astype f4 of a 512 MiB BF16 safetensors tensor to .npy against tslice_io_floor writing
    the 1 GiB result's bytes from a mapping (of the float32 input). Target <= 1.3.
  - --astype bf16 of the 1 GiB float32 .npy to .safetensors against tslice_io_floor writing its
    512 MiB. Target <= 1.2.
The inputs are random bits (every float32 there is, about 0.4% NaN). Each pair is timed in
alternating rounds (the machine's load drifts); medians. In quick mode
the files are 1/64 of the size and a MISS means nothing. The inputs are made once and kept.
"""
import argparse
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
except ImportError:  # the numpy row is left out; everything else needs no numpy
    np = None

NUMPY_STATS = ("import sys, numpy as np; a = np.load(sys.argv[1]); "
               "print(np.nanmin(a), np.nanmax(a), np.nanmean(a, dtype=np.float64), np.nanstd(a, dtype=np.float64))")


def npy_header(descr, shape):
    """A version 1.0 .npy header, padded to 64 bytes, as numpy writes it."""
    text = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, shape)
    text += " " * (-(len(text) + 11) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode()


def random_bytes_to(f, count):
    """`count` random bytes (float32 of random bits: every value there is, NaNs and infinities
    included, about 0.4% of them NaN), 64 MiB at a time."""
    while count > 0:
        piece = min(count, 64 << 20)
        f.write(os.urandom(piece))
        count -= piece


def make_inputs(directory, elements):
    f4 = os.path.join(directory, f"values_f4_{elements}.npy")
    bf16 = os.path.join(directory, f"values_bf16_{elements}.safetensors")
    if not os.path.exists(f4):
        with open(f4 + ".part", "wb") as f:
            f.write(npy_header("<f4", elements))
            random_bytes_to(f, elements * 4)
        os.replace(f4 + ".part", f4)
    if not os.path.exists(bf16):
        header = json.dumps({"w": {"dtype": "BF16", "shape": [elements], "data_offsets": [0, elements * 2]}}).encode()
        header += b" " * (-len(header) % 8)
        with open(bf16 + ".part", "wb") as f:
            f.write(struct.pack("<Q", len(header)) + header)
            random_bytes_to(f, elements * 2)
        os.replace(bf16 + ".part", bf16)
    return f4, bf16


def run_time(command):
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"values_bench: {' '.join(command)} failed: {done.stderr.decode()}")
    return elapsed


def alternating(commands, rounds, runs):
    """Median seconds of each command, `rounds` rounds of `runs` runs each, one warm-up each."""
    times = [[] for _ in commands]
    for command in commands:
        run_time(command)
    for _ in range(rounds):
        for i, command in enumerate(commands):
            times[i] += [run_time(command) for _ in range(runs)]
    return [statistics.median(t) for t in times]


def peak_rss_mib(peak_rss, command):
    with tempfile.NamedTemporaryFile(suffix=".rss") as result:
        done = subprocess.run([peak_rss, result.name] + command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if done.returncode != 0:
            sys.exit(f"values_bench: {' '.join(command)} failed: {done.stderr.decode()}")
        with open(result.name) as f:
            return int(f.read()) / 1024


def verdict(ok):
    return "PASS" if ok else "MISS"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--tslice", required=True)
    parser.add_argument("--floor", required=True)
    parser.add_argument("--read-floor", required=True)
    parser.add_argument("--peak-rss", required=True)
    parser.add_argument("--python", default="/usr/bin/python3")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    elements = (1 << 28) // (64 if args.quick else 1)  # float32: 1 GiB
    f4, bf16 = make_inputs(args.dir, elements)
    out = tempfile.mkdtemp(dir=args.dir)
    misses = 0
    print(f"\n--stats and --astype (warm page cache, medians of {args.rounds} alternating rounds of {args.runs} "
          f"runs; outputs in {out})" + ("\nquick mode: small files; a MISS means nothing" if args.quick else ""))
    for path in (f4, bf16):
        subprocess.run(["cat", path], stdout=subprocess.DEVNULL, check=True)  # into the page cache

    stats = [args.tslice, f4, "--stats"]
    t_stats, t_read = alternating([stats, [args.read_floor, f4]], args.rounds, args.runs)
    rss_stats = peak_rss_mib(args.peak_rss, stats)
    if np is not None:
        t_numpy = alternating([[args.python, "-c", NUMPY_STATS, f4]], 1, 1 if not args.quick else 3)[0]
        rss_numpy = peak_rss_mib(args.peak_rss, [args.python, "-c", NUMPY_STATS, f4])
        numpy_text = (f", numpy {t_numpy * 1e3:.0f} ms (RSS {rss_numpy:.0f} MiB), numpy/tslice "
                      f"{t_numpy / t_stats:.1f} (>= 5)")
    else:
        t_numpy, numpy_text = float("inf"), ", numpy: not installed here"
    ok = t_stats / t_read <= 1.3 and t_numpy / t_stats >= 5 and rss_stats <= 32
    misses += not ok
    print(f"  --stats of {os.path.getsize(f4) >> 20} MiB float32: tslice {t_stats * 1e3:.0f} ms "
          f"(RSS {rss_stats:.0f} MiB), read floor {t_read * 1e3:.0f} ms; tslice/floor {t_stats / t_read:.2f} "
          f"(<= 1.3){numpy_text}, RSS <= 32 MiB: {verdict(ok)}")

    result_f4 = os.path.join(out, "w.npy")
    widen = [args.tslice, bf16, "--astype", "f4", "-o", result_f4, "-q"]
    floor_widen = [args.floor, f4, os.path.join(out, "floor.npy"), str(os.path.getsize(f4))]
    t_widen, t_floor = alternating([widen, floor_widen], args.rounds, args.runs)
    if os.path.getsize(result_f4) != os.path.getsize(f4):
        sys.exit(f"values_bench: {result_f4} has {os.path.getsize(result_f4)} bytes, not {os.path.getsize(f4)}")
    ok = t_widen / t_floor <= 1.3
    misses += not ok
    print(f"  --astype f4 of {os.path.getsize(bf16) >> 20} MiB BF16 to .npy: tslice {t_widen * 1e3:.0f} ms, "
          f"floor (write {os.path.getsize(f4) >> 20} MiB) {t_floor * 1e3:.0f} ms; ratio {t_widen / t_floor:.2f} "
          f"(<= 1.3): {verdict(ok)}")

    result_bf16 = os.path.join(out, "n.safetensors")
    narrow = [args.tslice, f4, "--astype", "bf16", "-o", result_bf16, "-q"]
    floor_narrow = [args.floor, f4, os.path.join(out, "floor.bin"), str(elements * 2)]
    t_narrow, t_floor = alternating([narrow, floor_narrow], args.rounds, args.runs)
    ok = t_narrow / t_floor <= 1.2
    misses += not ok
    print(f"  --astype bf16 of {os.path.getsize(f4) >> 20} MiB float32 to .safetensors: tslice "
          f"{t_narrow * 1e3:.0f} ms, floor (write {elements * 2 >> 20} MiB) {t_floor * 1e3:.0f} ms; ratio "
          f"{t_narrow / t_floor:.2f} (<= 1.2): {verdict(ok)}")
    for name in os.listdir(out):
        os.unlink(os.path.join(out, name))
    os.rmdir(out)
    print(f"  {misses} MISS" if misses else "  all PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
