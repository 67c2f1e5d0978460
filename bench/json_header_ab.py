#!/usr/bin/python3
"""The JSON reading path's A/B: whole runs of tslice_json_header_bench (one header read in a
fresh process) per mode, modes alternated in rounds so that a shared machine's drift falls on
all alike; medians of the pooled runs, and each mode's cost over `map` (the process and the
mapping alone).

  bench/json_header_ab.py BENCH_BINARY FILE.safetensors [--rounds 5] [--runs 40]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

MODES = ("map", "reader", "sax", "dom", "list")


def times(command, runs):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run(["hyperfine", "-N", "--warmup", "3", "--runs", str(runs), "--export-json", out.name,
                        "--style", "none", command], check=True, stdout=subprocess.DEVNULL)
        return json.load(open(out.name))["results"][0]["times"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bench")
    parser.add_argument("file")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    pooled = {mode: [] for mode in MODES}
    for _ in range(args.rounds):
        for mode in MODES:
            pooled[mode] += times(f"{args.bench} {mode} {args.file}", args.runs)
    floor = statistics.median(pooled["map"])
    print(f"{os.path.basename(args.file)}: medians of {args.rounds} x {args.runs} runs, modes alternated; "
          f"load average {os.getloadavg()[0]:.1f}")
    for mode in MODES:
        median = statistics.median(pooled[mode])
        print(f"  {mode:<7} {median * 1e3:6.3f} ms   +{(median - floor) * 1e3:6.3f} ms over map")


if __name__ == "__main__":
    main()
