#!/usr/bin/python3
"""tslice on .npz and .safetensors inputs and outputs, against numpy.

    /usr/bin/python3 tests/differential/container_differential.py --tslice build/tslice [--cases N] [--seed S]

Each case writes a random container: np.savez (stored), np.savez_compressed (deflated), both
with one to three members, or a .safetensors file with one to three tensors (BF16 and F8 ones
too, as raw bytes) from safetensors_writer.py, or a plain .npy. It picks one array, a random
index expression and an output (.npy, .npz, .safetensors, or .npy on standard output), reads
the input from the file or from standard input, and checks:

  - --list --json names every array with numpy's dtype string (or the safetensors name) and shape;
  - the output, read back by np.load (an .npz: exactly one member, named KEY, or arr_0 without
    a key) or by the Python reader, holds exactly numpy's a[EXPR]: shape, values, and dtype
    (a .safetensors output little-endian: a big-endian input's values, byte-swapped);
  - a type the output format lacks (complex, strings into .safetensors; BF16/F8 into
    .npy/.npz) is exit 2 and writes nothing.

Half the cases run from a fixed seed, half from a fresh one; both are printed.
"""
import io
import json
import os
import random
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import safetensors_writer as st  # noqa: E402

FIXED_SEED = 20261124
SAFETENSORS_DTYPES = ["|b1", "|u1", "|i1", "<i2", ">i2", "<u2", "<f2", ">f2", "<i4", "<u4", ">u4", "<f4",
                      ">f4", "<f8", ">f8", "<i8", "<u8", ">i8", "<c8", ">c8"]
NUMPY_ONLY_DTYPES = [">c16", "|S3", "<U2", "<M8[s]"]
RAW_TYPES = ["BF16", "F8_E4M3", "F8_E5M2", "F8_E8M0"]


def random_array(r, dtype):
    shape = tuple(r.choice([0, 1, 2, 3, 5, 7]) for _ in range(r.randrange(0, 5)))
    count = int(np.prod(shape, dtype=np.int64))
    raw = np.frombuffer(bytes(r.randrange(256) for _ in range(count * np.dtype(dtype).itemsize)), dtype=np.uint8)
    if np.dtype(dtype).kind == "b":
        raw = raw & 1
    if np.dtype(dtype).kind == "U":
        return np.array([chr(0x41 + r.randrange(26)) * r.randrange(3) for _ in range(count)], dtype=dtype).reshape(shape)
    if np.dtype(dtype).kind == "M":
        return np.array(np.arange(count) * 86400, dtype=dtype).reshape(shape)
    array = raw.view(dtype).reshape(shape)
    if r.random() < 0.3 and array.ndim >= 2:
        array = np.asfortranarray(array)
    return array


def random_expr(r, shape):
    if not shape or r.random() < 0.1:
        return "..."
    items = []
    for dim in shape[: r.randrange(1, len(shape) + 1)]:
        if r.random() < 0.1:
            items.append("None")  # takes no axis
        kind = r.random()
        if kind < 0.2 and dim > 0:
            items.append(str(r.randrange(-dim, dim)))
        else:
            parts = [r.choice(["", str(r.randrange(-8, 9))]) for _ in range(2)]
            step = r.choice(["", "", "1", "-1", "2", "-2", "3"])
            items.append(":".join(parts + ([step] if step else [])))
    return "[" + ", ".join(items) + "]"


def raw_as_numpy(raw):
    """A BF16/F8 tensor's bytes as unsigned integers of the same size, to slice with numpy."""
    return np.frombuffer(raw.data, dtype="<u2" if raw.dtype == "BF16" else "|u1").reshape(raw.shape)


def make_case(seed, index):
    r = random.Random(seed * 100003 + index)
    container = r.choice(["npz", "npz_compressed", "safetensors", "npy"])
    count = 1 if container == "npy" else r.randrange(1, 4)
    names = r.sample(["weight", "bias", "x", "layer.0.w", "émbed", "arr_0", "y.z"], count)
    arrays = {}
    for name in names:
        if container == "safetensors":
            if r.random() < 0.25:
                kind = r.choice(RAW_TYPES)
                shape = tuple(r.choice([0, 1, 2, 4, 6]) for _ in range(r.randrange(0, 4)))
                size = int(np.prod(shape, dtype=np.int64)) * st.RAW_DTYPES[kind]
                arrays[name] = st.RawTensor(kind, shape, bytes(r.randrange(256) for _ in range(size)))
            else:
                # The writer stores a big-endian array little-endian (stored_value).
                arrays[name] = random_array(r, r.choice(SAFETENSORS_DTYPES))
        else:
            arrays[name] = random_array(r, r.choice(SAFETENSORS_DTYPES + NUMPY_ONLY_DTYPES))
    key = r.choice(names)
    use_key = count > 1 or (container != "npy" and r.random() < 0.5)
    source = arrays[key]
    shape = source.shape
    return {
        "container": container, "arrays": arrays, "key": key if use_key else None, "selected": key,
        "expr": random_expr(r, shape), "output": r.choice(["npy", "npz", "safetensors", "stdout"]),
        "stdin": r.random() < 0.15, "key_with_npy": container.startswith("npz") and r.random() < 0.3,
    }


def write_input(case, directory):
    path = os.path.join(directory, "in")
    arrays = case["arrays"]
    if case["container"] == "npy":
        np.save(path + ".npy", next(iter(arrays.values())))
        return path + ".npy"
    if case["container"] == "safetensors":
        st.write(path + ".safetensors", arrays)
        return path + ".safetensors"
    save = np.savez if case["container"] == "npz" else np.savez_compressed
    save(path + ".npz", **arrays)
    return path + ".npz"


def stored_value(case, value):
    """What the input file holds for `value`: safetensors stores little-endian."""
    if case["container"] == "safetensors" and isinstance(value, np.ndarray):
        return value.astype(value.dtype.newbyteorder("<")) if value.dtype.byteorder == ">" else value
    return value


def expected_list(case):
    """An .npz lists its members in the archive's order, a safetensors file its tensors by name
    (UTF-8 byte order, as the reference's safe_open().keys())."""
    out = []
    items = list(case["arrays"].items())
    if case["container"] == "safetensors":
        items.sort(key=lambda item: item[0].encode("utf-8"))
    for name, value in items:
        value = stored_value(case, value)
        if isinstance(value, st.RawTensor):
            out.append({"name": name, "dtype": value.dtype, "shape": list(value.shape)})
        else:
            out.append({"name": None if case["container"] == "npy" else name, "dtype": value.dtype.str,
                        "shape": list(value.shape)})
    return out


def check_case(tslice, case, directory):
    path = write_input(case, directory)
    stdin_bytes = open(path, "rb").read() if case["stdin"] else None
    input_arg = "-" if case["stdin"] else path

    listed = subprocess.run([tslice, input_arg, "--list", "--json"], input=stdin_bytes, capture_output=True)
    if listed.returncode != 0:
        return f"--list --json failed: {listed.stderr.decode()}"
    if json.loads(listed.stdout) != expected_list(case):
        return f"--list --json gave {listed.stdout.decode().strip()}, expected {json.dumps(expected_list(case))}"

    value = stored_value(case, case["arrays"][case["selected"]])
    raw = isinstance(value, st.RawTensor)
    index = case["expr"] if case["expr"].startswith("[") else "[" + case["expr"] + "]"
    source = raw_as_numpy(value) if raw else value
    # An integer index of every axis gives a numpy scalar, in native byte order: back to the dtype.
    expected = np.asarray(eval("a" + index, {"a": source}), dtype=source.dtype)
    args = [tslice, input_arg, case["expr"]]
    if case["key"] is not None:
        args += ["-k", case["key"] + (".npy" if case["key_with_npy"] else "")]
    output = case["output"]
    out_path = "-" if output == "stdout" else os.path.join(directory, "out." + output)
    args += ["-o", out_path]
    result = subprocess.run(args, input=stdin_bytes, capture_output=True)

    lacks = (raw and output != "safetensors") or (
        output == "safetensors" and not raw and value.dtype.newbyteorder("<").str not in
        [np.dtype(d).newbyteorder("<").str for d in SAFETENSORS_DTYPES])
    if lacks:
        if result.returncode != 2 or (output != "stdout" and os.path.exists(out_path)) or result.stdout:
            return f"a type {output} lacks: exit {result.returncode} (expected 2), stderr {result.stderr.decode()!r}"
        return None
    if result.returncode != 0:
        return f"exit {result.returncode}: {result.stderr.decode().strip()}"
    name = case["key"] if case["key"] is not None else "arr_0"
    if output in ("npy", "stdout"):
        got = np.load(io.BytesIO(result.stdout) if output == "stdout" else out_path)
        if got.dtype.str != expected.dtype.str or got.shape != expected.shape or got.tobytes() != \
                np.ascontiguousarray(expected).tobytes():
            return f".npy output differs: {got.dtype} {got.shape} vs {expected.dtype} {expected.shape}"
    elif output == "npz":
        with np.load(out_path) as archive:
            if archive.files != [name]:
                return f".npz output holds {archive.files}, expected [{name!r}]"
            got = archive[name]
        if got.dtype.str != expected.dtype.str or got.shape != expected.shape or got.tobytes() != \
                np.ascontiguousarray(expected).tobytes():
            return f".npz output differs: {got.dtype} {got.shape} vs {expected.dtype} {expected.shape}"
        import zipfile
        with zipfile.ZipFile(out_path) as archive:
            if archive.testzip() is not None or archive.infolist()[0].compress_type != zipfile.ZIP_STORED:
                return ".npz output: bad CRC or not stored"
    else:
        tensors = st.read(out_path)
        if list(tensors) != [name]:
            return f".safetensors output holds {list(tensors)}, expected [{name!r}]"
        got = tensors[name]
        if raw:
            if got.dtype != value.dtype or got.shape != expected.shape or got.data != expected.tobytes():
                return f".safetensors output of {value.dtype} differs"
        else:
            little = expected.astype(expected.dtype.newbyteorder("<"))
            if got.dtype != little.dtype or got.shape != little.shape or got.tobytes() != little.tobytes():
                return f".safetensors output differs: {got.dtype} {got.shape} vs {little.dtype} {little.shape}"
    return None


def describe(case):
    arrays = {name: (v.dtype if isinstance(v, st.RawTensor) else v.dtype.str, v.shape)
              for name, v in case["arrays"].items()}
    return (f"{case['container']} {arrays} key={case['key']} expr={case['expr']!r} output={case['output']} "
            f"stdin={case['stdin']}")


def main():
    tslice, cases, seeds = harness.tslice_cases_seed_args(__doc__, 400, FIXED_SEED)
    return harness.run_cases(seeds, cases,
                             lambda seed, index, directory: check_case(tslice, make_case(seed, index), directory),
                             "tslice-container-", describe=lambda seed, index: describe(make_case(seed, index)))


if __name__ == "__main__":
    sys.exit(main())
