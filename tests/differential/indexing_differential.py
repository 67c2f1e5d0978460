#!/usr/bin/python3
"""Differential test: tslice's newer index expressions against numpy's.

Five kinds of cases, each on a small random array (ranks 0-4, zero-length axes sometimes,
plain and structured dtypes of both byte orders, C or Fortran order):

  mask    boolean masks written as lists (`[True, False, True]`, nested for masks over
          several axes) mixed with integers, slices, '...', None and integer lists, among
          them lists that mix True/False with integers (integer lists in numpy: True is 1);
          wrong lengths, all-False masks, 2-D and 3-D masks
  sbool   scalar True / False as items (`[True]`, `[..., None, True]`, `[0, False]`)
  empty   `[()]`, the whole array (0-d arrays too)
  chain   several brackets (`[0][1]`, `[1:][[0, 2]]`, `['n']['b']`), each applied to the
          previous result, as numpy's a[i1][i2]...
  field   field names of structured arrays in single or double quotes: `['x']` (a sub-array
          field adds its shape), `['n']` (a nested structure), lists of names `[['z', 'x']]`
          (written packed: numpy.lib.recfunctions.repack_fields of numpy's result), unknown and
          repeated names, names mixed with other items, names on plain arrays

The numpy index is built from the same random choices as the text (np.array(..., dtype=bool)
for masks), never by evaluating the text.  numpy is the oracle:

    tslice IN.npy 'EXPR' -o OUT.npy

must exit 0 exactly when numpy succeeds, and np.load(OUT) must have numpy's shape, dtype descr
and bytes (a structured result packed).  Where numpy makes a scalar (every axis taken by an
integer), tslice writes, and goes on indexing, a 0-d array of the array's dtype: the oracle
takes the same element as a 0-d view (numpy's scalar would be in native byte order), and
numpy's literal a[k1][k2]... must agree with it on success, the failing bracket and the values
(except through np.str_ / np.bytes_ scalars, which index as Python strings).  When numpy raises
IndexError, ValueError or KeyError, tslice must exit 2, write nothing, and say on stderr
`tslice: error: MESSAGE (column N)`, the expression and a caret under the failing bracket,
where MESSAGE contains numpy's message (for a KeyError, the missing name).

    /usr/bin/python3 tests/differential/indexing_differential.py --tslice build/tslice --cases 2000

Half of the cases use the fixed seed and half a fresh one; both are printed first.  `--seed N`
uses N for every case; `--only K` runs case K alone (`--seed S --only K` replays one case).
A case that cannot be checked (numpy raising something else, numpy's literal chain and the
0-d array chain disagreeing, a harness exception) counts as failed; nothing is skipped.  The
last line is `N passed, M failed`; the exit status is 1 when anything failed.
"""

import collections
import io
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import traceback
import warnings

import numpy as np
import numpy.lib.recfunctions as rfn

import harness

warnings.simplefilter("ignore", DeprecationWarning)
# Out-of-bounds list values where the result is empty are an IndexError in numpy 2, which tslice
# follows; numpy 1.x only warned ("Out of bound index found"): see index_as_numpy_2.
warnings.filterwarnings("error", message="Out of bound index found", category=DeprecationWarning)

FIXED_SEED = 20240
NUMPY_ERRORS = (IndexError, ValueError, KeyError)

# ----------------------------------------------------------------------------- arrays

PLAIN_DTYPES = [
    np.dtype("?"), np.dtype("i1"), np.dtype("u1"), np.dtype("<i2"), np.dtype(">u2"), np.dtype("<i4"),
    np.dtype(">i4"), np.dtype("<i8"), np.dtype("<u8"), np.dtype("<f2"), np.dtype("<f4"), np.dtype(">f8"),
    np.dtype("<c8"), np.dtype("S3"), np.dtype("<U2"), np.dtype("V3"),
]

STRUCT_DTYPES = [
    np.dtype([("x", "<f4"), ("y", "<i2", (2, 3)), ("z", ">f8"), ("n", [("a", "u1"), ("b", "<i4")])]),
    np.dtype([("a", "<i2"), ("b", "S3"), ("c", "<u8", (2,))]),
    np.dtype([("p q", ">i2"), ("r", "<f8", (2,)), ("s", [("t", "<c8", (2,)), ("u", "u1")]), ("v", "V2")]),
    np.dtype([("id", "<i8")]),
]

# names that no field of the dtypes above has at the top level (some are nested names)
UNKNOWN_NAMES = ["q", "X", "xx", "a b", "t", "u", "nb", "", "0", "Y"]


def random_shape(r):
    rank = r.choices(range(5), weights=[10, 25, 30, 22, 13])[0]
    shape = []
    for _ in range(rank):
        shape.append(0 if r.random() < 0.07 else r.randint(1, 4))
    return tuple(shape)


def random_array(r, shape, dtype):
    nrng = np.random.default_rng(r.getrandbits(64))
    size = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if dtype.kind == "b":
        arr = nrng.integers(0, 2, size=size).astype(bool)
    elif dtype.kind == "U":
        letters = np.array([ord(c) for c in "abcXYZ09é中"], dtype=np.uint32)
        n = dtype.itemsize // 4
        codes = letters[nrng.integers(0, len(letters), size=(size, n))]
        arr = codes.astype(dtype.byteorder.replace("=", "<").replace("|", "<") + "u4").view(dtype).reshape(size)
    else:
        # random bytes: every bit pattern must survive the copy
        raw = nrng.integers(0, 256, size=size * dtype.itemsize, dtype=np.uint8).tobytes()
        arr = np.frombuffer(raw, dtype=dtype).copy()
    return arr.reshape(shape)


# ------------------------------------------------------------------------- expressions


def sp(r, p=0.3):
    """Random whitespace between tokens."""
    return " " * r.randint(1, 2) if r.random() < p else ""


class Item:
    """One item of a subscript: `value` is what numpy gets, `text` how it is written."""

    def __init__(self, kind, value, text):
        self.kind = kind  # int slice ell new list mixlist mask sbool field fieldlist
        self.value = value
        self.text = text
        self.start = None  # column (0-based) in the whole expression

    @property
    def end(self):
        return self.start + len(self.text)


class Bracket:
    """One `[...]` of an expression: its items (or a special form) and the numpy key."""

    def __init__(self, form, items, trailing=False, text=None):
        self.form = form  # 'items', 'empty_tuple'
        self.items = items
        self.trailing = trailing
        self.text = text
        self.start = None

    @property
    def end(self):
        return self.start + len(self.text)

    def key(self):
        if self.form == "empty_tuple":
            return ()
        if len(self.items) == 1 and not self.trailing:
            return self.items[0].value
        return tuple(it.value for it in self.items)

    def key_repr(self):
        def rep(v):
            if isinstance(v, np.ndarray):
                return f"np.array({v.tolist()!r}, dtype=bool)"
            if isinstance(v, tuple):
                inner = ", ".join(rep(x) for x in v)
                return "(" + inner + ("," if len(v) == 1 else "") + ")"
            return repr(v)

        return "[" + rep(self.key()) + "]"


def quote(r, name):
    return ('"' + name + '"') if r.random() < 0.4 else ("'" + name + "'")


def list_text(r, v):
    """The text of a nested list of ints and bools (bools as True/False)."""
    if isinstance(v, list):
        inner = ""
        for k, e in enumerate(v):
            if k:
                inner += sp(r, 0.1) + "," + sp(r, 0.5)
            inner += list_text(r, e)
        if v and r.random() < 0.05:
            inner += ","
        return "[" + sp(r, 0.08) + inner + sp(r, 0.08) + "]"
    if isinstance(v, bool):
        return "True" if v else "False"
    return str(v)


def rand_bound(r, d):
    x = r.random()
    if x < 0.45:
        return None
    return r.randint(-d - 1, d + 1)


def make_slice(r, d):
    start, stop = rand_bound(r, d), rand_bound(r, d)
    step = None if r.random() < 0.5 else r.choice([-2, -1, -1, 1, 2, 3])
    s = "" if start is None else str(start)
    e = "" if stop is None else str(stop)
    if step is None:
        text = s + ":" + e if r.random() < 0.8 else s + ":" + e + ":"
    else:
        text = s + ":" + e + ":" + str(step)
    return Item("slice", slice(start, stop, step), text)


def make_int(r, d, oob=False):
    if oob or d == 0:
        v = r.choice([d, d + 1, -d - 1])
    else:
        v = r.randint(-d, d - 1)
    return Item("int", v, str(v))


def make_none(r):
    return Item("new", None, r.choice(["None", "None", "np.newaxis", "newaxis"]))


def make_mask(r, dims, trues, wrong_axis=None):
    """A mask over axes of lengths `dims` (all > 0) with about `trues` True values (None:
    random); wrong_axis: that axis gets a wrong (non-zero) length."""
    dims = list(dims)
    if wrong_axis is not None:
        d = dims[wrong_axis]
        choices = [d + 1, d + 2] + ([d - 1] if d >= 2 else [])
        dims[wrong_axis] = r.choice(choices)
    size = int(np.prod(dims))
    if trues is None:
        x = r.random()
        if x < 0.12:
            flat = [False] * size  # all False
        elif x < 0.2:
            flat = [True] * size
        else:
            flat = [r.random() < 0.5 for _ in range(size)]
    else:
        trues = max(0, min(trues, size))
        on = set(r.sample(range(size), trues))
        flat = [k in on for k in range(size)]
    value = harness.nested(flat, dims)
    return Item("mask", np.array(value, dtype=bool), list_text(r, value))


def make_int_list(r, d, length, nested=False):
    """An integer list (of `length`, or of shape (2, length) when nested)."""
    def v():
        return r.randint(-d, d - 1) if d > 0 else r.choice([0, 1, -1])

    if nested:
        value = [[v() for _ in range(length)] for _ in range(2)]
    else:
        value = [v() for _ in range(length)]
    return Item("list", value, list_text(r, value))


def make_mixlist(r, d, length):
    """A list mixing True/False with integers: an integer list in numpy (True is 1)."""
    length = max(length, 2)
    value = []
    for _ in range(length):
        if r.random() < 0.5:
            value.append(r.random() < 0.5)
        else:
            value.append(r.randint(-d, d - 1) if d > 0 else 0)
    if not any(isinstance(x, bool) for x in value):
        value[r.randrange(length)] = r.random() < 0.5
    if all(isinstance(x, bool) for x in value):
        value[r.randrange(length)] = r.randint(-d, d - 1) if d > 0 else 0
    if r.random() < 0.15:
        value = [value, [r.random() < 0.5 if k % 2 else (r.randint(0, d - 1) if d > 0 else 0)
                         for k in range(length)]]
    return Item("mixlist", value, list_text(r, value))


def make_sbool(r):
    v = r.random() < 0.6
    return Item("sbool", v, "True" if v else "False")


def assemble(r, items, trailing):
    """The text of a bracket of `items`; sets each item's start relative to the bracket."""
    text = "[" + sp(r, 0.15)
    for k, it in enumerate(items):
        if k:
            text += sp(r, 0.15) + "," + sp(r, 0.6)
        it.start = len(text)
        text += it.text
    if trailing:
        text += sp(r, 0.1) + ","
    text += sp(r, 0.15) + "]"
    return text


def gen_items_bracket(r, shape, flavor):
    """A bracket of items for an array of `shape`; flavor: 'mask', 'sbool' or 'basic'."""
    ndim = len(shape)
    x = r.random()
    mode = "valid"
    if flavor == "mask":
        if x < 0.15:
            mode = "mask_len"
        elif x < 0.2:
            mode = "free"  # no attempt to make the advanced indices broadcast
    if x > 0.96:
        mode = "too_many"
    elif x > 0.93:
        mode = "oob"

    use_ell = r.random() < 0.3
    n_cons = ndim if r.random() < 0.55 else r.randint(0, ndim)
    n_before = r.randint(0, n_cons) if use_ell else n_cons
    groups = [list(range(n_before)), list(range(ndim - (n_cons - n_before), ndim))]
    dims = {a: shape[a] for a in range(ndim)}
    if mode == "too_many":
        extra = r.randint(1, 2)
        for k in range(extra):
            dims[ndim + k] = r.randint(1, 3)
        groups[1] = groups[1] + [ndim + k for k in range(extra)]

    # the broadcast length the advanced indices aim for
    target = r.choice([0, 1, 1, 2, 2, 3]) if mode != "free" else None
    want_mask = flavor == "mask"
    mask_p = 0.45 if flavor == "mask" else (0.12 if flavor == "sbool" else 0.0)
    list_p = 0.25 if flavor != "basic" else 0.0

    parts = [[], []]
    first_axis = [[], []]  # the first axis each item of parts takes
    for g, axes in enumerate(groups):
        k = 0
        while k < len(axes):
            rest = len(axes) - k
            y = r.random()
            if y < mask_p:
                span = r.choices([1, 2, 3], weights=[55, 30, 15])[0]
                span = min(span, rest)
                ds = [dims[a] for a in axes[k:k + span]]
                if all(d > 0 for d in ds):
                    if mode == "free" or target is None:
                        trues = None
                    else:
                        size = int(np.prod(ds))
                        trues = target if target <= size else 1
                        if r.random() < 0.15:
                            trues = None
                    parts[g].append(make_mask(r, ds, trues))
                    first_axis[g].append(axes[k])
                    k += span
                    continue
                # an axis of length 0 cannot take a written mask: a wrong-length one, sometimes
                if r.random() < 0.3:
                    parts[g].append(make_mask(r, [max(d, 1) for d in ds], None,
                                              wrong_axis=next(i for i, d in enumerate(ds) if d == 0)))
                    first_axis[g].append(axes[k])
                    k += span
                    continue
            d = dims[axes[k]]
            if y < mask_p + list_p * 0.5 and d > 0:
                length = target if target is not None else r.randint(0, 3)
                if r.random() < 0.3:
                    length = 1
                parts[g].append(make_int_list(r, d, length, nested=r.random() < 0.1))
            elif y < mask_p + list_p and d > 0:
                length = target if target is not None else r.randint(1, 3)
                parts[g].append(make_mixlist(r, d, length))
            elif y < 0.75 and d > 0 and r.random() < 0.4:
                parts[g].append(make_int(r, d))
            else:
                parts[g].append(make_slice(r, d))
            first_axis[g].append(axes[k])
            k += 1

    cons = parts[0] + parts[1]
    if want_mask and not any(it.kind in ("mask", "mixlist") for it in cons):
        # make sure there is a mask: on a free axis, or in place of an item
        cands = [k for k, it in enumerate(cons) if it.kind != "mask"]
        if cands:
            k = r.choice(cands)
            g = 0 if k < len(parts[0]) else 1
            j = k if g == 0 else k - len(parts[0])
            d = dims[first_axis[g][j]]
            if r.random() < 0.15 and d > 0:
                parts[g][j] = make_mixlist(r, d, target or 2)
            elif d > 0:
                parts[g][j] = make_mask(r, [d], None if target is None or target > d else target)
            else:
                parts[g][j] = make_mask(r, [r.randint(1, 3)], None)
        else:
            # every axis taken (or none): a mask over a new leading axis is then too many,
            # unless the array has axes left; a 1-element mask on 0-d arrays errors like numpy
            parts[1].append(make_mask(r, [r.randint(1, 3)], None))

    if mode == "mask_len":
        masks = [(g, j) for g in (0, 1) for j, it in enumerate(parts[g]) if it.kind == "mask"]
        if masks:
            g, j = r.choice(masks)
            m = parts[g][j].value
            wrong = r.randrange(m.ndim)
            parts[g][j] = make_mask(r, list(m.shape), None, wrong_axis=wrong)
    elif mode == "oob":
        ints = [(g, j) for g in (0, 1) for j, it in enumerate(parts[g]) if it.kind in ("int", "list")]
        if ints:
            g, j = r.choice(ints)
            parts[g][j] = make_int(r, dims[first_axis[g][j]], oob=True)

    items = parts[0] + ([Item("ell", Ellipsis, "...")] if use_ell else []) + parts[1]
    if r.random() < 0.2 and not use_ell:
        # an ellipsis where no axes are left for it, or among the items anywhere
        items.insert(r.randint(0, len(items)), Item("ell", Ellipsis, "..."))
    for _ in range(r.choices([0, 1, 2], weights=[65, 25, 10])[0]):
        items.insert(r.randint(0, len(items)), make_none(r))
    n_sbool = 0
    if flavor == "sbool":
        n_sbool = r.choices([1, 2, 3], weights=[70, 25, 5])[0]
    elif flavor == "mask" and r.random() < 0.1:
        n_sbool = 1
    for _ in range(n_sbool):
        items.insert(r.randint(0, len(items)), make_sbool(r))
    if flavor == "sbool" and r.random() < 0.25:
        # the short ones of the brief: [True], [False], [..., None, True], [0, False], [True, :, 0]
        forms = [[make_sbool(r)], [Item("ell", Ellipsis, "..."), make_none(r), make_sbool(r)]]
        if ndim >= 1:
            forms.append([make_int(r, shape[0]) if shape[0] else make_slice(r, 0), make_sbool(r)])
        if ndim >= 2:
            forms.append([make_sbool(r), make_slice(r, shape[0]),
                          make_int(r, shape[1]) if shape[1] else make_slice(r, 0)])
        items = r.choice(forms)
    if not items:
        items = [Item("ell", Ellipsis, "...")] if r.random() < 0.5 else [make_sbool(r)]
    trailing = r.random() < 0.1
    b = Bracket("items", items, trailing)
    b.text = assemble(r, items, trailing)
    return b


def gen_field_bracket(r, dtype, shape):
    """A bracket selecting fields (or trying to) on an array of `dtype`."""
    names = list(dtype.names or [])
    x = r.random()
    if not names:
        # a field name on a plain array: numpy's IndexError
        nm = r.choice(["x", "a", "y", "f0"])
        if r.random() < 0.7:
            it = Item("field", nm, quote(r, nm))
        else:
            lst = [nm] + (["b"] if r.random() < 0.5 else [])
            it = Item("fieldlist", lst, "[" + (", ".join(quote(r, n) for n in lst)) + "]")
        b = Bracket("items", [it])
        b.text = assemble(r, [it], False)
        return b
    if x < 0.45:
        nm = r.choice(names) if r.random() < 0.88 else r.choice(UNKNOWN_NAMES)
        items = [Item("field", nm, quote(r, nm))]
    elif x < 0.88:
        k = r.randint(1, min(3, len(names)))
        lst = r.sample(names, k)
        y = r.random()
        if y < 0.1:
            lst.insert(r.randint(0, len(lst)), r.choice(lst))  # a repeated name
        elif y < 0.2:
            lst.insert(r.randint(0, len(lst)), r.choice(UNKNOWN_NAMES))
        text = "[" + sp(r, 0.1) + (sp(r, 0.1) + "," + sp(r, 0.6)).join(quote(r, n) for n in lst) + sp(r, 0.1) + "]"
        items = [Item("fieldlist", lst, text)]
    else:
        # a name among other items (or with a trailing comma): numpy's IndexError
        nm = r.choice(names)
        f = Item("field", nm, quote(r, nm))
        other = r.choice([Item("ell", Ellipsis, "..."), Item("int", 0, "0"), Item("slice", slice(None), ":"),
                          Item("new", None, "None")])
        items = [f, other] if r.random() < 0.5 else [other, f]
        if r.random() < 0.3:
            items = [f]
            b = Bracket("items", items, True)
            b.text = assemble(r, items, True)
            return b
    b = Bracket("items", items)
    b.text = assemble(r, items, False)
    return b


def gen_empty_bracket(r):
    b = Bracket("empty_tuple", [])
    b.text = r.choice(["[()]", "[()]", "[()]", "[ () ]", "[( )]"])
    return b


def probe_step(shape, dtype, key):
    """The shape and dtype of np.zeros(shape, dtype)[key], or None if numpy refuses."""
    try:
        res = np.asarray(np.zeros(shape, dtype)[key])
    except Exception:  # noqa: BLE001
        return None
    return res.shape, res.dtype


def gen_case(seed, index):
    """All random choices of one case, from (seed, index) alone."""
    r = random.Random(f"idx:{seed}:{index}")
    kind = r.choices(["mask", "sbool", "empty", "chain", "field"], weights=[32, 15, 5, 25, 23])[0]
    structured = r.random() < (0.9 if kind == "field" else (0.5 if kind == "chain" else 0.15))
    dtype = r.choice(STRUCT_DTYPES if structured else PLAIN_DTYPES)
    shape = random_shape(r)
    if kind == "empty" and r.random() < 0.3:
        shape = ()
    fortran = len(shape) >= 2 and r.random() < 0.3

    brackets = []
    if kind == "mask":
        brackets.append(gen_items_bracket(r, shape, "mask"))
    elif kind == "sbool":
        brackets.append(gen_items_bracket(r, shape, "sbool"))
    elif kind == "empty":
        brackets.append(gen_empty_bracket(r))
    elif kind == "field":
        brackets.append(gen_field_bracket(r, dtype, shape))
    else:
        n = r.choices([2, 3, 4], weights=[55, 35, 10])[0]
        cur_shape, cur_dtype = shape, dtype
        want_field = dtype.names is not None and r.random() < 0.8
        field_at = r.randrange(n) if want_field else -1
        for k in range(n):
            if k == field_at or (cur_dtype.names and r.random() < 0.3):
                b = gen_field_bracket(r, cur_dtype, cur_shape)
            else:
                f = r.choices(["basic", "mask", "sbool", "empty"], weights=[50, 25, 12, 8])[0]
                b = gen_empty_bracket(r) if f == "empty" else gen_items_bracket(r, cur_shape, f)
            brackets.append(b)
            nxt = probe_step(cur_shape, cur_dtype, b.key())
            if nxt is None:
                break  # numpy fails here: nothing after it is reached
            cur_shape, cur_dtype = nxt

    pos = 0
    for b in brackets:
        b.start = pos
        pos += len(b.text)
        for it in b.items:
            it.start += b.start
    text = "".join(b.text for b in brackets)
    return dict(seed=seed, index=index, kind=kind, dtype=dtype, shape=shape, fortran=fortran,
                brackets=brackets, text=text, array_seed=r.getrandbits(64))


# ------------------------------------------------------------------------------ oracle


def normalize(res):
    """numpy's result as tslice writes it: an array (0-d for a scalar), C order, packed."""
    res = np.asarray(res)
    if res.dtype.names is not None:
        res = rfn.repack_fields(res)
    return np.array(res, order="C", copy=True)


NUMPY_1_MASK_WORDS = re.compile(r"boolean index did not match indexed array along dimension (\d+); "
                                r"dimension is (\d+) but corresponding boolean dimension is (\d+)")


def index_as_numpy_2(cur, key):
    """cur[key] as numpy 2 has it, which tslice follows. Under numpy 1.x: its warning about
    out-of-bounds values where the result is empty stands for numpy 2's IndexError, which then
    carries the words of numpy 2's message that hold no numbers (the values it names are not
    known here), for tslice's message to contain; and a mask of the wrong length is said in
    numpy 2's words."""
    try:
        return cur[key]
    except DeprecationWarning as warning:
        if "Out of bound index found" in str(warning):
            raise IndexError(" is out of bounds for axis") from None
        raise
    except IndexError as error:
        words = NUMPY_1_MASK_WORDS.search(str(error))
        if words is None:
            raise
        raise IndexError(f"boolean index did not match indexed array along axis {words[1]}; size of axis is "
                         f"{words[2]} but size of corresponding boolean axis is {words[3]}") from None


def step_array(cur, key):
    """cur[key] for an array `cur`, as an array: where numpy gives a scalar (every axis taken
    by an integer), the same element as a 0-d view, so its dtype (byte order included) is
    the array's.  numpy's scalar is in native byte order, a 0-d array keeps the array's."""
    res = index_as_numpy_2(cur, key)
    if not isinstance(res, np.ndarray):
        # a scalar comes only from integers (and no '...'), so adding '...' keeps the meaning
        res = cur[(key if isinstance(key, tuple) else (key,)) + (Ellipsis,)]
        assert isinstance(res, np.ndarray) and res.ndim == 0, "harness: scalar to 0-d"
    return res


def apply_chain(a, brackets):
    """(ok, result, failing bracket number, exception) of a[k1][k2]..., every intermediate
    result an array (tslice's intermediate results are arrays; a numpy scalar is a 0-d one)."""
    cur = a
    for k, b in enumerate(brackets):
        try:
            cur = step_array(cur, b.key())
        except Exception as e:  # noqa: BLE001
            return False, None, k, e
    return True, cur, None, None


def apply_literal_chain(a, brackets):
    """numpy's own a[k1][k2]... (intermediate results numpy scalars where numpy makes them):
    (ok, result, failing bracket, exception), or None where it is no oracle: np.str_ and
    np.bytes_ are Python strings, indexed as strings."""
    cur = a
    for k, b in enumerate(brackets):
        if isinstance(cur, (str, bytes)):
            return None
        try:
            cur = index_as_numpy_2(cur, b.key())
        except Exception as e:  # noqa: BLE001
            return False, None, k, e
    return True, cur, None, None


def numpy_oracle(case):
    """(ok, expected array or None, failing bracket, exception, oracle problem or None).

    The oracle is the chain of 0-d-array-preserving steps; numpy's literal chain must agree
    with it on success or failure, where it fails and the result's shape and values."""
    a = case["arr"]
    ok, res, k, e = apply_chain(a, case["brackets"])
    if e is not None and not isinstance(e, NUMPY_ERRORS):
        return False, None, None, e, f"numpy raised {type(e).__name__}: {e}"
    lit = apply_literal_chain(a, case["brackets"])
    if lit is not None:
        ok1, res1, k1, e1 = lit
        if ok1 != ok:
            return False, None, None, None, (
                f"numpy's literal chain says {'ok' if ok1 else type(e1).__name__ + ': ' + str(e1)}, "
                f"the chain on arrays {'ok' if ok else type(e).__name__ + ': ' + str(e)}")
        if not ok and k1 != k:
            return False, None, None, None, f"numpy's chains fail at different brackets ({k1 + 1}, {k + 1})"
    if not ok:
        return False, None, k, e, None
    expected = normalize(res)
    if lit is not None:
        x1 = normalize(res1)
        if x1.shape != expected.shape or x1.astype(expected.dtype).tobytes() != expected.tobytes():
            return False, None, None, None, "numpy's literal chain and the chain on arrays give different values"
    return True, expected, None, None, None


# ----------------------------------------------------------------------------- checks


def check_output(path, expected):
    """Problems with the written .npy (empty list if none)."""
    if not os.path.exists(path):
        return ["no output file written"]
    with open(path, "rb") as f:
        data = f.read()
    try:
        got = np.load(io.BytesIO(data), allow_pickle=False)
    except Exception as e:  # noqa: BLE001
        return [f"np.load failed: {e!r}; first bytes {data[:120]!r}"]
    probs = []
    want_descr = np.lib.format.dtype_to_descr(expected.dtype)
    got_descr = np.lib.format.dtype_to_descr(got.dtype)
    if got_descr != want_descr:
        probs.append(f"descr {got_descr!r}, expected {want_descr!r}")
    if got.shape != expected.shape:
        probs.append(f"shape {got.shape}, expected {expected.shape}")
    if not probs and got.tobytes() != expected.tobytes():
        gb, eb = got.tobytes(), expected.tobytes()
        first = next((i for i in range(min(len(gb), len(eb))) if gb[i] != eb[i]), min(len(gb), len(eb)))
        probs.append(f"bytes differ (first at byte {first} of {len(eb)}); expected {expected!r}; got {got!r}")
    return probs


CARET_RE = re.compile(r"^tslice: error: (.*) \(column (\d+)\)$", re.S)


def check_error_output(case, stderr, exc, bracket):
    """(message problems, format problems) of tslice's stderr for numpy's exception `exc`
    raised by bracket number `bracket`."""
    text = case["text"]
    try:
        s = stderr.decode("utf-8")
    except UnicodeDecodeError:
        return [], [f"stderr is not UTF-8: {stderr!r}"]
    if not s.startswith("tslice: error: "):
        return [], [f"stderr does not start with 'tslice: error: ': {s!r}"]
    msg_probs = []
    if isinstance(exc, KeyError):
        name = exc.args[0] if exc.args else ""
        if str(name) not in s:
            msg_probs.append(f"stderr does not name the missing field {name!r}")
    else:
        want = str(exc).rstrip()
        if want not in s:
            msg_probs.append(f"stderr does not contain numpy's message {want!r}")
    fmt = []
    if not s.endswith("\n"):
        fmt.append("stderr does not end with a newline")
    lines = s.rstrip("\n").split("\n")
    if len(lines) != 3:
        fmt.append(f"expected 3 stderr lines (message, expression, caret), got {len(lines)}")
        return msg_probs, fmt
    m = CARET_RE.match(lines[0])
    if not m:
        fmt.append(f"first line does not end with ' (column N)': {lines[0]!r}")
        return msg_probs, fmt
    col = int(m.group(2))
    if lines[1] != "  " + text:
        fmt.append(f"second line is {lines[1]!r}, expected {'  ' + text!r}")
    if lines[2] != "  " + " " * (col - 1) + "^":
        fmt.append(f"caret line {lines[2]!r} is not under column {col}")
    b = case["brackets"][bracket]
    if not (b.start < col <= b.end):
        fmt.append(f"caret at column {col} is not under the failing bracket {b.text!r} "
                   f"(columns {b.start + 1}-{b.end})")
    elif "boolean index did not match" in str(exc):
        masks = [it for it in b.items if it.kind == "mask"]
        if masks and not any(it.start < col <= it.end for it in masks):
            fmt.append(f"caret at column {col} is not under a mask of {b.text!r}")
    return msg_probs, fmt


# ------------------------------------------------------------------------------ runner

_local = threading.local()


def worker_dir(base):
    """This worker thread's own temporary directory."""
    d = getattr(_local, "dir", None)
    if d is None:
        d = tempfile.mkdtemp(prefix="w", dir=base)
        _local.dir = d
    return d


def fmt_case(case):
    a = case.get("arr")
    dt = case["dtype"]
    return (f"seed {case['seed']} {case['kind']} case {case['index']} "
            f"(replay: --seed {case['seed']} --only {case['index']})\n"
            f"    array: shape {case['shape']}, dtype {dt.descr if dt.names else dt.str}, "
            f"{'Fortran' if case['fortran'] else 'C'} order{'' if a is not None else ' (not made)'}\n"
            f"    expression: {case['text']!r}\n"
            f"    numpy: a" + "".join(b.key_repr() for b in case["brackets"]))


def run_case(args, case, base):
    """A list of (kind, detail) failures (empty if the case passed)."""
    kind = case["kind"]
    arr = random_array(random.Random(case["array_seed"]), case["shape"], case["dtype"])
    if case["fortran"]:
        arr = np.asfortranarray(arr)
    case["arr"] = arr
    d = worker_dir(base)
    for f in os.listdir(d):
        os.remove(os.path.join(d, f))
    inp = os.path.join(d, "in.npy")
    out = os.path.join(d, "out.npy")
    np.save(inp, arr, allow_pickle=False)

    ok, expected, failing, exc, problem = numpy_oracle(case)
    case["numpy_ok"] = ok
    if problem is not None:
        return [("cannot check: " + problem.split(":")[0], fmt_case(case) + "\n    " + problem)]

    argv = [args.tslice, inp, case["text"], "-o", out]
    res = subprocess.run(argv, capture_output=True, timeout=60)
    cmd = shlex.join(["tslice", "in.npy", case["text"], "-o", "out.npy"])
    where = fmt_case(case) + f"\n    command: {cmd}"
    stderr = res.stderr.decode("utf-8", errors="replace")
    listing = sorted(os.listdir(d))
    fails = []
    if ok:
        numpy_says = (f"\n    numpy: ok, shape {expected.shape}, descr "
                      f"{np.lib.format.dtype_to_descr(expected.dtype)!r}, values {expected.tolist()!r}"[:600])
        if res.returncode != 0:
            fails.append((f"{kind}: numpy ok, tslice exit {res.returncode}",
                          where + numpy_says + f"\n    tslice: exit {res.returncode}, stderr {stderr!r}"))
        else:
            probs = []
            if res.stderr:
                probs.append(f"stderr not empty on success: {stderr!r}")
            if res.stdout:
                probs.append(f"stdout not empty with -o PATH: {res.stdout[:200]!r}")
            probs += check_output(out, expected)
            if probs:
                fails.append((f"{kind}: numpy ok, tslice wrote a different result",
                              where + numpy_says + "\n    tslice: " + "\n            ".join(probs)))
    else:
        why = f"{type(exc).__name__}: {exc}" + (f" (at bracket {failing + 1})" if len(case["brackets"]) > 1 else "")
        where += f"\n    numpy: {why}\n    tslice: exit {res.returncode}, stderr {stderr!r}"
        if res.returncode != 2:
            got = ""
            if res.returncode == 0 and os.path.exists(out):
                try:
                    g = np.load(out, allow_pickle=False)
                    got = f"; wrote shape {g.shape}, descr {np.lib.format.dtype_to_descr(g.dtype)!r}"
                except Exception as e:  # noqa: BLE001
                    got = f"; wrote an unreadable file ({e!r})"
            fails.append((f"{kind}: numpy {type(exc).__name__}, tslice exit {res.returncode}", where + got))
        else:
            probs = []
            if res.stdout:
                probs.append(f"stdout not empty on error: {res.stdout[:200]!r}")
            if listing != ["in.npy"]:
                probs.append(f"directory holds {listing} after an error, expected ['in.npy']")
            msg_probs, fmt_probs = check_error_output(case, res.stderr, exc, failing)
            if msg_probs:
                sub = "boolean index did not match" if "boolean index did not match" in str(exc) else \
                    type(exc).__name__
                fails.append((f"{kind}: error message ({sub}) lacks numpy's words",
                              where + "\n    problems: " + "\n              ".join(msg_probs)))
            if fmt_probs or probs:
                fails.append((f"{kind}: error output format",
                              where + "\n    problems: " + "\n              ".join(probs + fmt_probs)))
    if fails and args.keep:
        dst = os.path.join(args.keep, f"c{case['seed']}_{case['index']}")
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(d, dst)
    return fails


def main():
    args = harness.case_args(__doc__, 2000, max(2, min(8, os.cpu_count() or 4)), 3)

    seeds = harness.SplitSeeds(FIXED_SEED, args.seed)
    seeds.announce()
    plan = seeds.plan(args.cases, args.only)

    stats = collections.Counter()
    failures = harness.FailuresByKind()
    tally = harness.Tally()
    with tempfile.TemporaryDirectory(prefix="tslice-indexing-") as base:
        def one(job):
            seed, i = job
            holder = {}

            def check():
                case = gen_case(seed, i)
                holder["case"] = case
                return run_case(args, case, base)

            def describe():
                return fmt_case(holder["case"]) if "case" in holder else f"seed {seed} case {i}"

            def guarded():
                try:
                    return check()
                except subprocess.TimeoutExpired:
                    raise
                except Exception:  # noqa: BLE001
                    return [("harness exception", describe() + "\n    " +
                             traceback.format_exc().rstrip().replace("\n", "\n    "))]

            return holder, harness.run_guarded(guarded, describe)

        for holder, fl in harness.run_parallel(one, plan, args.workers):
            tally.count(fl)
            failures.add(fl)
            case = holder.get("case")
            if case is not None:
                stats[f"{case['kind']} numpy {'ok' if case.get('numpy_ok') else 'error'}"] += 1

    failures.report(args.show)
    harness.print_case_mix(stats)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
