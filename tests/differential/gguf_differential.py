#!/usr/bin/python3
"""tslice on GGUF files, against the GGUF writer and ggml's reference dequantizers in
gguf_writer.py.

    /usr/bin/python3 tests/differential/gguf_differential.py --tslice build/tslice \\
        --dequantize build/tests/ggml_dequantize [--cases N] [--seed S]

Each case writes a GGUF (version 2 or 3, alignment 32 or general.alignment 1, 8 or 64) with
metadata of every value type (arrays of numbers, of strings, of arrays; NaN and infinities)
and tensors of every plain type (F32, F16, BF16, F64, I8-I64) and some quantized ones (Q8_0,
Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q6_K), of rank 1 to 4, and checks:

  - --list --json is {"arrays": [...], "metadata": {...}}: every tensor with its numpy dtype
    (BF16, or the quantized type's name) and its shape (GGUF's ne reversed), and the metadata
    key for key, value for value;
  - a random index expression on a plain tensor gives exactly numpy's a[EXPR] (-o x.npy; BF16
    through -o x.safetensors, as raw words);
  - --shape of a quantized tensor works, and slicing it is exit 2 naming its type and --astype;
  - the library's dequantization (tests/tools/ggml_dequantize) of random blocks of Q8_0, Q4_0,
    Q4_1, Q5_0 and Q5_1 equals the reference bit for bit, every f16 scale (all 65536 bit
    patterns) converts as numpy converts it, and Q4_K is exit 2 naming it;
  - files cut short, with counts of 2**60, bad alignments or offsets past the end are exit 1
    with one line.
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_writer as gw  # noqa: E402
import harness  # noqa: E402

FIXED_SEED = 20261127
DEQUANTIZED = ["Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1"]


def run(args, data=None):
    return subprocess.run(args, input=data, capture_output=True, timeout=60)


def random_metadata(r):
    strings = ["", "llama", "ünïcødé", "a\nb", "x" * 300]
    meta = [
        ("general.architecture", gw.STRING, "llama"),
        ("general.name", gw.STRING, r.choice(strings)),
        ("u8", gw.U8, r.randrange(256)), ("i8", gw.I8, r.randrange(-128, 128)),
        ("u16", gw.U16, r.randrange(2**16)), ("i16", gw.I16, r.randrange(-2**15, 2**15)),
        ("u32", gw.U32, r.randrange(2**32)), ("i32", gw.I32, r.randrange(-2**31, 2**31)),
        ("u64", gw.U64, r.randrange(2**64)), ("i64", gw.I64, r.randrange(-2**63, 2**63)),
        ("f32", gw.F32, 0.5), ("f64", gw.F64, r.random()), ("nan", gw.F32, float("nan")),
        ("inf", gw.F64, float("-inf")), ("bool", gw.BOOL, r.random() < 0.5),
        ("tokenizer.ggml.tokens", gw.ARRAY, (gw.STRING, [r.choice(strings) for _ in range(r.randrange(0, 50))])),
        ("scores", gw.ARRAY, (gw.F32, [r.choice([0.25, -1.5, 3.0]) for _ in range(r.randrange(0, 20))])),
        ("nested", gw.ARRAY, (gw.ARRAY, [(gw.I32, [1, 2]), (gw.I32, [])])),
    ]
    r.shuffle(meta)
    return meta


def expected_value(kind, v):
    if kind == gw.ARRAY:
        element, items = v
        return [expected_value(element, x) for x in items]
    if kind in (gw.F32, gw.F64):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return float(np.float32(v)) if kind == gw.F32 else v
    return v


def random_shape(r, block):
    rank = r.randrange(1, 5)
    shape = [r.choice([1, 2, 3, 5]) for _ in range(rank - 1)]
    return shape + [block * r.choice([1, 2, 3])]


def random_expr(r, shape):
    items = []
    for n in shape:
        roll = r.random()
        if roll < 0.3 and n > 0:
            items.append(str(r.randrange(-n, n)))
        elif roll < 0.9:
            step = r.choice(["", ":2", ":-1", ":-3"])
            items.append(f"{r.choice(['', str(r.randrange(-n, n + 1))])}:{r.choice(['', str(r.randrange(-n, n + 1))])}{step}")
        else:
            items.append(":")
    return ", ".join(items) if items else "..."


def check_case(tslice, directory, r, seed, index):
    failures = []
    rng = np.random.default_rng(seed * 1000 + index)
    tensors, arrays = [], {}
    for k in range(r.randrange(1, 7)):
        type_name = r.choice(list(gw.PLAIN) + DEQUANTIZED + ["Q4_K", "Q6_K"])
        _, block, block_bytes = gw.TYPES[type_name]
        shape = random_shape(r, block)
        count = int(np.prod(shape))
        if type_name in gw.PLAIN:
            data = rng.integers(0, 256, size=count * np.dtype(gw.PLAIN[type_name]).itemsize, dtype=np.uint8).tobytes()
            arrays[f"blk.{k}.{type_name.lower()}"] = np.frombuffer(data, dtype=gw.PLAIN[type_name]).reshape(shape)
        else:
            data = gw.random_blocks(rng, type_name, count // block)
        tensors.append((f"blk.{k}.{type_name.lower()}", type_name, shape, data))
    meta = random_metadata(r)
    alignment = r.choice([None, None, 1, 8, 64])
    version = r.choice([2, 3])
    path = os.path.join(directory, f"case{index}.gguf")
    gw.write(path, meta, tensors, version=version, alignment=alignment)
    where = f"case {index} (seed {seed}, version {version}, alignment {alignment})"

    listed = run([tslice, "--list", "--json", path])
    if listed.returncode != 0:
        return [("list", f"{where}: exit {listed.returncode} {listed.stderr.decode()}")]
    got = json.loads(listed.stdout)
    want_arrays = [{"name": name, "dtype": ("BF16" if t == "BF16" else gw.PLAIN[t]) if t in gw.PLAIN else t,
                    "shape": list(shape)} for name, t, shape, _ in tensors]
    want_meta = {key: expected_value(kind, v) for key, kind, v in meta}
    if alignment is not None:
        want_meta["general.alignment"] = alignment
    if got.get("arrays") != want_arrays:
        failures.append(("list", f"{where}: arrays {got.get('arrays')}\n    expected {want_arrays}"))
    if got.get("metadata") != want_meta:
        failures.append(("metadata", f"{where}: {json.dumps(got.get('metadata'))[:400]}\n    expected {json.dumps(want_meta)[:400]}"))

    for name, type_name, shape, blocks in tensors:
        expr = random_expr(r, shape)
        if type_name not in gw.PLAIN:
            # --astype decodes the types ggml_dequantize knows (only the blocks the slice
            # reaches), as ggml's reference does; the others stay exit 2 naming the type.
            target = r.choice(["f4", "f4", "<f2", "f8"])
            converted = run([tslice, path, "-k", name, expr, "--astype", target, "-o", path + ".npy"])
            if type_name in DEQUANTIZED:
                floats = np.asarray(gw.dequantize(type_name, blocks), dtype=np.float32).reshape(shape)
                want = np.asarray(floats[eval(f"np.s_[{expr}]")]).astype(target)  # noqa: S307
                got_array = np.load(path + ".npy") if converted.returncode == 0 else None
                if got_array is None or got_array.dtype != want.dtype or got_array.shape != want.shape or \
                        got_array.tobytes() != want.tobytes():
                    failures.append(("dequantized", f"{where}: -k {name} '{expr}' --astype {target}: exit "
                                                     f"{converted.returncode} {converted.stderr.decode()!r}"))
            elif converted.returncode != 2 or type_name not in converted.stderr.decode():
                failures.append(("quantized astype", f"{where}: -k {name} --astype {target}: exit "
                                                      f"{converted.returncode} {converted.stderr.decode()!r}"))
            if os.path.exists(path + ".npy"):
                os.remove(path + ".npy")
            shape_run = run([tslice, "--shape", path, "-k", name, expr])
            want_shape = np.empty(shape, dtype=np.uint8)[eval(f"np.s_[{expr}]")].shape  # noqa: S307
            if shape_run.returncode != 0 or shape_run.stdout.decode().strip() != str(tuple(want_shape)):
                failures.append(("quantized shape", f"{where}: --shape -k {name} '{expr}': exit {shape_run.returncode} "
                                                     f"{shape_run.stdout.decode()!r}, numpy {want_shape}"))
            sliced = run([tslice, path, "-k", name, expr, "-o", path + ".npy"])
            err = sliced.stderr.decode()
            if sliced.returncode != 2 or type_name not in err or "--astype f4" not in err or os.path.exists(path + ".npy"):
                failures.append(("quantized slice", f"{where}: -k {name}: exit {sliced.returncode} {err!r}"))
            continue
        array = arrays[name]
        want = np.asarray(array[eval(f"np.s_[{expr}]")], dtype=array.dtype)  # noqa: S307
        out = path + (".safetensors" if type_name == "BF16" else ".npy")
        done = run([tslice, path, "-k", name, expr, "-o", out])
        if done.returncode != 0:
            failures.append(("slice", f"{where}: -k {name} '{expr}': exit {done.returncode} {done.stderr.decode()}"))
            continue
        if type_name == "BF16":
            raw = open(out, "rb").read()
            n = int.from_bytes(raw[:8], "little")
            got_array = np.frombuffer(raw[8 + n:], dtype="<u2").reshape(json.loads(raw[8:8 + n])[name]["shape"])
        else:
            got_array = np.load(out)
        os.remove(out)
        if got_array.dtype != want.dtype or got_array.shape != want.shape or got_array.tobytes() != want.tobytes():
            failures.append(("values", f"{where}: -k {name} '{expr}': got {got_array!r}\n    numpy {want!r}"))
    return failures


def check_dequantize(tool, rng):
    failures = []
    for type_name in DEQUANTIZED:
        for count in (1, 3, 257):
            blocks = gw.random_blocks(rng, type_name, count)
            done = run([tool, type_name], blocks)
            want = gw.dequantize(type_name, blocks)
            got = np.frombuffer(done.stdout, dtype=np.float32)
            if done.returncode != 0 or got.tobytes() != want.tobytes():
                bad = np.nonzero(got.view(np.uint32) != want.view(np.uint32))[0][:5] if got.shape == want.shape else []
                failures.append(("dequantize", f"{type_name} x{count}: exit {done.returncode}, first differences at "
                                               f"{list(bad)}: {got[bad] if len(bad) else got.shape} vs {want[bad] if len(bad) else want.shape}"))
    # Every f16 scale: Q8_0 blocks with d running through all 65536 bit patterns and qs[0] = 1
    # decode to d itself (NaNs compared as NaNs).
    scales = np.arange(65536, dtype=np.uint32).astype("<u2")
    blocks = np.zeros((65536, 34), dtype=np.uint8)
    blocks[:, 0:2] = scales.view(np.uint8).reshape(-1, 2)
    blocks[:, 2] = 1
    done = run([tool, "Q8_0"], blocks.tobytes())
    got = np.frombuffer(done.stdout, dtype=np.float32).reshape(65536, 32)[:, 0] if done.returncode == 0 else None
    want = scales.view("<f2").astype(np.float32)
    if got is None or not np.array_equal(got, want, equal_nan=True):
        bad = [] if got is None else np.nonzero(~((got == want) | (np.isnan(got) & np.isnan(want))))[0][:5]
        failures.append(("dequantize", f"f16 scales: exit {done.returncode}, first wrong patterns {[hex(b) for b in bad]}"))
    refused = run([tool, "Q4_K"], bytes(144))
    if refused.returncode != 2 or b"Q4_K" not in refused.stderr:
        failures.append(("dequantize", f"Q4_K: exit {refused.returncode} {refused.stderr!r}"))
    return failures


def refusals(tslice, directory):
    failures = []
    good = os.path.join(directory, "good.gguf")
    gw.write(good, [("general.architecture", gw.STRING, "x")], [("w", "F32", [4, 8], bytes(128))])
    raw = open(good, "rb").read()
    header = b"GGUF" + (3).to_bytes(4, "little")
    cases = {
        "cut": (raw[:40], "ends inside"),
        "tensor count": (header + (2**60).to_bytes(8, "little") + (0).to_bytes(8, "little"), "too small"),
        "kv count": (header + (0).to_bytes(8, "little") + (2**60).to_bytes(8, "little"), "too small"),
        "string length": (header + (0).to_bytes(8, "little") + (1).to_bytes(8, "little") + (2**62).to_bytes(8, "little"),
                          "ends inside"),
        "version": (b"GGUF" + (7).to_bytes(4, "little") + bytes(16), "version 7"),
        "big-endian": (b"GGUF" + (3).to_bytes(4, "big") + bytes(16), "big-endian"),
        "data cut": (raw[:-64], "reaches past the end"),
    }
    bad_alignment = os.path.join(directory, "align.gguf")
    gw.write(bad_alignment, [], [("w", "F32", [4], bytes(16))], alignment=3)
    cases["alignment"] = (open(bad_alignment, "rb").read(), "power of two")
    for name, (data, message) in cases.items():
        path = os.path.join(directory, name.replace(" ", "_") + ".gguf")
        with open(path, "wb") as f:
            f.write(data)
        done = run([tslice, "--list", path])
        err = done.stderr.decode()
        if done.returncode != 1 or err.count("\n") != 1 or message not in err:
            failures.append(("refusal", f"{name}: exit {done.returncode} {err!r} (expected exit 1 saying {message!r})"))
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tslice", required=True)
    parser.add_argument("--dequantize", required=True)
    parser.add_argument("--cases", type=int, default=30)
    parser.add_argument("--seed", type=int)
    args = parser.parse_args()
    seeds = [args.seed] if args.seed is not None else [FIXED_SEED, harness.fresh_seed()]
    print("seeds:", ", ".join(map(str, seeds)), flush=True)
    tslice = harness.require_tslice(args.tslice)
    tally = harness.Tally()
    by_kind = harness.FailuresByKind()
    with tempfile.TemporaryDirectory() as directory:
        for seed in seeds:
            r = random.Random(seed)
            for index in range(args.cases):
                failures = harness.run_guarded(lambda: check_case(tslice, directory, r, seed, index),
                                               lambda: f"case {index} seed {seed}")
                by_kind.add(failures)
                tally.count(failures)
            failures = check_dequantize(args.dequantize, np.random.default_rng(seed))
            by_kind.add(failures)
            tally.count(failures)
        failures = refusals(tslice, directory)
        by_kind.add(failures)
        tally.count(failures)
    by_kind.report(5)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
