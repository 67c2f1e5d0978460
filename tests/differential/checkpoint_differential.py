#!/usr/bin/python3
"""Several arrays at once and --update, against numpy (np.savez, np.load, zipfile) and the
safetensors format's definition (safetensors_writer.py).

    /usr/bin/python3 tests/differential/checkpoint_differential.py --tslice build/tslice [--cases N] [--seed S]

Each case writes a random checkpoint: np.savez (stored) or np.savez_compressed (deflated),
sometimes with a member tslice cannot read beside the arrays (an object array, a meta.json, a
directory entry), or a .safetensors file with "__metadata__". It chooses arrays with one to
three -k values (names, names with ".npy", globs), applies one index expression to each, and
writes them

  - into a new container (.npz or .safetensors): each result under its name, in the input's
    order, exactly numpy's a[EXPR];
  - or with --update into an existing container (the input itself, another checkpoint, or a
    file that does not exist yet): each result replaces the array of its name or is added at
    the end; every other member keeps its bytes as they were (a deflated member its
    compressed bytes, method and CRC-32), a safetensors file its "__metadata__" and every
    other tensor's bytes;
  - or over the input container without --update: exit 2, the file untouched, when arrays
    would be lost.

Half the cases run from a fixed seed, half from a fresh one; both are printed.
"""
import fnmatch
import os
import random
import subprocess
import sys
import zipfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import safetensors_writer as st  # noqa: E402

FIXED_SEED = 20261127
DTYPES = ["|u1", "<i2", "<f4", "<f8", "<i8", "|b1", "<c8"]
NAMES = ["model.layers.0.w", "model.layers.0.b", "model.layers.1.w", "model.layers.1.b", "embed", "head.w",
         "émbed", "arr_0"]
# Expressions every 2-D array with no empty axis takes.
EXPRS = ["", "[::-1]", "[1:]", "[:, ::2]", "[..., -1]", "[0]", "[::2, ::-1]", "[None, :1]"]


def random_array(r, dtype):
    shape = (r.randrange(1, 5), r.randrange(1, 6))
    count = shape[0] * shape[1]
    raw = np.frombuffer(bytes(r.randrange(256) for _ in range(count * np.dtype(dtype).itemsize)), dtype=np.uint8)
    if np.dtype(dtype).kind == "b":
        raw = raw & 1
    value = raw.view(dtype).reshape(shape)
    if value.dtype.kind in "fc":
        value = np.where(np.isnan(value), 0, value).astype(dtype)  # NaNs compare unequal
    return value


def random_checkpoint(r, kind, count):
    names = r.sample(NAMES, count)
    return {name: random_array(r, r.choice(DTYPES)) for name in names}


def write_checkpoint(path, kind, arrays, r, extras):
    """Writes `arrays` as `kind`; returns the names in the file's order (an .npz's members as
    np.load names them, unreadable extras included)."""
    if kind == "safetensors":
        st.write(path, arrays, metadata={"format": "pt", "run": str(r.randrange(1000))})
        return sorted(arrays, key=lambda name: name.encode())
    (np.savez if kind == "npz" else np.savez_compressed)(path, **arrays)
    order = list(arrays)
    if extras:
        mode = zipfile.ZIP_STORED if kind == "npz" else zipfile.ZIP_DEFLATED
        with zipfile.ZipFile(path, "a", compression=mode) as archive:
            archive.writestr("meta.json", '{"lr": 0.1}')
            archive.writestr("notes/", "")
        order += ["meta.json", "notes/"]
    return order


def raw_members(path):
    """{member name: (method, CRC-32, compressed bytes)} of a zip archive."""
    out = {}
    with zipfile.ZipFile(path) as archive, open(path, "rb") as f:
        data = f.read()
        for info in archive.infolist():
            start = info.header_offset
            name_len = int.from_bytes(data[start + 26:start + 28], "little")
            extra_len = int.from_bytes(data[start + 28:start + 30], "little")
            begin = start + 30 + name_len + extra_len
            out[info.filename] = (info.compress_type, info.CRC, data[begin:begin + info.compress_size])
    return out


def safetensors_header(path):
    import json
    import struct
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    return json.loads(data[8:8 + n]), data[8 + n:]


def read_container(path, kind):
    if kind == "safetensors":
        return st.read(path)
    with np.load(path, allow_pickle=False) as archive:
        return {name: archive[name] for name in archive.files if name not in ("meta.json", "notes/")}


def same(a, b):
    return a.dtype.str == b.dtype.str and a.shape == b.shape and a.tobytes() == np.ascontiguousarray(b).tobytes()


def choose_keys(r, order, readable):
    """One to three -k values and the names they choose, in the file's order."""
    keys, chosen = [], set()
    for _ in range(r.randrange(1, 4)):
        how = r.random()
        if how < 0.3:
            prefix = r.choice(["model.layers.*", "model.layers.?.w", "*.b", "*w", "[eé]mbed", "head*"])
            matched = {n for n in readable if fnmatch.fnmatchcase(n, prefix)}
            if not matched:
                continue
            keys.append(prefix)
            chosen |= matched
        else:
            name = r.choice(readable)
            keys.append(name)
            chosen.add(name)
    if not keys:
        name = r.choice(readable)
        keys, chosen = [name], {name}
    return keys, [n for n in order if n in chosen]


def check_case(tslice, seed, index, directory):
    r = random.Random(seed * 100003 + index)
    kind = r.choice(["npz", "npz_compressed", "safetensors"])
    out_kind = "safetensors" if kind == "safetensors" else "npz"
    arrays = random_checkpoint(r, kind, r.randrange(2, 6))
    extras = kind != "safetensors" and r.random() < 0.4
    path = os.path.join(directory, "in." + ("safetensors" if kind == "safetensors" else "npz"))
    order = write_checkpoint(path, kind, arrays, r, extras)
    keys, chosen = choose_keys(r, order, list(arrays))
    expr = r.choice(EXPRS)
    expected = {name: eval("a" + (expr or "[...]"), {"a": arrays[name]}) for name in chosen}
    args = [tslice, path] + ([expr] if expr else [])
    for key in keys:
        args += ["-k", key + (".npy" if out_kind == "npz" and r.random() < 0.2 and "*" not in key
                              and "?" not in key and "[" not in key else "")]
    mode = r.choice(["new", "update-input", "update-other", "update-missing", "over-input"])
    if mode == "new":
        target_kind = r.choice(["npz", "safetensors"])
        out = os.path.join(directory, "out." + target_kind)
        result = subprocess.run(args + ["-o", out], capture_output=True)
        if result.returncode != 0:
            return f"exit {result.returncode}: {result.stderr.decode().strip()}"
        got = read_container(out, target_kind)
        if (sorted(got) if target_kind == "safetensors" else list(got)) != (
                sorted(chosen) if target_kind == "safetensors" else chosen):
            return f"the output holds {list(got)}, expected {chosen} (keys {keys})"
        for name in chosen:
            want = expected[name]
            if target_kind == "safetensors" or out_kind == "safetensors":
                want = np.ascontiguousarray(want)
            if not same(got[name], want):
                return f"{name}: {got[name].dtype} {got[name].shape} vs {want.dtype} {want.shape}"
        if target_kind == "safetensors" and kind == "safetensors":
            header, _ = safetensors_header(out)
            if header.get("__metadata__") != safetensors_header(path)[0].get("__metadata__"):
                return "the input's __metadata__ was not carried"
        return None
    if mode == "over-input":
        before = open(path, "rb").read()
        result = subprocess.run(args + ["-o", path], capture_output=True)
        lost = len(order) - len(chosen)
        if lost == 0:
            return None if result.returncode == 0 else f"nothing lost, yet exit {result.returncode}"
        if result.returncode != 2 or open(path, "rb").read() != before:
            return f"over the input without --update: exit {result.returncode}, or the file changed"
        if f"lose {lost} of them" not in result.stderr.decode() or "--update" not in result.stderr.decode():
            return f"the message does not say what is lost: {result.stderr.decode()!r}"
        if os.listdir(directory) != [os.path.basename(path)]:
            return f"files left behind: {os.listdir(directory)}"
        return None

    # --update: into the input, into another checkpoint of the same kind, or a new file.
    if mode == "update-input":
        target, base, base_order = path, arrays, order
    else:
        target = os.path.join(directory, "target." + out_kind)
        if mode == "update-other":
            base = random_checkpoint(r, kind, r.randrange(1, 5))
            target_extras = out_kind == "npz" and r.random() < 0.5
            target_kind = r.choice(["npz", "npz_compressed"]) if out_kind == "npz" else "safetensors"
            base_order = write_checkpoint(target, target_kind, base, r, target_extras)
        else:
            base, base_order = {}, []
    before_raw = raw_members(target) if out_kind == "npz" and os.path.exists(target) else None
    before_st = safetensors_header(target) if out_kind == "safetensors" and os.path.exists(target) else None
    result = subprocess.run(args + ["-o", target, "--update"], capture_output=True)
    if result.returncode != 0:
        return f"--update ({mode}): exit {result.returncode}: {result.stderr.decode().strip()}"
    if sorted(os.listdir(directory)) != sorted({os.path.basename(path), os.path.basename(target)}):
        return f"files left behind: {os.listdir(directory)}"
    got = read_container(target, out_kind)
    want_order = [n for n in base_order if n not in ("meta.json", "notes/")]
    want_order += [n for n in chosen if n not in want_order]
    names = list(got)
    if out_kind == "safetensors":  # a safetensors file's order is by name
        want_order = sorted(want_order, key=lambda name: name.encode())
        names = sorted(names, key=lambda name: name.encode())
    if names != want_order:
        return f"--update ({mode}) holds {list(got)}, expected {want_order}"
    for name in want_order:
        want = expected[name] if name in expected else base[name]
        if out_kind == "safetensors":
            want = np.ascontiguousarray(want)
        if not same(got[name], want):
            return f"--update ({mode}) {name}: {got[name].dtype} {got[name].shape} vs {want.dtype} {want.shape}"
    if before_raw is not None:
        after = raw_members(target)
        with zipfile.ZipFile(target) as archive:
            if archive.testzip() is not None:
                return "a bad CRC-32 after --update"
        for member, raw in before_raw.items():
            name = member[:-4] if member.endswith(".npy") else member
            if name in expected:
                continue
            if after.get(member) != raw:
                return f"--update ({mode}): the kept member {member!r} changed (method, CRC or bytes)"
    if before_st is not None:
        header, data = safetensors_header(target)
        old_header, old_data = before_st
        if header.get("__metadata__") != old_header.get("__metadata__"):
            return "--update lost the __metadata__"
        for name, info in old_header.items():
            if name == "__metadata__" or name in expected:
                continue
            a, b = info["data_offsets"], header[name]["data_offsets"]
            if old_data[a[0]:a[1]] != data[b[0]:b[1]] or info["dtype"] != header[name]["dtype"]:
                return f"--update: the kept tensor {name!r} changed"
    return None


def main():
    tslice, cases, seeds = harness.tslice_cases_seed_args(__doc__, 200, FIXED_SEED)
    return harness.run_cases(seeds, cases, lambda seed, index, directory: check_case(tslice, seed, index, directory),
                             "tslice-checkpoint-")


if __name__ == "__main__":
    sys.exit(main())
