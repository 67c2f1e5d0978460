#!/usr/bin/python3
"""tslice --astype and --stats against numpy, and the bfloat16/float8 codecs against reference
converters written here from the formats' definitions.

    /usr/bin/python3 tests/differential/values_differential.py --tslice build/tslice [--cases N] [--seed S]

Checks:
  - codecs, exhaustively: every bfloat16 code (65536) and every float8 code (256 of each of
    e4m3fn, e5m2, e8m0fnu) decoded by --astype f8; float32 values encoded by --astype bf16 and
    --astype float8_*: every float32 whose low 16 bits are one of a few edge patterns (all
    high halves), the values of every code, the midpoints between neighbours (ties), a float32
    step either side of them, overflow, NaN, infinities, zeros, and a random sample; float64
    midpoints too (one rounding, not two). The reference rounds to the nearest value of the
    format's list of values, ties to the even code; overflow is NaN (e4m3fn, e8m0fnu) or inf
    (bfloat16, e5m2).
  - --astype over random arrays (every numeric dtype, both byte orders), shapes and index
    expressions, to every numeric target: the output .npy equals numpy's a[EXPR].astype(T)
    (float to integer compared only where numpy defines it: finite, in range);
  - --stats and --stats --json over random arrays with NaN, infinities, empty and all-NaN
    ones, huge integers, bool, float16 and bfloat16 tensors: counts exact, integer min/max
    exact, mean/std within 1e-12 relative of numpy's nanmean/nanstd in float64;
  - bad names and types are exit 2 with the allowed names, and write nothing.
"""
import json
import os
import random
import subprocess
import sys
import tempfile
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import safetensors_writer as st  # noqa: E402

FIXED_SEED = 20261127
NUMERIC = ["|b1", "|i1", "|u1", "<i2", ">i2", "<u2", ">u2", "<i4", ">i4", "<u4", "<i8", ">i8", "<u8", ">u8",
           "<f2", ">f2", "<f4", ">f4", "<f8", ">f8", "<c8", ">c8", "<c16", ">c16"]
TARGET_NAMES = ["bool", "int8", "uint8", "i2", ">i2", "u2", "int32", ">u4", "int64", "u8", "float16", ">f2",
                "float32", ">f4", "f8", ">f8", "double", "c8", ">c16", "complex128", "h", "B", "e", "d"]
F8 = {"F8_E4M3": "float8_e4m3fn", "F8_E5M2": "float8_e5m2", "F8_E8M0": "float8_e8m0fnu"}

warnings.simplefilter("ignore")


def run(tslice, args, stdin=None):
    return subprocess.run([tslice] + args, capture_output=True, input=stdin)


# ------------------------------------------------------------------- reference codecs


def f8_decode(name, code):
    """The value of one float8 code, from the format's definition."""
    if name == "F8_E8M0":
        return float("nan") if code == 0xFF else 2.0 ** (code - 127)
    mbits, bias = (3, 7) if name == "F8_E4M3" else (2, 15)
    sign = -1.0 if code & 0x80 else 1.0
    e = (code >> mbits) & ((1 << (7 - mbits)) - 1)
    m = code & ((1 << mbits) - 1)
    top = (1 << (7 - mbits)) - 1
    if name == "F8_E4M3" and e == top and m == 7:
        return float("nan")
    if name == "F8_E5M2" and e == top:
        return sign * float("inf") if m == 0 else float("nan")
    if e == 0:
        return sign * m / (1 << mbits) * 2.0 ** (1 - bias)
    return sign * (1 + m / (1 << mbits)) * 2.0 ** (e - bias)


def positive_codes(name):
    """(values, codes) of the finite non-negative codes in increasing order, and the value one
    step past the largest (where overflow starts), as the format's spacing continues."""
    codes = [c for c in range(256) if (name == "F8_E8M0" or not c & 0x80) and np.isfinite(f8_decode(name, c))]
    values = [f8_decode(name, c) for c in codes]
    order = np.argsort(values, kind="stable")
    values = [values[i] for i in order]
    codes = [codes[i] for i in order]
    if name == "F8_E8M0":
        beyond = values[-1] * 2
    else:
        beyond = values[-1] + (values[-1] - values[-2])
    return np.array(values + [beyond]), codes


def round_to_list(x, values):
    """The index of the largest of `values` (sorted, increasing) at most x."""
    return int(np.searchsorted(values, x, side="right")) - 1


def f8_encode(name, x):
    """The code nearest to float64 x (ties to even code), with the format's overflow rule."""
    values, codes = REF_TABLES[name]
    overflow_code = {"F8_E4M3": 0x7F, "F8_E5M2": 0x7C, "F8_E8M0": 0xFF}[name]
    if np.isnan(x):
        return None  # any NaN code
    if name == "F8_E8M0":
        if x < 0:
            return None
        sign = 0
    else:
        sign = 0x80 if np.signbit(x) else 0
        x = abs(x)
    if np.isinf(x):
        return None if name == "F8_E4M3" else sign | overflow_code
    if x <= values[0]:
        return sign | codes[0]
    if x >= values[-1]:
        return None if name in ("F8_E4M3", "F8_E8M0") else sign | overflow_code
    i = round_to_list(x, values)
    lower, upper = values[i], values[i + 1]
    # the code past the largest is the virtual one: overflow
    code_of = lambda k: codes[k] if k < len(codes) else codes[-1] + 1  # noqa: E731
    if x - lower < upper - x:
        k = i
    elif x - lower > upper - x:
        k = i + 1
    else:
        k = i if code_of(i) % 2 == 0 else i + 1
    if k >= len(codes):
        return None if name in ("F8_E4M3", "F8_E8M0") else sign | overflow_code
    return sign | codes[k]


REF_TABLES = {}


def bf16_encode_ref(x32):
    """Nearest bfloat16 bits to float32 values (array), ties to even; NaN gives None (-1)."""
    bits = x32.view("<u4").astype(np.int64)
    sign = bits & 0x80000000
    mag = bits & 0x7FFFFFFF
    low = mag >> 16
    v = np.abs(x32.astype(np.float64))
    lo_val = ((low << 16).astype("<u4")).view("<f4").astype(np.float64)
    hi_bits = low + 1
    hi_val = np.where(hi_bits == 0x7F80, 2.0 ** 128,
                      ((np.minimum(hi_bits, 0x7F7F) << 16).astype("<u4")).view("<f4").astype(np.float64))
    down = v - lo_val
    up = hi_val - v
    pick_hi = (up < down) | ((up == down) & (low % 2 == 1))
    out = np.where(pick_hi, hi_bits, low)
    out = np.where(mag == 0x7F800000, 0x7F80, out)
    out = (out | (sign >> 16)).astype(np.int64)
    out = np.where(mag > 0x7F800000, -1, out)
    return out


# ------------------------------------------------------------------- the codec checks


def codec_checks(tslice, work, rng):
    failures = []
    # Decoding: every code to float64.
    codes16 = np.arange(65536, dtype="<u2")
    st.write(os.path.join(work, "bf.safetensors"), {"x": st.RawTensor("BF16", [65536], codes16.tobytes())})
    r = run(tslice, [os.path.join(work, "bf.safetensors"), "--astype", "f8", "-o", os.path.join(work, "bf.npy")])
    if r.returncode:
        failures.append(("decode", f"BF16 -> f8 exit {r.returncode}: {r.stderr.decode()}"))
    else:
        got = np.load(os.path.join(work, "bf.npy"))
        want = (codes16.astype("<u4") << 16).view("<f4").astype(np.float64)
        if not np.array_equal(got, want, equal_nan=True) or got.dtype != np.float64:
            failures.append(("decode", "BF16 -> f8 differs"))
    for name in F8:
        codes = np.arange(256, dtype=np.uint8)
        path = os.path.join(work, name + ".safetensors")
        st.RAW_DTYPES.setdefault(name, 1)
        st.write(path, {"x": st.RawTensor(name, [256], codes.tobytes())})
        for target, npdt in (("f8", np.float64), ("f4", np.float32), ("f2", np.float16)):
            out = os.path.join(work, name + target + ".npy")
            r = run(tslice, [path, "--astype", target, "-o", out])
            if r.returncode:
                failures.append(("decode", f"{name} -> {target} exit {r.returncode}: {r.stderr.decode()}"))
                continue
            got = np.load(out)
            want = np.array([f8_decode(name, int(c)) for c in codes]).astype(npdt)
            if not np.array_equal(got, want, equal_nan=True):
                bad = np.flatnonzero(~((got == want) | (np.isnan(got) & np.isnan(want))))
                failures.append(("decode", f"{name} -> {target}: codes {bad[:5].tolist()} give "
                                 f"{got[bad[:5]].tolist()}, want {want[bad[:5]].tolist()}"))
        # The data of a float8 tensor also prints as floats, and its stats read its values.
        r = run(tslice, [path, "--stats", "--json"])
        values = np.array([f8_decode(name, int(c)) for c in codes])
        if r.returncode:
            failures.append(("decode", f"{name} --stats exit {r.returncode}: {r.stderr.decode()}"))
        else:
            failures += compare_stats(json.loads(r.stdout), values, f"{name} all codes")

    # Encoding float32: every high half with edge low halves, plus a sample.
    high = np.arange(65536, dtype=np.uint32) << 16
    lows = np.array([0x0000, 0x0001, 0x7FFF, 0x8000, 0x8001, 0xFFFF], dtype=np.uint32)
    edge = (high[:, None] | lows[None, :]).ravel()
    sample = rng.integers(0, 2 ** 32, size=1 << 20, dtype=np.uint64).astype(np.uint32)
    x32 = np.concatenate([edge, sample]).view("<f4")
    np.save(os.path.join(work, "x32.npy"), x32)
    out = os.path.join(work, "x32.safetensors")
    r = run(tslice, [os.path.join(work, "x32.npy"), "--astype", "bfloat16", "-o", out])
    if r.returncode:
        failures.append(("encode", f"f4 -> bf16 exit {r.returncode}: {r.stderr.decode()}"))
    else:
        got = np.frombuffer(st.read(out)["arr_0"].data, dtype="<u2").astype(np.int64)
        want = bf16_encode_ref(x32)
        nan = want < 0
        got_nan = ((got & 0x7F80) == 0x7F80) & ((got & 0x7F) != 0)
        bad = np.flatnonzero((got != want) & ~nan | (nan & ~got_nan))
        if bad.size:
            failures.append(("encode", f"f4 -> bf16: {bad.size} values differ, e.g. "
                             f"{[hex(int(x32.view('<u4')[i])) for i in bad[:4]]} give "
                             f"{[hex(int(got[i])) for i in bad[:4]]}, want {[hex(int(want[i])) for i in bad[:4]]}"))

    for name, long_name in F8.items():
        values, codes = positive_codes(name)
        REF_TABLES[name] = (values, codes)
        mids = (values[:-1] + values[1:]) / 2
        base = np.concatenate([values, mids, [0.0, values[0] / 2, values[0] / 4, values[-1] * 4, 1e30, 1e-30]])
        x64 = np.concatenate([base, -base, [np.inf, -np.inf, np.nan, -0.0]])
        f32 = x64.astype(np.float32)
        step_up = np.nextafter(f32, np.float32(np.inf))
        step_down = np.nextafter(f32, np.float32(-np.inf))
        rand32 = (rng.standard_normal(1 << 16) * 2.0 ** rng.integers(-140, 130, 1 << 16)).astype(np.float32)
        inputs32 = np.concatenate([f32, step_up, step_down, rand32, x32[:65536 * 6:97]])
        # float64 a hair either side of each midpoint: one rounding decides, not two.
        hair = np.concatenate([np.nextafter(mids, np.inf), np.nextafter(mids, -np.inf)])
        inputs64 = np.concatenate([x64, hair, -hair])
        for label, inputs in (("f4", inputs32), ("f8", inputs64)):
            src = os.path.join(work, f"enc_{name}_{label}.npy")
            np.save(src, inputs)
            out = os.path.join(work, f"enc_{name}_{label}.safetensors")
            r = run(tslice, [src, "--astype", long_name, "-o", out])
            if r.returncode:
                failures.append(("encode", f"{label} -> {name} exit {r.returncode}: {r.stderr.decode()}"))
                continue
            got = np.frombuffer(st.read(out)["arr_0"].data, dtype=np.uint8)
            wrong = []
            for i, x in enumerate(inputs.astype(np.float64)):
                want = f8_encode(name, float(x))
                g = int(got[i])
                if want is None:
                    if not np.isnan(f8_decode(name, g)):
                        wrong.append((float(x), g, "nan"))
                elif g != want:
                    wrong.append((float(x), hex(g), hex(want)))
            if wrong:
                failures.append(("encode", f"{label} -> {name}: {len(wrong)} wrong, e.g. {wrong[:4]}"))
    return failures


# ------------------------------------------------------------------- astype


def random_array(rng, dtype, shape):
    dt = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    if dt.kind == "b":
        a = rng.integers(0, 2, n).astype(bool)
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        a = rng.integers(info.min, int(info.max) + 1, n, dtype=np.int64 if dt.kind == "i" else np.uint64)
        a = a.astype(dt)
    elif dt.kind == "f":
        a = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(dt)
        if n:
            a[rng.random(n) < 0.05] = np.nan
            a[rng.random(n) < 0.03] = np.inf
            a[rng.random(n) < 0.03] = -np.inf
    else:
        a = (rng.standard_normal(n) * 100 + 1j * rng.standard_normal(n) * 100).astype(dt)
    return a.reshape(shape).astype(dt)


def random_expr(rng, shape):
    items = []
    for n in shape:
        kind = rng.integers(0, 4)
        if kind == 0 or n == 0:
            items.append(":")
        elif kind == 1:
            items.append(f"::{int(rng.choice([-3, -2, -1, 2, 3]))}")
        elif kind == 2:
            items.append(str(int(rng.integers(-n, n))))
        else:
            a, b = sorted(int(v) for v in rng.integers(-n, n + 1, 2))
            items.append(f"{a}:{b}")
    return "[" + ", ".join(items) + "]" if items else "[...]"


def select(a, expr):
    """numpy's a[EXPR] as an array: a scalar result as a 0-d array of a's dtype (byte order
    kept, as tslice keeps it)."""
    sel = eval("a" + expr)  # noqa: S307 (our own expression)
    return sel if isinstance(sel, np.ndarray) else np.array(sel, dtype=a.dtype)


def defined(src, result, target):
    """Where numpy's float -> integer cast is defined (finite values the target holds)."""
    dt = np.dtype(target)
    if dt.kind not in "iu" or src.dtype.kind not in "fc":
        return np.ones(result.shape, dtype=bool)
    real = np.real(src).astype(np.float64)
    info = np.iinfo(dt)
    return np.isfinite(real) & (real >= info.min) & (real < float(info.max) + 1)


def astype_case(tslice, work, rng, index):
    dtype = str(rng.choice(NUMERIC))
    target = str(rng.choice(TARGET_NAMES))
    shape = tuple(int(v) for v in rng.integers(0, 6, int(rng.integers(0, 4))))
    a = random_array(rng, dtype, shape)
    expr = random_expr(rng, shape)
    src = os.path.join(work, f"a{index}.npy")
    out = os.path.join(work, f"o{index}.npy")
    np.save(src, a)
    sel = select(a, expr)
    want = sel.astype(np.dtype(target))
    r = run(tslice, [src, expr, "--astype", target, "-o", out])
    what = f"{dtype}{shape}{expr} -> {target}"
    if r.returncode:
        return [("astype", f"{what}: exit {r.returncode}: {r.stderr.decode()}")]
    got = np.load(out)
    if got.dtype != want.dtype or got.shape != want.shape:
        return [("astype", f"{what}: {got.dtype}{got.shape}, numpy {want.dtype}{want.shape}")]
    mask = defined(sel, want, target)
    same = (got == want) | ((got != got) & (want != want))
    if not np.all(same | ~mask):
        bad = np.argwhere(~(same | ~mask))[:3]
        return [("astype", f"{what}: differs at {bad.tolist()}: {got[tuple(bad.T)]} vs {want[tuple(bad.T)]}")]
    # As text, converted chunk by chunk as it is written: the same text as the converted .npy's.
    for fmt in ("json", "csv"):
        if fmt == "csv" and (want.ndim > 2 or want.dtype.kind not in "biufc"):
            continue
        r_conv = run(tslice, [src, expr, "--astype", target, "--format", fmt])
        r_plain = run(tslice, [out, "--format", fmt])
        if r_conv.returncode or r_plain.returncode or r_conv.stdout != r_plain.stdout:
            return [("astype", f"{what} --format {fmt}: exit {r_conv.returncode}/{r_plain.returncode}, "
                               f"{r_conv.stdout[:80]!r} vs {r_plain.stdout[:80]!r} {r_conv.stderr.decode()}")]
    # --shape --json shows the converted dtype.
    r = run(tslice, [src, expr, "--astype", target, "--shape", "--json"])
    shown = json.loads(r.stdout) if r.returncode == 0 else None
    if not shown or shown["dtype"] != want.dtype.str or tuple(shown["shape"]) != want.shape:
        return [("shape", f"{what}: --shape --json says {r.stdout!r}")]
    return []


# ------------------------------------------------------------------- stats


def compare_stats(got, values, what):
    """got: --stats --json's object; values: float64 (or exact integer) numpy array."""
    failures = []
    v = np.asarray(values)
    flat = v.ravel()
    if v.dtype.kind == "f":
        isnan = np.isnan(flat)
        want = {"count": flat.size, "nan": int(isnan.sum()), "posinf": int(np.isposinf(flat).sum()),
                "neginf": int(np.isneginf(flat).sum())}
    else:
        want = {"count": flat.size, "nan": 0, "posinf": 0, "neginf": 0}
    for key, value in want.items():
        if got[key] != value:
            failures.append(("stats", f"{what}: {key} {got[key]}, numpy {value}"))
    kept = flat[~np.isnan(flat)] if v.dtype.kind == "f" else flat
    if kept.size == 0:
        for key in ("min", "max", "mean", "std"):
            if got[key] is not None:
                failures.append(("stats", f"{what}: {key} {got[key]}, want null"))
        return failures

    def number(x):
        return {"inf": np.inf, "-inf": -np.inf, "nan": np.nan}[x] if isinstance(x, str) else x

    if v.dtype.kind in "iub":
        lo, hi = int(kept.min()), int(kept.max())
        if got["min"] != lo or got["max"] != hi or not isinstance(got["min"], int):
            failures.append(("stats", f"{what}: min/max {got['min']}/{got['max']}, numpy {lo}/{hi}"))
        f64 = kept.astype(np.float64)
    else:
        f64 = kept.astype(np.float64)
        if number(got["min"]) != f64.min() or number(got["max"]) != f64.max():
            failures.append(("stats", f"{what}: min/max {got['min']}/{got['max']}, numpy {f64.min()}/{f64.max()}"))
    mean, std = np.mean(f64), np.std(f64)
    for key, value in (("mean", mean), ("std", std)):
        g = number(got[key])
        if g is None:
            failures.append(("stats", f"{what}: {key} null, numpy {value}"))
        elif np.isnan(value) or np.isinf(value):
            if not (g == value or (np.isnan(g) and np.isnan(value))):
                failures.append(("stats", f"{what}: {key} {g}, numpy {value}"))
        elif not np.isclose(g, value, rtol=1e-12, atol=1e-12 * float(np.max(np.abs(f64)))):
            failures.append(("stats", f"{what}: {key} {g!r}, numpy {value!r}"))
    return failures


def stats_case(tslice, work, rng, index):
    kind = int(rng.integers(0, 8))
    shape = tuple(int(v) for v in rng.integers(0, 40, int(rng.integers(1, 4))))
    src = os.path.join(work, f"s{index}.npy")
    if kind == 0:  # huge integers
        dtype = str(rng.choice(["<i8", ">i8", "<u8"]))
        a = random_array(rng, dtype, shape)
    elif kind == 1:  # all NaN
        a = np.full(shape, np.nan, dtype=str(rng.choice(["<f4", ">f8", "<f2"])))
    elif kind == 2:  # empty
        a = np.zeros(shape[:-1] + (0,), dtype=str(rng.choice(["<f4", "<i2", "|b1"])))
    else:
        dtype = str(rng.choice(["|b1", "|i1", "|u1", "<i2", ">u2", "<i4", ">u4", "<f2", ">f2", "<f4", ">f4", "<f8",
                                ">f8"]))
        a = random_array(rng, dtype, shape)
    expr = random_expr(rng, a.shape)
    np.save(src, a)
    sel = select(a, expr)
    astype = None
    if rng.random() < 0.2 and a.dtype.kind == "f":
        astype = str(rng.choice(["f2", "f4", "f8"]))
        sel = sel.astype(astype)
    args = [src, expr, "--stats", "--json"] + (["--astype", astype] if astype else [])
    r = run(tslice, args)
    what = f"{a.dtype.str}{a.shape}{expr}" + (f" as {astype}" if astype else "")
    if r.returncode:
        return [("stats", f"{what}: exit {r.returncode}: {r.stderr.decode()}")]
    got = json.loads(r.stdout)
    values = sel.astype(np.float64) if sel.dtype.kind == "f" else sel
    failures = compare_stats(got, values, what)
    if got["dtype"] != sel.dtype.str or tuple(got["shape"]) != sel.shape:
        failures.append(("stats", f"{what}: dtype/shape {got['dtype']}/{got['shape']}"))
    return failures


def bfloat16_stats_case(tslice, work, rng):
    bits = rng.integers(0, 65536, 5000).astype("<u2")
    path = os.path.join(work, "bfs.safetensors")
    st.write(path, {"w": st.RawTensor("BF16", [50, 100], bits.tobytes())})
    r = run(tslice, [path, "--stats", "--json"])
    if r.returncode:
        return [("stats", f"bf16: exit {r.returncode}: {r.stderr.decode()}")]
    values = (bits.astype("<u4") << 16).view("<f4").astype(np.float64)
    got = json.loads(r.stdout)
    fails = compare_stats(got, values, "bf16 tensor")
    if got["name"] != "w" or got["dtype"] != "BF16":
        fails.append(("stats", f"bf16: name/dtype {got['name']}/{got['dtype']}"))
    return fails


def accuracy_case(tslice, work):
    """Large offsets and small spreads: a naive sum of squares loses every digit here."""
    a = (1e8 + np.arange(3_000_000, dtype=np.float64) % 7 * 1e-3)
    path = os.path.join(work, "acc.npy")
    np.save(path, a)
    r = run(tslice, [path, "--stats", "--json", "--threads", "2"])
    return compare_stats(json.loads(r.stdout), a, "offset 1e8, spread 1e-3") if r.returncode == 0 else [
        ("stats", f"accuracy: exit {r.returncode}")]


# ------------------------------------------------------------------- bad input


def bad_input_checks(tslice, work):
    failures = []
    src = os.path.join(work, "bad.npy")
    np.save(src, np.arange(6, dtype="<f4"))
    np.save(os.path.join(work, "str.npy"), np.array(["ab", "c"]))
    np.save(os.path.join(work, "cx.npy"), np.arange(3, dtype="<c8"))
    cases = [
        ([src, "--astype", "float33"], "unknown dtype"),
        ([src, "--astype", "S3"], "numbers only"),
        ([src, "--astype", "U5", "-o", os.path.join(work, "x.npy")], "numbers only"),
        ([src, "--astype", "datetime64"], "numbers only"),
        ([src, "--astype", "O"], "numbers only"),
        ([os.path.join(work, "str.npy"), "--astype", "f4"], "cannot convert"),
        ([os.path.join(work, "cx.npy"), "--stats"], "--stats takes"),
        ([src, "--astype", "bf16", "-o", os.path.join(work, "x.npy")], "numpy has no dtype"),
        ([src, "--stats", "-o", os.path.join(work, "x.npy")], ""),
    ]
    for args, message in cases:
        r = run(tslice, args)
        if r.returncode != 2 or message not in r.stderr.decode():
            failures.append(("bad input", f"{args[1:]}: exit {r.returncode}, {r.stderr.decode().strip()!r}"))
        if os.path.exists(os.path.join(work, "x.npy")):
            failures.append(("bad input", f"{args[1:]}: wrote a file"))
            os.unlink(os.path.join(work, "x.npy"))
    return failures


def main():
    tslice, cases, seeds = harness.tslice_cases_seed_args(__doc__, 300, FIXED_SEED)
    tally = harness.Tally()
    report = harness.FailuresByKind()
    with tempfile.TemporaryDirectory() as work:
        rng = np.random.default_rng(seeds[0])
        for failures in (codec_checks(tslice, work, rng), bad_input_checks(tslice, work), accuracy_case(tslice, work),
                         bfloat16_stats_case(tslice, work, rng)):
            report.add(failures)
            tally.count(failures)
        for seed in seeds:
            rng = np.random.default_rng(seed)
            for index in range(cases):
                for check in (astype_case, stats_case):
                    failures = harness.run_guarded(lambda: check(tslice, work, rng, index),
                                                   lambda: f"seed {seed} case {index} {check.__name__}")
                    report.add(failures)
                    tally.count(failures)
    report.report(5)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
