#!/usr/bin/python3
"""Differential test: tslice's indexing against numpy's, basic and advanced.

Every case makes a random array (ranks 0-6, zero-size axes sometimes, many dtypes and
both byte orders, C or Fortran order), a random numpy basic-indexing expression and the
index tuple that expression means, built from the same random choices (never by parsing
or evaluating the text, so the test does not depend on how tslice parses).  numpy is the
oracle: tslice must succeed exactly when numpy does, write the same shape, dtype and
bytes as a C-order .npy, and on failure exit 2 with numpy's message and a caret under
the offending item.

On top of the --cases basic cases, --advanced-cases (default 2000) cases mix integer lists
(nested ones too) with integers, slices, '...' and None: numpy's integer-array indexing,
with where numpy puts the broadcast axes, and its errors (lists that do not broadcast
together, out-of-bounds list values, ragged lists, values beyond 64 bits) checked the same
way; a few hold invalid list syntax (floats, None, slices inside a list; masks are
indexing_differential.py's).

    /usr/bin/python3 tests/differential/numpy_differential.py --tslice build/tslice --cases 3000

Half of the cases use the fixed seed 12345 and half a fresh random seed; both are
printed first.  `--seed N` uses N for every case; `--only K` runs basic case K alone and
`--only-advanced K` advanced case K (a case depends only on the seed and K, so
`--seed S --only K` replays one case).  The last line is `N passed, M failed`; the exit
status is 1 when anything failed.
"""

import argparse
import ast
import collections
import io
import json
import os
import random
import re
import shlex
import struct
import subprocess
import sys
import tempfile
import warnings

import numpy as np

import harness

warnings.simplefilter("ignore", DeprecationWarning)
# Out-of-bounds list values where the result is empty (a slice or an axis of length 0) are an
# IndexError in numpy 2; numpy 1.x only warns ("Out of bound index found ... In the future the
# index error will be raised"). tslice follows numpy 2: under numpy 1.x the warning is caught
# and stands for the IndexError, whose message the harness's model then gives.
warnings.filterwarnings("error", message="Out of bound index found", category=DeprecationWarning)
NUMPY_1_OUT_OF_BOUNDS = "numpy 1.x: out of bound index found (an IndexError in numpy 2)"

FIXED_SEED = 12345
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

NUMPY_TOO_BIG_INT = "integer index beyond 64 bits"  # marker, see simulate_error

# ----------------------------------------------------------------------------- arrays

STRUCT_DT = np.dtype([("a", "<i2"), ("b", "<f8")])
NESTED_DT = np.dtype([("x", "<i4", (2,)), ("y", "S2"), ("z", ">f4")])

DTYPES = [
    np.dtype("?"), np.dtype("i1"), np.dtype("<u2"), np.dtype("<i4"), np.dtype("<i8"),
    np.dtype("<f2"), np.dtype("<f4"), np.dtype("<f8"), np.dtype("<c8"), np.dtype("S5"),
    np.dtype("<U3"), STRUCT_DT, np.dtype(">i4"),
    # a few more of what the contract promises
    np.dtype(">f8"), np.dtype("<u8"), np.dtype("<c16"), np.dtype(">U3"), np.dtype("V3"),
    NESTED_DT, np.dtype("u1"), np.dtype(">i2"),
]

UNICODE_CHARS = "abcXYZ019 é߀中😀"


def random_shape(r):
    rank = r.choices(range(7), weights=[8, 16, 18, 18, 14, 10, 8])[0]
    shape = []
    for _ in range(rank):
        if r.random() < 0.06:
            shape.append(0)
        elif rank >= 5:
            shape.append(r.randint(1, 3))
        else:
            shape.append(r.randint(1, 5))
    return tuple(shape)


def random_array(r, shape, dtype):
    nrng = np.random.default_rng(r.getrandbits(64))
    size = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if dtype.kind == "b":
        arr = nrng.integers(0, 2, size=size).astype(bool)
    elif dtype.kind == "U":
        # valid code points, with random lengths (the unused tail of each string is zeros)
        n = dtype.itemsize // 4
        cps = np.array([ord(c) for c in UNICODE_CHARS], dtype=np.uint32)
        codes = cps[nrng.integers(0, len(cps), size=(size, n))]
        lens = nrng.integers(0, n + 1, size=size)
        codes[np.arange(n)[None, :] >= lens[:, None]] = 0
        arr = codes.astype(dtype.byteorder.replace("=", "<") + "u4").view(dtype).reshape(size)
    else:
        # random bytes: every bit pattern, NaN payloads included, must survive the copy
        raw = nrng.integers(0, 256, size=size * dtype.itemsize, dtype=np.uint8).tobytes()
        arr = np.frombuffer(raw, dtype=dtype).copy()
    return arr.reshape(shape)


# ------------------------------------------------------------------------- expressions


class Item:
    """One index item: `value` is what numpy gets; `text` is how it is written."""

    def __init__(self, kind, value, text):
        self.kind = kind  # 'int', 'slice', 'ell', 'new', 'junk'
        self.value = value
        self.text = text  # without surrounding spaces
        self.start = None  # 0-based column of text in the full expression

    @property
    def end(self):
        return self.start + len(self.text)


def sp(r, p=0.3):
    """Random whitespace between tokens."""
    if r.random() < p:
        return " " * r.randint(1, 2)
    return ""


HUGE_BOUNDS = [2**62, -(2**62), INT64_MAX, INT64_MIN, 2**63, -(2**63) - 1, 10**25, -(10**25), 2**64,
               -(2**64), 99999999999999999999999]
HUGE_STEPS = [2**62, -(2**62), 10**25, -(10**25), INT64_MAX, -INT64_MAX, INT64_MIN, 2**63]


def rand_bound(r, d, large=False):
    x = r.random()
    if x < (0.8 if large else 0.35):
        return None
    if x < 0.87:
        return r.randint(-d - 2, d + 2)
    return r.choice(HUGE_BOUNDS)


def rand_step(r):
    x = r.random()
    if x < 0.4:
        return None
    if x < 0.92:
        return r.choice([-3, -2, -1, -1, 1, 1, 2, 3])
    return r.choice(HUGE_STEPS)


def int_text(v):
    return str(v)


def make_slice(r, d, step=Ellipsis, large=False):
    start, stop = rand_bound(r, d, large), rand_bound(r, d, large)
    if step is Ellipsis:
        step = rand_step(r)
    s = "" if start is None else int_text(start)
    e = "" if stop is None else int_text(stop)
    if step is None:
        form = r.random()
        if form < 0.6:
            text = s + sp(r) + ":" + sp(r) + e
        else:  # `a:b:` and `::` have an empty step
            text = s + sp(r) + ":" + sp(r) + e + sp(r) + ":"
    else:
        text = s + sp(r) + ":" + sp(r) + e + sp(r) + ":" + sp(r) + int_text(step)
    return Item("slice", slice(start, stop, step), text)


def make_int(r, v):
    return Item("int", v, int_text(v))


def make_newaxis(r):
    return Item("new", None, r.choice(["None", "newaxis", "np.newaxis"]))


def make_ellipsis():
    return Item("ell", Ellipsis, "...")


JUNK_ITEMS = ["1:2:3:4", "x", "a", "1.5", "((", "1 2", "::::", "1e3", "np.nexaxis", "none", "....",
              "..", "*", "#", "$", ":1:2:3", "1:2 3", "Nonee", "new axis", "np.", "- -", "1;2",
              "1:2)", "(1", "@", "0.", ".5", "1j", "'a'", "1 :: 2 :", "3 -", "1_", "é", "€1", "1:ß"]


def large_shape(r, itemsize):
    """A shape of 2-8 MB, so that the copy is split over threads."""
    rank = r.randint(1, 4)
    target = r.randint(2 << 20, 8 << 20) // itemsize
    shape = [r.randint(2, 9) for _ in range(rank - 1)]
    rest = max(1, target // int(np.prod(shape, dtype=np.int64)))
    shape.insert(r.randrange(rank), rest)
    return tuple(shape)


def gen_case(seed, index):
    """All random choices of one case, from (seed, index) alone."""
    r = random.Random(f"{seed}:{index}")
    large = r.random() < 0.01
    dtype = r.choice(DTYPES)
    shape = large_shape(r, dtype.itemsize) if large else random_shape(r)
    fortran = len(shape) >= 2 and r.random() < 0.25
    ndim = len(shape)

    x = r.random()
    if x < 0.83:
        mode = "valid"
    elif x < 0.87:
        mode = "oob_int"
    elif x < 0.905:
        mode = "too_many"
    elif x < 0.925:
        mode = "two_ell"
    elif x < 0.945:
        mode = "step0"
    elif x < 0.955:
        mode = "bigint"
    else:
        mode = "junk"

    # which axes the consuming items refer to
    use_ell = r.random() < 0.35 or (mode == "two_ell")
    if mode == "too_many":
        n_cons = ndim + r.randint(1, 2)
    elif r.random() < 0.5:
        n_cons = ndim
    else:
        n_cons = r.randint(0, ndim)
    n_before = r.randint(0, n_cons) if use_ell else n_cons
    axes = list(range(n_before)) + list(range(ndim - (n_cons - n_before), ndim))
    dims = [shape[a] if 0 <= a < ndim else 3 for a in axes]
    if mode == "too_many":
        dims = [r.randint(1, 4) for _ in range(n_cons)]

    cons = []
    for d in dims:
        if d > 0 and r.random() < (0.1 if large else 0.3):
            cons.append(make_int(r, r.randint(-d, d - 1)))
        else:
            cons.append(make_slice(r, d, large=large))

    if mode == "oob_int" and cons:
        k = r.randrange(len(cons))
        d = dims[k]
        v = r.choice([d + r.randint(0, 3), -d - 1 - r.randint(0, 3), 2**62, -(2**62), INT64_MIN, INT64_MAX])
        cons[k] = make_int(r, v)
    elif mode == "step0" and cons:
        k = r.randrange(len(cons))
        cons[k] = make_slice(r, dims[k], step=0)
    elif mode == "bigint" and cons:
        k = r.randrange(len(cons))
        cons[k] = make_int(r, r.choice([10**25, 2**63, -(2**63) - 1, 2**64, -(10**30), 99999999999999999999999]))

    items = cons[:n_before] + ([make_ellipsis()] if use_ell else []) + cons[n_before:]
    if mode == "two_ell":
        items.insert(r.randint(0, len(items)), make_ellipsis())
    for _ in range(r.choices([0, 1, 2, 3], weights=[60, 25, 10, 5])[0]):
        items.insert(r.randint(0, len(items)), make_newaxis(r))

    if not items and mode != "junk" and r.random() < 0.5:
        items = [make_ellipsis()]
    # the text
    junk = None
    brackets = r.random() < 0.6
    trailing = bool(items) and r.random() < 0.2
    if mode == "junk":
        jk = r.random()
        if jk < 0.55:
            junk = "item"
            items.insert(r.randint(0, len(items)), Item("junk", None, r.choice(JUNK_ITEMS)))
        elif jk < 0.7:
            junk = "empty_item"  # `1,,2` or `,1` (never last: `1,` is a valid trailing comma)
            if not items:
                items.append(make_slice(r, 3))
            items.insert(r.randint(0, len(items) - 1), Item("junk", None, ""))
        elif jk < 0.8:
            junk = "missing_close"
        elif jk < 0.9:
            junk = "extra_close"
        else:
            junk = "empty_brackets"
            items = []
            trailing = False

    text, no_expr = assemble_text(r, items, junk, brackets, trailing)
    threads, io_mode, shape_check, opts_last, array_seed = run_options(r, large)
    return dict(large=large, seed=seed, index=index, shape=shape, dtype=dtype, fortran=fortran, mode=mode,
                items=items, text=text, junk=junk, no_expr=no_expr, threads=threads,
                io_mode=io_mode, shape_check=shape_check, opts_last=opts_last,
                array_seed=array_seed, advanced=False)


def assemble_text(r, items, junk, brackets, trailing):
    """The expression text of `items` (setting each item's start column), and whether it is
    empty (no EXPR argument)."""
    no_expr = not items and junk is None
    pieces = []
    pos = 0
    lead = sp(r, 0.1)
    pieces.append(lead)
    pos += len(lead)
    if brackets or junk in ("missing_close", "empty_brackets"):
        b = "[" + sp(r, 0.2)
        pieces.append(b)
        pos += len(b)
    for i, it in enumerate(items):
        if i:
            c = sp(r, 0.2) + "," + sp(r, 0.5)
            pieces.append(c)
            pos += len(c)
        it.start = pos
        pieces.append(it.text)
        pos += len(it.text)
    if trailing and not (junk == "empty_item" and items[-1].kind == "junk"):
        c = sp(r, 0.2) + ","
        pieces.append(c)
        pos += len(c)
    if (brackets and junk != "missing_close") or junk in ("extra_close", "empty_brackets"):
        b = sp(r, 0.2) + "]"
        pieces.append(b)
        pos += len(b)
    if junk == "extra_close" and brackets:
        pieces.append("]")
    pieces.append(sp(r, 0.1))
    text = "".join(pieces)
    assert junk is not None or items or no_expr, "harness: empty expression"
    return text, no_expr


def run_options(r, large):
    """Threads, standard input/output use, a --shape check, options after the arguments."""
    threads = r.choice([2, 3, 4, 8] if large else [None, None, None, 1, 2, 3, 8])
    io_mode = "file"
    y = r.random()
    if y < 0.05:
        io_mode = r.choice(["stdin", "stdout", "both"])
    shape_check = r.random() < 0.10
    opts_last = r.random() < 0.1
    return threads, io_mode, shape_check, opts_last, r.getrandbits(64)


# ------------------------------------------------------------- advanced (integer lists)
#
# Cases with integer lists mixed with the other items: numpy's integer-array indexing.
# The lists that are meant to be valid broadcast together; the modes below break one rule
# each. numpy is still the oracle; simulate_error_advanced is the harness's model of the
# order in which numpy 1.24 checks (cross-checked against numpy on every case).

ADV_JUNK_ITEMS = ["[1.5]", "[0, 1.]", "[0, None]", "[0:1]", "[...]", "[0 1]", "[,]", "[x]", "[[0]:1]",
                  "[0, [1]:]", "[0,,1]", "[1e3]", "[(0)]", "[0; 1]", "[np.newaxis]"]


def list_shape(v):
    shape = []
    while isinstance(v, list):
        shape.append(len(v))
        if not v:
            break
        v = v[0]
    return tuple(shape)


def list_values(v):
    """C-order values of a rectangular nested list."""
    if isinstance(v, list):
        return [x for e in v for x in list_values(e)]
    return [v]


def list_literal(r, v):
    """The text of a (possibly ragged) nested list, with random spacing and trailing commas."""
    if not isinstance(v, list):
        return str(v) if r.random() < 0.97 else ("+" + str(v) if v >= 0 else str(v))
    inner = ""
    for k, e in enumerate(v):
        if k:
            inner += sp(r, 0.15) + "," + sp(r, 0.4)
        inner += list_literal(r, e)
    if v and r.random() < 0.08:
        inner += ","
    return "[" + sp(r, 0.1) + inner + sp(r, 0.1) + "]"


def make_list(r, value):
    return Item("list", value, list_literal(r, value))


def broadcast_ok(shapes):
    try:
        np.broadcast_shapes(*shapes)
        return True
    except ValueError:
        return False


def gen_advanced_case(seed, index):
    """One case with at least one integer list (unless junk), from (seed, index) alone."""
    r = random.Random(f"adv:{seed}:{index}")
    large = r.random() < 0.01
    dtype = r.choice(DTYPES)
    shape = large_shape(r, dtype.itemsize) if large else random_shape(r)
    while not large and len(shape) == 0 and r.random() < 0.9:
        shape = random_shape(r)
    fortran = len(shape) >= 2 and r.random() < 0.25
    ndim = len(shape)

    x = r.random()
    if x < 0.70 or ndim == 0:
        mode = "valid"
    elif x < 0.77:
        mode = "broadcast"
    elif x < 0.84:
        mode = "oob_list"
    elif x < 0.87:
        mode = "oob_int"
    elif x < 0.895:
        mode = "too_many"
    elif x < 0.915:
        mode = "two_ell"
    elif x < 0.935:
        mode = "step0"
    elif x < 0.955:
        mode = "ragged"
    elif x < 0.97:
        mode = "bigint_list"
    else:
        mode = "junk"
    if ndim == 0:
        mode = "too_many"  # a list on a 0-d array is always one index too many

    use_ell = r.random() < 0.3 or mode == "two_ell"
    if mode == "too_many":
        n_cons = ndim + r.randint(1, 2)
    elif r.random() < 0.5:
        n_cons = ndim
    else:
        n_cons = r.randint(1, ndim)
    n_before = r.randint(0, n_cons) if use_ell else n_cons
    axes = list(range(n_before)) + list(range(ndim - (n_cons - n_before), ndim))
    dims = [shape[a] if 0 <= a < ndim else 3 for a in axes]
    if mode == "too_many":
        dims = [r.randint(1, 4) for _ in range(n_cons)]

    # the target broadcast shape of the index arrays
    b_rank = r.choices([1, 2, 3], weights=[55, 35, 10])[0]
    target = [0 if r.random() < 0.06 else r.randint(1, 3) for _ in range(b_rank)]
    if large:
        target = [r.randint(1, 3) for _ in range(b_rank)]

    cons = []
    for d in dims:
        y = r.random()
        # on a large array, lists go on the short axes and the long one is sliced
        if d > 0 and y < (0.5 if not large or d < 50 else 0.0):
            k = r.randint(1, b_rank)
            lshape = [t if r.random() < 0.7 else 1 for t in target[-k:]]
            count = int(np.prod(lshape, dtype=np.int64))
            cons.append(make_list(r, harness.nested([r.randint(-d, d - 1) for _ in range(count)], lshape)))
        elif d > 0 and y < 0.65:
            cons.append(make_int(r, r.randint(-d, d - 1)))
        else:
            cons.append(make_slice(r, d, large=large))
    lists = [k for k, it in enumerate(cons) if it.kind == "list"]
    if not lists:
        k = r.randrange(len(cons))
        d = dims[k]
        cons[k] = make_list(r, [r.randint(-d, d - 1) for _ in range(r.randint(1, 3))] if d > 0 else [])
        lists = [k]

    if mode == "broadcast":
        for _ in range(10):
            k = r.choice(lists)
            d = dims[k]
            lshape = [r.randint(2, 4) for _ in range(r.randint(1, 3))]
            count = int(np.prod(lshape, dtype=np.int64))
            cons[k] = make_list(r, harness.nested([r.randint(-d, d - 1) if d else 0 for _ in range(count)], lshape))
            shapes = [list_shape(cons[j].value) for j in lists]
            if not broadcast_ok(shapes):
                break
    elif mode == "oob_list":
        k = r.choice(lists)
        d = dims[k]
        vals = list_values(cons[k].value)
        if vals:
            vals[r.randrange(len(vals))] = r.choice([d + r.randint(0, 3), -d - 1 - r.randint(0, 3), INT64_MAX,
                                                     INT64_MIN, 2**62])
            cons[k] = make_list(r, harness.nested(vals, list_shape(cons[k].value)))
        else:
            cons[k] = make_list(r, [d + r.randint(0, 3)])
    elif mode == "oob_int":
        k = r.randrange(len(cons))
        d = dims[k]
        cons[k] = make_int(r, r.choice([d + r.randint(0, 3), -d - 1 - r.randint(0, 3), 2**62, INT64_MIN, INT64_MAX]))
    elif mode == "step0":
        k = r.randrange(len(cons))
        cons[k] = make_slice(r, dims[k], step=0)
    elif mode == "ragged":
        k = r.choice(lists)
        d = max(dims[k], 1)
        v = lambda: r.randint(-d, d - 1)  # noqa: E731
        cons[k] = make_list(r, r.choice([
            [[v(), v()], [v()]], [[v()], v()], [v(), [v()]], [[], [v()]], [[[v()], [v()]], [[v()], [v(), v()]]],
            [[v(), [v()]], [v(), v()]], [[[v()]], [v()]], [[v(), v()], [[v()]]]]))
    elif mode == "bigint_list":
        k = r.choice(lists)
        vals = list_values(cons[k].value) or [0]
        vals[r.randrange(len(vals))] = r.choice([2**64, 2**64 + 5, -(2**63) - 1, 10**25, -(10**30)])
        cons[k] = make_list(r, harness.nested(vals, list_shape(cons[k].value) or (1,)))

    items = cons[:n_before] + ([make_ellipsis()] if use_ell else []) + cons[n_before:]
    if mode == "two_ell":
        items.insert(r.randint(0, len(items)), make_ellipsis())
    for _ in range(r.choices([0, 1, 2], weights=[65, 25, 10])[0]):
        items.insert(r.randint(0, len(items)), make_newaxis(r))

    junk = None
    brackets = r.random() < 0.6
    trailing = r.random() < 0.15
    if mode == "junk":
        junk = "item"
        items.insert(r.randint(0, len(items)), Item("junk", None, r.choice(ADV_JUNK_ITEMS)))
    # without brackets, a lone list would be read as the outer brackets: "[0, 2]" is a[0, 2]
    if not brackets and len(items) == 1 and not trailing:
        brackets = True
    text, no_expr = assemble_text(r, items, junk, brackets, trailing)
    threads, io_mode, shape_check, opts_last, array_seed = run_options(r, large)
    return dict(large=large, seed=seed, index=index, shape=shape, dtype=dtype, fortran=fortran, mode=mode,
                items=items, text=text, junk=junk, no_expr=no_expr, threads=threads,
                io_mode=io_mode, shape_check=shape_check, opts_last=opts_last,
                array_seed=array_seed, advanced=True)


def compact_shape(shape):
    return "(" + ",".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def simulate_error_advanced(case):
    """The harness's model of numpy's checks for an index with lists (None if it succeeds):

    1. walk: a second ellipsis, an integer beyond 64 bits, a list that is ragged or holds a
       value beyond int64 (an object array) fail in item order;
    2. too many indices (every integer, slice and list takes an axis);
    3. integers (bounds) and slices (zero step), left to right;
    4. the index arrays broadcast (integers are 0-d arrays, not named in the message);
    5. list values against their axes, list by list, C order, unless the index arrays
       broadcast to nothing (numpy 2 checks them where only a slice or an axis empties the
       result; numpy 1.x warned there).
    """
    items = case["items"]
    shape = case["shape"]
    ndim = len(shape)
    seen_ell = False
    for it in items:
        if it.kind == "ell":
            if seen_ell:
                return "an index can only have a single ellipsis ('...')", [it]
            seen_ell = True
        elif it.kind == "int" and not (INT64_MIN <= it.value <= INT64_MAX):
            return NUMPY_TOO_BIG_INT, [it]
        elif it.kind == "list":
            try:
                np.array(it.value, dtype=object)  # raggedness is numpy's own words: ask it
                np.array(it.value)
            except ValueError as e:
                return str(e), [it]
            if any(not (INT64_MIN <= v <= INT64_MAX) for v in list_values(it.value)):
                return ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or "
                        "boolean arrays are valid indices"), [it]
    cons = [it for it in items if it.kind in ("int", "slice", "list")]
    if len(cons) > ndim:
        return (f"too many indices for array: array is {ndim}-dimensional, but {len(cons)} were indexed",
                cons[ndim:])
    n_before = 0
    for it in items:
        if it.kind == "ell":
            break
        if it.kind in ("int", "slice", "list"):
            n_before += 1
    axis_of = {}
    for k, it in enumerate(cons):
        axis_of[id(it)] = k if k < n_before or not seen_ell else ndim - (len(cons) - k)
    for it in items:
        if it.kind == "int":
            ax = axis_of[id(it)]
            d = shape[ax]
            if not (-d <= it.value < d):
                return f"index {it.value} is out of bounds for axis {ax} with size {d}", [it]
        elif it.kind == "slice" and it.value.step == 0:
            return "slice step cannot be zero", [it]
    arrays = [it for it in items if it.kind in ("int", "list")]
    shapes = []
    b_shape = ()
    for it in arrays:
        sh = list_shape(it.value) if it.kind == "list" else ()
        shapes.append(sh)
        if not broadcast_ok([b_shape, sh]):
            named = " ".join(compact_shape(x) for x in [list_shape(a.value) for a in arrays if a.kind == "list"])
            return f"shape mismatch: indexing arrays could not be broadcast together with shapes {named} ", [it]
        b_shape = np.broadcast_shapes(b_shape, sh)
    # the index combinations numpy looks up: none where the arrays broadcast to nothing
    if int(np.prod(b_shape, dtype=np.int64)):
        for it in items:
            if it.kind == "list":
                ax = axis_of[id(it)]
                d = shape[ax]
                for v in list_values(it.value):
                    if not (-d <= v < d):
                        return f"index {v} is out of bounds for axis {ax} with size {d}", [it]
    return None, None


# ------------------------------------------------------------------------------ oracle


def numpy_result(case):
    """(ok, result-or-None, exc-type, message) straight from numpy."""
    a = case["arr"]
    idx = tuple(it.value for it in case["items"])
    ids = np.arange(a.size, dtype=np.int64).reshape(a.shape)
    try:
        sel = ids[idx]
    except (IndexError, ValueError, OverflowError, TypeError) as e:
        return False, None, type(e).__name__, str(e)
    except DeprecationWarning:
        return False, None, "IndexError", NUMPY_1_OUT_OF_BOUNDS
    sel = np.asarray(sel)
    flat = np.ascontiguousarray(a).reshape(-1)
    expected = flat[sel.reshape(-1)].reshape(sel.shape)
    # the element-index trick must agree with indexing the array itself
    direct = a[idx]
    assert np.shape(direct) == expected.shape, "harness: shape mismatch between oracles"
    return True, expected, None, None


def simulate_error(case):
    """Which item numpy complains about, and with what message (None if it succeeds).

    numpy first walks the items (a second ellipsis or an integer that does not fit 64 bits
    fails there), then counts the indices, then resolves the items left to right (an
    out-of-bounds integer or a zero step fails there).  The result is cross-checked against
    numpy's own message, so a wrong simulation is reported as a harness error."""
    items = case["items"]
    shape = case["shape"]
    ndim = len(shape)
    seen_ell = False
    for it in items:
        if it.kind == "ell":
            if seen_ell:
                return "an index can only have a single ellipsis ('...')", [it]
            seen_ell = True
        elif it.kind == "int" and not (INT64_MIN <= it.value <= INT64_MAX):
            return NUMPY_TOO_BIG_INT, [it]
    cons = [it for it in items if it.kind in ("int", "slice")]
    if len(cons) > ndim:
        return (f"too many indices for array: array is {ndim}-dimensional, but {len(cons)} were indexed",
                cons[ndim:])
    n_before = 0
    for it in items:
        if it.kind == "ell":
            break
        if it.kind in ("int", "slice"):
            n_before += 1
    axis_of = {}
    k = 0
    for it in items:
        if it.kind in ("int", "slice"):
            axis_of[id(it)] = k if k < n_before or not seen_ell else ndim - (len(cons) - k)
            k += 1
    for it in items:
        if it.kind == "int":
            ax = axis_of[id(it)]
            d = shape[ax]
            if not (-d <= it.value < d):
                return f"index {it.value} is out of bounds for axis {ax} with size {d}", [it]
        elif it.kind == "slice" and it.value.step == 0:
            return "slice step cannot be zero", [it]
    return None, None


# ----------------------------------------------------------------------------- checks


def parse_npy(data):
    """Header dict, version and data offset of .npy bytes; raises ValueError when malformed."""
    if data[:6] != b"\x93NUMPY":
        raise ValueError("bad magic")
    major, minor = data[6], data[7]
    if major == 1:
        (hlen,) = struct.unpack("<H", data[8:10])
        off = 10
    elif major in (2, 3):
        (hlen,) = struct.unpack("<I", data[8:12])
        off = 12
    else:
        raise ValueError(f"bad version {major}.{minor}")
    header = data[off:off + hlen].decode("latin1" if major < 3 else "utf8")
    d = ast.literal_eval(header)
    return d, (major, minor), off + hlen, header


def check_npy_bytes(data, expected, in_dtype):
    """Problems with written .npy bytes (empty list if none)."""
    probs = []
    try:
        hdr, ver, off, header_text = parse_npy(data)
    except Exception as e:  # noqa: BLE001
        return [f"output is not a parseable .npy: {e!r}; first bytes {data[:80]!r}"]
    if ver != (1, 0):
        probs.append(f"version {ver}, expected (1, 0) for a small header")
    if off % 64 != 0:
        probs.append(f"data starts at byte {off}, not a multiple of 64")
    if not header_text.endswith("\n"):
        probs.append("header does not end with a newline")
    if set(hdr) != {"descr", "fortran_order", "shape"}:
        probs.append(f"header keys {sorted(hdr)}")
    if hdr.get("fortran_order") is not False:
        probs.append(f"fortran_order is {hdr.get('fortran_order')!r}, expected False")
    want_descr = np.lib.format.dtype_to_descr(in_dtype)
    if hdr.get("descr") != want_descr:
        probs.append(f"descr {hdr.get('descr')!r}, expected {want_descr!r}")
    if tuple(hdr.get("shape", ())) != expected.shape or not isinstance(hdr.get("shape"), tuple):
        probs.append(f"shape {hdr.get('shape')!r}, expected {expected.shape!r}")
    if len(data) != off + expected.nbytes:
        probs.append(f"file is {len(data)} bytes, expected {off} + {expected.nbytes}")
    if probs:
        return probs
    try:
        got = np.load(io.BytesIO(data), allow_pickle=False)
    except Exception as e:  # noqa: BLE001
        return [f"np.load failed: {e!r}"]
    if got.dtype != in_dtype or got.dtype.str != in_dtype.str or got.dtype.descr != in_dtype.descr:
        probs.append(f"dtype {got.dtype!r} ({got.dtype.str}), expected {in_dtype!r} ({in_dtype.str})")
    if got.shape != expected.shape:
        probs.append(f"loaded shape {got.shape}, expected {expected.shape}")
    elif got.tobytes() != expected.tobytes():
        gb, eb = got.tobytes(), expected.tobytes()
        first = next((i for i in range(min(len(gb), len(eb))) if gb[i] != eb[i]), min(len(gb), len(eb)))
        probs.append(f"bytes differ (first at byte {first} of {len(eb)}); expected {expected!r}; got {got!r}")
    return probs


CARET_RE = re.compile(r"^tslice: error: (.*) \(column (\d+)\)$")


def check_error_output(case, stderr, want_msg, culprits):
    """Problems with the stderr of an expression error (empty list if none).

    want_msg: numpy's message, which the first line must contain (None: not checked)."""
    text = case["text"]
    try:
        s = stderr.decode("utf-8")
    except UnicodeDecodeError:
        return [f"stderr is not UTF-8: {stderr!r}"]
    if not s.startswith("tslice: error: "):
        return [f"stderr does not start with 'tslice: error: ': {s!r}"]
    if not s.endswith("\n"):
        return [f"stderr does not end with a newline: {s!r}"]
    lines = s[:-1].split("\n")
    if len(lines) != 3:
        return [f"expected 3 stderr lines (message, expression, caret), got {len(lines)}: {s!r}"]
    m = CARET_RE.match(lines[0])
    if not m:
        return [f"first stderr line does not end with ' (column N)': {lines[0]!r}"]
    probs = []
    msg, col = m.group(1), int(m.group(2))
    if lines[1] != "  " + text:
        probs.append(f"second line is {lines[1]!r}, expected {'  ' + text!r}")
    if lines[2] != "  " + " " * (col - 1) + "^":
        probs.append(f"caret line {lines[2]!r} is not under column {col}")
    if not (1 <= col <= len(text) + 1):
        probs.append(f"column {col} is outside the expression (length {len(text)})")
    if want_msg is not None and want_msg not in msg:
        probs.append(f"message {msg!r} does not contain numpy's {want_msg!r}")
    if culprits:
        c0 = col - 1
        if not any(it.start <= c0 < max(it.end, it.start + 1) for it in culprits):
            spans = ", ".join(f"{it.text!r} at columns {it.start + 1}-{it.end}" for it in culprits)
            probs.append(f"caret at column {col} is not under the offending item ({spans})")
    if case["junk"] == "item" or case["junk"] == "empty_item":
        j = next(it for it in case["items"] if it.kind == "junk")
        lo = j.start - (1 if case["junk"] == "empty_item" else 0)  # the comma before an empty item
        if col - 1 < lo:
            probs.append(f"caret at column {col} is before the junk {j.text!r} at column {j.start + 1}")
    return probs


# ------------------------------------------------------------------------------ runner


class Failure(Exception):
    pass


def fmt_case(case):
    a = case["arr"]
    only = "--only-advanced" if case["advanced"] else "--only"
    return (f"seed {case['seed']} {'advanced ' if case['advanced'] else ''}case {case['index']} "
            f"(replay: --seed {case['seed']} {only} {case['index']})\n"
            f"    array: shape {a.shape}, dtype {a.dtype.str} {a.dtype.descr if a.dtype.names else ''}, "
            f"{'Fortran' if case['fortran'] else 'C'} order\n"
            f"    expression: {case['text']!r}{' (no EXPR argument)' if case['no_expr'] else ''}\n"
            f"    numpy index tuple: {tuple(it.value for it in case['items'])!r}")


def run(argv, stdin=None):
    return subprocess.run(argv, input=stdin, capture_output=True, timeout=60)


def run_case(args, case, workdir):
    """Returns a list of (kind, detail) failures (empty if the case passed)."""
    fails = []
    r = random.Random(case["array_seed"])
    arr = random_array(r, case["shape"], case["dtype"])
    if case["fortran"]:
        arr = np.asfortranarray(arr)
    case["arr"] = arr
    d = os.path.join(workdir, f"c{case['seed']}_{case['index']}")
    os.mkdir(d)
    try:
        inp = os.path.join(d, "in.npy")
        np.save(inp, arr, allow_pickle=False)
        with open(inp, "rb") as f:
            in_bytes = f.read()
        out = os.path.join(d, "out.npy")

        ok, expected, etype, emsg = numpy_result(case)
        case["numpy_ok"] = ok
        sim_msg, culprits = (simulate_error_advanced if case["advanced"] else simulate_error)(case)
        if emsg == NUMPY_1_OUT_OF_BOUNDS and sim_msg is not None and " is out of bounds for axis " in sim_msg:
            emsg = sim_msg
        junk = case["junk"] is not None
        if not junk:
            # the harness's model of numpy must agree with numpy
            if ok != (sim_msg is None):
                fails.append(("harness", f"numpy says {'ok' if ok else etype + ': ' + emsg}, "
                                         f"simulation says {sim_msg!r}"))
                return fails
            if not ok and sim_msg != NUMPY_TOO_BIG_INT and sim_msg != emsg:
                fails.append(("harness", f"numpy says {etype}: {emsg!r}, simulation says {sim_msg!r}"))
                return fails
            if not ok and sim_msg == NUMPY_TOO_BIG_INT and etype not in ("IndexError", "OverflowError"):
                fails.append(("harness", f"numpy says {etype}: {emsg!r} for a huge integer"))
                return fails
        expect_ok = ok and not junk
        # numpy's words for IndexError and ValueError; OverflowError ("Python int too large to
        # convert to C long", for an integer index of 2**63 and up) is Python's, not numpy's
        want_msg = emsg.rstrip() if not junk and etype in ("IndexError", "ValueError") else None

        io_mode = case["io_mode"]
        stdin = None
        in_arg = inp
        if io_mode in ("stdin", "both"):
            stdin = in_bytes
            in_arg = "-"
        out_arg = "-" if io_mode in ("stdout", "both") else out
        opts = ["-o", out_arg]
        if case["threads"] is not None:
            opts += ["-t", str(case["threads"])]
        pos = [in_arg] + ([] if case["no_expr"] else [case["text"]])
        argv = [args.tslice] + (pos + opts if case["opts_last"] else opts + pos)
        cmd = shlex.join(["tslice"] + argv[1:]).replace(d + "/", "")
        where = f"{fmt_case(case)}\n    command (in the case's directory): {cmd}" + \
                (" < in.npy" if stdin is not None else "")

        res = run(argv, stdin)
        listing = sorted(os.listdir(d))
        out_data = res.stdout if out_arg == "-" else None
        if expect_ok:
            probs = []
            if res.returncode != 0:
                probs.append(f"exit {res.returncode}, expected 0; stderr {res.stderr.decode(errors='replace')!r}")
            else:
                if res.stderr:
                    probs.append(f"stderr not empty on success: {res.stderr.decode(errors='replace')!r}")
                if out_arg != "-":
                    if res.stdout:
                        probs.append(f"stdout not empty with -o PATH: {res.stdout[:200]!r}")
                    if listing != ["in.npy", "out.npy"]:
                        probs.append(f"directory holds {listing}, expected ['in.npy', 'out.npy']")
                    if os.path.exists(out):
                        with open(out, "rb") as f:
                            out_data = f.read()
                else:
                    if listing != ["in.npy"]:
                        probs.append(f"directory holds {listing}, expected ['in.npy'] with -o -")
                if out_data is not None:
                    probs += check_npy_bytes(out_data, expected, arr.dtype)
            if probs:
                kind = "success-expected"
                if res.returncode != 0 and case["text"].lstrip().startswith("-") and not case["no_expr"]:
                    kind = "success-expected (EXPR starts with '-')"
                fails.append((kind, where + f"\n    numpy: ok, shape {expected.shape}\n    tslice: "
                              + "\n            ".join(probs)))
        else:
            why = ("junk syntax (" + case["junk"] + ")") if junk else f"{etype}: {emsg}"
            probs = []
            if res.returncode != 2:
                probs.append(f"exit {res.returncode}, expected 2")
            if res.stdout:
                probs.append(f"stdout not empty on error: {res.stdout[:200]!r}")
            if listing != ["in.npy"]:
                probs.append(f"directory holds {listing}, expected only ['in.npy'] after an error")
            if res.returncode == 2 or res.returncode == 0:
                probs += check_error_output(case, res.stderr, want_msg, None if junk else culprits)
            else:
                probs.append(f"stderr {res.stderr.decode(errors='replace')!r}")
            if probs:
                kind = "error-expected (junk)" if junk else "error-expected"
                if res.returncode == 0:
                    kind += ", but tslice succeeded"
                fails.append((kind, where + f"\n    numpy: {why}\n    tslice: exit {res.returncode}, "
                              f"stderr {res.stderr.decode(errors='replace')!r}\n    problems: "
                              + "\n              ".join(probs)))

        if case["shape_check"]:
            for js in (False, True):
                argv2 = [args.tslice, "--shape"] + (["--json"] if js else []) + pos
                cmd2 = shlex.join(["tslice"] + argv2[1:]).replace(d + "/", "")
                res2 = run(argv2, stdin)
                probs = []
                if expect_ok:
                    want = (json.dumps({"shape": list(expected.shape), "dtype": arr.dtype.str}) if js
                            else str(expected.shape)) + "\n"
                    got = res2.stdout.decode("utf-8", errors="replace")
                    if res2.returncode != 0:
                        probs.append(f"exit {res2.returncode}, expected 0; stderr {res2.stderr!r}")
                    elif js:
                        try:
                            g = json.loads(got)
                        except ValueError:
                            g = None
                        okjson = (isinstance(g, dict) and set(g) == {"shape", "dtype"}
                                  and g["shape"] == list(expected.shape)
                                  and (g["dtype"] == arr.dtype.str
                                       or (arr.dtype.names and g["dtype"] in (
                                           arr.dtype.descr, str(arr.dtype.descr),
                                           [list(x) for x in arr.dtype.descr]))))
                        if not okjson or got.count("\n") != 1 or not got.endswith("\n"):
                            probs.append(f"stdout {got!r}, expected {want!r}")
                    elif got != want:
                        probs.append(f"stdout {got!r}, expected {want!r}")
                    if res2.returncode == 0 and res2.stderr:
                        probs.append(f"stderr not empty: {res2.stderr!r}")
                else:
                    if res2.returncode != 2:
                        probs.append(f"exit {res2.returncode}, expected 2")
                    if res2.stdout:
                        probs.append(f"stdout not empty on error: {res2.stdout[:200]!r}")
                    if res2.returncode in (0, 2):
                        probs += check_error_output(case, res2.stderr, want_msg,
                                                    None if junk else culprits)
                if sorted(os.listdir(d)) != listing:
                    probs.append(f"--shape changed the directory: {sorted(os.listdir(d))}")
                if probs:
                    fails.append(("--shape" + (" --json" if js else ""),
                                  where + f"\n    shape command: {cmd2}\n    numpy: "
                                  + (f"ok, shape {expected.shape}, dtype {arr.dtype.str}" if expect_ok
                                     else ("junk" if junk else f"{etype}: {emsg}"))
                                  + "\n    tslice: " + "\n            ".join(probs)))
    finally:
        harness.remove_case_dir(d, args.keep if fails else None)
    return fails


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tslice", required=True, help="path of the tslice executable")
    ap.add_argument("--cases", type=int, default=3000, help="number of random basic cases (default 3000)")
    ap.add_argument("--advanced-cases", type=int, default=2000,
                    help="number of random cases with integer lists, on top of --cases (default 2000)")
    ap.add_argument("--seed", type=int, help="use this seed for every case")
    ap.add_argument("--only", type=int, help="run only this basic case number")
    ap.add_argument("--only-advanced", type=int, help="run only this advanced case number")
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--keep", help="copy the inputs of failing cases into this directory")
    ap.add_argument("--show", type=int, default=5, help="failures shown in full per kind (default 5)")
    args = ap.parse_args()
    args.tslice = harness.require_tslice(args.tslice)
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)

    seeds = harness.SplitSeeds(FIXED_SEED, args.seed)
    seeds.announce()
    if args.only is not None or args.only_advanced is not None:
        advanced, k = (False, args.only) if args.only is not None else (True, args.only_advanced)
        count = args.advanced_cases if advanced else args.cases
        plan = [(s, i, advanced) for s, i in seeds.plan(count, k)]
    else:
        plan = ([(s, i, False) for s, i in seeds.plan(args.cases)] +
                [(s, i, True) for s, i in seeds.plan(args.advanced_cases)])

    stats = collections.Counter()
    failures = harness.FailuresByKind()
    tally = harness.Tally()

    with tempfile.TemporaryDirectory(prefix="tslice-diff-") as workdir:
        def one(job):
            seed, i, advanced = job
            case = (gen_advanced_case if advanced else gen_case)(seed, i)
            return case, harness.run_guarded(
                lambda: run_case(args, case, workdir),
                lambda: fmt_case(case) if "arr" in case else (seed, i, advanced))

        for case, fl in harness.run_parallel(one, plan, args.workers):
            tally.count(fl)
            failures.add(fl)
            stats[("advanced " if case["advanced"] else "") +
                  ("junk" if case["junk"] is not None else
                   ("numpy ok" if case.get("numpy_ok") else "numpy error"))] += 1
            stats["io:" + case["io_mode"]] += 1
            if case["advanced"] and case["mode"] != "valid":
                stats["advanced mode " + case["mode"]] += 1
            stats["shape_check"] += case["shape_check"]
            stats["large"] += case["large"]

    failures.report(args.show)
    harness.print_case_mix(stats)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
