#!/usr/bin/env python3
"""How tslice's Zarr reading and writing scale with cores: the two Zarr rows of
hdf5_zarr_bench.py (a 1 GiB float32 array written as a Zarr store, zstd level 1, chunks
(4, 512, 512); `[:128, :512]` of it, a quarter of the chunks, read to a .npy) timed with
`-t 1, 2, 4, ...` up to the CPUs this process may use, in alternating rounds, medians. Needs
only numpy, so it runs where zarr-python is missing (a lent machine); zarr-python's time for the
same read is added where it is installed. Peak RSS of each read from tslice_peak_rss or GNU
time, where either is found.

  bench/zarr_scaling.py --tslice build/tslice --dir DIR [--rounds 3] [--peak-rss PATH]

DIR gets x.npy (the array of hdf5_zarr_bench.py, made if missing), w.zarr and r.npy."""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np


def make_input(path):
    if os.path.exists(path):
        return
    shape = (256, 1024, 1024)
    rng = np.random.default_rng(0)
    a = np.lib.format.open_memmap(path + ".tmp", mode="w+", dtype="<f4", shape=shape)
    base = np.sin(np.arange(1024 * 1024, dtype="f4").reshape(1024, 1024) / 500)
    for i in range(shape[0]):
        a[i] = base * i + rng.integers(0, 16, (1024, 1024)).astype("f4")
    a.flush()
    del a
    os.rename(path + ".tmp", path)


def timed(args):
    start = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def peak_rss_mib(tool, args):
    """args: a read's command, its output path at args[4]."""
    if tool:
        result = args[4] + ".peak_rss"
        subprocess.run([tool, result] + args, check=True, stdout=subprocess.DEVNULL)
        with open(result) as f:
            kib = int(f.read().split()[0])
        os.remove(result)
        return f"{kib // 1024} MiB"
    if os.path.exists("/usr/bin/time"):
        run = subprocess.run(["/usr/bin/time", "-f", "%M"] + args, capture_output=True, text=True, check=True)
        return f"{int(run.stderr.strip().splitlines()[-1]) // 1024} MiB"
    return "n/a"


def zarr_python_read(store, out):
    try:
        import zarr  # noqa: F401
    except ImportError:
        return None
    code = ("import time, zarr, numpy as np\nt = time.perf_counter()\n"
            f"np.save({out!r}, zarr.open({store!r}, mode='r')[:128, :512])\nprint(time.perf_counter() - t)")
    return float(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                                text=True).stdout.split()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tslice", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--peak-rss", help="tslice_peak_rss (prints a process's peak RSS)")
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    x, store, out = (os.path.join(args.dir, n) for n in ("x.npy", "w.zarr", "r.npy"))
    make_input(x)
    cpus = len(os.sched_getaffinity(0))
    threads = sorted({t for t in (1, 2, 4, 8, 16, 32, 64) if t <= cpus} | {cpus})
    write = {t: [args.tslice, x, "-o", store, "--chunks", "4,512,512", "-t", str(t)] for t in threads}
    read = {t: [args.tslice, store, "[:128, :512]", "-o", out, "-t", str(t)] for t in threads}
    subprocess.run(write[threads[-1]], check=True)
    times = {("write", t): [] for t in threads} | {("read", t): [] for t in threads}
    theirs = []
    for _ in range(args.rounds):
        for t in threads:
            times[("write", t)].append(timed(write[t]))
            times[("read", t)].append(timed(read[t]))
        other = zarr_python_read(store, out + ".zarr-python.npy")
        if other is not None:
            theirs.append(other)
    print(f"{os.cpu_count()} CPUs, {cpus} usable; medians of {args.rounds} alternating rounds")
    print(f"{'threads':>7} {'write ms':>9} {'x 1T':>6} {'read ms':>8} {'x 1T':>6}  read peak RSS")
    for t in threads:
        w = statistics.median(times[("write", t)]) * 1e3
        r = statistics.median(times[("read", t)]) * 1e3
        w1 = statistics.median(times[("write", 1)]) * 1e3
        r1 = statistics.median(times[("read", 1)]) * 1e3
        print(f"{t:7d} {w:9.0f} {w1 / w:6.2f} {r:8.0f} {r1 / r:6.2f}  {peak_rss_mib(args.peak_rss, read[t])}")
    if theirs:
        ours = statistics.median(times[("read", threads[-1])]) * 1e3
        print(f"zarr-python reading the same (z[sel] + np.save): {statistics.median(theirs) * 1e3:.0f} ms, "
              f"{statistics.median(theirs) * 1e3 / ours:.2f}x tslice on {threads[-1]} threads")
    else:
        print("zarr-python: not installed here, not compared")
    shutil.rmtree(store, ignore_errors=True)
    for name in (out, out + ".zarr-python.npy"):
        if os.path.exists(name):
            os.remove(name)


if __name__ == "__main__":
    sys.exit(main())
