#!/usr/bin/python3
"""Differential test: tslice's gather op against an independent Gather-8 reference.

Every case makes a random array (ranks 0-4, zero-size axes sometimes, many dtypes and both
byte orders, C or Fortran order) and a random OpenVINO Gather-8 spec: axis and batch_dims
negative or not, indices inline (nested lists, or a scalar) or from a .npy file of any
integer dtype (big-endian too, C or Fortran order), some indices out of range (zeros in
the output).  It runs

    tslice IN.npy --op '{"op": "gather", "indices": ..., "axis": A, "batch_dims": B}' -o OUT.npy

and compares shape, dtype and bytes with tests/reference/ov_gather.py (loops written from
the seed text, not numpy.take).  About 15% of the specs are invalid (axis or batch_dims out
of range, batch_dims > axis, unequal batch dimensions, non-integer indices files, 0-d data):
tslice must exit 2 naming the field (`op.axis`, `ops[0].batch_dims`, ...) on stderr and
write nothing; an indices file that does not exist must give exit 1.

    /usr/bin/python3 tests/differential/gather_differential.py --tslice build/tslice --cases 2000

Half of the cases use the fixed seed and half a fresh one; both are printed first
(`seeds: fixed X, fresh Y`).  `--seed N` uses N for every case; `--only K` runs case K
alone (`--seed S --only K` replays one).  The last line is `N passed, M failed`; the exit
status is 1 when anything failed.
"""

import collections
import io
import json
import os
import random
import shlex
import subprocess
import sys
import tempfile

import numpy as np

import harness

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
import ov_gather  # noqa: E402

FIXED_SEED = 3003
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

DTYPES = [
    np.dtype("i1"), np.dtype("<u2"), np.dtype("<i4"), np.dtype(">i4"), np.dtype("<i8"), np.dtype("<f2"),
    np.dtype("<f4"), np.dtype(">f8"), np.dtype("<c8"), np.dtype("?"), np.dtype("S3"), np.dtype("<U2"),
    np.dtype("V3"), np.dtype([("a", "<i2"), ("b", ">f8")]), np.dtype("<c16"), np.dtype("u1"),
]

INDEX_DTYPES = ["|i1", "|u1", "<i2", ">i2", "<u2", ">u2", "<i4", ">i4", "<u4", ">u4", "<i8", ">i8", "<u8", ">u8"]

INVALID_MODES = ["axis_oob", "batch_dims_oob", "batch_dims_gt_axis", "batch_mismatch", "float_file",
                 "bool_file", "rank0"]


def random_array(r, shape, dtype):
    nrng = np.random.default_rng(r.getrandbits(64))
    size = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if dtype.kind == "b":
        arr = nrng.integers(0, 2, size=size).astype(bool)
    elif dtype.kind == "U":
        codes = nrng.integers(ord("a"), ord("z") + 1, size=size * (dtype.itemsize // 4)).astype(
            dtype.byteorder.replace("=", "<").replace("|", "<") + "u4")
        arr = codes.view(dtype)
    else:
        raw = nrng.integers(1, 256, size=size * dtype.itemsize, dtype=np.uint8).tobytes()  # never all-zero
        arr = np.frombuffer(raw, dtype=dtype).copy()
    return arr.reshape(shape)


def index_range(dtype_str):
    dt = np.dtype(dtype_str)
    info = np.iinfo(dt)
    return int(info.min), int(info.max)


def random_index(r, dim, lo=INT64_MIN, hi=INT64_MAX, oor_rate=0.12):
    """An index for an axis of `dim`, representable in [lo, hi]; sometimes out of range."""
    for _ in range(20):
        if dim == 0 or r.random() < oor_rate:
            v = r.choice([dim, dim + 1, dim + r.randint(0, 50), -dim - 1, -dim - r.randint(1, 50),
                          INT64_MAX, INT64_MIN, hi, lo])
        else:
            v = r.randint(-dim, dim - 1)
        if lo <= v <= hi:
            return v
    return max(lo, min(hi, dim))  # out of range (or dim itself) and representable


def gen_case(seed, index):
    """All random choices of one case, from (seed, index) alone."""
    r = random.Random(f"gather:{seed}:{index}")
    x = r.random()
    if x < 0.84:
        mode = "valid"
    elif x < 0.99:
        mode = r.choice(INVALID_MODES)
    else:
        mode = "missing_file"
    large = mode == "valid" and r.random() < 0.015
    dtype = r.choice(DTYPES)

    if mode == "rank0":
        rank = 0
    elif large:
        rank = r.choice([2, 3])
    else:
        rank = r.choices([1, 2, 3, 4], weights=[25, 32, 26, 17])[0]
    if large:
        # 1-3 MB of data, gathered along an outer axis into an output of a few MB (the copy is
        # split over threads); the inner blocks are long contiguous runs
        lead = [r.randint(2, 4) for _ in range(rank - 1)]
        inner = max(1, r.randint(1 << 20, 3 << 20) // dtype.itemsize // int(np.prod(lead)))
        shape = lead + [inner]
    else:
        shape = [0 if r.random() < 0.07 else r.randint(1, 5) for _ in range(rank)]
    shape = tuple(shape)
    fortran = rank >= 2 and r.random() < 0.25

    # axis and batch_dims (normalised), then the indices' shape
    axis = r.randint(0, rank - (2 if large else 1)) if rank else 0
    b = r.randint(0, axis) if rank else 0
    if r.random() < 0.5:
        b = 0
    extra = r.choices([0, 1, 2, 3], weights=[20, 40, 28, 12])[0]
    if large:
        extra = r.randint(1, 2)
    indices_shape = list(shape[:b]) + [0 if r.random() < 0.05 else r.randint(1, 4) for _ in range(extra)]

    if mode == "batch_dims_gt_axis":
        # b in (axis, indices rank]: the indices need more dimensions than axis
        while len(indices_shape) <= axis:
            indices_shape.append(r.randint(1, 3))
        b = r.randint(axis + 1, len(indices_shape))
    if mode == "batch_mismatch":
        if rank < 2:
            shape = shape + (r.randint(1, 4),)
            rank = len(shape)
        axis = r.randint(1, rank - 1)
        b = r.randint(1, axis)
        indices_shape = list(shape[:b]) + [r.randint(1, 3) for _ in range(r.randint(0, 2))]
        k = r.randrange(b)
        indices_shape[k] = shape[k] + r.randint(1, 3) if r.random() < 0.7 or shape[k] == 0 else 0
    indices_shape = tuple(indices_shape)

    # keep the output small (the reference is loops), except for the large cases
    out_count = int(np.prod(shape[:axis] + indices_shape[b:] + shape[axis + 1:], dtype=np.int64)) if rank else 1
    while not large and out_count > 3000 and indices_shape[b:]:
        indices_shape = indices_shape[:-1]
        m = len(indices_shape)
        out_count = int(np.prod(shape[:axis] + indices_shape[b:] + shape[axis + 1:], dtype=np.int64))

    # representation of the indices; nested JSON lists end at an empty list, so inline
    # indices of shape (0, 3) are [] of shape (0,)
    source = "inline" if r.random() < 0.6 else "file"
    if mode in ("float_file", "bool_file", "missing_file"):
        source = "file"
    if source == "inline" and 0 in indices_shape:
        indices_shape = indices_shape[:indices_shape.index(0) + 1]
    m = len(indices_shape)
    index_dtype = r.choice(INDEX_DTYPES) if source == "file" else None
    lo, hi = index_range(index_dtype) if index_dtype else (INT64_MIN, INT64_MAX)
    dim = shape[axis] if rank else 0
    count = int(np.prod(indices_shape, dtype=np.int64)) if indices_shape else 1
    values = [random_index(r, dim, lo, hi) for _ in range(count)]
    index_fortran = source == "file" and m >= 2 and r.random() < 0.3
    out_of_range = any(not -dim <= v < dim for v in values)

    # how axis and batch_dims are written
    spec_axis = axis - rank if rank and r.random() < 0.4 else axis
    spec_b = b - m if 0 < b < m and r.random() < 0.3 else b
    if mode == "axis_oob":
        spec_axis = r.choice([rank + r.randint(0, 3), -rank - 1 - r.randint(0, 3), INT64_MAX, INT64_MIN])
    elif mode == "batch_dims_oob":
        spec_b = r.choice([m + 1 + r.randint(0, 3), -m - 1 - r.randint(0, 3)])
    elif mode == "rank0":
        spec_axis = r.choice([0, -1, 1])
    omit_batch_dims = spec_b == 0 and r.random() < 0.3

    return dict(seed=seed, index=index, mode=mode, large=large, shape=shape, dtype=dtype, fortran=fortran,
                axis=spec_axis, batch_dims=spec_b, omit_batch_dims=omit_batch_dims, indices_shape=indices_shape,
                values=values, out_of_range=out_of_range, source=source, index_dtype=index_dtype, index_fortran=index_fortran,
                op_name=r.choice(["gather", "gather", "Gather", "GATHER"]), as_list=r.random() < 0.3,
                threads=r.choice([2, 3, 4] if large else [None, None, 1, 2]),
                shape_check=r.random() < 0.1, array_seed=r.getrandbits(64))


def build_spec(case, indices_file):
    op = {"op": case["op_name"]}
    if case["source"] == "file":
        op["indices"] = indices_file
    else:
        op["indices"] = harness.nested(case["values"], case["indices_shape"])
    op["axis"] = case["axis"]
    if not case["omit_batch_dims"]:
        op["batch_dims"] = case["batch_dims"]
    return [op] if case["as_list"] else op


def fmt_case(case):
    return (f"seed {case['seed']} case {case['index']} (replay: --seed {case['seed']} --only {case['index']})\n"
            f"    mode {case['mode']}; data shape {case['shape']}, dtype {case['dtype'].str}, "
            f"{'Fortran' if case['fortran'] else 'C'} order\n"
            f"    indices shape {case['indices_shape']} from {case['source']}"
            + (f" ({case['index_dtype']}{', Fortran' if case['index_fortran'] else ''})" if case['index_dtype'] else "")
            + f"; axis {case['axis']}, batch_dims {case['batch_dims']}"
            + (" (omitted)" if case["omit_batch_dims"] else ""))


def run(argv):
    return subprocess.run(argv, capture_output=True, timeout=60)


def check_output(data, expected):
    probs = []
    try:
        got = np.load(io.BytesIO(data), allow_pickle=False)
    except Exception as e:  # noqa: BLE001
        return [f"np.load failed: {e!r}"]
    if got.dtype != expected.dtype or got.dtype.str != expected.dtype.str or got.dtype.descr != expected.dtype.descr:
        probs.append(f"dtype {got.dtype.str}, expected {expected.dtype.str}")
    if got.shape != expected.shape:
        probs.append(f"shape {got.shape}, expected {expected.shape}")
    elif got.tobytes() != expected.tobytes():
        gb, eb = got.tobytes(), expected.tobytes()
        common = min(len(gb), len(eb))
        first = next((i for i in range(common) if gb[i] != eb[i]), common)
        probs.append(f"bytes differ (first at byte {first} of {len(eb)})"
                     + (f"; expected {expected!r}; got {got!r}" if expected.size < 200 else ""))
    return probs


def run_case(args, case, workdir):
    fails = []
    r = random.Random(case["array_seed"])
    arr = random_array(r, case["shape"], case["dtype"])
    if case["fortran"]:
        arr = np.asfortranarray(arr)
    d = os.path.join(workdir, f"c{case['seed']}_{case['index']}")
    os.mkdir(d)
    try:
        inp = os.path.join(d, "in.npy")
        np.save(inp, arr, allow_pickle=False)
        out = os.path.join(d, "out.npy")
        indices_file = os.path.join(d, "indices.npy")
        before = ["in.npy"]
        mode = case["mode"]
        if mode == "float_file":
            np.save(indices_file, np.array(case["values"], dtype="<f4").reshape(case["indices_shape"]))
        elif mode == "bool_file":
            np.save(indices_file, np.zeros(case["indices_shape"], dtype="?"))
        elif mode == "missing_file":
            indices_file = os.path.join(d, "no_such_indices.npy")
        elif case["source"] == "file":
            ind = np.array(case["values"], dtype=np.dtype(case["index_dtype"])).reshape(case["indices_shape"])
            np.save(indices_file, np.asfortranarray(ind) if case["index_fortran"] else ind)
        if os.path.exists(indices_file):
            before.append("indices.npy")
        before.sort()
        spec = json.dumps(build_spec(case, indices_file))
        path = "ops[0]" if case["as_list"] else "op"
        argv = [args.tslice, inp, "--op", spec, "-o", out]
        if case["threads"]:
            argv += ["-t", str(case["threads"])]
        where = f"{fmt_case(case)}\n    command: {shlex.join(['tslice'] + argv[1:]).replace(d + '/', '')}"

        # What the reference says decides what tslice must do: a mode that aims at one fault
        # may land on another (an empty inline list has fewer dimensions), or on none.
        expected = None
        blamed = None
        try:
            expected = ov_gather.gather(arr, harness.nested(case["values"], case["indices_shape"]), case["axis"],
                                        case["batch_dims"], case["indices_shape"])
        except ov_gather.GatherSpecError as e:
            blamed = e.field
        if mode in ("float_file", "bool_file"):
            blamed = blamed or "indices"
        if mode == "missing_file":
            blamed = None
        elif blamed is None:
            mode = case["mode"] = "valid"
        elif mode == "valid":
            mode = case["mode"] = "invalid"
        if mode == "valid":
            # a harness check of the reference: numpy.take agrees where it applies
            b = case["batch_dims"]
            if b == 0 and arr.ndim and all(-arr.shape[case["axis"]] <= v < arr.shape[case["axis"]]
                                           for v in case["values"]):
                taken = np.take(arr, np.array(case["values"], dtype=np.int64).reshape(case["indices_shape"]),
                                axis=case["axis"])
                taken = np.array(taken, dtype=arr.dtype)  # a 0-d result comes back as a native-order scalar
                if taken.shape != expected.shape or taken.tobytes() != expected.tobytes():
                    fails.append(("harness", f"{where}\n    the reference disagrees with numpy.take"))
                    return fails

        res = run(argv)
        listing = sorted(os.listdir(d))
        stderr = res.stderr.decode("utf-8", errors="replace")
        probs = []
        if mode == "valid":
            if res.returncode != 0:
                probs.append(f"exit {res.returncode}, expected 0; stderr {stderr!r}")
            else:
                if res.stderr or res.stdout:
                    probs.append(f"output on stdout/stderr: {res.stdout[:200]!r} {stderr[:200]!r}")
                if listing != sorted(before + ["out.npy"]):
                    probs.append(f"directory holds {listing}")
                else:
                    with open(out, "rb") as f:
                        probs += check_output(f.read(), expected)
            kind = "valid"
        else:
            want_exit = 1 if mode == "missing_file" else 2
            if res.returncode != want_exit:
                probs.append(f"exit {res.returncode}, expected {want_exit}")
            if res.stdout:
                probs.append(f"stdout not empty on error: {res.stdout[:200]!r}")
            if listing != before:
                probs.append(f"directory holds {listing}, expected {before} after an error")
            if not stderr.startswith("tslice: error: ") or stderr.count("\n") != 1:
                probs.append(f"stderr is not one 'tslice: error: ' line: {stderr!r}")
            if mode == "missing_file":
                if "no_such_indices.npy" not in stderr:
                    probs.append(f"stderr does not name the missing file: {stderr!r}")
            else:
                field = f"{path}.{blamed}"
                if field not in stderr:
                    probs.append(f"stderr does not name {field}: {stderr!r}")
                if mode in ("float_file", "bool_file") and "indices.npy" not in stderr:
                    probs.append(f"stderr does not name the indices file: {stderr!r}")
            kind = "invalid (" + mode + ", " + str(blamed) + ")"
        if probs:
            fails.append((kind, where + "\n    problems: " + "\n              ".join(probs)))

        if case["shape_check"]:
            res2 = run([args.tslice, "--shape", inp, "--op", spec])
            got = res2.stdout.decode("utf-8", errors="replace")
            if mode == "valid":
                want = str(expected.shape) + "\n"
                if res2.returncode != 0 or got != want:
                    fails.append(("--shape", f"{where}\n    --shape: exit {res2.returncode}, stdout {got!r}, "
                                             f"expected {want!r}; stderr {res2.stderr!r}"))
            elif res2.returncode != (1 if mode == "missing_file" else 2) or res2.stdout:
                fails.append(("--shape", f"{where}\n    --shape: exit {res2.returncode}, stdout {got!r} on an error"))
    finally:
        harness.remove_case_dir(d, args.keep if fails else None)
    return fails


def main():
    args = harness.case_args(__doc__, 2000, 4, 5)

    seeds = harness.SplitSeeds(FIXED_SEED, args.seed)
    seeds.announce()
    plan = seeds.plan(args.cases, args.only)

    stats = collections.Counter()
    failures = harness.FailuresByKind()
    tally = harness.Tally()
    with tempfile.TemporaryDirectory(prefix="tslice-gather-") as workdir:
        def one(job):
            case = gen_case(*job)
            return case, harness.run_guarded(lambda: run_case(args, case, workdir), lambda: fmt_case(case))

        for case, fl in harness.run_parallel(one, plan, args.workers):
            tally.count(fl)
            failures.add(fl)
            stats[case["mode"]] += 1
            stats["indices:" + case["source"]] += 1
            stats["large"] += case["large"]
            stats["valid with out-of-range indices"] += case["mode"] == "valid" and case["out_of_range"]

    failures.report(args.show)
    harness.print_case_mix(stats, hide_zero=True)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
