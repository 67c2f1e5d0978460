#!/usr/bin/env python3
"""The --explain round trip: for random basic expressions, the strided_slice spec and the
ONNX slice spec that `tslice --explain` prints, run through `--op`, give the same bytes as
the expression itself. A quarter of the expressions are chained subscripts ("[1:][0, ::2]"),
whose equivalents are lists of specs, one per subscript.

Usage: explain_roundtrip.py --tslice PATH [--cases N] [--seed N]
Runs a fixed seed and a fresh one (both printed) unless --seed is given. Last line:
"N passed, M failed".
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

import numpy as np

import harness

FIXED_SEED = 424242


def random_bound(rng, dim):
    choice = rng.random()
    if choice < 0.6:
        return rng.randint(-dim - 2, dim + 2)
    if choice < 0.8:
        return rng.choice([2**62, -2**62, 10**20, -10**20, 2**63 - 1, -2**63])
    return rng.randint(-3, 3)


def random_expression(rng, rank, shape):
    """A valid basic expression for an array of this shape, as text."""
    items = []
    axis = 0
    used_ellipsis = False
    while axis < rank or rng.random() < 0.2:
        roll = rng.random()
        if roll < 0.12:
            items.append(rng.choice(["None", "np.newaxis"]))
            continue
        if roll < 0.2 and not used_ellipsis:
            used_ellipsis = True
            items.append("...")
            # the ellipsis takes some axes: leave a random number for the items after it
            axis = rng.randint(axis, rank)
            continue
        if axis >= rank:
            break
        dim = shape[axis]
        if roll < 0.35 and dim > 0:
            items.append(str(rng.randint(-dim, dim - 1)))
        else:
            parts = ["", "", ""]
            if rng.random() < 0.7:
                parts[0] = str(random_bound(rng, dim))
            if rng.random() < 0.7:
                parts[1] = str(random_bound(rng, dim))
            if rng.random() < 0.6:
                step = 0
                while step == 0:
                    step = rng.choice([rng.randint(-4, 4), 2**62, -(2**62)])
                parts[2] = str(step)
            text = parts[0] + ":" + parts[1]
            if parts[2] or rng.random() < 0.3:
                text += ":" + parts[2]
            items.append(text)
        axis += 1
    if not items:
        items.append("...")
    return "[" + ", ".join(items) + "]"


def run(tslice, args):
    return subprocess.run([tslice] + args, capture_output=True, text=True)


def one_case(tslice, directory, case_id, rng):
    rank = rng.randint(0, 5)
    shape = tuple(rng.choice([0, 1, 2, 3, 4, 5]) if rng.random() < 0.1 else rng.randint(1, 5)
                  for _ in range(rank))
    dtype = rng.choice(["<f4", "|u1", ">i8", "<c16"])
    data = np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.int64).astype(dtype).reshape(shape)
    if rng.random() < 0.2:
        data = np.asfortranarray(data)
    source = os.path.join(directory, f"in{case_id}.npy")
    np.save(source, data)
    expr = random_expression(rng, rank, shape)
    while rng.random() < 0.25:
        # Chain another subscript, made for the shape the expression so far gives.
        shaped = run(tslice, [source, expr, "--shape", "--json"])
        if shaped.returncode != 0:
            return [f"case {case_id}: --shape failed for {expr} on {shape}: {shaped.stderr.strip()}"]
        inner = tuple(json.loads(shaped.stdout)["shape"])
        expr += random_expression(rng, len(inner), inner)
    failures = []

    explained = run(tslice, [source, expr, "--explain"])
    if explained.returncode != 0:
        return [f"case {case_id}: --explain failed for {expr} on {shape}: {explained.stderr.strip()}"]
    specs = {}
    for line in explained.stdout.splitlines():
        for label in ("as strided_slice: ", "as ONNX slice: "):
            if line.startswith(label) and line[len(label):].startswith(("{", "[")):
                specs[label.strip(": ")] = line[len(label):]
    if "as strided_slice" not in specs:
        return [f"case {case_id}: no strided_slice equivalent printed for {expr}"]

    expected_path = os.path.join(directory, f"expected{case_id}.npy")
    direct = run(tslice, [source, expr, "-o", expected_path])
    if direct.returncode != 0:
        return [f"case {case_id}: {expr} on {shape} failed: {direct.stderr.strip()}"]
    expected = open(expected_path, "rb").read()
    for label, spec in specs.items():
        out = os.path.join(directory, f"out{case_id}.npy")
        result = run(tslice, [source, "--op", spec, "-o", out])
        if result.returncode != 0:
            failures.append(f"case {case_id}: {label} {spec} for {expr} on {shape} failed: {result.stderr.strip()}")
            continue
        if open(out, "rb").read() != expected:
            got = np.load(out)
            failures.append(f"case {case_id}: {label} {spec} differs from {expr} on {shape} {dtype}: "
                            f"shape {got.shape} vs {np.load(expected_path).shape}")
    return failures


def run_seed(tslice, seed, cases, directory):
    rng = random.Random(seed)
    case_rngs = [random.Random(rng.getrandbits(64)) for _ in range(cases)]
    failures = []
    tally = harness.Tally()
    for result in harness.run_parallel(lambda i: one_case(tslice, directory, f"{seed}_{i}", case_rngs[i]),
                                       range(cases), 4):
        failures.extend(result)
        tally.count(result)
    return failures, tally


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tslice", required=True)
    parser.add_argument("--cases", type=int, default=600)
    parser.add_argument("--seed", type=int)
    args = parser.parse_args()
    seeds = harness.seed_list(FIXED_SEED, None if args.seed is None else [args.seed])
    total = harness.Tally()
    with tempfile.TemporaryDirectory() as directory:
        for seed in seeds:
            failures, tally = run_seed(args.tslice, seed, args.cases // len(seeds), directory)
            for failure in failures[:20]:
                print(f"seed {seed}: {failure}")
            total += tally
    return total.finish()


if __name__ == "__main__":
    sys.exit(main())
