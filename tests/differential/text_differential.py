"""Values as text against numpy: random arrays of every dtype tslice writes as text, random
slices, `tslice --format json` read back with json.loads and `--format csv` with
np.loadtxt(delimiter=","), compared with numpy's a[expr] value for value by the rules that
lib/src/text_values.cpp documents (NaN and the infinities as strings in JSON, bytes as
Latin-1 text, datetimes as numpy's ISO text, NaT as null, complex as [re, im]).

Usage: text_differential.py --tslice PATH [--cases N] [--seed N]
"""

import io
import json
import math
import os
import random
import subprocess
import sys
import tempfile

import numpy as np

import harness

FIXED_SEED = 20261125

NUMERIC = ["|b1", "|i1", "<i2", ">i4", "<i8", "|u1", ">u2", "<u4", "<u8", "<f2", "<f4", ">f8", "<c8", ">c16"]
OTHER = ["<U3", "|S4", "<M8[s]", "<M8[D]", "<m8[ms]", "structured"]


def random_array(rng, dtype_name):
    rank = rng.choice([0, 1, 1, 2, 2, 3])
    shape = tuple(rng.choice([0, 1, 2, 3, 5]) if rng.random() < 0.1 else rng.randint(1, 5) for _ in range(rank))
    count = int(np.prod(shape)) if shape else 1
    nprng = np.random.default_rng(rng.randrange(2**32))
    if dtype_name == "structured":
        dtype = np.dtype([("x", "<i4"), ("y", "<f8"), ("z", "<i2", (2,))])
        a = np.zeros(shape, dtype)
        a["x"] = nprng.integers(-1000, 1000, shape)
        a["y"] = nprng.normal(size=shape)
        a["z"] = nprng.integers(-9, 9, shape + (2,))
        return a
    dtype = np.dtype(dtype_name)
    if dtype.kind == "b":
        return nprng.integers(0, 2, shape).astype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return nprng.integers(info.min, info.max, shape, dtype=dtype.newbyteorder("=")).astype(dtype)
    if dtype.kind in "fc":
        values = nprng.normal(size=count) * 10.0 ** nprng.integers(-8, 8, count)
        specials = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, 0.1]
        for i in range(count):
            if nprng.random() < 0.15:
                values[i] = specials[nprng.integers(len(specials))]
        a = values.astype(dtype).reshape(shape)
        if dtype.kind == "c":
            a = a + 1j * np.roll(values, 1).reshape(shape).astype(dtype)
        return a.astype(dtype)
    if dtype.kind == "U":
        letters = ["a", "b", "é", "€", "\"", "\\", "\n", ""]
        return np.array(["".join(rng.choice(letters) for _ in range(rng.randint(0, 3))) for _ in range(count)],
                        dtype).reshape(shape)
    if dtype.kind == "S":
        return np.array([bytes(rng.randrange(256) for _ in range(rng.randint(0, 4))) for _ in range(count)],
                        dtype).reshape(shape)
    if dtype.kind in "mM":
        values = nprng.integers(-10**6, 10**6, count).astype(dtype)
        for i in range(count):
            if nprng.random() < 0.15:
                values[i] = np.datetime64("NaT") if dtype.kind == "M" else np.timedelta64("NaT")
        return values.reshape(shape)
    raise ValueError(dtype_name)


def random_expr(rng, rank):
    if rank == 0 or rng.random() < 0.2:
        return None
    items = []
    for _ in range(rng.randint(1, rank)):
        start = rng.choice(["", "1", "-1", "0"])
        stop = rng.choice(["", "3", "-1"])
        step = rng.choice(["", "", "-1", "2"])
        items.append(f"{start}:{stop}" + (f":{step}" if step else ""))
    return "[" + ", ".join(items) + "]"


class Finite:
    """A finite float of `dtype`: the JSON number must read back as the same value of that type."""

    def __init__(self, value, dtype):
        self.value, self.dtype = value, np.dtype(dtype).newbyteorder("=")

    def matches(self, got):
        return isinstance(got, float) and self.dtype.type(got) == self.dtype.type(self.value) and \
            math.copysign(1, got) == math.copysign(1, self.value)

    def __repr__(self):
        return repr(self.value)


def expected_json(value, dtype):
    """numpy's element as the documented JSON value."""
    if dtype.names:
        return {name: expected_json(value[name], dtype.fields[name][0]) for name in dtype.names}
    if dtype.subdtype:
        return [expected_json(v, dtype.subdtype[0]) for v in value]
    kind = dtype.kind
    if kind == "b":
        return bool(value)
    if kind in "iu":
        return int(value)
    if kind == "f":
        x = float(value)
        if math.isnan(x) or math.isinf(x):
            return "NaN" if math.isnan(x) else ("Infinity" if x > 0 else "-Infinity")
        return Finite(x, dtype)
    if kind == "c":
        part = np.dtype(dtype).newbyteorder("=").type(0).real.dtype
        return [expected_json(value.real, part), expected_json(value.imag, part)]
    if kind == "U":
        return str(value)
    if kind == "S":
        return bytes(value).decode("latin-1")
    if kind == "M":
        return None if np.isnat(value) else str(value)
    if kind == "m":
        return None if np.isnat(value) else int(value.astype(np.int64))
    raise ValueError(kind)


def nested(array):
    """The array as nested lists of expected_json values (numpy's scalars as they come)."""
    if array.ndim == 0:
        return expected_json(array[()], array.dtype)
    if array.ndim == 1:
        return [expected_json(array[i], array.dtype) for i in range(array.shape[0])]
    return [nested(array[i]) for i in range(array.shape[0])]


def same(got, want, dtype):
    """Equal, a finite float as a value of its own dtype."""
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(same(g, w, dtype) for g, w in zip(got, want))
    if isinstance(want, dict):
        return isinstance(got, dict) and list(got) == list(want) and all(same(got[k], want[k], dtype) for k in want)
    if isinstance(want, Finite):
        return want.matches(got)
    return type(got) is type(want) and got == want


def check_case(tslice, rng, directory):
    dtype_name = rng.choice(NUMERIC + OTHER)
    a = random_array(rng, dtype_name)
    expr = random_expr(rng, a.ndim)
    path = os.path.join(directory, "a.npy")
    np.save(path, a)
    b = a if expr is None else eval("a" + expr)  # noqa: S307 (expressions made above)
    problems = []
    args = [tslice, path] + ([expr] if expr else [])
    json_run = subprocess.run(args + ["--format", "json"], capture_output=True, timeout=60)
    if json_run.returncode != 0:
        return [f"{dtype_name} {a.shape} {expr}: --format json exit {json_run.returncode}: {json_run.stderr!r}"]
    got = json.loads(json_run.stdout)
    if not same(got, nested(b), b.dtype):
        problems.append(f"{dtype_name} {a.shape} {expr}: JSON {json_run.stdout[:200]!r} != {nested(b)!r:.200}")
    csv_run = subprocess.run(args + ["--format", "csv"], capture_output=True, timeout=60)
    if dtype_name in NUMERIC and b.ndim <= 2:
        if csv_run.returncode != 0:
            problems.append(f"{dtype_name} {a.shape} {expr}: --format csv exit {csv_run.returncode}: {csv_run.stderr!r}")
        elif b.size:
            want = b.astype(b.dtype.newbyteorder("="))
            back = np.loadtxt(io.StringIO(csv_run.stdout.decode()), delimiter=",", dtype=want.dtype, ndmin=b.ndim)
            back = back.reshape(b.shape)
            if not np.array_equal(back, want, equal_nan=b.dtype.kind in "fc"):
                problems.append(f"{dtype_name} {a.shape} {expr}: CSV {csv_run.stdout[:200]!r} reads back {back!r:.200}")
    elif csv_run.returncode != 2:
        problems.append(f"{dtype_name} {b.shape} {expr}: --format csv exit {csv_run.returncode}, expected 2")
    return problems


def main():
    tslice, cases, seeds = harness.tslice_cases_seed_args(__doc__, 400, FIXED_SEED)
    tally = harness.Tally()
    shown = 0
    for seed in seeds:
        for index in range(cases // len(seeds)):
            rng = random.Random(seed * 100003 + index)
            with tempfile.TemporaryDirectory(prefix="tslice-text-") as directory:
                try:
                    problems = check_case(tslice, rng, directory)
                except Exception as error:  # noqa: BLE001 (a crash of the check fails its case)
                    problems = [f"{type(error).__name__}: {error}"]
            tally.count(problems)
            for problem in problems:
                shown += 1
                if shown <= 10:
                    print(f"FAIL seed {seed} case {index}: {problem}", flush=True)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
