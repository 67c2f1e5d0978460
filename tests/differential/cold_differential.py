#!/usr/bin/python3
"""Differential test: slices that walk a cold input downwards, against numpy.

tslice writes a slice that walks its input downwards (a reversed outer axis) from the last
chunk to the first where the input is not in the page cache and the output's bytes can be
placed (a file it creates, or standard output that is a regular file not opened to append),
so that it reads the file upwards; into a pipe or an appending descriptor it writes in
order. Each case makes an array and a random slice whose outer axis steps backwards, its
result mostly 3-6 MiB (several chunks), and writes it in each of those ways, the input
dropped from the page cache (fsync, then posix_fadvise DONTNEED) before every run: with -o FILE; to standard output
that is a new file; to one that holds bytes before (the result goes after them, and what
the shell writes next goes after the result); to one opened to append; to a pipe. Every
output must hold numpy's bytes.

Whether the input really left the page cache is checked with reads that must not wait
(RWF_NOWAIT). Where it cannot leave (tmpfs keeps its pages), the cases run warm and the
script says the cold runs were skipped: the last line is `N passed, M failed, K skipped`,
the exit status 1 if anything failed, else 77 (ctest's skip) if anything was skipped.

    /usr/bin/python3 tests/differential/cold_differential.py --tslice build/tslice --cases 12
"""

import argparse
import io
import os
import random
import subprocess
import sys
import tempfile
import time

import numpy as np

import harness

DTYPES = ["<f4", "<f8", "|u1", "<i2", "<c16", ">i4"]


def random_case(r):
    """An array's shape and dtype, and a slice (text, index tuple) whose first axis steps back,
    its result 3-6 MiB where the input of at most 24 MiB allows."""
    dtype = np.dtype(r.choice(DTYPES))
    inner = [r.randint(1, 40) for _ in range(r.randint(0, 3))]
    items, index = [], []
    for d in inner:
        kind = r.random()
        if kind < 0.4:
            items.append(":")
            index.append(slice(None))
        elif kind < 0.7:
            lo, hi, st = r.randrange(d), r.randrange(d + 1), r.choice([1, -1, 2, -2])
            items.append(f"{lo}:{hi}:{st}")
            index.append(slice(lo, hi, st))
        else:
            i = r.randrange(d)
            items.append(str(i))
            index.append(i)
    row = dtype.itemsize * int(np.prod(np.empty(inner, dtype=np.uint8)[tuple(index)].shape))
    step = -r.choice([1, 1, 2, 3])
    # The input at most 24 MiB (a result of single elements of long rows is smaller then).
    outer = max(2, min(r.randint(3 << 20, 6 << 20) * -step // max(1, row),
                       (24 << 20) // (dtype.itemsize * int(np.prod(inner)))))
    start = r.choice([None, outer - 1 - r.randrange(max(1, outer // 8))])
    items.insert(0, f"{'' if start is None else start}::{step}")
    index.insert(0, slice(start, None, step))
    return [outer] + inner, dtype, "[" + ", ".join(items) + "]", tuple(index)


def drop(path):
    """Drops `path` from the page cache; returns whether none of it is cached now (a page being
    written back stays, so a few tries)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        size = os.fstat(fd).st_size
        for _ in range(5):
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            if not any(cached(fd, size * place // 8) for place in range(8)):
                return True
            time.sleep(0.01)
        return False
    finally:
        os.close(fd)


def cached(fd, offset):
    """Whether the byte at `offset` is in the page cache: a read that must not wait. Where such
    a read is not supported, it may be: the run counts as warm (skipped), never as cold."""
    try:
        os.preadv(fd, [bytearray(1)], offset, os.RWF_NOWAIT)
        return True
    except BlockingIOError:
        return False
    except OSError:
        return True


def npy_of(data):
    return np.load(io.BytesIO(data), allow_pickle=False)


def run_modes(tslice, inp, expr, directory):
    """Yields (mode, bytes written, whether the input was cold) for each way of writing."""
    out = os.path.join(directory, "out.npy")
    cold = drop(inp)
    subprocess.run([tslice, inp, expr, "-o", out, "-q"], check=True, timeout=120)
    with open(out, "rb") as f:
        yield "-o FILE", f.read(), cold
    for mode, before, appends in (("stdout, a new file", b"", False),
                                  ("stdout, a file holding bytes", b"before", False),
                                  ("stdout, a file opened to append", b"before", True)):
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | (os.O_APPEND if appends else 0), 0o644)
        try:
            os.write(fd, before)
            cold = drop(inp)
            subprocess.run([tslice, inp, expr, "-o", "-", "-q"], stdout=fd, check=True, timeout=120)
            os.write(fd, b"after")
        finally:
            os.close(fd)
        with open(out, "rb") as f:
            data = f.read()
        if not (data.startswith(before) and data.endswith(b"after")):
            yield mode, b"not between the bytes written before and after it", cold
        else:
            yield mode, data[len(before):-len(b"after")], cold
    cold = drop(inp)
    piped = subprocess.run([tslice, inp, expr, "-o", "-", "-q"], stdout=subprocess.PIPE, check=True, timeout=120)
    yield "stdout, a pipe", piped.stdout, cold


def check_case(tslice, r, directory):
    """Returns (failures, cold runs, warm runs) of one case."""
    shape, dtype, expr, index = random_case(r)
    a = np.frombuffer(np.random.default_rng(r.getrandbits(64)).bytes(int(np.prod(shape)) * dtype.itemsize),
                      dtype=dtype).reshape(shape)
    inp = os.path.join(directory, "in.npy")
    np.save(inp, a)
    expected = np.ascontiguousarray(a[index])
    failures, cold_runs, warm_runs = [], 0, 0
    for mode, data, cold in run_modes(tslice, inp, expr, directory):
        cold_runs += cold
        warm_runs += not cold
        try:
            got = npy_of(data)
            same = got.dtype == expected.dtype and got.shape == expected.shape and got.tobytes() == expected.tobytes()
        except Exception as e:  # noqa: BLE001
            same, got = False, e
        if not same:
            failures.append(f"{dtype.str} {tuple(shape)} {expr}, {mode}: expected shape {expected.shape}, got "
                            + (f"shape {got.shape}, dtype {got.dtype}" if isinstance(got, np.ndarray) else repr(got)))
    return failures, cold_runs, warm_runs


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tslice", required=True)
    parser.add_argument("--cases", type=int, default=12)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    tslice = harness.require_tslice(args.tslice)
    seed = args.seed if args.seed is not None else harness.fresh_seed()
    print(f"seed {seed}")
    r = random.Random(seed)
    passed = failed = cold_runs = warm_runs = 0
    # /tmp may be tmpfs, whose pages cannot be dropped: then beside the executable.
    places = [tempfile.gettempdir(), os.path.dirname(tslice)]
    directory = None
    for place in places:
        candidate = tempfile.mkdtemp(prefix="tslice-cold-", dir=place)
        probe = os.path.join(candidate, "probe")
        with open(probe, "wb") as f:
            f.write(os.urandom(1 << 20))
        if drop(probe):
            directory = candidate
            break
        harness.remove_case_dir(candidate)
    if directory is None:
        directory = tempfile.mkdtemp(prefix="tslice-cold-")
    try:
        for _ in range(args.cases):
            failures, cold, warm = check_case(tslice, r, directory)
            cold_runs += cold
            warm_runs += warm
            for failure in failures:
                print("FAIL " + failure)
            if failures:
                failed += 1
            else:
                passed += 1
    finally:
        harness.remove_case_dir(directory)
    skipped = 1 if warm_runs else 0
    if warm_runs:
        print(f"SKIPPED: {warm_runs} of {cold_runs + warm_runs} runs found the input still in the page cache "
              f"(tried {', '.join(places)}), so their backwards writing was not tested")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else (77 if skipped else 0)


if __name__ == "__main__":
    sys.exit(main())
