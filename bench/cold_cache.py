"""The cold-cache part of scripts/bench.sh: whole runs of build/tslice on the large float32
input after it is dropped from the page cache (posix_fadvise(POSIX_FADV_DONTNEED), which needs
no root), output to /dev/shm so that only reading counts, against

  - cat FILE > /dev/null, cold: what reading the whole file costs on this device;
  - for a slice that reads part of the file, a process that preads just those bytes in order;
  - for the gather of random rows, a process that preads the rows it touches, sorted by offset;
  - numpy's fair peer for a big file: np.load(IN, mmap_mode='r')[EXPR], saved.

Each case runs in rounds, one run of its floor and one of tslice in each (and, for the slices
that read the whole file, one of `dd` copying the file to where tslice writes: the cost of
reading it and writing as many bytes; and one of `dd` writing the result's number of bytes
from memory there: the cost of the writing alone; both shown and not judged), each run
prepared by dropping the input and removing the output. The slower of reading alone (the
floor) and writing alone is what a copy that overlaps the two perfectly would take; tslice's
time over it is shown too (not judged): where writing alone takes longer than reading, as it
can on a VM whose host supplies fresh memory slowly, no copy reaches the floor. A "cold" read
on a VM may come from its host's cache, and its speed then swings by several times within an
hour; a floor measured once at the start would judge later runs by another machine. So the ratio judged is the median of the rounds'
ratios, each of two runs made within seconds of each other. numpy's mapping is timed after,
in hyperfine -N runs; the peak resident memory is that of one cold tslice run. Every output
is compared with numpy's.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from whole_process import MiB, Tally, compare_outputs, hyperfine, hyperfine_times, peak_rss_mib, remove

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

def paired_cold(commands, rounds):
    """The wall times of `commands` (pairs of a command and the command that prepares each of
    its runs), in `rounds` rounds of one run of each, one after the other: a list per command,
    in round order."""
    times = [[] for _ in commands]
    for _ in range(rounds):
        for i, (command, prepare) in enumerate(commands):
            times[i] += hyperfine_times(command, 1, 0, prepare=prepare)
    return times


WHOLE_READS = ["[1:-1]", "[::-1]", "[:, :, ::-1]", "[::-1, ::-1, ::-1]"]
PARTIAL_STEP = 4  # [::4]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", required=True, help="the output of tslice_bench list")
    parser.add_argument("--tslice", required=True)
    parser.add_argument("--peak-rss", required=True)
    parser.add_argument("--python", default="/usr/bin/python3")
    parser.add_argument("--runs", type=int, default=5,
                        help="rounds of the paired cold runs, and numpy's runs")
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
    print(f"\ncold page cache ({size / MiB:.0f} MiB input dropped before every run; output to {shm}; "
          f"{args.runs} rounds of one floor run and one tslice run each; medians)"
          + ("\nquick mode: small files; the numbers mean little and a MISS does not fail" if args.quick else ""))
    print(f"{'case':<22} | {'tslice ms':>9} {'floor ms':>9} {'copy ms':>8} {'write ms':>8} {'numpy mmap ms':>13} | "
          f"{'tslice/floor':<17} {'tslice/copy':>11} {'tslice/slower':>13} {'numpy/tslice':>12} | "
          f"{'tslice RSS MiB':>14} | output")
    # (the input, tslice's arguments after it, numpy's index, the floor's command, the seconds to
    # take off each of its times, the floor's name)
    cases = [(source, [expr], expr, ["cat", source], 0.0, "cat") for expr in WHOLE_READS]
    partial = f"[::{PARTIAL_STEP}]"
    import numpy as np
    array = np.load(source, mmap_mode="r")
    reader = [args.python, "-S", "-c", READ_SELECTED_ROWS, source] + [
        str(x) for x in (array.offset, array.strides[0], array.shape[0], PARTIAL_STEP)]
    # The interpreter's start (a few ms) is not reading: it is taken off.
    python_start = hyperfine([args.python, "-S", "-c", "pass"], 10, 1)
    cases.append((source, [partial], partial, reader, python_start, "the selected rows read in order"))
    # The gather of random rows: the floor reads the rows it touches, each once, in file order.
    offsets = os.path.join(shm, f"tslice-cold-{os.getpid()}-offsets.txt")
    for job in (j for j in jobs if j[1].endswith(" rows") and " take " in j[1]):
        _, label, gathered, tslice_args, numpy_index = job[:5]
        rows = np.load(gathered, mmap_mode="r")
        indices = eval(numpy_index[1:-1], {"np": np})  # "[np.load(...)]": the index array
        with open(offsets, "w") as f:
            f.writelines(f"{rows.offset + int(i) * rows.strides[0]}\n" for i in np.unique(indices))
        reader = [args.python, "-S", "-c", READ_LISTED_ROWS, gathered, offsets, str(rows.strides[0])]
        cases.append((gathered, json.loads(tslice_args), numpy_index, reader, python_start,
                      "the rows it touches, sorted"))
    out_copy = os.path.join(shm, f"tslice-cold-{os.getpid()}-copy")
    out_write = os.path.join(shm, f"tslice-cold-{os.getpid()}-write")
    for input, tslice_args, expr, floor, floor_offset, floor_name in cases:
        tslice = [args.tslice, input] + tslice_args + ["-o", out, "-q"]
        commands = [(floor, drop(input=input)), (tslice, drop(out, input=input))]
        whole = floor_name == "cat"
        if whole:
            commands.append((["dd", f"if={input}", f"of={out_copy}", "bs=1M", "status=none"],
                             drop(out_copy, input=input)))
            result_bytes = eval("array" + expr, {"array": array}).nbytes  # whole reads: of `source`
            commands.append((["dd", "if=/dev/zero", f"of={out_write}", "bs=1M", f"count={result_bytes}",
                              "iflag=count_bytes", "status=none"], drop(out_write, input=input)))
        times = paired_cold(commands, args.runs)
        remove(out_copy, out_write)
        floors = [t - floor_offset for t in times[0]]
        t_floor, t_tslice = statistics.median(floors), statistics.median(times[1])
        ratio = statistics.median(t / f for t, f in zip(times[1], floors))
        copy_ms = f"{statistics.median(times[2]) * 1e3:>8.0f}" if whole else f"{'':>8}"
        copy_ratio = (f"{statistics.median(t / c for t, c in zip(times[1], times[2])):>11.2f}" if whole
                      else f"{'':>11}")
        write_ms = f"{statistics.median(times[3]) * 1e3:>8.0f}" if whole else f"{'':>8}"
        slower_ratio = (f"{statistics.median(t / max(f, w) for t, f, w in zip(times[1], floors, times[3])):>13.2f}"
                        if whole else f"{'':>13}")
        subprocess.run(drop(out, input=input), check=True)
        rss = peak_rss_mib(args.peak_rss, tslice)  # cold too; its output is compared below
        t_numpy = hyperfine([args.python, "-c", NUMPY_MMAP, input, expr, out_numpy], args.runs, 0,
                            prepare=drop(out_numpy, input=input))
        output, same = compare_outputs(args.python, out, out_numpy)
        failures += not same
        remove(out, out_numpy)
        gather = floor_name.startswith("the rows it touches")
        label = "gather rows" if gather else expr
        print(f"{label:<22} | {t_tslice * 1e3:>9.0f} {t_floor * 1e3:>9.0f} {copy_ms} {write_ms} {t_numpy * 1e3:>13.0f} | "
              f"{tally.check(ratio, '<=', 1.3 if gather else 1.15):<17} {copy_ratio} {slower_ratio} "
              f"{t_numpy / t_tslice:>12.2f} | "
              f"{rss:>14.1f} | {output} (floor: {floor_name})")
        sys.stdout.flush()
    remove(offsets)
    print(tally.summary("cold-cache", args.quick, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
