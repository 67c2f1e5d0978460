"""The cold-cache part of scripts/bench.sh: whole runs of build/tslice on the large float32
input after it is dropped from the page cache (posix_fadvise(POSIX_FADV_DONTNEED), which needs
no root), output to /dev/shm so that only reading counts, against

  - cat FILE > /dev/null, cold: what reading the whole file costs on this device;
  - for a slice that reads part of the file, a process that preads just those bytes in order;
  - for the gather of random rows, a process that preads the rows it touches, sorted by offset;
  - numpy's fair peer for a big file: np.load(IN, mmap_mode='r')[EXPR], saved.

Medians of hyperfine -N runs, each prepared by dropping the input (and removing the output);
the peak resident memory of one cold tslice run. Every output is compared with numpy's.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

from whole_process import MiB, Tally, compare_outputs, hyperfine, peak_rss_mib, remove

# Drops argv[1] from the page cache and removes the files after it.
DROP = """
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
os.close(fd)
for path in sys.argv[2:]:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
"""

NUMPY_MMAP = """
import sys, numpy as np
a = np.load(sys.argv[1], mmap_mode="r")
with open(sys.argv[3], "wb") as out:  # a file object: np.save would add ".npy" to a name
    np.save(out, eval("a" + sys.argv[2]))
"""

# Reads rows of ROW bytes from OFFSET, every STEP-th of COUNT, in order, 16 MiB at a time at
# most: what [::STEP] of the first axis selects (run with -S, no numpy, for a short start).
READ_SELECTED_ROWS = """
import os, sys
offset, row, count, step = (int(x) for x in sys.argv[2:6])
fd = os.open(sys.argv[1], os.O_RDONLY)
for i in range(0, count, step):
    begin = offset + i * row
    for at in range(begin, begin + row, 16 << 20):
        os.pread(fd, min(16 << 20, begin + row - at), at)
"""

# Reads ROW bytes at each offset listed (one a line) in the file argv[2], in that order.
READ_LISTED_ROWS = """
import os, sys
row = int(sys.argv[3])
fd = os.open(sys.argv[1], os.O_RDONLY)
with open(sys.argv[2]) as offsets:
    for line in offsets:
        os.pread(fd, row, int(line))
"""

WHOLE_READS = ["[1:-1]", "[::-1]", "[:, :, ::-1]", "[::-1, ::-1, ::-1]"]
PARTIAL_STEP = 4  # [::4]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", required=True, help="the output of tslice_bench list")
    parser.add_argument("--tslice", required=True)
    parser.add_argument("--peak-rss", required=True)
    parser.add_argument("--python", default="/usr/bin/python3")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()

    with open(args.jobs) as f:
        jobs = [line.rstrip("\n").split("\t") for line in f if line.startswith("case\t")]
    source = jobs[0][2]
    size = os.path.getsize(source)
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
    out = os.path.join(shm, f"tslice-cold-{os.getpid()}.npy")
    out_numpy = os.path.join(shm, f"tslice-cold-{os.getpid()}-numpy.npy")
    drop = lambda *paths, input=source: [args.python, "-c", DROP, input, *paths]  # noqa: E731

    tally = Tally()
    failures = 0
    t_cat = hyperfine(["cat", source], args.runs, 0, prepare=drop())
    print(f"\ncold page cache ({size / MiB:.0f} MiB input dropped before every run; output to {shm}; "
          f"medians of {args.runs}): cat FILE > /dev/null {t_cat * 1e3:.0f} ms"
          + ("\nquick mode: small files; the numbers mean little and a MISS does not fail" if args.quick else ""))
    print(f"{'case':<22} | {'tslice ms':>9} {'floor ms':>9} {'numpy mmap ms':>13} | {'tslice/floor':<17} "
          f"{'numpy/tslice':>12} | {'tslice RSS MiB':>14} | output")
    # (the input, tslice's arguments after it, numpy's index, its floor time, the floor's name)
    cases = [(source, [expr], expr, t_cat, "cat") for expr in WHOLE_READS]
    partial = f"[::{PARTIAL_STEP}]"
    import numpy as np
    array = np.load(source, mmap_mode="r")
    reader = [args.python, "-S", "-c", READ_SELECTED_ROWS, source] + [
        str(x) for x in (array.offset, array.strides[0], array.shape[0], PARTIAL_STEP)]
    # The interpreter's start (a few ms) is not reading: it is taken off.
    python_start = hyperfine([args.python, "-S", "-c", "pass"], 10, 1)
    t_rows = hyperfine(reader, args.runs, 0, prepare=drop()) - python_start
    cases.append((source, [partial], partial, t_rows, "the selected rows read in order"))
    # The gather of random rows: the floor reads the rows it touches, each once, in file order.
    offsets = os.path.join(shm, f"tslice-cold-{os.getpid()}-offsets.txt")
    for job in (j for j in jobs if j[1].endswith(" rows") and " take " in j[1]):
        _, label, gathered, tslice_args, numpy_index = job[:5]
        rows = np.load(gathered, mmap_mode="r")
        indices = eval(numpy_index[1:-1], {"np": np})  # "[np.load(...)]": the index array
        with open(offsets, "w") as f:
            f.writelines(f"{rows.offset + int(i) * rows.strides[0]}\n" for i in np.unique(indices))
        reader = [args.python, "-S", "-c", READ_LISTED_ROWS, gathered, offsets, str(rows.strides[0])]
        t_touched = hyperfine(reader, args.runs, 0, prepare=drop(input=gathered)) - python_start
        cases.append((gathered, json.loads(tslice_args), numpy_index, t_touched, "the rows it touches, sorted"))
    for input, tslice_args, expr, t_floor, floor_name in cases:
        tslice = [args.tslice, input] + tslice_args + ["-o", out, "-q"]
        t_tslice = hyperfine(tslice, args.runs, 0, prepare=drop(out, input=input))
        subprocess.run(drop(out, input=input), check=True)
        rss = peak_rss_mib(args.peak_rss, tslice)  # cold too; its output is compared below
        t_numpy = hyperfine([args.python, "-c", NUMPY_MMAP, input, expr, out_numpy], args.runs, 0,
                            prepare=drop(out_numpy, input=input))
        output, same = compare_outputs(args.python, out, out_numpy)
        failures += not same
        remove(out, out_numpy)
        gather = floor_name.startswith("the rows it touches")
        label = "gather rows" if gather else expr
        print(f"{label:<22} | {t_tslice * 1e3:>9.0f} {t_floor * 1e3:>9.0f} {t_numpy * 1e3:>13.0f} | "
              f"{tally.check(t_tslice / t_floor, '<=', 1.3 if gather else 1.15):<17} {t_numpy / t_tslice:>12.2f} | "
              f"{rss:>14.1f} | {output} (floor: {floor_name})")
        sys.stdout.flush()
    remove(offsets)
    print(tally.summary("cold-cache", args.quick, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
