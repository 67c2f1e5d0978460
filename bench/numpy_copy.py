"""numpy's side of the in-process table (run by tslice_bench, one process per case).

Loads the input (into memory, as np.load does), preallocates the result, and times
np.copyto(out, a[EXPR]) for a slice, or np.take(a, idx, axis, out=out, mode="clip") for a
gather (numpy's one-copy gather into a preallocated array: a[idx] would first build a new
array; mode="clip" because mode="raise" with out= copies through a buffer; the indices are in
range, so the result is the same). Prints one JSON line: the median time in seconds, the
result's shape, and the sum of every `sample_stride`-th byte of the result, which
tslice_bench compares with its reference.
"""
import argparse
import json
import statistics
import time

import numpy as np


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--file", required=True)
    parser.add_argument("--expr")
    parser.add_argument("--indices")
    parser.add_argument("--axis", type=int, default=0)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--sample-stride", type=int, default=4093)
    args = parser.parse_args()

    a = np.load(args.file)
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

    out.fill(0)  # fault the pages in
    copy()  # warm up
    times = []
    for _ in range(args.reps):
        start = time.perf_counter()
        copy()
        times.append(time.perf_counter() - start)
    flat = out.reshape(-1).view(np.uint8)
    print(json.dumps({
        "median": statistics.median(times),
        "shape": list(out.shape),
        "sample_sum": int(flat[::args.sample_stride].sum(dtype=np.uint64)),
        "method": method,
    }))


if __name__ == "__main__":
    main()
