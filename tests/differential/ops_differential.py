#!/usr/bin/python3
"""Differential test of the JSON op specs: `tslice IN.npy --op JSON -o OUT.npy`.

  strided_slice  against numpy: the index tuple is built entry by entry from the spec, as
                 the contract says (ellipsis -> ..., new axis -> None, shrink -> begin[i],
                 otherwise slice(begin or None, end or None, stride)), and numpy indexes.
  slice          against tests/reference/onnx_slice.py (the ONNX opset-13 text, element by
                 element).
  slice1         against tests/reference/dml_slice1.py (DML_SLICE1, element by element).

Every case makes a random array (ranks 0-5, zero-size axes sometimes, dtypes u1 i2 f4 f8
c16 S3, C or Fortran order) and a random spec (masks as bitfields and as lists, INT64
extremes, sometimes two ops chained). About 15% of the specs are invalid: tslice must exit
2, write nothing, and say `tslice: error: <JSON path>: ...` with the path the harness's model
of the rules predicts (for strided_slice the model is checked against numpy too).

    /usr/bin/python3 tests/differential/ops_differential.py --tslice build/tslice --cases 2000

--cases is per op; --op runs one op only. Half of the cases use the fixed seed and half a
fresh one, both printed first (`seeds: fixed X, fresh Y`); `--seed N` uses N for every case
and `--op OP --seed N --only K` replays one case. The last line is `N passed, M failed`; the
exit status is 1 when anything failed.
"""

import argparse
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
import dml_slice1  # noqa: E402
import onnx_slice  # noqa: E402

FIXED_SEED = 20240611
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
INT32_MAX = 2**31 - 1
EXTREMES = [INT64_MIN, INT64_MAX, INT64_MIN + 1, INT64_MAX - 1, INT32_MAX, -INT32_MAX - 1]
DTYPES = [np.dtype("u1"), np.dtype("<i2"), np.dtype("<f4"), np.dtype(">f8"), np.dtype("<c16"), np.dtype("S3")]
OPS = ["strided_slice", "slice", "slice1"]
INVALID_RATE = 0.15


class Invalid:
    """The expected error: `field` is the JSON path below the op ('' for the op itself)."""

    def __init__(self, op_index, field):
        self.op_index = op_index
        self.field = field


# ----------------------------------------------------------------------------- arrays


def random_shape(r, min_dim=0):
    rank = r.choices(range(6), weights=[6, 14, 20, 20, 14, 8])[0]
    shape = []
    for _ in range(rank):
        if min_dim == 0 and r.random() < 0.04:
            shape.append(0)
        else:
            shape.append(r.randint(max(1, min_dim), 3 if rank >= 4 else 5))
    return tuple(shape)


def random_array(r, shape):
    dtype = r.choice(DTYPES)
    size = int(np.prod(shape, dtype=np.int64)) if shape else 1
    nrng = np.random.default_rng(r.getrandbits(64))
    raw = nrng.integers(0, 256, size=size * dtype.itemsize, dtype=np.uint8).tobytes()
    arr = np.frombuffer(raw, dtype=dtype).copy().reshape(shape)
    if r.random() < 0.3:
        arr = np.asfortranarray(arr)
    return arr


def ids_array(shape):
    """Element i (C order) holds i: a reference run on it names the elements it takes."""
    size = int(np.prod(shape, dtype=np.int64)) if shape else 1
    return np.arange(size, dtype=np.int64).reshape(shape)


def bound(r, dim):
    if r.random() < 0.1:
        return r.choice(EXTREMES)
    return r.randint(-dim - 3, dim + 3)


def bounds_for(r, dim, step):
    """A begin and an end: often ordered for the step's direction, so that most slices take
    something; sometimes anything, extremes included."""
    if r.random() < 0.7 and dim > 0:
        lo = r.randint(0, dim - 1)
        hi = r.randint(lo + 1, dim + 1)
        b, e = (lo, hi) if step > 0 else (hi - 1, lo - 1)
        if e == -1 and step < 0:
            e = r.choice([-dim - 1, -dim - 5, INT64_MIN])  # before element 0
        # the same index counted from the end
        b = b - dim if 0 <= b < dim and r.random() < 0.3 else b
        e = e - dim if 0 <= e < dim and r.random() < 0.3 else e
        return b, e
    return bound(r, dim), bound(r, dim)


def nonzero_step(r, small=3):
    if r.random() < 0.08:
        return r.choice([INT64_MIN, INT64_MAX, INT64_MIN + 1, -INT64_MAX])
    s = 0
    while s == 0:
        s = r.randint(-small, small)
    return s


# ------------------------------------------------------------------------ strided_slice


def mask_json(r, bits, n):
    """A mask as a bitfield or as a 0/1 list (trimmed of trailing zeros or padded with junk)."""
    if r.random() < 0.5:
        return sum(1 << i for i, b in enumerate(bits) if b)
    lst = [1 if b else 0 for b in bits]
    if r.random() < 0.3:
        while lst and lst[-1] == 0:
            lst.pop()  # shorter lists are padded with 0
    if r.random() < 0.3:
        lst += [r.randint(0, 1) for _ in range(r.randint(1, 3))]  # longer ones are cut
    return lst


def gen_strided(r, shape, invalid):
    rank = len(shape)
    n = r.randint(0, rank + 2)
    kinds = []
    for _ in range(n):
        kinds.append(r.choices(["slice", "shrink", "new", "ell"], weights=[60, 15, 15, 8])[0])
    # At most one ellipsis and no more axis-taking entries than axes (the invalid cases
    # break this on purpose below).
    seen_ell = False
    for i, k in enumerate(kinds):
        if k == "ell":
            if seen_ell:
                kinds[i] = "new"
            seen_ell = True
    while sum(k in ("slice", "shrink") for k in kinds) > rank:
        i = max(i for i, k in enumerate(kinds) if k in ("slice", "shrink"))
        kinds[i] = "new"
    fault = None
    if invalid:
        fault = r.choice(["stride0", "shrink_oob", "too_many", "two_ell", "json"])
        if fault == "stride0" and "slice" not in kinds:
            if sum(k in ("slice", "shrink") for k in kinds) < rank:
                kinds.insert(r.randint(0, len(kinds)), "slice")
            elif "shrink" in kinds:
                kinds[kinds.index("shrink")] = "slice"
            else:
                fault = "too_many"
        if fault == "shrink_oob" and "shrink" not in kinds:
            for i, k in enumerate(kinds):
                if k == "slice":
                    kinds[i] = "shrink"
                    break
            else:
                fault = "too_many"
        if fault == "too_many":
            extra = rank - sum(k in ("slice", "shrink") for k in kinds) + r.randint(1, 2)
            for _ in range(extra):
                kinds.insert(r.randint(0, len(kinds)), r.choice(["slice", "shrink"]))
        if fault == "two_ell":
            kinds.insert(r.randint(0, len(kinds)), "ell")
            kinds.insert(r.randint(0, len(kinds)), "ell")
        n = len(kinds)

    begin, end, strides = [], [], []
    bm, em, nm, sm, elm = [], [], [], [], []
    # Walk the input axes as the kinds take them, to pick in-range shrink indices.
    consumed = sum(k in ("slice", "shrink") for k in kinds)
    axis = 0
    for k in kinds:
        dim = shape[axis] if axis < rank else 3
        s = nonzero_step(r)
        b, e = bounds_for(r, dim, s)
        b_mask = r.random() < 0.25
        e_mask = r.random() < 0.25
        n_bit = k == "new"
        s_bit = k == "shrink"
        el_bit = k == "ell"
        if k == "ell":
            axis += max(rank - consumed, 0)
            # bits that the ellipsis overrides, and values it ignores
            n_bit = r.random() < 0.2
            s_bit = r.random() < 0.2
            if r.random() < 0.2:
                s = 0
        elif k == "new":
            s_bit = r.random() < 0.2  # the new axis wins
            if r.random() < 0.2:
                s = 0
        elif k == "shrink":
            b = r.randint(-dim, dim - 1) if dim > 0 else 0
            if r.random() < 0.3:
                s = r.choice([1, 2, 3, -1, 0])  # ignored on a shrunk entry (errata S000-13)
            axis += 1
        else:
            axis += 1
        begin.append(b)
        end.append(e)
        strides.append(s)
        bm.append(b_mask)
        em.append(e_mask)
        nm.append(n_bit)
        sm.append(s_bit)
        elm.append(el_bit)

    if fault == "stride0":
        i = r.choice([i for i, k in enumerate(kinds) if k == "slice"])
        strides[i] = 0
    if fault == "shrink_oob":
        i = r.choice([i for i, k in enumerate(kinds) if k == "shrink"])
        begin[i] = r.choice([10, -10, INT64_MIN, INT64_MAX, 5, -6])

    spec = {"op": r.choice(["strided_slice", "StridedSlice", "STRIDED_SLICE"]), "begin": begin, "end": end}
    if any(s != 1 for s in strides) or r.random() < 0.5:
        spec["strides" if r.random() < 0.8 else "stride"] = strides
    for name, bits in (("begin_mask", bm), ("end_mask", em), ("new_axis_mask", nm), ("shrink_axis_mask", sm),
                       ("ellipsis_mask", elm)):
        if any(bits) or r.random() < 0.3:
            spec[name] = mask_json(r, bits, n)
    json_fault = None
    if fault == "json":
        json_fault = json_fault_strided(r, spec)
    keys = list(spec)
    r.shuffle(keys)
    spec = {k: spec[k] for k in ["op"] + [k for k in keys if k != "op"]}
    return spec, json_fault


def json_fault_strided(r, spec):
    """Breaks the spec's JSON form; returns the expected field path."""
    n = len(spec["begin"])
    choice = r.choice(["end_len", "strides_len", "float", "bool", "mask2", "mask_neg", "big", "unknown", "missing"])
    if choice == "end_len":
        spec["end"] = spec["end"] + [0]
        return "end"
    if choice == "strides_len":
        spec.pop("stride", None)
        spec["strides"] = [1] * (n + 1)
        return "strides"
    if choice in ("float", "bool", "big") and n > 0:
        i = r.randrange(n)
        field = r.choice(["begin", "end"])
        spec[field] = list(spec[field])
        spec[field][i] = {"float": 1.0, "bool": True, "big": 2**64 - 1}[choice]
        return f"{field}[{i}]"
    if choice == "mask2":
        spec["begin_mask"] = [0] * n + [2]
        return f"begin_mask[{n}]"
    if choice == "mask_neg":
        spec["end_mask"] = -1
        return "end_mask"
    if choice == "missing":
        del spec["end"]
        return ""
    spec["begin_masks"] = 0
    return "begin_masks"


def strided_entries(spec):
    """The spec as the tslice contract reads it: per entry, its kind and numbers."""
    n = len(spec["begin"])

    def bits(name):
        m = spec.get(name, 0)
        if isinstance(m, list):
            return [i < len(m) and m[i] == 1 for i in range(n)]
        return [bool((m >> i) & 1) for i in range(n)]

    bm, em, nm, sm, elm = (bits(x) for x in ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask",
                                             "ellipsis_mask"))
    strides = spec.get("strides", spec.get("stride", [1] * n))
    entries = []
    for i in range(n):
        kind = "ell" if elm[i] else "new" if nm[i] else "shrink" if sm[i] else "slice"
        entries.append((kind, spec["begin"][i], spec["end"][i], strides[i], bm[i], em[i]))
    return entries


def strided_tuple(spec):
    items = []
    for kind, b, e, s, b_masked, e_masked in strided_entries(spec):
        if kind == "ell":
            items.append(Ellipsis)
        elif kind == "new":
            items.append(None)
        elif kind == "shrink":
            items.append(b)
        else:
            items.append(slice(None if b_masked else b, None if e_masked else e, s))
    return tuple(items)


def strided_model_error(spec, shape):
    """The field tslice must blame, by the rules in numpy's order, or None."""
    entries = strided_entries(spec)
    rank = len(shape)
    ells = [i for i, e in enumerate(entries) if e[0] == "ell"]
    if len(ells) > 1:
        return "ellipsis_mask"
    taking = [i for i, e in enumerate(entries) if e[0] in ("slice", "shrink")]
    if len(taking) > rank:
        return f"begin[{taking[rank]}]"
    axis = 0
    for i, (kind, b, _e, s, _bm, _em) in enumerate(entries):
        if kind == "ell":
            axis += rank - len(taking)
        elif kind == "shrink":
            if not -shape[axis] <= b < shape[axis]:
                return f"begin[{i}]"
            axis += 1
        elif kind == "slice":
            if s == 0:
                return f"strides[{i}]"
            axis += 1
    return None


def apply_strided(arr, spec, op_index, check_numpy):
    """numpy's result, or Invalid. Checks that the model and numpy agree on failing."""
    field = strided_model_error(spec, arr.shape)
    index = strided_tuple(spec)
    if not any(item is Ellipsis for item in index):
        index += (Ellipsis,)  # the same index, but a 0-d result stays an array, not a scalar
    try:
        result = arr[index]
        numpy_ok = True
    except (IndexError, ValueError, OverflowError) as e:
        numpy_ok, numpy_error = False, e
    if check_numpy and numpy_ok != (field is None):
        raise HarnessError(f"model says {field!r} but numpy says "
                           f"{'ok' if numpy_ok else type(numpy_error).__name__ + ': ' + str(numpy_error)}")
    if field is not None:
        return Invalid(op_index, field)
    return result


class HarnessError(Exception):
    pass


# ------------------------------------------------------------------------------- slice


def gen_slice(r, shape, invalid):
    rank = len(shape)
    n = r.randint(0, rank)
    use_axes = r.random() < 0.6
    axes = r.sample(range(rank), n) if use_axes else list(range(n))
    axes = [a - rank if r.random() < 0.3 else a for a in axes]
    with_steps = r.random() < 0.7
    steps = [nonzero_step(r) if with_steps else 1 for _ in axes]
    pairs = [bounds_for(r, shape[a], step) for a, step in zip(axes, steps)]
    starts = [b for b, _ in pairs]
    ends = [e for _, e in pairs]
    spec = {"op": r.choice(["slice", "Slice", "SLICE"]), "starts": starts, "ends": ends}
    if use_axes:
        spec["axes"] = axes
    if with_steps:
        spec["steps"] = steps
    json_field = None
    if invalid:
        fault = r.choice(["axis_range", "repeat", "step0", "len", "no_axes_too_many", "json"])
        if fault == "axis_range":
            spec["axes"] = list(spec.get("axes", range(n))) + [r.choice([rank, -rank - 1, rank + 3, INT64_MIN])]
            spec["starts"] = starts + [0]
            spec["ends"] = ends + [1]
            if "steps" in spec:
                spec["steps"] = steps + [1]
        elif fault == "repeat" and rank > 0:
            base = list(spec.get("axes", range(n)))
            a = r.randrange(rank)
            spec["axes"] = base + [a, a - rank if r.random() < 0.5 else a]
            spec["starts"] = starts + [0, 0]
            spec["ends"] = ends + [1, 1]
            if "steps" in spec:
                spec["steps"] = steps + [1, 1]
        elif fault == "step0" and n > 0:
            spec["steps"] = list(steps)
            spec["steps"][r.randrange(n)] = 0
        elif fault == "len":
            field = r.choice(["ends", "axes", "steps"])
            spec[field] = list(spec.get(field, range(n))) + [0]
        elif fault == "no_axes_too_many":
            spec.pop("axes", None)
            extra = rank - n + 1
            spec["starts"] = starts + [0] * extra
            spec["ends"] = ends + [1] * extra
            spec.pop("steps", None)
        else:
            if n > 0:
                i = r.randrange(n)
                field = r.choice(["starts", "ends"])
                spec[field] = list(spec[field])
                spec[field][i] = r.choice([0.5, False, 2**63, "1"])
                json_field = f"{field}[{i}]"
            else:
                spec["step"] = [1]
                json_field = "step"
    return spec, json_field


def apply_slice(arr, spec, op_index):
    try:
        taken = onnx_slice.plan(arr.shape, spec["starts"], spec["ends"], spec.get("axes"), spec.get("steps"))
    except onnx_slice.SliceError as e:
        return Invalid(op_index, e.field)
    ids = onnx_slice.gather_elements(ids_array(arr.shape), taken)
    return as_array(np.ravel(arr)[ids], arr.dtype)


# ------------------------------------------------------------------------------ slice1


def gen_slice1(r, shape, invalid):
    rank = len(shape)
    offsets, sizes, strides, outs = [], [], [], []
    for dim in shape:
        dim = max(dim, 1)
        off = r.randint(0, dim - 1)
        size = r.randint(1, dim - off)
        stride = nonzero_step(r, 4)
        most = 1 + (size - 1) // abs(stride)
        offsets.append(off)
        sizes.append(size)
        strides.append(stride)
        outs.append(r.randint(1, most))
    spec = {"op": r.choice(["slice1", "Slice1", "DML_SLICE1"]), "offsets": offsets, "sizes": sizes,
            "strides": strides}
    if r.random() < 0.5:
        spec["output_sizes"] = outs
    json_field = None
    if invalid:
        fault = r.choice(["offset_neg", "size0", "past", "offset_out", "stride0", "out_range", "len", "json"])
        i = r.randrange(rank) if rank else None
        if i is None or fault == "len":
            field = r.choice(["offsets", "sizes", "strides", "output_sizes"])
            spec[field] = list(spec.get(field, outs)) + [1]
        elif fault == "offset_neg":
            offsets[i] = r.choice([-1, INT64_MIN])
        elif fault == "size0":
            sizes[i] = r.choice([0, -1, INT64_MIN])
        elif fault == "past":
            sizes[i] = r.choice([shape[i] - offsets[i] + 1, INT64_MAX])
        elif fault == "offset_out":
            offsets[i] = r.choice([shape[i], INT64_MAX])
        elif fault == "stride0":
            strides[i] = 0
        elif fault == "out_range":
            most = 1 + (sizes[i] - 1) // abs(strides[i])
            spec["output_sizes"] = list(outs)
            spec["output_sizes"][i] = r.choice([0, most + 1, -1, INT64_MAX])
        else:
            field = r.choice(["offsets", "sizes", "strides"])
            spec[field] = list(spec[field])
            spec[field][i] = r.choice([1.0, True, None, 2**64])
            json_field = f"{field}[{i}]"
    return spec, json_field


def apply_slice1(arr, spec, op_index):
    # The JSON edge checks the lengths against offsets first (the reference, against the rank).
    for field in ("sizes", "strides", "output_sizes"):
        if field in spec and len(spec[field]) != len(spec["offsets"]):
            return Invalid(op_index, field)
    try:
        start, steps, out_shape = dml_slice1.plan(arr.shape, spec["offsets"], spec["sizes"], spec["strides"],
                                                  spec.get("output_sizes"))
    except dml_slice1.Slice1Error as e:
        return Invalid(op_index, e.field)
    ids = dml_slice1.dml_slice1(ids_array(arr.shape), spec["offsets"], spec["sizes"], spec["strides"],
                                spec.get("output_sizes"))
    return as_array(np.ravel(arr)[ids], arr.dtype)


def as_array(x, dtype):
    """Indexing with a 0-d index array gives a numpy scalar: make it a 0-d array again."""
    return x if isinstance(x, np.ndarray) else np.array(x, dtype=dtype)


# ------------------------------------------------------------------------------- cases

GENERATORS = {"strided_slice": gen_strided, "slice": gen_slice, "slice1": gen_slice1}


def apply_op(op, arr, spec, op_index):
    if op == "strided_slice":
        return apply_strided(arr, spec, op_index, check_numpy=True)
    if op == "slice":
        return apply_slice(arr, spec, op_index)
    return apply_slice1(arr, spec, op_index)


def gen_case(op, seed, index):
    r = random.Random(f"{seed}/{op}/{index}")
    shape = random_shape(r, min_dim=1 if op == "slice1" and r.random() < 0.9 else 0)
    arr = random_array(r, shape)
    invalid = r.random() < INVALID_RATE
    chained = r.random() < 0.2
    specs, expected = [], arr
    count = 2 if chained else 1
    bad_at = r.randrange(count) if invalid else None
    for k in range(count):
        current = expected
        spec, json_field = GENERATORS[op](r, current.shape, k == bad_at)
        specs.append(spec)
        if json_field is not None:
            # A JSON error is found while parsing, before any op runs.
            return arr, specs, chained, Invalid(k, json_field)
        result = apply_op(op, current, spec, k)
        if isinstance(result, Invalid):
            expected = result
            break
        expected = result
    return arr, specs, chained, expected


def op_path(chained, list_form, k):
    return f"ops[{k}]" if chained or list_form else "op"


def run_case(args, op, seed, index, workdir):
    try:
        arr, specs, chained, expected = gen_case(op, seed, index)
    except HarnessError as e:
        return [f"{op} seed {seed} case {index}: harness: {e}"], "harness"
    r = random.Random(f"{seed}/{op}/{index}/form")
    list_form = chained or r.random() < 0.4
    text = json.dumps(specs if list_form else specs[0], separators=(", ", ": ") if r.random() < 0.5 else (",", ":"))
    d = os.path.join(workdir, f"{op}_{seed}_{index}")
    os.mkdir(d)
    try:
        inp = os.path.join(d, "in.npy")
        out = os.path.join(d, "out.npy")
        np.save(inp, arr, allow_pickle=False)
        argv = [args.tslice, inp, "--op", text, "-o", out]
        res = subprocess.run(argv, capture_output=True, timeout=60)
        stderr = res.stderr.decode("utf-8", errors="replace")
        where = (f"{op} seed {seed} case {index} (replay: --op {op} --seed {seed} --only {index})\n"
                 f"    input: shape {arr.shape}, dtype {arr.dtype.str}, "
                 f"{'Fortran' if arr.flags.f_contiguous and not arr.flags.c_contiguous else 'C'} order\n"
                 f"    command: {shlex.join(['tslice', 'in.npy', '--op', text, '-o', 'out.npy'])}")
        probs = []
        if isinstance(expected, Invalid):
            prefix = op_path(chained, list_form, expected.op_index)
            path = prefix + ("." + expected.field if expected.field else "")
            want = f"tslice: error: {path}: "
            if res.returncode != 2:
                probs.append(f"exit {res.returncode}, expected 2")
            if not stderr.startswith(want):
                probs.append(f"stderr {stderr!r} does not start with {want!r}")
            if stderr.count("\n") != 1:
                probs.append(f"stderr is not one line: {stderr!r}")
            if os.path.exists(out):
                probs.append("an output file was written")
        else:
            if res.returncode != 0:
                probs.append(f"exit {res.returncode}, expected 0; stderr {stderr!r}")
            elif res.stderr:
                probs.append(f"stderr not empty: {stderr!r}")
            else:
                got = np.load(out, allow_pickle=False)
                want_arr = expected
                if got.dtype.str != arr.dtype.str:
                    probs.append(f"dtype {got.dtype.str}, expected {arr.dtype.str}")
                if got.shape != want_arr.shape:
                    probs.append(f"shape {got.shape}, expected {want_arr.shape}")
                elif got.tobytes() != want_arr.tobytes():
                    probs.append(f"values differ: expected {want_arr!r}, got {got!r}")
        if r.random() < 0.1:
            # --shape: the same plan, no data read, the shape printed as numpy prints it
            res2 = subprocess.run([args.tslice, "--shape", inp, "--op", text], capture_output=True, timeout=60)
            if isinstance(expected, Invalid):
                if res2.returncode != 2 or not res2.stderr.decode(errors="replace").startswith(want):
                    probs.append(f"--shape: exit {res2.returncode}, stderr {res2.stderr!r}, expected {want!r}")
            elif res2.returncode != 0 or res2.stdout.decode() != f"{expected.shape}\n":
                probs.append(f"--shape: exit {res2.returncode}, stdout {res2.stdout!r}, expected {expected.shape}")
        kind = "invalid" if isinstance(expected, Invalid) else "empty" if expected.size == 0 else "valid"
        if probs:
            return [where + "\n    expected: " +
                    (f"error at {path}" if isinstance(expected, Invalid) else f"shape {np.shape(expected)}") +
                    "\n    problems: " + "\n              ".join(probs)], kind
        return [], kind
    finally:
        harness.remove_case_dir(d)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tslice", required=True, help="path of the tslice executable")
    ap.add_argument("--cases", type=int, default=2000, help="random cases per op (default 2000)")
    ap.add_argument("--seed", type=int, help="use this seed for every case")
    ap.add_argument("--op", choices=OPS, help="test this op only")
    ap.add_argument("--only", type=int, help="run only this case number")
    ap.add_argument("--workers", type=int, default=max(2, 2 * (os.cpu_count() or 1)))
    ap.add_argument("--show", type=int, default=8, help="failures shown in full (default 8)")
    args = ap.parse_args()
    args.tslice = harness.require_tslice(args.tslice)

    ops = [args.op] if args.op else OPS
    seeds = harness.SplitSeeds(FIXED_SEED, args.seed)
    seeds.announce()
    indices = [args.only] if args.only is not None else range(args.cases)
    jobs = [(op, seeds.seed_of(i, args.cases), i) for op in ops for i in indices]

    tally = harness.Tally()
    shown = 0
    kinds = {op: {"valid": 0, "empty": 0, "invalid": 0, "harness": 0} for op in ops}
    with tempfile.TemporaryDirectory(prefix="tslice_ops_") as workdir:
        results = harness.run_parallel(lambda job: run_case(args, *job, workdir), jobs, args.workers)
        for (fails, kind), (op, _seed, _i) in zip(results, jobs):
            kinds[op][kind] += 1
            tally.count(fails)
            for f in fails:
                if shown < args.show:
                    print("FAIL " + f)
                    shown += 1
    for op in ops:
        k = kinds[op]
        print(f"{op}: {k['valid']} non-empty results, {k['empty']} empty, {k['invalid']} invalid specs")
    if tally.failed > shown:
        print(f"({tally.failed - shown} more failures not shown)")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
