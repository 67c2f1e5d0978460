#!/usr/bin/env python3
"""tslice against h5py on random HDF5 files: datasets in nested groups, contiguous or chunked,
with deflate, shuffle and fletcher32; numeric types in both byte orders, h5py's bool enum,
complex (h5py's compound of r and i), fixed-length strings, compound types with padding and
array members; scalar and empty datasets; random index expressions. The oracle is h5py reading
the whole dataset, then numpy indexing it. Damaged files (cut short, bytes overwritten) check
that tslice exits 0 or 1 with a message, never crashes or hangs. Chunks tslice decodes itself
(gzip, with or without shuffle) are checked beside chunks never written, a chunk stored with
its deflate skipped, and chunks that do not decode."""

import os
import random
import re
import subprocess
import sys

import h5py
import numpy as np

import harness

FIXED_SEED = 5
EXPR_STEPS = ["", "", "1", "-1", "2", "-2", "3", "-4"]

DTYPES = ["<f4", ">f4", "<f8", ">f8", "<f2", "<i1", "|u1", "<i2", ">i2", "<i4", ">u4", "<i8", ">u8", "|b1",
          "<c8", ">c16", "|S4",
          np.dtype([("a", "<i4"), ("b", ">f8")]),
          np.dtype({"names": ["x", "y"], "formats": ["<u2", ("<f4", (2,))], "offsets": [0, 8], "itemsize": 24})]


def random_values(r, dtype, shape):
    dt = np.dtype(dtype)
    rng = np.random.default_rng(r.randrange(2**32))
    n = int(np.prod(shape))
    if dt.names:
        out = np.zeros(n, dtype=dt)
        for name in dt.names:
            out[name] = rng.integers(0, 100, out[name].shape)
        return out.reshape(shape)
    if dt.kind == "b":
        return (rng.integers(0, 2, n) == 1).reshape(shape)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(max(info.min, -10**6), min(info.max, 10**6), n).astype(dt).reshape(shape)
    if dt.kind == "f":
        return rng.normal(size=n).astype(dt).reshape(shape)
    if dt.kind == "c":
        return (rng.normal(size=n) + 1j * rng.normal(size=n)).astype(dt).reshape(shape)
    return np.array([bytes(r.choice(b"abcxyz") for _ in range(r.randrange(0, 5))) for _ in range(n)],
                    dtype=dt).reshape(shape)


def make_case(seed, index):
    r = random.Random(seed * 100019 + index)
    rank = r.choice([0, 1, 1, 2, 2, 3, 3, 4])
    shape = tuple(0 if r.random() < 0.05 else r.randrange(1, 15) for _ in range(rank))
    layout = r.choice(["contiguous", "chunked", "gzip", "gzip+shuffle", "fletcher32", "gzip+shuffle+fletcher32",
                       "shuffle", "compact"]) if rank else "contiguous"
    chunks = tuple(r.randrange(1, d + 2) for d in shape) if shape else None
    return dict(shape=shape, dtype=r.choice(DTYPES), layout=layout, chunks=chunks,
                path=r.choice(["d", "g/d", "g/h/deep/d"]), expr=harness.random_index_expr(r, shape, 9, EXPR_STEPS), data_seed=r.randrange(2**32))


def write_file(case, path):
    r = random.Random(case["data_seed"])
    values = random_values(r, case["dtype"], case["shape"])
    layout = case["layout"]
    kwargs = {}
    if layout != "contiguous" and 0 not in case["shape"] and case["shape"]:
        if layout == "compact":
            if values.nbytes < 30000:
                space = h5py.h5s.create_simple(case["shape"])
                dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
                dcpl.set_layout(h5py.h5d.COMPACT)
                with h5py.File(path, "w") as f:
                    f.require_group(os.path.dirname(case["path"]) or "/")
                    tid = h5py.h5t.py_create(values.dtype, logical=True)
                    dsid = h5py.h5d.create(f.id, case["path"].encode(), tid, space, dcpl=dcpl)
                    dsid.write(h5py.h5s.ALL, h5py.h5s.ALL, np.ascontiguousarray(values))
                    f["other"] = np.arange(3)
                return values
        else:
            kwargs["chunks"] = tuple(min(c, d) for c, d in zip(case["chunks"], case["shape"]))
            if "gzip" in layout:
                kwargs["compression"] = "gzip"
                kwargs["compression_opts"] = r.randrange(1, 9)
            if "shuffle" in layout:
                kwargs["shuffle"] = True
            if "fletcher32" in layout:
                kwargs["fletcher32"] = True
    with h5py.File(path, "w") as f:
        f.create_dataset(case["path"], data=values, **kwargs)
        f["other"] = np.arange(3)
    return values


def check_case(tslice, case, directory):
    path = os.path.join(directory, "in.h5")
    write_file(case, path)
    with h5py.File(path, "r") as f:
        dataset = f[case["path"]]
        # A scalar dataset reads as a numpy scalar in native byte order: kept as stored here.
        whole = np.asarray(dataset[()]).astype(dataset.dtype)
    try:
        expected = whole[eval("np.index_exp" + case["expr"])] if case["expr"] != "..." else whole
        expected = np.asarray(expected).astype(whole.dtype) if np.ndim(expected) == 0 else expected
    except IndexError:
        expected = None
    out = os.path.join(directory, "out.npy")
    key = case["path"] if random.Random(case["data_seed"]).random() < 0.5 else "/" + case["path"]
    run = subprocess.run([tslice, path, "-k", key, case["expr"], "-o", out], capture_output=True, text=True,
                         timeout=60)
    if expected is None:
        return None if run.returncode == 2 else f"numpy refuses the index, tslice exit {run.returncode}: {run.stderr}"
    if run.returncode != 0:
        return f"exit {run.returncode}: {run.stderr.strip()}"
    got = np.load(out)
    if got.dtype != expected.dtype or got.shape != expected.shape:
        return f"got {got.dtype} {got.shape}, expected {expected.dtype} {expected.shape}"
    if got.dtype.names:
        # A compound's padding bytes are whatever HDF5 stored; its fields must match.
        same = all(got[name].tobytes() == np.ascontiguousarray(expected[name]).tobytes() for name in got.dtype.names)
    else:
        same = got.tobytes() == np.ascontiguousarray(expected).tobytes()
    if not same:
        return f"values differ:\n{got}\nexpected\n{expected}"
    listed = subprocess.run([tslice, path, "--list"], capture_output=True, text=True, timeout=60)
    line = next((l for l in listed.stdout.splitlines() if l.split()[0] == case["path"]), None)
    if line is None or not line.rstrip().endswith(str(tuple(whole.shape))):
        return f"--list does not show {case['path']} {whole.shape}:\n{listed.stdout}"
    return None


def frames(report, after):
    """The frames of the stack that follows the line starting with `after` in a sanitizer's
    report, as text."""
    lines = report.splitlines()
    start = next((i for i, line in enumerate(lines) if line.lstrip().startswith(after)), None)
    if start is None:
        return []
    stack = []
    for line in lines[start + 1:]:
        if not line.lstrip().startswith("#"):
            break
        stack.append(line)
    return stack


def hdf5_reads_past_its_own_buffer(report):
    """Whether AddressSanitizer's report is of a read by the HDF5 library past a buffer the HDF5
    library allocated: libhdf5 1.10.8 (Debian 12) does so on some damaged chunks (H5Dread ->
    H5D__select_read -> H5VM_memcpyvv reading from an H5MM_realloc'd buffer). Neither end
    is tslice's memory, so the case says nothing of tslice; any report that involves tslice's
    own buffers, or a write, is not this."""
    if "ERROR: AddressSanitizer: heap-buffer-overflow" not in report or "READ of size" not in report:
        return False

    def first_outside_sanitizer(stack):
        return next((f for f in stack if "/libsanitizer/" not in f and "__interceptor_" not in f
                     and "__asan_" not in f), "")

    access = frames(report, "READ of size")
    allocation = frames(report, "allocated by thread")
    return "libhdf5" in first_outside_sanitizer(access) and "libhdf5" in first_outside_sanitizer(allocation)


def damaged_case(tslice, seed, directory):
    r = random.Random(seed)
    path = os.path.join(directory, "bad.h5")
    with h5py.File(path, "w") as f:
        f.create_dataset("g/x", data=np.arange(4000, dtype="<f8").reshape(40, 100), chunks=(8, 25),
                         compression=r.choice([None, "gzip"]), fletcher32=r.random() < 0.5)
        f["y"] = np.arange(10)
    data = bytearray(open(path, "rb").read())
    if r.random() < 0.5:
        data = data[: r.randrange(0, len(data))]
    else:
        for _ in range(r.randrange(1, 20)):
            data[r.randrange(len(data))] = r.randrange(256)
    open(path, "wb").write(bytes(data))
    # The HDF5 library asks malloc for whatever size a damaged header says, and handles the null
    # it gets back for an impossible one; AddressSanitizer would stop the process there instead.
    # (C++'s operator new, tslice's own allocations, still stops it.)
    env = dict(os.environ)
    if "ASAN_OPTIONS" in env:
        env["ASAN_OPTIONS"] += ":allocator_may_return_null=1"
    # The timeout tells a hang from a slow read: a damaged shape can make the slice huge and its
    # chunks mostly unwritten, which the library fills one chunk at a time (seed 938480625019:
    # (40, 10092644) in chunks of (8, 25), 20 of them written; the slice, 161 MB of fill values
    # over 1.6 million chunks, took 54 s alone on the development VM and 91 s beside a build).
    for args in (["--list"], ["-k", "g/x", "[3:30:2, ::-7]", "-o", os.path.join(directory, "o.npy")]):
        run = subprocess.run([tslice, path] + args, capture_output=True, text=True, timeout=240, env=env)
        if hdf5_reads_past_its_own_buffer(run.stderr):
            return harness.Skipped(f"damaged file: {args}: the HDF5 library read past a buffer of its own "
                                   "(AddressSanitizer), a fault of the library, not of tslice")
        if run.returncode not in (0, 1, 2) or (run.returncode == 1 and "tslice: error: " not in run.stderr):
            return f"damaged file: {args}: exit {run.returncode}: {run.stderr.strip()[-400:]}"
        # (The sanitizer's own note of the allocation it refused is not tslice's message.)
        message = [line for line in run.stderr.strip().splitlines()
                   if not re.match(r"==\d+==WARNING: AddressSanitizer failed to allocate", line)]
        if run.returncode == 1 and len(message) != 1:
            return f"damaged file: more than one line of message: {run.stderr[-400:]}"
    return None


def stored_chunks_case(tslice, directory):
    """Chunks that tslice decodes itself (deflate with or without shuffle) next to the ones it
    leaves to the library: chunks never written (the fill value), a chunk stored with its
    deflate skipped (filter mask), and chunks that do not decode."""
    import zlib
    path = os.path.join(directory, "chunks.h5")
    values = np.arange(40 * 30, dtype="<f4").reshape(40, 30)
    with h5py.File(path, "w") as f:
        d = f.create_dataset("x", shape=(40, 30), dtype="<f4", chunks=(8, 7), compression="gzip", shuffle=True,
                             fillvalue=7.5)
        d[:16] = values[:16]
        # Shuffle is filter 0, deflate filter 1: this chunk skips deflate (mask bit 1).
        block = np.ascontiguousarray(values[8:16, 7:14])
        d.id.write_direct_chunk((8, 7), block.view("u1").reshape(-1, 4).T.tobytes(), filter_mask=0b10)
        plain = f.create_dataset("y", data=values, chunks=(8, 7), compression="gzip")
        del plain
    with h5py.File(path, "r") as f:
        whole = f["x"][()]
    for expr in ("[...]", "[3:37:2, ::-3]", "[9, 8:13]"):
        out = os.path.join(directory, "o.npy")
        run = subprocess.run([tslice, path, "-k", "x", expr, "-o", out], capture_output=True, text=True, timeout=60)
        if run.returncode != 0:
            return f"stored chunks {expr}: exit {run.returncode}: {run.stderr.strip()}"
        expected = whole[eval("np.index_exp" + expr)]
        if np.load(out).tobytes() != np.ascontiguousarray(expected).tobytes():
            return f"stored chunks {expr}: values differ from h5py's"
    # Chunks that are not what their dataset says: not zlib, and zlib of too few bytes.
    for offset, stored, said in (((16, 0), b"not a zlib stream" * 4, "is not a zlib stream"),
                                 ((24, 7), zlib.compress(bytes(100)), "holds 100 bytes, not the 224")):
        with h5py.File(path, "a") as f:
            f["y"].id.write_direct_chunk(offset, stored)
        run = subprocess.run([tslice, path, "-k", "y", "[...]", "-o", os.path.join(directory, "o.npy")],
                             capture_output=True, text=True, timeout=60)
        where = f"its chunk at ({offset[0]}, {offset[1]})"
        if run.returncode != 1 or where not in run.stderr or said not in run.stderr:
            return f"damaged chunk {offset}: exit {run.returncode}: {run.stderr.strip()}"
        with h5py.File(path, "a") as f:
            f["y"][offset[0]:offset[0] + 8, offset[1]:offset[1] + 7] = values[offset[0]:offset[0] + 8,
                                                                              offset[1]:offset[1] + 7]
    return None


def main():
    tslice, cases, seeds = harness.tslice_cases_seed_args(__doc__, 300, FIXED_SEED)

    def check(seed, index, directory):
        if index % 10 == 9:
            return damaged_case(tslice, seed * 1000 + index, directory)
        return check_case(tslice, make_case(seed, index), directory)

    # Damaged files that found something, checked in every run (damaged_case's seeds):
    found = [
        5 * 1000 + 559,  # a dimension of 67553994410557480: its bytes overflowed 64 bits
        630718478,  # the library asked malloc for 0x910000000058 bytes (the sanitizer stopped it)
        849308183,  # a shape of (40, 3707764836): its 800 GB box was spooled past the disk's space
    ]
    known = harness.run_cases([0], len(found), lambda _, index, directory: damaged_case(tslice, found[index], directory),
                              "tslice-hdf5-")
    stored = harness.run_cases([0], 1, lambda _, index, directory: stored_chunks_case(tslice, directory), "tslice-hdf5-")
    return harness.run_cases(seeds, cases, check, "tslice-hdf5-", describe=make_case, workers=2) or known or stored


if __name__ == "__main__":
    sys.exit(main())
