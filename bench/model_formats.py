#!/usr/bin/python3
"""torch.save and GGUF inputs against the .npy of the same bytes: whole runs of build/tslice.

    /usr/bin/python3 bench/model_formats.py [--tslice build/tslice] [--dir DIR] [--mib 256] [--reps 9]

Writes a float32 array of shape (MIB, 1024, 256) (MIB MiB) three ways into DIR (default build/bench-data/model-formats): np.save, torch.save({"w": ...})
and a GGUF F32 tensor "w" (tests/differential/gguf_writer.py), plus two sparse files whose
headers describe a 4 GiB GGUF tensor and a 3 GiB torch storage. Prints, as medians of --reps
runs with the three formats interleaved (warm page cache, output to /dev/shm):

  - `tslice IN [-k w] EXPR -o OUT.npy` for a few expressions, and each format's time over
    the .npy's (the aim: at most 1.1x);
  - `tslice --list` of each file, whole process (start-up included).

Needs torch (python3-torch) for the torch rows; without it they are left out.
"""
import argparse
import io
import os
import shutil
import statistics
import struct
import subprocess
import sys
import time
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "differential"))
import gguf_writer as gw  # noqa: E402

EXPRESSIONS = ["1:-1", ":, ::2, 1::4", "..., 5", "::-1, :, ::-1"]


def sparse_torch(path, storage_bytes):
    """A torch.save-shaped zip (zip64) whose one float32 storage of `storage_bytes` is a hole."""
    import torch
    buffer = io.BytesIO()
    torch.save({"w": torch.zeros(4)}, buffer)
    archive = zipfile.ZipFile(buffer)
    prefix = archive.namelist()[0].split("/")[0]
    pickle = archive.read(f"{prefix}/data.pkl")
    # the size tuple (4,) becomes (storage_bytes / 4,)
    pickle = pickle.replace(b"K\x04\x85", b"J" + struct.pack("<i", storage_bytes // 4) + b"\x85", 1)
    entries = []
    with open(path, "wb") as f:
        def local(name, size, data=None):
            offset = f.tell()
            extra = struct.pack("<HHQQ", 1, 16, size, size)
            f.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, 0, 0, 0, 0, 0xFFFFFFFF, 0xFFFFFFFF, len(name),
                                len(extra)) + name + extra)
            if data is None:
                f.seek(size, 1)
            else:
                f.write(data)
            entries.append((name, size, offset))
        local(b"archive/data.pkl", len(pickle), pickle)
        local(b"archive/data/0", storage_bytes)
        directory = f.tell()
        for name, size, offset in entries:
            extra = struct.pack("<HHQQQ", 1, 24, size, size, offset)
            f.write(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, 0, 0, 0, 0, 0xFFFFFFFF, 0xFFFFFFFF,
                                len(name), len(extra), 0, 0, 0, 0, 0xFFFFFFFF) + name + extra)
        end = f.tell()
        f.write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, len(entries), len(entries), end - directory,
                            directory))
        f.write(struct.pack("<IIQI", 0x07064B50, 0, end, 1))
        f.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0))


def timed(args):
    start = time.perf_counter()
    done = subprocess.run(args, capture_output=True)
    elapsed = (time.perf_counter() - start) * 1000
    if done.returncode != 0:
        sys.exit(f"{' '.join(args)}: exit {done.returncode}: {done.stderr.decode()}")
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    root = os.path.dirname(HERE)
    parser.add_argument("--tslice", default=os.path.join(root, "build", "tslice"))
    parser.add_argument("--dir", default=os.path.join(root, "build", "bench-data", "model-formats"))
    parser.add_argument("--mib", type=int, default=256)
    parser.add_argument("--reps", type=int, default=9)
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    try:
        import torch
    except ImportError:
        torch = None
    shape = (args.mib, 1024, 256)
    files = {"npy": os.path.join(args.dir, f"a{args.mib}.npy"), "gguf": os.path.join(args.dir, f"a{args.mib}.gguf")}
    if torch is not None:
        files["torch"] = os.path.join(args.dir, f"a{args.mib}.pt")
    if not all(os.path.exists(p) for p in files.values()):
        a = np.random.default_rng(0).standard_normal(shape, dtype=np.float32)
        np.save(files["npy"], a)
        gw.write(files["gguf"], [("general.architecture", gw.STRING, "bench")], [("w", "F32", list(shape), a.tobytes())])
        if torch is not None:
            torch.save({"w": torch.from_numpy(a)}, files["torch"])
        # Each file copied over itself the same way: how a file was written decides how the page
        # cache holds it (large folios or single pages), and mapped reads of it differ by up to
        # 1.5x for that alone (torch.save's small writes against np.save's large ones).
        for path in files.values():
            shutil.copyfile(path, path + ".tmp")
            os.replace(path + ".tmp", path)
    big = {"gguf 4 GiB (sparse)": os.path.join(args.dir, "big.gguf")}
    if not os.path.exists(big["gguf 4 GiB (sparse)"]):
        gw.write(big["gguf 4 GiB (sparse)"], [("general.architecture", gw.STRING, "bench")], [("w", "F32", [1 << 20, 1024], b"")])
        os.truncate(big["gguf 4 GiB (sparse)"], os.path.getsize(big["gguf 4 GiB (sparse)"]) + (4 << 30))
    if torch is not None:
        big["torch 3 GiB (sparse)"] = os.path.join(args.dir, "big.pt")
        if not os.path.exists(big["torch 3 GiB (sparse)"]):
            sparse_torch(big["torch 3 GiB (sparse)"], 3 << 30)

    out = "/dev/shm/tslice-model-formats.npy" if os.path.isdir("/dev/shm") else os.path.join(args.dir, "out.npy")
    print(f"slice of float32 {shape} ({args.mib} MiB), ms, medians of {args.reps}, formats interleaved:")
    for expr in EXPRESSIONS:
        times = {name: [] for name in files}
        for _ in range(args.reps):
            for name, path in files.items():
                times[name].append(timed([args.tslice, path] + ([] if name == "npy" else ["-k", "w"]) + [expr, "-o", out]))
        m = {name: statistics.median(t) for name, t in times.items()}
        row = f"  [{expr}]".ljust(20) + f"npy {m['npy']:8.1f}"
        for name in files:
            if name != "npy":
                row += f"   {name} {m[name]:8.1f} ({m[name] / m['npy']:.2f}x)"
        print(row)
    if os.path.exists(out):
        os.remove(out)
    print(f"--list, whole process, ms, medians of {args.reps * 2}:")
    for name, path in {**files, **big}.items():
        t = statistics.median(timed([args.tslice, "--list", path]) for _ in range(args.reps * 2))
        print(f"  {name:22s} {os.path.getsize(path) / 2**30:6.2f} GiB  {t:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
