#!/usr/bin/python3
"""Differential test of tslice's printer against numpy's own str(array).

Generates random arrays (ranks 0-4, small shapes, shapes over numpy's 1000-element summary
threshold, zero-size axes, C and Fortran order) of many dtypes with values chosen to reach
numpy's formatting cases, saves each as .npy, runs `tslice FILE` and compares its standard
output with str(a) + "\\n" byte for byte.

    /usr/bin/python3 tests/differential/print_differential.py --tslice build/tslice --cases 600

By default two seeds run: a fixed one and a fresh random one; both are printed so a failure
can be replayed with --seed N. --driver 'CMD ARGS' runs another program in place of tslice
(it gets the .npy path as its last argument and must print the same text). The last line
is "N passed, M failed"; the exit status is 1 on any mismatch.
"""

import argparse
import difflib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

import numpy as np

import harness

FIXED_SEED = 20240611

# The dtypes the printer must reproduce; the second list adds less common ones.
CORE_DTYPES = ["?", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8",
               "c16", "S5", "U3", ">i4", ">f8", "structured"]
EXTRA_DTYPES = [">f2", ">f4", ">c16", ">u2", ">U3", "f16", "c32", "V3", "nested", "m8[s]",
                ">m8[10ms]", "M8[D]", "M8[ns]", "M8[h]", "M8[Y]", ">M8[M]", "M8[W]", "M8[m]",
                "M8[s]", "M8[ms]", "M8[us]", "M8[ps]", "M8[fs]", "M8[as]", "M8[7D]"]

STRUCTURED = np.dtype([("a", "<i4"), ("b", "<f8"), ("c", "?"), ("d", "S3")])
NESTED = np.dtype([("x", ">f4", (2,)), ("y", [("p", "<u2"), ("q", "?")]), ("z", "<c8")])


# ------------------------------------------------------------------------------------------
# shapes

def random_shape(rng):
    roll = rng.random()
    if roll < 0.08:
        return ()
    if roll < 0.13:
        shape = [int(rng.integers(0, 5)) for _ in range(int(rng.integers(1, 5)))]
        shape[int(rng.integers(0, len(shape)))] = 0
        return tuple(shape)
    if roll < 0.30:
        return large_shape(rng)
    if roll < 0.42:
        return (int(rng.integers(1, 120)),)  # long rows wrap at 75 columns
    rank = int(rng.integers(1, 5))
    limit = {1: 30, 2: 12, 3: 7, 4: 5}[rank]
    return tuple(int(rng.integers(1, limit + 1)) for _ in range(rank))


def large_shape(rng):
    """A shape of more than 1000 elements (numpy then summarises axes longer than 6)."""
    choices = [
        lambda: (int(rng.integers(1001, 4000)),),
        lambda: (int(rng.integers(1, 12)), int(rng.integers(1001, 2000))),
        lambda: (int(rng.integers(2, 60)), int(rng.integers(2, 60))),
        lambda: (int(rng.integers(2, 15)), int(rng.integers(2, 15)), int(rng.integers(2, 15))),
        lambda: tuple(int(rng.integers(2, 9)) for _ in range(4)),
        lambda: (6, 6, 6, 6),  # summarised, yet no axis is long enough to elide
        lambda: (7, 7, 7, 7),
        lambda: (1001, 1),
        lambda: (3, 7, 50),
    ]
    while True:
        shape = choices[int(rng.integers(0, len(choices)))]()
        if 1000 < int(np.prod(shape)) <= 60000:
            return shape


# ------------------------------------------------------------------------------------------
# values

def float_values(rng, dtype, n):
    dtype = np.dtype(dtype)
    scenario = int(rng.integers(0, 10))
    if scenario == 0:  # integers stored as floats
        values = rng.integers(-20, 21, n).astype(np.float64)
    elif scenario == 1:  # many digits
        values = rng.uniform(-1, 1, n) * 10.0 ** rng.integers(-3, 4)
    elif scenario == 2:  # short decimals
        values = np.round(rng.uniform(-100, 100, n), int(rng.integers(0, 4)))
    elif scenario == 3:  # huge and tiny: exponent format
        values = 10.0 ** rng.uniform(-12, 20, n) * rng.choice([-1.0, 1.0], n)
    elif scenario == 4:  # around numpy's exponent-format thresholds
        edges = [1e-4, 9.999e-5, 1.0001e-4, 1e8, 99999999.0, 1.5e8, 1e3, 1e-3, 0.1, 0.5, 1e16,
                 1e-5, 1000.0, 1000.5, 999.99, 1.0, 65504.0, 6e-8]
        values = rng.choice(edges, n) * rng.choice([1.0, 1.0, -1.0], n)
    elif scenario == 5 and dtype.itemsize <= 8:  # any bit pattern: every class of value
        bits = rng.integers(0, 256, n * dtype.itemsize, dtype=np.uint8)
        return np.frombuffer(bits.tobytes(), dtype=dtype).copy()
    elif scenario == 6:  # ratio of max to min near 1000
        base = float(rng.uniform(0.001, 10))
        values = base * rng.choice([1.0, 999.9, 1000.0, 1000.1, 1001.0, 500.0], n)
    elif scenario == 7:  # mixed magnitudes
        values = rng.normal(0, 1, n) * 10.0 ** rng.integers(-6, 10, n)
    elif scenario == 8:  # a few distinct values, as in real data
        values = rng.choice(rng.normal(0, 100, 4), n)
    else:
        values = rng.standard_normal(n)
    with np.errstate(over="ignore", invalid="ignore"):
        values = values.astype(dtype)
    if rng.random() < 0.3:  # sprinkle non-finite values and zeros
        specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0], dtype=np.float64)
        mask = rng.random(n) < 0.2
        values[mask] = rng.choice(specials, int(mask.sum())).astype(dtype)
    return values


def int_values(rng, dtype, n):
    info = np.iinfo(dtype)
    scenario = int(rng.integers(0, 4))
    if scenario == 0:
        low, high = max(info.min, -10), min(info.max, 10)
        return rng.integers(low, high + 1, n).astype(dtype)
    if scenario == 1:
        return rng.integers(info.min, info.max, n, dtype=np.dtype(dtype).newbyteorder("="),
                            endpoint=True).astype(dtype)
    if scenario == 2:
        return rng.choice(np.array([info.min, info.max, 0, 1, -1 if info.min < 0 else 2],
                                   dtype=np.dtype(dtype).newbyteorder("=")), n).astype(dtype)
    return (rng.integers(0, 1000, n) * rng.choice([1, -1] if info.min < 0 else [1], n)).astype(dtype)


BYTE_POOL = list(b"ab'\"\\\t\n\r\x00\x01\x7f\x80\xff zZ09")
CHAR_POOL = (list("ab'\"\\\t\n\x00 Z") + ["\x7f", "\x85", "\xa0", "\xad", "\xe9", "\xff",
             "\u0100", "\u0378", "\u2028", "\u3000", "\u4e2d", "\ufeff", "\U0001f600",
             "\U000e0001", "\U0010ffff"])


def bytes_values(rng, dtype, n):
    size = np.dtype(dtype).itemsize
    out = []
    for _ in range(n):
        length = int(rng.integers(0, size + 1))
        out.append(bytes(BYTE_POOL[int(i)] for i in rng.integers(0, len(BYTE_POOL), length)))
    return np.array(out, dtype=dtype)


def str_values(rng, dtype, n):
    size = np.dtype(dtype).itemsize // 4
    out = []
    for _ in range(n):
        length = int(rng.integers(0, size + 1))
        out.append("".join(CHAR_POOL[int(i)] for i in rng.integers(0, len(CHAR_POOL), length)))
    return np.array(out, dtype=dtype)


def time_values(rng, dtype, n):
    scenario = int(rng.integers(0, 4))
    if scenario == 0:
        values = rng.integers(-1000, 1000, n)
    elif scenario == 1:
        values = rng.integers(-(10 ** 12), 10 ** 12, n)
    elif scenario == 2:
        values = rng.integers(-(2 ** 40), 2 ** 40, n)
    else:  # the int64 range, where numpy's date arithmetic wraps
        values = rng.integers(-(2 ** 63) + 1, 2 ** 63 - 1, n, endpoint=True)
    values = values.astype(np.int64)
    if rng.random() < 0.3:
        values[rng.random(n) < 0.2] = np.iinfo(np.int64).min  # NaT
    return values.view(np.dtype(dtype).newbyteorder("=")).astype(dtype)


def values_for(rng, dtype, n):
    dtype = np.dtype(dtype)
    if dtype.names is not None:
        out = np.zeros(n, dtype=dtype)
        for name in dtype.names:
            field = dtype.fields[name][0]
            count = n * int(np.prod(field.shape)) if field.shape else n
            base = field.base if field.shape else field
            column = values_for(rng, base, count)
            out[name] = column.reshape((n,) + field.shape) if field.shape else column
        return out
    kind = dtype.kind
    if kind == "b":
        return rng.random(n) < 0.5
    if kind in "iu":
        return int_values(rng, dtype, n)
    if kind == "f":
        return float_values(rng, dtype, n)
    if kind == "c":
        part = np.dtype(f"{dtype.byteorder if dtype.byteorder != '|' else '='}f{dtype.itemsize // 2}")
        out = np.empty(n, dtype=dtype)
        out.real = float_values(rng, part, n)
        out.imag = float_values(rng, part, n)
        return out
    if kind == "S":
        return bytes_values(rng, dtype, n)
    if kind == "U":
        return str_values(rng, dtype, n)
    if kind in "mM":
        return time_values(rng, dtype, n)
    if kind == "V":
        return np.frombuffer(rng.integers(0, 256, n * dtype.itemsize, dtype=np.uint8).tobytes(),
                             dtype=dtype).copy()
    raise ValueError(f"no values for {dtype}")


def make_dtype(name):
    return {"structured": STRUCTURED, "nested": NESTED}.get(name) or np.dtype(name)


def random_array(rng, dtype_names):
    name = dtype_names[int(rng.integers(0, len(dtype_names)))]
    dtype = make_dtype(name)
    shape = random_shape(rng)
    n = int(np.prod(shape))
    values = values_for(rng, dtype, max(n, 1))[:n]
    array = values.reshape(shape)
    if array.ndim >= 2 and rng.random() < 0.2:
        array = np.asfortranarray(array)  # the header's fortran_order gives the view strides
    return name, array


# ------------------------------------------------------------------------------------------
# running and comparing

def random_print_options(rng):
    """numpy's defaults for most cases; else --precision, --linewidth and --full at random, as
    (tslice's arguments, numpy's set_printoptions keywords)."""
    if rng.random() < 0.6:
        return [], {}
    args, options = [], {}
    if rng.random() < 0.6:
        precision = int(rng.integers(0, 17))
        args += ["--precision", str(precision)]
        options["precision"] = precision
    if rng.random() < 0.5:
        linewidth = int(rng.integers(1, 200))
        args += ["--linewidth", str(linewidth)]
        options["linewidth"] = linewidth
    if rng.random() < 0.3:
        args += ["--full"]
        options["threshold"] = sys.maxsize
    return args, options


def expected_output(array, options=None):
    # print() writes UTF-8 here; CHAR_POOL has no surrogates, so every str encodes.
    with np.printoptions(**(options or {})):
        return (str(array) + "\n").encode("utf-8")


def run_case(command, path, extra=()):
    result = subprocess.run(command + [path] + list(extra), capture_output=True, timeout=60)
    return result.returncode, result.stdout, result.stderr


def describe_diff(expected, actual):
    lines = difflib.unified_diff(expected.decode("utf-8", "replace").splitlines(),
                                 actual.decode("utf-8", "replace").splitlines(),
                                 "numpy str(a)", "tslice", lineterm="", n=2)
    return "\n".join(list(lines)[:40])


def run_seed(seed, args, command, workdir, failures_dir):
    rng = np.random.default_rng(seed)
    dtype_names = args.dtypes.split(",") if args.dtypes else CORE_DTYPES + (
        [] if args.core_only else EXTRA_DTYPES)
    cases = []
    for index in range(args.cases):
        name, array = random_array(rng, dtype_names)
        path = os.path.join(workdir, f"s{seed}_{index}.npy")
        np.save(path, array)
        extra, options = random_print_options(rng)
        # numpy's print options are global, so the expected texts are made here, not in the
        # threads that run tslice.
        cases.append((index, name, array, path, extra, expected_output(array, options)))

    def check(case):
        index, name, array, path, extra, expected = case
        code, out, err = run_case(command, path, extra)
        return case, code, out, err, expected

    tally = harness.Tally()
    failures = []
    for case, code, out, err, expected in harness.run_parallel(check, cases, args.jobs):
        failed = not (code == 0 and out == expected)
        tally.count(failed)
        if failed:
            failures.append((case, code, out, err, expected))
    for (index, name, array, path, extra, _), code, out, err, expected in failures[: args.show]:
        kept = os.path.join(failures_dir, os.path.basename(path))
        shutil.copy(path, kept)
        print(f"--- seed {seed} case {index}: dtype {name} ({array.dtype.str}), shape "
              f"{array.shape}, {'Fortran' if array.flags.f_contiguous and array.ndim > 1 else 'C'} "
              f"order, options {' '.join(extra) or 'none'}; kept as {kept}")
        if code != 0:
            print(f"exit status {code}; stderr: {err.decode('utf-8', 'replace').strip()}")
        print(describe_diff(expected, out))
    return tally


# ------------------------------------------------------------------------------------------
# golden tables: --emit-golden prints from numpy the tables of tests/print_golden_cases.inc,
# then the structured cases' bytes and texts for tests/test_print.cpp

def raw_literal(text):
    assert ')py"' not in text
    return 'R"py(' + text + ')py"'


def view_of(base, a):
    """Byte offset, shape and strides of the view `a` into the C-contiguous `base`."""
    assert a is base or np.shares_memory(a, base), "not a view of its base"
    offset = a.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    return offset, a.shape, a.strides


def golden_cases():
    """(name, base, view): the test gets base's bytes and view's offset, shape and strides."""
    cases = []

    def case(name, base, view=None):
        base = base if base.flags.c_contiguous else base.copy(order="C")  # keeps 0-d arrays 0-d
        cases.append((name, base, base if view is None else view))

    def f(v, t):
        return np.array(v, dtype=t)

    # integers
    case("int8 pads to the widest of min and max", f([-128, 0, 127, 5], 'i1'))
    case("uint8 full range", f([0, 255, 7], 'u1'))
    case("int16 negative", f([-300, 2, -1], 'i2'))
    case("uint16 big-endian", f([65535, 1, 256], '>u2'))
    case("int32 big-endian", f([-2147483648, 2147483647, 0], '>i4'))
    case("uint32 max", f([4294967295, 0], 'u4'))
    case("int64 extremes", f([-9223372036854775808, 9223372036854775807], 'i8'))
    case("uint64 max", f([18446744073709551615, 1], 'u8'))
    case("0-d int is the bare number", f(-42, 'i8'))
    case("0-d uint64", f(18446744073709551615, 'u8'))
    # bool
    case("bool pads True with a space", f([True, False, True], '?'))
    case("bool all True keeps the space", f([True, True], '?'))
    case("0-d bool has no space", f(True, '?'))
    case("0-d bool False", f(False, '?'))
    case("bool 2-D", f([[True, False], [False, True]], '?'))
    # float64
    case("float64 positional pads right", f([1.0, 2.5, -3.25], 'f8'))
    case("float64 integers keep the point", f([0.0, 1.0, 2.0], 'f8'))
    case("float64 rounds to 8 fractional digits", f([0.123456789123, 1.0], 'f8'))
    case("float64 8-digit rounding trims zeros", f([0.100000000001, 2.0], 'f8'))
    case("float64 tie at the 8th digit rounds to even", f([2.0**-9, 1.0], 'f8'))
    case("float64 exponent when max >= 1e8", f([1e8, 1.0], 'f8'))
    case("float64 positional just below 1e8", f([99999999.0, 1.5], 'f8'))
    case("float64 exponent when min < 1e-4", f([1e-5, 1.0], 'f8'))
    case("float64 1e-4 itself stays positional", f([1e-4, 1e-3], 'f8'))
    case("float64 exponent when max/min > 1000", f([1.0, 1000.5], 'f8'))
    case("float64 ratio of exactly 1000 stays positional", f([1.0, 1000.0], 'f8'))
    case("float64 exponent pads mantissas to a common precision", f([1.5e-5, 1.2345e-5, 1e10], 'f8'))
    case("float64 three-digit exponents", f([1e-300, 1e300, -5.5], 'f8'))
    case("float64 nan and inf pad to the width", f([np.nan, 1.5, -np.inf, np.inf], 'f8'))
    case("float64 only nan and inf", f([np.nan, np.inf], 'f8'))
    case("float64 nan and -inf", f([np.nan, -np.inf], 'f8'))
    case("float64 nan in exponent format", f([np.nan, 1e-10, 1.0], 'f8'))
    case("float64 negative zero", f([-0.0, 1.0], 'f8'))
    case("float64 all zeros", f([0.0, -0.0, 0.0], 'f8'))
    case("float64 zero with exponent format", f([0.0, 1e-9], 'f8'))
    case("float64 big-endian", f([1.5, -2.25e-7, 3.0], '>f8'))
    case("float64 0-d positional", f(1.5, 'f8'))
    case("float64 0-d integer value", f(3.0, 'f8'))
    case("float64 0-d below 1e16 is positional", f(1e15, 'f8'))
    case("float64 0-d 1e16 is scientific", f(1e16, 'f8'))
    case("float64 0-d small scientific", f(1.5e-7, 'f8'))
    case("float64 0-d many digits", f(0.1 + 0.2, 'f8'))
    case("float64 0-d negative zero", f(-0.0, 'f8'))
    case("float64 0-d nan", f(np.nan, 'f8'))
    case("float64 0-d -inf", f(-np.inf, 'f8'))
    # float32
    case("float32 shortest digits of its own precision", f([0.1, 0.2, 0.3], 'f4'))
    case("float32 rounds to 8 digits", f([1/3, 2/3], 'f4'))
    case("float32 exponent digits beyond the shortest", f([1e-5, 1.2345678e-5], 'f4'))
    case("float32 exponent, 0.1 padded exactly", f([0.1, 1234.56789e3], 'f4'))
    case("float32 1e-4 is below the double 1e-4", f([1e-4, 1e-3], 'f4'))
    case("float32 integer digits are exact in arrays", f([67108872.0, 1.0], 'f4'))
    case("float32 0-d scientific below 1e-4", f(1e-4, 'f4'))
    case("float32 0-d shortest", f(16777217.0, 'f4'))
    case("float32 big-endian", f([0.5, -1.75], '>f4'))
    # float16
    case("float16 shortest digits of half precision", f([0.1, 0.2, 1000.0], 'f2'))
    case("float16 integer digits are exact in arrays", f([18192.0], 'f2'))
    case("float16 exponent keeps Dragon4 margin rounding", f([2.0**-6, 1e-5], 'f2'))
    case("float16 max/min computed in half precision", f([0.0001, 0.10004], 'f2'))
    case("float16 subnormals", f([6e-8, 1e-7], 'f2'))
    case("float16 0-d shortest", f(65504.0, 'f2'))
    case("float16 0-d 1e-4 is positional", f(1e-4, 'f2'))
    case("float16 big-endian", f([1.5, -2.0, np.inf], '>f2'))
    # long double
    case("longdouble positional", f([0.1, 2.5], 'f16'))
    case("longdouble exponent", f([np.longdouble('1e-4000'), 1.0], 'f16'))
    case("longdouble 0-d", f(np.longdouble(1) / 3, 'f16'))
    # complex
    case("complex128 pads real and imaginary parts", f([1+2j, -1.5-0.5j, 3j], 'c16'))
    case("complex128 nan imaginary", f([1+1j, complex(1, np.nan)], 'c16'))
    case("complex128 inf parts", f([complex(np.inf, -np.inf), 1+1j], 'c16'))
    case("complex128 exponent in one part only", f([1e-10+1j, 2+3j], 'c16'))
    case("complex64", f([0.1+0.2j, -1j], 'c8'))
    case("complex128 big-endian", f([1.5-2j], '>c16'))
    case("complex 0-d", f(1+2j, 'c16'))
    case("complex 0-d pure imaginary", f(2j, 'c16'))
    case("complex 0-d negative zero real", f(complex(-0.0, -2.0), 'c16'))
    case("complex 0-d nan imaginary only", f(complex(0, np.nan), 'c16'))
    case("complex 0-d scientific parts", f(complex(1e20, 1e-20), 'c16'))
    case("complex 0-d infinities", f(complex(np.inf, -np.inf), 'c16'))
    case("complex64 0-d", f(1.5-0.25j, 'c8'))
    case("complex256 0-d", f(np.clongdouble(1) / 3 + 1j, 'c32'))
    # bytes
    case("bytes repr with quotes and escapes",
         f([b'ab', b"it's", b'a"b', b'\'"', b'\\', b'\t\n\r', b'\x00\x01\x7f\x80\xff'], 'S5'))
    case("bytes trailing NULs stripped, inner kept", f([b'a\x00b\x00\x00', b''], 'S5'))
    case("bytes 0-d is its repr", f(b'a\nb', 'S4'))
    # unicode
    case("str repr escapes non-printables as Python does",
         f(['a', "it's", '\u00e9', '\u2028', '\U0001F600', '\x85\xa0\xad', '\t\\', '\u0378\ufeff'], 'U3'))
    case("str trailing NULs stripped", f(['ab\x00', '\x00a'], 'U3'))
    case("str big-endian", f(['xyz', '\u4e2d'], '>U3'))
    case("str 0-d prints raw", f('a\nb\u00e9', 'U4'))
    case("str wraps by code points, not bytes", f(['\u00e9\u00e9\u00e9'] * 16, 'U3'))
    # layout
    case("2-D", f([[1, 2], [3, 4]], 'i8'))
    case("3-D blank line between blocks", np.arange(12, dtype='i8').reshape(2, 3, 2))
    case("4-D two blank lines", np.arange(16, dtype='i8').reshape(2, 2, 2, 2))
    case("long row wraps at 75 columns", np.arange(40, dtype='i8'))
    case("2-D rows wrap with a hanging indent", np.arange(60, dtype='i8').reshape(2, 30))
    case("3-D rows wrap", np.arange(100, dtype='i8').reshape(2, 2, 25) * 1000)
    case("a word wider than the line is not wrapped alone", f([b'x' * 80], 'S80'))
    case("floats wrap", np.linspace(0, 1, 13))
    case("single element axes", np.zeros((1, 1, 1), dtype='i4'))
    case("zero-size 1-D", np.zeros((0,), dtype='f8'))
    case("zero-size inner axis", np.zeros((2, 0), dtype='f8'))
    case("zero-size outer axis", np.zeros((0, 3), dtype='i4'))
    case("zero-size 3-D", np.zeros((2, 0, 3), dtype='U2'))
    # views
    base = np.arange(10, dtype='i4')
    case("strided view", base, base[1::3])
    case("negative stride", base, base[::-1])
    case("negative stride with offset", base, base[7:1:-2])
    b2 = np.arange(12, dtype='i2').reshape(3, 4)
    case("transposed view", b2, b2.T)
    case("2-D negative strides", b2, b2[::-1, ::-2])
    b5 = np.array([5], dtype='i8')
    case("zero stride broadcast", b5, np.broadcast_to(b5, (2, 3)))
    be = np.array([1.5, -2.5, 1e-9, 4.0], dtype='>f8')
    case("big-endian floats through a negative stride", be, be[::-1])
    bc = np.array([1+2j, 3-4j, 5j], dtype='>c8')
    case("big-endian complex strided", bc, bc[::2])
    # datetimes and timedeltas
    case("timedelta pads, NaT quoted", f(['NaT', 3, -12], 'm8[s]'))
    case("timedelta 0-d names the unit", f(5, 'm8[10s]'))
    case("timedelta 0-d NaT", f('NaT', 'm8[s]'))
    case("datetime days", f([0, -1, 10**6, -10**6], 'M8[D]'))
    case("datetime nanoseconds with NaT", f([0, -1, 5, 'NaT'], 'M8[ns]'))
    case("datetime years", f([0, -1, 3000000], 'M8[Y]'))
    case("datetime months big-endian", f([0, -13, 5], '>M8[M]'))
    case("datetime weeks", f([0, -1, 5], 'M8[W]'))
    case("datetime multiple of seconds", f([0, -1, 5], 'M8[10s]'))
    case("datetime attoseconds", f([0, -1, 5], 'M8[as]'))
    case("datetime 0-d hours", f(5, 'M8[h]'))
    case("datetime 0-d NaT", f('NaT', 'M8[D]'))
    # plain void
    case("void shows every byte in upper-case hex", f([b'\x00\x41', b'ab'], 'V2'))
    case("void 0-d", f(b'\x00\x01\xfe', 'V3'))
    return cases


def golden_big_cases():
    """Arrays over the threshold, viewing arange(count) (int64 squared, or float64 / divisor)."""
    big = []

    def bigcase(name, dtype, count, make_view, divisor=1, square=False):
        base = np.arange(count, dtype=dtype)
        if square:
            base = base * base
        if divisor != 1:
            base = base / divisor
        big.append((name, base, make_view(base), divisor, square))

    bigcase("1-D over the threshold summarises", '<i8', 2000, lambda b: b)
    bigcase("1001 elements summarise", '<i8', 1001, lambda b: b)
    bigcase("1000 elements do not", '<i8', 1000, lambda b: b)
    bigcase("2-D summarises rows and columns", '<i8', 2000, lambda b: b.reshape(40, 50))
    bigcase("2-D wide rows summarise only columns", '<i8', 3000, lambda b: b.reshape(3, 1000))
    bigcase("3-D summary rows of dots", '<f8', 4000, lambda b: b.reshape(10, 20, 20), divisor=7)
    bigcase("4-D summary", '<i8', 4096, lambda b: b.reshape(8, 8, 8, 8))
    bigcase("summary widths come from the edges only", '<i8', 2000, lambda b: b, square=True)
    bigcase("summarised reversed view", '<i8', 3000, lambda b: b[::-1])
    bigcase("summarised strided view", '<f8', 5000, lambda b: b[::3], divisor=3)
    bigcase("summarised Fortran-order view", '<f8', 1200, lambda b: b.reshape(30, 40).T, divisor=10)
    return big


def golden_structured():
    """The structured test cases' bytes and texts (their DTypes are built by hand in C++)."""
    def s(v, dt):
        a = np.array(v, dtype=dt)
        return a.tobytes().hex(), str(a)

    structs = {
        "pair": s([(1, 2.0), (3, 4.5)], [('a', '<i4'), ('b', '<f8')]),
        "mixed": s([(1, True, b'x\x00y', 'é'), (-20, False, b'', 'ab')], [('a', '<i2'), ('b', '?'), ('c', 'S3'), ('d', '<U2')]),
        "one_field": s([(1,), (22,)], [('a', '<i4')]),
        "subarray": s([([1.5, np.nan],), ([0.0, 2.0],)], [('v', '<f8', (2,))]),
        "subarray_2d": s([([[1, 2], [3, 4]],)], [('m', '<i2', (2, 2))]),
        "nested": s([(1.5, (2, True)), (-3.0, (40, False))], [('x', '>f4'), ('y', [('p', '<u2'), ('q', '?')])]),
        "zero_d": s((7, True, 0.5), [('a', '<i4'), ('b', '?'), ('c', '<f8')]),
        "big_endian_fields": s([(1, 2.5), (-1, -0.5)], [('a', '>i8'), ('b', '>f8')]),
    }
    padded = np.zeros(2, dtype={"names": ["a", "b"], "formats": ["<i4", "<f4"], "offsets": [0, 8],
                                "itemsize": 12})
    padded["a"] = [1, 2]
    padded["b"] = [0.5, 1.5]
    structs["padded " + str(np.lib.format.dtype_to_descr(padded.dtype))] = (padded.tobytes().hex(),
                                                                            str(padded))
    return structs


def stable_bytes(array):
    """The array's bytes, with the unused padding of x87 long doubles zeroed."""
    data = np.frombuffer(array.tobytes(), dtype=np.uint8).copy()
    if (array.dtype.kind, array.dtype.itemsize) in (("f", 16), ("c", 32)):
        data.reshape(-1, 16)[:, 10:] = 0
    return data.tobytes().hex()


def emit_golden():
    def dims(values):
        return "{" + ", ".join(map(str, values)) + "}"

    print("// Generated by tests/differential/print_differential.py --emit-golden (numpy "
          + np.__version__ + ").")
    print("const PrintCase kCases[] = {")
    for name, base, view in golden_cases():
        offset, shape, strides = view_of(base, view)
        print(f'    {{"{name}", "{base.dtype.str}", "{stable_bytes(base)}", {offset}, {dims(shape)},')
        print(f"     {dims(strides)}, {raw_literal(str(view))}}},")
    print("};")
    print()
    print("const BigCase kBigCases[] = {")
    for name, base, view, divisor, square in golden_big_cases():
        offset, shape, strides = view_of(base, view)
        print(f'    {{"{name}", "{base.dtype.str}", {base.size}, {divisor}, {str(square).lower()}, {offset},')
        print(f"     {dims(shape)}, {dims(strides)},")
        print(f"     {raw_literal(str(view))}}},")
    print("};")
    print()
    for name, (data, text) in golden_structured().items():
        print(f"// {name}: {data}")
        print("// " + raw_literal(text).replace("\n", "\n// "))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tslice", default="build/tslice", help="the tslice binary")
    parser.add_argument("--driver", help="a command run instead of tslice, with the .npy path appended")
    parser.add_argument("--cases", type=int, default=600, help="arrays per seed")
    parser.add_argument("--seed", type=int, action="append",
                        help="run only this seed (repeatable); default: a fixed and a fresh one")
    parser.add_argument("--dtypes", help="comma-separated dtypes to draw from (e.g. f2,c8,structured)")
    parser.add_argument("--core-only", action="store_true", help="only the core dtypes")
    parser.add_argument("--show", type=int, default=3, help="mismatches to show per seed")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 4)
    parser.add_argument("--emit-golden", action="store_true",
                        help="print the golden tables of tests/print_golden_cases.inc and the "
                             "structured cases of tests/test_print.cpp instead of testing")
    args = parser.parse_args()
    if args.emit_golden:
        emit_golden()
        return 0

    command = shlex.split(args.driver) if args.driver else [args.tslice]
    if not args.driver and not os.path.exists(args.tslice):
        print(f"{args.tslice}: no such binary (build tslice, or pass --tslice / --driver)")
        return 2
    seeds = harness.seed_list(FIXED_SEED, args.seed, fresh_stop=2 ** 32)

    total = harness.Tally()
    workdir = tempfile.mkdtemp(prefix="print_differential_")
    failures_dir = tempfile.mkdtemp(prefix="print_differential_failures_")
    try:
        for seed in seeds:
            tally = run_seed(seed, args, command, workdir, failures_dir)
            print(f"seed {seed}: {tally}")
            total += tally
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
        if not os.listdir(failures_dir):
            os.rmdir(failures_dir)
    return total.finish()


if __name__ == "__main__":
    sys.exit(main())
