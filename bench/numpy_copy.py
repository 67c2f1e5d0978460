"""numpy's side of the in-process table (run by tslice_bench, one process per case).

Loads the input (into memory, as np.load does), preallocates the result, and times
np.copyto(out, a[EXPR]) for a slice, or np.take(a, idx, axis, out=out, mode="clip") for a
gather (numpy's one-copy gather into a preallocated array: a[idx] would first build a new
array; mode="clip" because mode="raise" with out= copies through a buffer; the indices are in
range, so the result is the same). Prints one JSON line: the median time in seconds, the
result's shape, and the sum of every `sample_stride`-th byte of the result, which
tslice_bench compares with its reference.

--serve: the copies are timed when asked, so that tslice_bench can alternate them with its
own in the same rounds (the machine drifts between minutes): after the set-up the script
prints "ready", then times one copy (and one memmove) for each line it reads, printing the
seconds as a JSON line, and at the end of its input prints the JSON line above.
"""
import argparse
import json
import statistics
import sys
import time

import numpy as np


def huge_pages_mib():
    """The process's anonymous memory in transparent huge pages, in MiB (None if unknown)."""
    try:
        with open("/proc/self/smaps_rollup") as f:
            for line in f:
                if line.startswith("AnonHugePages:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--file", required=True)
    parser.add_argument("--expr")
    parser.add_argument("--indices")
    parser.add_argument("--axis", type=int, default=0)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--sample-stride", type=int, default=4093)
    parser.add_argument("--serve", action="store_true")
    args = parser.parse_args()

    a = np.load(args.file)
    plain_memmove = None
    if args.indices is not None:
        idx = np.load(args.indices)
        shape = list(a.shape)
        shape[args.axis] = idx.shape[0]
        out = np.empty(shape, dtype=a.dtype)
        method = "np.take(out=)"

        def copy():
            np.take(a, idx, axis=args.axis, out=out, mode="clip")
    else:
        index = compile("a" + args.expr, "<expr>", "eval")
        names = {"a": a, "np": np}
        view = eval(index, names)  # a[EXPR] is a view: no copy
        out = np.empty(view.shape, dtype=a.dtype)  # C order, as tslice writes
        method = "np.copyto"

        def copy():
            np.copyto(out, eval(index, names))

        if view.flags.c_contiguous:
            # A contiguous slice is one memmove for numpy too: timed beside np.copyto in this
            # process, it tells numpy's loop from this process's memory (huge pages, the
            # node it sits on), which tslice_bench's own memcpy cannot.
            import ctypes

            def plain_memmove():
                ctypes.memmove(out.ctypes.data, view.ctypes.data, out.nbytes)

    out.fill(0)  # fault the pages in
    copy()  # warm up
    times, memmove_times = [], []

    def one_round():
        start = time.perf_counter()
        copy()
        times.append(time.perf_counter() - start)
        if plain_memmove is not None:
            start = time.perf_counter()
            plain_memmove()
            memmove_times.append(time.perf_counter() - start)

    if args.serve:
        print("ready", flush=True)
        for _ in sys.stdin:
            copy()  # untimed: tslice_bench's copies ran just before (it does the same)
            one_round()
            print(json.dumps({"copy": times[-1], "memmove": memmove_times[-1] if memmove_times else None}),
                  flush=True)
    else:
        for _ in range(args.reps):
            one_round()
    copy()  # the result checked is np.copyto's
    flat = out.reshape(-1).view(np.uint8)
    print(json.dumps({
        "median": statistics.median(times),
        "shape": list(out.shape),
        "sample_sum": int(flat[::args.sample_stride].sum(dtype=np.uint64)),
        "method": method,
        "memmove_median": statistics.median(memmove_times) if memmove_times else None,
        "huge_pages_mib": huge_pages_mib(),
    }))


if __name__ == "__main__":
    main()
