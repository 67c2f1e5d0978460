#!/usr/bin/env python3
"""tslice against zarr-python on random Zarr v2 stores: shapes, dtypes, chunkings, compressors
(blosc with each inner codec and shuffle, zlib, gzip, zstd, none), C and F chunk order, both
dimension separators, fill values (NaN too) for missing chunks, arrays inside groups, and
random index expressions; results written as Zarr (random chunks and compressors, over an
existing store, or as an array of a group, found by its .zgroup without --format) and read back
by zarr-python and Dask, and a group's by xarray (through the group's consolidated metadata
where it has one), without warnings, with the mode the umask gives a new directory. The oracle is zarr-python
reading the whole array, then numpy indexing it (zarr-python refuses negative steps); tslice writes a .npy, or prints with --shape.
Corrupt stores check that tslice exits 1 with a message, never crashes."""

import os
import random
import stat
import subprocess
import sys
import threading

import numpy as np
import numcodecs
import warnings

with warnings.catch_warnings():
    # Dask's imports warn of deprecated importlib calls in some Debian releases: not ours.
    warnings.simplefilter("ignore")
    import dask.array  # noqa: F401
    import xarray
    # xarray finds its backends on first use, importing packages (numba) that warn the same way.
    xarray.backends.list_engines()
import zarr

import harness

FIXED_SEED = 33
EXPR_STEPS = ["", "", "1", "-1", "2", "-2", "3", "-5"]
WARNINGS_LOCK = threading.Lock()

DTYPES = ["<f4", ">f8", "<f2", "<i2", ">i4", "<u8", "|u1", "|i1", "|b1", "<c8", ">c16", "|S5", "<U3",
          [("a", "<i4"), ("b", ">f8")]]


def random_compressor(r):
    kind = r.choice(["none", "zlib", "gzip", "zstd", "blosc", "blosc"])
    if kind == "none":
        return None
    if kind == "zlib":
        return numcodecs.Zlib(level=r.randrange(1, 9))
    if kind == "gzip":
        return numcodecs.GZip(level=r.randrange(1, 9))
    if kind == "zstd":
        return numcodecs.Zstd(level=r.randrange(1, 9))
    return numcodecs.Blosc(cname=r.choice(["lz4", "zstd", "zlib", "blosclz", "lz4hc"]), clevel=r.randrange(1, 9),
                           shuffle=r.choice([0, 1, 2]))


def random_values(r, dtype, shape):
    dt = np.dtype(dtype)
    rng = np.random.default_rng(r.randrange(2**32))
    n = int(np.prod(shape))
    if dt.names:
        out = np.zeros(n, dtype=dt)
        out["a"] = rng.integers(-100, 100, n)
        out["b"] = rng.normal(size=n)
        return out.reshape(shape)
    if dt.kind == "b":
        return (rng.integers(0, 2, n) == 1).reshape(shape)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(max(info.min, -1000), min(info.max, 1000), n).astype(dt).reshape(shape)
    if dt.kind == "f":
        return rng.normal(size=n).astype(dt).reshape(shape)
    if dt.kind == "c":
        return (rng.normal(size=n) + 1j * rng.normal(size=n)).astype(dt).reshape(shape)
    if dt.kind == "S":
        return np.array([bytes(r.choice(b"abcxyz") for _ in range(r.randrange(0, 6))) for _ in range(n)],
                        dtype=dt).reshape(shape)
    return np.array(["".join(r.choice("abé€") for _ in range(r.randrange(0, 4))) for _ in range(n)],
                    dtype=dt).reshape(shape)


def random_fill(r, dtype):
    dt = np.dtype(dtype)
    if dt.names or dt.kind in "SU":
        return None if r.random() < 0.5 else (b"zz" if dt.kind == "S" else ("q" if dt.kind == "U" else None))
    if dt.kind == "f":
        return r.choice([0, 1.5, float("nan"), float("inf"), -float("inf"), None])
    if dt.kind == "c":
        return r.choice([0, 1 + 2j])
    if dt.kind == "b":
        return r.choice([True, False])
    return r.choice([0, 7, None])


def make_case(seed, index):
    r = random.Random(seed * 100003 + index)
    rank = r.choice([0, 1, 1, 2, 2, 3, 3, 4])
    shape = tuple(r.choice([0, 1, 2, 3, 5, 8, 13]) if r.random() < 0.1 else r.randrange(1, 14) for _ in range(rank))
    chunks = tuple(r.randrange(1, max(2, d + 3)) for d in shape)
    dtype = r.choice(DTYPES)
    return dict(shape=shape, chunks=chunks, dtype=dtype, compressor=random_compressor(r),
                order=r.choice("CF"), separator=r.choice("./"), fill=random_fill(r, dtype),
                group=r.choice([None, "a", "g/h/arr"]), missing=r.random() < 0.4,
                expr=harness.random_index_expr(r, shape, 8, EXPR_STEPS), data_seed=r.randrange(2**32), zarr_out=r.random() < 0.3)


def write_store(case, path):
    r = random.Random(case["data_seed"])
    root = zarr.open_group(path, mode="w") if case["group"] else None
    kwargs = dict(shape=case["shape"], chunks=case["chunks"] or True, dtype=case["dtype"],
                  compressor=case["compressor"], order=case["order"], fill_value=case["fill"],
                  dimension_separator=case["separator"])
    if root is not None:
        z = root.create_dataset(case["group"], **kwargs)
        if case["group"] != "a":
            root.create_dataset("other", shape=(2,), dtype="<i4")
    else:
        z = zarr.open_array(path, mode="w", **kwargs)
    values = random_values(r, case["dtype"], case["shape"])
    z[...] = values
    if case["missing"]:
        # Some chunks removed: tslice must give their fill value, as zarr-python does.
        folder = os.path.join(path, case["group"] or "")
        for dirpath, _, files in os.walk(folder):
            for name in files:
                if not name.startswith(".") and r.random() < 0.5:
                    os.remove(os.path.join(dirpath, name))
    return z


def check_case(tslice, case, directory):
    store = os.path.join(directory, "in.zarr")
    z = write_store(case, store)
    whole = z[...]
    if case["fill"] is None and case["missing"]:
        # zarr-python leaves a missing chunk of a null fill_value unset, tslice gives zeros:
        # compared where zarr-python's unset memory happens to be zeros is no test, so the
        # store is read back as tslice reads it only for the shape.
        run = subprocess.run([tslice, store, "--shape"] + (["-k", case["group"]] if case["group"] else []),
                             capture_output=True, text=True, timeout=60)
        return None if run.stdout.strip() == str(tuple(case["shape"])).replace(",)", ",)") else f"--shape: {run.stdout}"
    try:
        expected = whole[eval("np.index_exp" + case["expr"])] if case["expr"] != "..." else whole
    except IndexError:
        expected = None
    if expected is not None:
        # A scalar index gives a numpy scalar in native byte order; tslice keeps the stored one.
        expected = np.asarray(expected).astype(whole.dtype) if np.ndim(expected) == 0 else expected
    out = os.path.join(directory, "out.npy")
    args = [tslice, store, case["expr"], "-o", out]
    if case["group"]:
        args[2:2] = ["-k", case["group"]]
    run = subprocess.run(args, capture_output=True, text=True, timeout=60)
    if expected is None:
        if run.returncode != 2:
            return f"numpy refuses the index, tslice exit {run.returncode}: {run.stderr.strip()}"
        return None
    if run.returncode != 0:
        return f"exit {run.returncode}: {run.stderr.strip()}"
    got = np.load(out)
    if got.dtype != expected.dtype or got.shape != expected.shape:
        return f"got {got.dtype} {got.shape}, expected {expected.dtype} {expected.shape}"
    if got.tobytes() != np.ascontiguousarray(expected).tobytes():
        return f"values differ:\n{got}\nexpected\n{expected}"
    if case["zarr_out"] and not expected.dtype.names:
        return check_zarr_output(tslice, case, args, expected, directory)
    return None


def check_zarr_output(tslice, case, args, expected, directory):
    """The same result written as a Zarr store, read back by zarr-python and Dask, with no
    warning from either."""
    r = random.Random(case["data_seed"] + 1)
    out = os.path.join(directory, "out.zarr")
    in_group = r.random() < 0.3
    # Half the groups hold consolidated metadata (.zmetadata), which xarray reads in place of
    # the arrays' own: tslice must list the array it writes there.
    consolidated = in_group and r.random() < 0.5
    if in_group:
        group = os.path.join(directory, "group.zarr")
        os.makedirs(group, exist_ok=True)
        open(os.path.join(group, ".zgroup"), "w").write('{"zarr_format": 2}')
        out = os.path.join(group, "values")
        if consolidated:
            zarr.consolidate_metadata(group)
    extra = ["--compressor", r.choice(["zstd", "blosc", "zlib", "none"])]
    if expected.ndim and r.random() < 0.7:
        extra += ["--chunks", ",".join(str(r.randrange(1, max(2, d + 2))) for d in expected.shape)]
    # --astype converts chunk by chunk as the store is written (to types that hold the values
    # exactly: integers of at most 1000 and floats, widened).
    if expected.dtype.kind in "iuf" and expected.dtype.itemsize <= 8 and r.random() < 0.3:
        target = "<f8" if expected.dtype.kind == "f" else r.choice(["<f8", "<f4", ">i8"])
        extra += ["--astype", target]
        expected = expected.astype(target)
    if os.path.exists(out) or r.random() < 0.3:
        os.makedirs(os.path.join(out, "old"), exist_ok=True)
        open(os.path.join(out, ".zgroup"), "w").write('{"zarr_format": 2}')
    run = subprocess.run(args[:-1] + [out] + extra, capture_output=True, text=True, timeout=60)
    if run.returncode != 0:
        return f"zarr output {extra}: exit {run.returncode}: {run.stderr.strip()}"
    if any(name.startswith(".out.zarr") or name.startswith(".values") for name in os.listdir(os.path.dirname(out))):
        return "a temporary store was left beside the output"
    umask = os.umask(0)
    os.umask(umask)
    if stat.S_IMODE(os.stat(out).st_mode) != 0o777 & ~umask:
        return f"the store's mode is {oct(stat.S_IMODE(os.stat(out).st_mode))}, not {oct(0o777 & ~umask)} as the umask gives"
    # The warnings filter is the process's: one check at a time records them.
    with WARNINGS_LOCK, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        z = zarr.open_array(out, mode="r")
        back = z[...]
        lazy = dask.array.from_zarr(out).compute()
        # xarray opens groups; numbers and booleans are what its variables hold as they are.
        dataset = None
        if in_group and expected.dtype.kind in "biufc":
            dataset = xarray.open_zarr(os.path.dirname(out), consolidated=consolidated)["values"].values
        if consolidated:
            listed = zarr.open_consolidated(os.path.dirname(out), mode="r")["values"][...]
            if listed.shape != expected.shape or listed.tobytes() != np.ascontiguousarray(expected).tobytes():
                return f"zarr output {extra} in a consolidated group: {listed.dtype} {listed.shape} read through " \
                       f".zmetadata differs from {expected.dtype} {expected.shape}"
    caught = [w for w in caught if not issubclass(w.category, ResourceWarning)]
    if caught:
        return f"reading the zarr output warns: {caught[0].message}"
    if dataset is not None:
        dataset = np.asarray(dataset)
        same = dataset.shape == expected.shape and dataset.dtype.newbyteorder("=") == expected.dtype.newbyteorder("=") \
            and np.array_equal(dataset, expected, equal_nan=expected.dtype.kind in "fc")
        if not same:
            return f"zarr output {extra} in a group, read by xarray: {dataset.dtype} {dataset.shape} differs " \
                   f"from {expected.dtype} {expected.shape}"
    for name, value in (("zarr-python", back), ("dask", lazy)):
        # A 0-d result computes to a numpy scalar, in native byte order.
        value = np.asarray(value).astype(expected.dtype) if np.ndim(value) == 0 else np.asarray(value)
        if value.dtype != expected.dtype or value.shape != expected.shape or \
                value.tobytes() != np.ascontiguousarray(expected).tobytes():
            return f"zarr output {extra} read by {name}: {value.dtype} {value.shape} differs from {expected.dtype} {expected.shape}"
    return None


def corrupt_case(tslice, seed, directory):
    """A damaged store: a chunk cut short or replaced by garbage, a shape that lies, an
    unknown filter. tslice must exit 1 with one message line, or (a lie it cannot see) 0."""
    r = random.Random(seed)
    store = os.path.join(directory, "bad.zarr")
    comp = random_compressor(r)
    z = zarr.open_array(store, mode="w", shape=(20, 6), chunks=(5, 6), dtype="<i8", compressor=comp)
    z[...] = np.arange(120).reshape(20, 6)
    kind = r.choice(["cut", "garbage", "shape", "filter", "json"])
    chunk = os.path.join(store, "1.0")
    meta = os.path.join(store, ".zarray")
    if kind == "cut":
        data = open(chunk, "rb").read()
        with open(chunk, "wb") as f:
            f.write(data[: r.randrange(0, len(data))])
    elif kind == "garbage":
        with open(chunk, "wb") as f:
            f.write(bytes(r.randrange(256) for _ in range(r.randrange(1, 300))))
    elif kind == "shape":
        text = open(meta).read().replace("5,", "7,", 1)
        open(meta, "w").write(text)
    elif kind == "filter":
        text = open(meta).read().replace('"filters": null', '"filters": [{"id": "delta", "dtype": "<i8"}]')
        open(meta, "w").write(text)
    else:
        with open(meta) as f:
            text = f.read()
        with open(meta, "w") as f:
            f.write(text[: r.randrange(0, 40)])
    run = subprocess.run([tslice, store, "[3:9]", "-o", os.path.join(directory, "o.npy")], capture_output=True,
                         text=True, timeout=60)
    if run.returncode not in (0, 1) or (run.returncode == 1 and not run.stderr.startswith("tslice: error: ")):
        return f"corrupt store ({kind}): exit {run.returncode}: {run.stderr.strip()[-300:]}"
    if kind == "filter" and "delta" not in run.stderr:
        return f"a filter is not named: {run.stderr.strip()}"
    return None


def main():
    tslice, cases, seeds = harness.tslice_cases_seed_args(__doc__, 300, FIXED_SEED)

    def check(seed, index, directory):
        if index % 10 == 9:
            return corrupt_case(tslice, seed * 1000 + index, directory)
        return check_case(tslice, make_case(seed, index), directory)

    return harness.run_cases(seeds, cases, check, "tslice-zarr-", describe=make_case, workers=2)


if __name__ == "__main__":
    sys.exit(main())
