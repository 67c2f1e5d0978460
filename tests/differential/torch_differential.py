#!/usr/bin/python3
"""tslice on torch.save files, against torch itself (Debian's python3-torch).

    /usr/bin/python3 tests/differential/torch_differential.py --tslice build/tslice [--cases N] [--seed S]

The files are written by torch.save: state_dicts of real modules (nn.Linear, nn.Embedding, an
nn.Sequential with a BatchNorm), nested objects (dicts in lists in dicts, tuples, int keys,
non-tensor leaves), views of shared storages (transposed, sliced, permuted, expanded with a
zero stride, the same tensor twice, a Parameter), every dtype torch has that tslice reads,
the views saved with pickle protocols 4 and 5, and the same checkpoint rewritten big-endian (byteorder "big", every storage byte-swapped).
For each file:

  - --list --json names exactly the tensors torch.load finds, by path, with numpy's dtype
    (BF16 for bfloat16) and shape;
  - random index expressions (ints, slices with any step, ..., None) on random tensors give
    exactly numpy's tensor.numpy()[EXPR]: shape, dtype and bytes, through -o x.npy (BF16
    through -o x.safetensors, compared as raw 16-bit words).

And the files tslice must refuse, each exit 1 with one line and no trace: a legacy save
(_use_new_zipfile_serialization=False), a pickle whose reduce would run os.system (listed
without it, and the command never runs), a list holding itself, one list shared 2**40 ways,
a truncated file, a tensor whose offset reaches past its storage, and a TorchScript archive
(torch.jit.save).
"""
import io
import json
import os
import random
import subprocess
import sys
import tempfile
import zipfile

import numpy as np
import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

FIXED_SEED = 20261127


def run(tslice, *args):
    return subprocess.run([tslice, *args], capture_output=True, timeout=60)


def tensors_of(obj, path=""):
    """(path, tensor) of every tensor reachable through dicts, lists and tuples, as tslice names them."""
    join = (lambda k: f"{path}.{k}" if path else str(k))
    if isinstance(obj, torch.Tensor):
        return [(path, obj)]
    if isinstance(obj, dict):
        return [pt for k, v in obj.items() if isinstance(k, (str, int)) for pt in tensors_of(v, join(k))]
    if isinstance(obj, (list, tuple)):
        return [pt for i, v in enumerate(obj) for pt in tensors_of(v, join(i))]
    return []


def oracle(tensor, big_endian=False):
    """numpy's view of the tensor (bfloat16 as its 16-bit words) and tslice's dtype name; of a
    big-endian file, the same values in big-endian types."""
    t = tensor.detach()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(np.uint16), "BF16"
    a = t.numpy()
    if big_endian and a.dtype.itemsize > 1:
        a = a.astype(a.dtype.newbyteorder(">"))
    return a, a.dtype.str


def random_expr(r, shape):
    items = []
    axes = list(shape)
    if r.random() < 0.15:
        return "..."
    for n in axes:
        roll = r.random()
        if roll < 0.25 and n > 0:
            items.append(str(r.randrange(-n, n)))
        elif roll < 0.85:
            start = r.choice(["", str(r.randrange(-n - 1, n + 2))])
            stop = r.choice(["", str(r.randrange(-n - 1, n + 2))])
            step = r.choice(["", "1", "2", "-1", "-2", "3"])
            items.append(f"{start}:{stop}" + (f":{step}" if step else ""))
        else:
            items.append(":")
        if r.random() < 0.05:
            items.append("None")
    if items and r.random() < 0.2:
        items[r.randrange(len(items))] = "..."
        items = items[: items.index("...") + 1] + [i for i in items[items.index("...") + 1:] if i != "..."]
    return ", ".join(items) if items else "..."


def checkpoints():
    torch.manual_seed(1)
    linear = nn.Linear(7, 5)
    embedding = nn.Embedding(11, 6)
    sequential = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(4, 2))
    base = torch.arange(60, dtype=torch.float32).reshape(3, 4, 5)
    matrix = torch.randn(6, 8)
    tied = nn.Linear(8, 6, bias=False)
    dtypes = {
        "f64": torch.randn(3, 4, dtype=torch.float64), "f32": torch.randn(5), "f16": torch.randn(2, 3).half(),
        "bf16": torch.randn(4, 3).bfloat16(), "i64": torch.randint(-2**40, 2**40, (3, 2)),
        "i32": torch.randint(-2**30, 2**30, (4,), dtype=torch.int32),
        "i16": torch.randint(-2**15, 2**15, (2, 2), dtype=torch.int16),
        "i8": torch.randint(-128, 128, (9,), dtype=torch.int8), "u8": torch.randint(0, 256, (3, 3), dtype=torch.uint8),
        "bool": torch.rand(4, 4) > 0.5, "c64": torch.randn(3, 2, dtype=torch.complex64),
        "c128": torch.randn(2, 3, dtype=torch.complex128), "scalar": torch.tensor(2.5), "empty": torch.zeros(0, 3),
    }
    views = {
        "base": base, "transposed": matrix.t(), "sliced": matrix[1:5, 2:7:2], "permuted": base.permute(2, 0, 1),
        "column": matrix[:, 3], "expanded": torch.randn(1, 5).expand(4, 5), "narrow": base[1:, :, 1:4],
        "again": base, "diagonal": matrix.diagonal(), "weight": tied.weight, "tied": tied.weight,
        "param": nn.Parameter(torch.randn(3, 3)),
    }
    nested = {
        "model": sequential.state_dict(),
        "optimizer": {"state": {0: {"step": 3, "exp_avg": torch.randn(4, 3)}}, "param_groups": [{"lr": 0.1}]},
        "epoch": 7, "name": "run-1", "history": [torch.randn(2), (torch.randn(3), {"deep": [[torch.arange(4)]]})],
        "none": None,
    }
    return {
        "linear.pt": linear.state_dict(), "embedding.pth": embedding.state_dict(),
        "sequential.bin": sequential.state_dict(), "dtypes.pt": dtypes, "views.pt": views, "nested.pt": nested,
        "tensor.pt": torch.randn(4, 5).t(),
    }


def big_endian_copy(src, dst):
    """The checkpoint `src` (no complex tensors) as a big-endian machine's torch.save would
    write it: a byteorder record "big" and every storage's elements byte-swapped. Each
    storage's item size comes from its persistent id, read by a pickle reader that makes
    nothing but that."""
    import pickle

    itemsizes = {}

    class Finder(pickle.Unpickler):
        def find_class(self, module, name):
            if module == "torch._utils":
                return lambda *args: None
            if module == "torch" and name.endswith("Storage"):
                return getattr(torch, name)
            return super().find_class(module, name)

        def persistent_load(self, pid):
            itemsizes[pid[2]] = pid[1]().element_size()

    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        names = zin.namelist()
        prefix = names[0].split("/")[0] + "/"
        Finder(io.BytesIO(zin.read(prefix + "data.pkl"))).load()
        for name in names:
            if name == prefix + "byteorder":
                continue  # torch 2 writes "little": the copy says "big" once, below
            data = zin.read(name)
            key = name[len(prefix + "data/"):] if name.startswith(prefix + "data/") else None
            if key is not None and itemsizes[key] > 1:
                data = np.frombuffer(data, dtype=f"<u{itemsizes[key]}").byteswap().tobytes()
            zout.writestr(name, data)
        zout.writestr(prefix + "byteorder", "big")


def check_file(tslice, path, obj, r, expressions, failures):
    big_endian = path.endswith("big_endian.pt")
    expected = tensors_of(obj)
    listed = run(tslice, "--list", "--json", path)
    if listed.returncode != 0:
        failures.append(("list", f"{path}: exit {listed.returncode}: {listed.stderr.decode()}"))
        return
    got = json.loads(listed.stdout)
    want = [{"name": name, "dtype": oracle(t, big_endian)[1], "shape": list(t.shape)} for name, t in expected]
    if got != want:
        failures.append(("list", f"{path}: listed {got}\n    torch: {want}"))
        return
    for _ in range(expressions):
        name, tensor = r.choice(expected)
        array, dtype = oracle(tensor, big_endian)
        expr = random_expr(r, array.shape)
        try:
            # a 0-d result is a numpy scalar, of native byte order: made an array of the type again
            want_array = np.asarray(array[eval(f"np.s_[{expr}]")], dtype=array.dtype)  # noqa: S307 (our own text)
        except IndexError:
            continue
        out = path + (".out.safetensors" if dtype == "BF16" else ".out.npy")
        done = run(tslice, path, "-k", name, expr, "-o", out)
        where = f"tslice {path} -k {name} '{expr}'"
        if done.returncode != 0:
            failures.append(("slice", f"{where}: exit {done.returncode}: {done.stderr.decode()}"))
            continue
        if dtype == "BF16":
            with open(out, "rb") as f:
                raw = f.read()
            n = int.from_bytes(raw[:8], "little")
            header = json.loads(raw[8:8 + n])
            info = next(v for k, v in header.items() if k != "__metadata__")
            got_array = np.frombuffer(raw[8 + n:], dtype="<u2").reshape(info["shape"])
            same = info["dtype"] == "BF16" and got_array.shape == want_array.shape and np.array_equal(got_array, want_array)
        else:
            got_array = np.load(out)
            same = (got_array.dtype == want_array.dtype and got_array.shape == want_array.shape
                    and got_array.tobytes() == np.ascontiguousarray(want_array).tobytes())
        if not same:
            failures.append(("values", f"{where}: got {got_array!r}\n    numpy of torch: {want_array!r}"))
        os.remove(out)


def refusals(tslice, directory, failures):
    """Files tslice must refuse (exit 1, one line) or read without running anything."""
    marker = os.path.join(directory, "pwned")

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    evil = os.path.join(directory, "evil.pt")
    torch.save({"evil": Evil(), "w": torch.ones(2)}, evil)
    listed = run(tslice, "--list", evil)
    chosen = run(tslice, evil, "-k", "evil")
    if listed.returncode != 0 or listed.stdout.decode().split() != ["w", "<f4", "(2,)"]:
        failures.append(("evil", f"--list of a pickle calling os.system: exit {listed.returncode}, "
                                 f"{listed.stdout.decode()!r} {listed.stderr.decode()!r}"))
    if chosen.returncode != 2:
        failures.append(("evil", f"-k evil (an opaque object, not listed): exit {chosen.returncode}"))
    if os.path.exists(marker):
        failures.append(("evil", "the pickle's os.system ran: " + marker + " exists"))

    legacy = os.path.join(directory, "legacy.pt")
    torch.save({"w": torch.ones(2)}, legacy, _use_new_zipfile_serialization=False)
    looped = []
    looped.append(looped)
    shared = [torch.ones(1)]
    for _ in range(40):
        shared = [shared, shared]
    torch.jit.save(torch.jit.script(nn.Linear(2, 3)), os.path.join(directory, "script.pt"))
    cases = {"legacy.pt": b"legacy", "script.pt": b"TorchScript", "loop.pt": b"nest deeper", "shared.pt": b"shared over and over",
             "truncated.pt": b"", "offset.pt": b"reaches past its storage"}
    torch.save(looped, os.path.join(directory, "loop.pt"))
    torch.save(shared, os.path.join(directory, "shared.pt"))
    whole = os.path.join(directory, "whole.pt")
    torch.save({"w": torch.arange(100.0)}, whole)
    with open(whole, "rb") as f:
        raw = f.read()
    with open(os.path.join(directory, "truncated.pt"), "wb") as f:
        f.write(raw[: len(raw) // 2])
    # The storage offset (a BININT1 of 0 before the size tuple) made 200 elements of 100.
    with zipfile.ZipFile(whole) as zin, zipfile.ZipFile(os.path.join(directory, "offset.pt"), "w") as zout:
        for name in zin.namelist():
            data = zin.read(name)
            if name.endswith("data.pkl"):
                at = data.index(b"cpu")
                at = data.index(b"K\x00", at)
                data = data[:at] + b"K\xc8" + data[at + 2:]
            zout.writestr(name, data)
    for name, message in cases.items():
        done = run(tslice, "--list", os.path.join(directory, name))
        err = done.stderr.decode()
        if done.returncode != 1 or err.count("\n") != 1 or message.decode() not in err:
            failures.append(("refusal", f"{name}: exit {done.returncode}, {err!r} (expected exit 1 saying {message!r})"))


def main():
    tslice, cases, seeds = harness.tslice_cases_seed_args(__doc__, 40, FIXED_SEED)
    tally = harness.Tally()
    failures_by_kind = harness.FailuresByKind()
    with tempfile.TemporaryDirectory() as directory:
        files = checkpoints()
        for name, obj in files.items():
            torch.save(obj, os.path.join(directory, name))
        # The opcodes of later protocols (FRAME, MEMOIZE, STACK_GLOBAL, ...), as
        # torch.save(pickle_protocol=N) writes them.
        for protocol in (4, 5):
            name = f"views_protocol{protocol}.pt"
            torch.save(files["views.pt"], os.path.join(directory, name), pickle_protocol=protocol)
            files[name] = files["views.pt"]
        big = os.path.join(directory, "big_endian.pt")
        big_endian_copy(os.path.join(directory, "views.pt"), big)
        files["big_endian.pt"] = torch.load(os.path.join(directory, "views.pt"))
        for seed in seeds:
            r = random.Random(seed)
            for name, obj in files.items():
                failures = []
                check_file(tslice, os.path.join(directory, name), obj, r, cases, failures)
                failures_by_kind.add(failures)
                tally.count(failures)
        failures = []
        refusals(tslice, directory, failures)
        failures_by_kind.add(failures)
        tally.count(failures)
    failures_by_kind.report(5)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
