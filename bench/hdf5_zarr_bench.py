#!/usr/bin/env python3
"""Whole runs of tslice on HDF5 and Zarr inputs and Zarr outputs, against h5py and
zarr-python doing the same in one Python process each (import time not counted there,
counted for tslice, which starts a process per run). Alternating rounds, medians, ratios in
one run, each run writing a new output on a settled disk; peak RSS of tslice from GNU time's
%M where /usr/bin/time exists.

  bench/hdf5_zarr_bench.py --tslice build/tslice --dir DIR [--rounds 5]

DIR holds x.npy (float32 (256, 1024, 1024)), gz.h5 (the same, chunks (16, 128, 128), gzip
level 1), contig.h5 (contiguous) and z.zarr (chunks (4, 512, 512), zstd level 1); the script
makes those that are missing."""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np


def make_inputs(d):
    import h5py
    import numcodecs
    import zarr
    shape = (256, 1024, 1024)
    path = os.path.join(d, "x.npy")
    if not os.path.exists(path):
        rng = np.random.default_rng(0)
        a = np.lib.format.open_memmap(path, mode="w+", dtype="<f4", shape=shape)
        base = np.sin(np.arange(1024 * 1024, dtype="f4").reshape(1024, 1024) / 500)
        for i in range(shape[0]):
            a[i] = base * i + rng.integers(0, 16, (1024, 1024)).astype("f4")
        a.flush()
    a = np.load(path, mmap_mode="r")
    if not os.path.exists(os.path.join(d, "gz.h5")):
        with h5py.File(os.path.join(d, "gz.h5"), "w") as f:
            f.create_dataset("x", data=a, chunks=(16, 128, 128), compression="gzip", compression_opts=1)
    if not os.path.exists(os.path.join(d, "contig.h5")):
        with h5py.File(os.path.join(d, "contig.h5"), "w") as f:
            f.create_dataset("x", data=a)
    if not os.path.exists(os.path.join(d, "z.zarr")):
        z = zarr.open(os.path.join(d, "z.zarr"), mode="w", shape=shape, chunks=(4, 512, 512), dtype="<f4",
                      compressor=numcodecs.Zstd(1))
        z[:] = a


PYTHON_CASES = {
    "h5": "import h5py, numpy as np\nwith h5py.File({src!r}) as f: np.save({out!r}, f['x'][{sel}])",
    "zarr": "import zarr, numpy as np\nnp.save({out!r}, zarr.open({src!r}, mode='r')[{sel}])",
    "zarr_write": ("import zarr, numpy as np, numcodecs, shutil\nshutil.rmtree({out!r}, ignore_errors=True)\n"
                   "a = np.load({src!r}, mmap_mode='r')\n"
                   "z = zarr.open({out!r}, mode='w', shape=a.shape, chunks=(4, 512, 512), dtype=a.dtype, "
                   "compressor=numcodecs.Zstd(1))\nz[:] = a"),
}


def cache_alike(d):
    # Every input dropped from the page cache and read once in order, the same way, before any
    # run: how a file came into the cache decides the size of its folios there, and with it
    # what mapping it costs (HDF5's contiguous dataset is mapped as the .npy is): left as the
    # inputs' writing left them, the same slice of the two took 90 and 69 ms, and 42 and 38
    # after both were read alike.
    files = [os.path.join(d, name) for name in ("x.npy", "gz.h5", "contig.h5")]
    files += sorted(os.path.join(d, "z.zarr", name) for name in os.listdir(os.path.join(d, "z.zarr")))
    for path in files:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            while os.read(fd, 1 << 20):
                pass
        finally:
            os.close(fd)


def timed(args):
    start = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def python_runner(kind, src, out, sel):
    # One process per round, its imports done before the clock starts.
    code = PYTHON_CASES[kind].format(src=src, out=out, sel=sel)
    timer = ("import time, sys\n" + "\n".join(l for l in code.splitlines() if l.startswith("import")) +
             "\nt = time.perf_counter()\n" + "\n".join(l for l in code.splitlines() if not l.startswith("import")) +
             "\nprint(time.perf_counter() - t)")
    return lambda: float(subprocess.run(["/usr/bin/python3", "-c", timer], check=True, capture_output=True,
                                        text=True).stdout.split()[-1])


def peak_rss(args):
    if not os.path.exists("/usr/bin/time"):
        return None
    run = subprocess.run(["/usr/bin/time", "-f", "%M"] + args, capture_output=True, text=True, check=True)
    return int(run.stderr.strip().splitlines()[-1]) // 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tslice", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    d = args.dir
    make_inputs(d)
    cache_alike(d)
    t = os.path.abspath(args.tslice)
    o = lambda name: os.path.join(d, name)  # noqa: E731
    rows = [
        ("HDF5 gzip [::2, :, 100:200]", [t, o("gz.h5"), "-k", "x", "[::2, :, 100:200]", "-o", o("t.npy")],
         python_runner("h5", o("gz.h5"), o("p.npy"), "::2, :, 100:200"), "h5py + np.save"),
        ("HDF5 contiguous [::2, :, 100:200]", [t, o("contig.h5"), "-k", "x", "[::2, :, 100:200]", "-o", o("t.npy")],
         lambda: timed([t, o("x.npy"), "[::2, :, 100:200]", "-o", o("t2.npy")]), "tslice on x.npy"),
        ("Zarr zstd [:128, :512] (1/4 of chunks)", [t, o("z.zarr"), "[:128, :512]", "-o", o("t.npy")],
         python_runner("zarr", o("z.zarr"), o("p.npy"), ":128, :512"), "zarr-python + np.save"),
        ("Zarr write 1 GiB (zstd, (4,512,512))", [t, o("x.npy"), "-o", o("t.zarr"), "--chunks", "4,512,512"],
         python_runner("zarr_write", o("x.npy"), o("p.zarr"), ""), "zarr-python z[:] = a"),
    ]
    def settled(run):
        # Every run writes a new output on a settled disk: the previous run's output removed
        # and its writes synced first, untimed, so that neither tslice nor the other pays for
        # the run before it (deleting a 1 GiB store waits on the disk where the file system
        # discards freed blocks, and a flush under way slows the next writes).
        for name in ("t.npy", "t2.npy", "p.npy"):
            if os.path.exists(o(name)):
                os.remove(o(name))
        for name in ("t.zarr", "p.zarr"):
            shutil.rmtree(o(name), ignore_errors=True)
        os.sync()
        time.sleep(0.5)
        return run()

    print(f"{'case':42} {'tslice ms':>10} {'other ms':>10} {'other/tslice':>12}  other; tslice peak RSS MiB")
    for name, command, other, other_name in rows:
        ours, theirs = [], []
        for _ in range(args.rounds):
            ours.append(settled(lambda: timed(command)))
            theirs.append(settled(other))
        a, b = statistics.median(ours) * 1000, statistics.median(theirs) * 1000
        # The fastest runs too: on a virtual machine a run that touches memory its host has not
        # backed lately (a large result held whole, as zarr-python holds it) can take twice as
        # long as the same run on memory touched lately, so the medians can mix two regimes.
        fastest = min(theirs) / min(ours)
        print(f"{name:42} {a:10.0f} {b:10.0f} {b / a:12.2f}  {other_name}; {peak_rss(command)}; "
              f"fastest runs {min(ours) * 1000:.0f} and {min(theirs) * 1000:.0f} ms, {fastest:.2f}", flush=True)
    for name in ("t.npy", "t2.npy", "p.npy"):
        if os.path.exists(o(name)):
            os.remove(o(name))
    for name in ("t.zarr", "p.zarr"):
        shutil.rmtree(o(name), ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
