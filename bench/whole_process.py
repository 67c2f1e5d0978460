"""The whole-process half of scripts/bench.sh: whole runs of build/tslice, timed by hyperfine
(-N: no shell; warm page cache; output to a file in the bench directory), against

  - the I/O floor: tslice_io_floor maps the input and write()s as many bytes as tslice's output
    file has, straight from the mapping (what any tool must at least do); and the same bytes
    read with pread() into a buffer and written from there (tslice_io_floor --pread), the
    faster plain way on the benchmark machine, shown beside it;
  - numpy's one-liner: python3 -c "import numpy as np; np.save(OUT, np.load(IN)[EXPR])".

Also: a 1 KiB .npy sliced to a file (start-up cost), --shape on the 1 GiB file, the peak
resident memory (tslice_peak_rss: ru_maxrss of the child) of every run, and the containers:
the 1 GiB input as an np.savez member and a safetensors tensor, deflated, and --list of a
multi-GiB checkpoint. tslice's output file
must equal numpy's byte for byte, or this exits 1; so does any command that fails.
The jobs come from `tslice_bench list` (a TSV file, see bench/bench_copy.cpp).
"""
import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile

MiB = 1 << 20


class Tally:
    def __init__(self):
        self.passed = 0
        self.missed = 0

    def check(self, value, op, bound, applies=True, fmt="{:.2f}", unit=""):
        text = fmt.format(value) + unit
        if not applies:
            return text
        ok = value <= bound if op == "<=" else value >= bound
        if ok:
            self.passed += 1
        else:
            self.missed += 1
        return f"{text} {op}{bound:g} {'PASS' if ok else 'MISS'}"

    def summary(self, section, quick, failures):
        """The section's closing line: its targets met and missed, and outputs that differ."""
        return (f"{section} targets: {self.passed} PASS, {self.missed} MISS"
                + (" (quick mode: not judged)" if quick else "")
                + ("" if not failures else f"; {failures} outputs DIFFER from numpy's"))


def hyperfine(command, runs, warmup, prepare=None):
    """The median wall time in seconds of `command` (a list), by hyperfine -N. `runs` is a
    number, or (min, max): hyperfine then runs for about 3 seconds within those bounds."""
    return statistics.median(hyperfine_times(command, runs, warmup, prepare))


def hyperfine_times(command, runs, warmup, prepare=None):
    """Every run's wall time in seconds, as hyperfine() measures them."""
    with tempfile.NamedTemporaryFile(suffix=".json") as export:
        counts = ["--min-runs", str(runs[0]), "--max-runs", str(runs[1])] if isinstance(runs, tuple) \
            else ["--runs", str(runs)]
        args = ["hyperfine", "-N", "--style", "none", "--warmup", str(warmup)] + counts + [
                "--export-json", export.name]
        if prepare:
            args += ["--prepare", shlex.join(prepare)]
        args.append(shlex.join(command))
        done = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            sys.exit(f"whole_process: hyperfine failed for {shlex.join(command)}:\n{done.stderr}")
        with open(export.name) as f:
            return json.load(f)["results"][0]["times"]


def alternating_medians(commands, rounds, runs, warmup, settle=False):
    """The median wall time of each of `commands` (pairs of a command and the file it writes),
    measured in `rounds` alternating rounds of `runs` runs each, all rounds' times pooled: on a
    shared machine the load drifts over minutes, and one command measured wholly before the
    other would take all of one drift. `settle`: every run starts on a settled disk, the
    previous run's writes synced and the blocks it freed given back (half a second)."""
    times = [[] for _ in commands]
    for _ in range(rounds):
        for i, (command, out) in enumerate(commands):
            prepare = ["rm", "-f", out] if not settle else \
                ["sh", "-c", f"rm -f {shlex.quote(out)} && sync && sleep 0.5"]
            times[i] += hyperfine_times(command, runs, warmup, prepare=prepare)
            remove(out)
    return [statistics.median(t) for t in times]


def peak_rss_mib(peak_rss, command):
    """Peak resident memory of one run of `command`, in MiB."""
    with tempfile.NamedTemporaryFile(suffix=".rss") as result:
        done = subprocess.run([peak_rss, result.name] + command, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            sys.exit(f"whole_process: {shlex.join(command)} failed:\n{done.stderr}")
        with open(result.name) as f:
            return int(f.read()) / 1024


def same_file(a, b):
    if os.path.getsize(a) != os.path.getsize(b):
        return False
    with open(a, "rb") as fa, open(b, "rb") as fb:
        while True:
            x = fa.read(16 * MiB)
            y = fb.read(16 * MiB)
            if x != y:
                return False
            if not x:
                return True


def compare_outputs(python, ours, theirs):
    """How tslice's output file compares with numpy's: the same bytes, or (numpy writes some
    results in Fortran order, e.g. a[:, idx]) the same dtype, shape and values."""
    if same_file(ours, theirs):
        return "= numpy", True
    code = ("import sys, numpy as np; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); "
            "sys.exit(0 if a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b) else 1)")
    if subprocess.run([python, "-c", code, ours, theirs]).returncode == 0:
        return "= numpy's values (numpy: other layout)", True
    return "DIFFERS from numpy", False


def recache(path):
    """Drops `path` from the page cache and reads it back in order, so that files timed one
    after another are cached alike: how long ago and in what pieces a file's pages entered
    the cache changes mapped reads of it by up to 3x on this kind of machine, more than any
    difference between the formats. Read in order, the kernel's readahead caches a file in
    large folios; pages asked for with MADV_WILLNEED or posix_fadvise (as tslice's cold
    reads do) are cached one 4 KiB page each, and mapped reads of the file are then slower
    until it leaves the cache: f4 [..., 5] took 145-185 ms after such a read, 8-20 ms after
    cat or a sequential pread (Linux 6.18, ext4). Large folios need free memory in large
    blocks: read right after the in-process part, f4 came out in folios too small for a fault
    to map two pages 128 KiB apart (the folio probe's test) at every one of 16 places."""
    drop(path)
    fd = os.open(path, os.O_RDONLY)
    try:
        while os.read(fd, 16 * MiB):
            pass
    finally:
        os.close(fd)


def drop(*paths):
    """Drops `paths` from the page cache."""
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def remove(*paths):
    for path in paths:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


# What a numpy user writes for the same slices (argv: the file, the expression, the output):
# np.load of the archive's member, and for safetensors (whose own package Debian lacks) the
# header read by hand and the tensor mapped with np.memmap.
NPZ_ANCHOR = """
import sys, numpy as np
a = eval("np.load(sys.argv[1])['x']" + sys.argv[2])
with open(sys.argv[3], "wb") as out:  # a file object: np.save would add ".npy" to a name
    np.save(out, a)
"""
SAFETENSORS_ANCHOR = """
import json, struct, sys, numpy as np
with open(sys.argv[1], "rb") as f:
    (n,) = struct.unpack("<Q", f.read(8))
    info = json.loads(f.read(n))["x"]
begin, end = info["data_offsets"]
m = np.memmap(sys.argv[1], dtype="<f4", mode="r", offset=8 + n + begin, shape=tuple(info["shape"]))
with open(sys.argv[3], "wb") as out:
    np.save(out, eval("m" + sys.argv[2]))
"""


def containers(args, jobs, tally):
    """The first case's input (the large float32 .npy) as the stored member of np.savez, as a
    safetensors tensor and deflated by np.savez_compressed, made once beside it: slices of
    the first two within 1.1x of the .npy's (each file cached alike first), the deflated one in
    bounded memory, and --list and --shape of a multi-GiB checkpoint (sparse: only its header
    is written) adding at most 2 ms to the same commands on a 1 KiB .npy. Returns how many
    outputs differ from the .npy's."""
    import struct

    import numpy as np
    case = next(j for j in jobs if j["kind"] == "case")
    base = os.path.splitext(case["input"])[0]
    array = np.load(case["input"], mmap_mode="r")
    stored, tensors, deflated = base + ".npz", base + ".safetensors", base + "_compressed.npz"
    if not os.path.exists(stored):
        np.savez(stored + ".tmp.npz", x=array)
        os.rename(stored + ".tmp.npz", stored)
    if not os.path.exists(tensors):
        header = json.dumps({"x": {"dtype": "F32", "shape": list(array.shape),
                                   "data_offsets": [0, array.nbytes]}}).encode()
        header += b" " * (-len(header) % 8)
        with open(tensors + ".tmp", "wb") as f:
            f.write(struct.pack("<Q", len(header)) + header)
            array.tofile(f)
        os.rename(tensors + ".tmp", tensors)
    if not os.path.exists(deflated):
        np.savez_compressed(deflated + ".tmp.npz", x=array)
        os.rename(deflated + ".tmp.npz", deflated)
    checkpoint = os.path.join(os.path.dirname(case["input"]), "checkpoint_400_tensors.safetensors")
    if not os.path.exists(checkpoint):
        entries, offset = {}, 0
        for i in range(400):
            size = (64 << 20) if not args.quick else (1 << 20)
            entries[f"model.layers.{i}.weight"] = {"dtype": "BF16", "shape": [size // 2048, 1024],
                                                   "data_offsets": [offset, offset + size]}
            offset += size
        header = json.dumps(entries).encode()
        header += b" " * (-len(header) % 8)
        with open(checkpoint, "wb") as f:
            f.write(struct.pack("<Q", len(header)) + header)
            f.truncate(8 + len(header) + offset)

    failures = 0
    out = os.path.join(args.dir, "out_container.npy")
    reference = os.path.join(args.dir, "out_reference.npy")
    runs = args.runs or 7
    print(f"\ncontainers: {case['input_bytes'] / MiB:.0f} MiB of float32 as .npy, np.savez member, safetensors "
          f"tensor (hyperfine medians, -o /dev/null; each output also written to a file and compared; numpy: "
          f"np.load(npz)['x'][EXPR], and the safetensors header read by hand with np.memmap)")
    for expr in ("[:, ::-1, :]", "[:, ::3, 1::4]"):
        # Timed into /dev/null, and before anything is written: 1 GiB going to disk in the
        # background (the kernel's write-back) slows whatever runs meanwhile by 20% or more,
        # which would swamp any difference between the formats.
        command = lambda path, to=os.devnull: [args.tslice, path, expr, "-o", to, "-q"]  # noqa: E731
        # Three alternating rounds, every run of a file pooled: the load of a shared machine
        # drifts over a minute more than the formats differ.
        os.sync()
        pooled = [[], [], []]
        for _ in range(3):
            for k, path in enumerate((case["input"], stored, tensors)):
                recache(path)
                pooled[k] += hyperfine_times(command(path), runs, args.warmup)
        times = [statistics.median(t) for t in pooled]
        subprocess.run(command(case["input"], reference), check=True)
        cells = []
        for path, anchor, t in ((stored, NPZ_ANCHOR, times[1]), (tensors, SAFETENSORS_ANCHOR, times[2])):
            subprocess.run(command(path, out), check=True)
            same = same_file(out, reference)
            failures += not same
            t_numpy = hyperfine([args.python, "-c", anchor, path, expr, os.devnull], 3, 1)
            cells.append(f"{t * 1e3:.1f} ms ({tally.check(t / times[0], '<=', 1.1)}){'' if same else ' DIFFERS'}, "
                         f"numpy {t_numpy * 1e3:.0f} ms")
        print(f"  {expr:<16} .npy {times[0] * 1e3:.1f} ms; .npz member {cells[0]}; safetensors {cells[1]}")
    os.sync()
    rss = peak_rss_mib(args.peak_rss, [args.tslice, deflated, "[:, ::-1, :]", "-o", out, "-q"])
    subprocess.run([args.tslice, case["input"], "[:, ::-1, :]", "-o", reference, "-q"], check=True)
    same = same_file(out, reference)
    failures += not same
    print(f"  deflated member (np.savez_compressed) [:, ::-1, :]: peak RSS "
          f"{tally.check(rss, '<=', 128, fmt='{:.1f}', unit=' MiB')}{'' if same else ' DIFFERS'}")
    # Starting any process takes milliseconds on some machines (a VM's exec and page faults),
    # so the target is judged on what the checkpoint adds to the same command on a 1 KiB .npy,
    # measured in alternating rounds; the whole times are printed beside it.
    small = next(j for j in jobs if j["kind"] == "small")["input"]
    scratch = os.path.join(args.dir, "out_list_scratch")
    first_tensor = "model.layers.0.weight"
    commands = [[args.tslice, small, "--list"], [args.tslice, checkpoint, "--list"],
                [args.tslice, small, "--shape"], [args.tslice, checkpoint, "--key", first_tensor, "--shape"],
                ["true"]]
    t_small_list, t_list, t_small_shape, t_shape, t_true = alternating_medians(
        [(command, scratch) for command in commands], 3, (args.runs or 10) * 10, 5)
    size = f"{os.path.getsize(checkpoint) / 2**30:.1f} GiB checkpoint of 400 tensors"
    print(f"  --list of a {size}: {t_list * 1e3:.2f} ms, "
          f"{tally.check((t_list - t_small_list) * 1e3, '<=', 2, unit=' ms')} over --list of a 1 KiB .npy "
          f"({t_small_list * 1e3:.2f} ms)")
    print(f"  --shape --key of one tensor of it: {t_shape * 1e3:.2f} ms, "
          f"{tally.check((t_shape - t_small_shape) * 1e3, '<=', 2, unit=' ms')} over --shape of a 1 KiB .npy "
          f"({t_small_shape * 1e3:.2f} ms); `true` takes {t_true * 1e3:.2f} ms here")
    remove(out, reference)
    return failures


def update_checkpoint(args, jobs, tally):
    """--update of one 4 MiB tensor inside a 1 GiB safetensors checkpoint (256 float32 tensors
    of 4 MiB; quick: 64 KiB each), written over the checkpoint itself, against `cp` of the
    checkpoint to a new file: both write the whole file anew, and tslice copies the other
    255 tensors' bytes without parsing them. Judged: tslice within 1.2x of cp. Returns 1 if
    the updated file does not hold the new tensor and the old others, else 0."""
    import struct

    import numpy as np
    case = next(j for j in jobs if j["kind"] == "case")
    tensor_bytes = (4 << 20) if not args.quick else (64 << 10)
    count = 256
    shape = [tensor_bytes // 4096, 1024]
    source = os.path.join(os.path.dirname(case["input"]), f"checkpoint_{count}x{tensor_bytes >> 10}KiB.safetensors")
    if not os.path.exists(source):
        entries = {"__metadata__": {"format": "pt"}}
        for i in range(count):
            entries[f"model.layers.{i}.weight"] = {"dtype": "F32", "shape": shape,
                                                   "data_offsets": [i * tensor_bytes, (i + 1) * tensor_bytes]}
        header = json.dumps(entries).encode()
        header += b" " * (-len(header) % 8)
        with open(source + ".tmp", "wb") as f:
            f.write(struct.pack("<Q", len(header)) + header)
            for i in range(count):  # real bytes: a sparse file would let both copies skip its holes
                f.write(np.full(tensor_bytes // 4, i, dtype="<f4").tobytes())
        os.rename(source + ".tmp", source)
    target = os.path.join(args.dir, "checkpoint_updated.safetensors")
    copied = os.path.join(args.dir, "checkpoint_cp.safetensors")
    new_tensor = os.path.join(args.dir, "new_tensor.npy")
    np.save(new_tensor, np.full(shape, -1, dtype="<f4"))
    shutil.copyfile(source, target)
    name = f"model.layers.{count // 2}.weight"
    update = [args.tslice, new_tensor, "-o", target, "--update", "--as", name, "-q"]
    os.sync()
    # cp to a new file (removed before each run, untimed), and cp over an existing copy: tslice
    # replaces a file too, and on ext4 replacing one costs more than writing a new one (the
    # rename over it starts the new file's write-back, and the old file's cache is freed).
    # Every run (but --quick's, of 16 MiB) starts on a settled disk: neither cp's write-back
    # nor the freeing of the file tslice replaced (left to a process that outlives it, which
    # waits on the disk's discards where the file system is mounted with `discard`) falls into
    # the next run's time.
    kept = os.path.join(args.dir, "no_such_file")
    t_update, t_cp, t_cp_over = alternating_medians(
        [(update, kept), (["cp", target, copied], copied), (["cp", target, target + ".over"], kept)],
        3, args.runs or 5, 1, settle=not args.quick)
    with open(target, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    ok = header.get("__metadata__") == {"format": "pt"} and len(header) == count + 1
    for i in range(count):
        begin, end = header[f"model.layers.{i}.weight"]["data_offsets"]
        want = -1 if i == count // 2 else i
        ok = ok and np.array_equal(np.frombuffer(data[8 + n + begin:8 + n + end], dtype="<f4"),
                                   np.full(tensor_bytes // 4, want, dtype="<f4"))
    del data
    size = f"{os.path.getsize(source) / 2**30:.2f} GiB" if not args.quick else f"{os.path.getsize(source) >> 20} MiB"
    print(f"  --update of a {tensor_bytes >> 10} KiB tensor in a {size} safetensors checkpoint (over itself): "
          f"{t_update * 1e3:.1f} ms; cp of the file {t_cp * 1e3:.1f} ms, {tally.check(t_update / t_cp, '<=', 1.2)}; "
          f"cp over an existing copy {t_cp_over * 1e3:.1f} ms, {t_update / t_cp_over:.2f}x"
          f"{'' if ok else ' DIFFERS'}")
    remove(target, copied, target + ".over", new_tensor)
    return 0 if ok else 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", required=True, help="the output of tslice_bench list")
    parser.add_argument("--dir", required=True, help="where the outputs go")
    parser.add_argument("--tslice", required=True)
    parser.add_argument("--floor", required=True)
    parser.add_argument("--peak-rss", required=True)
    parser.add_argument("--python", default="/usr/bin/python3")
    parser.add_argument("--runs", type=int, help="runs per command (default: 5 to 11, numpy 3 to 11, "
                        "as many as fit in about 3 seconds)")
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()

    jobs = []
    with open(args.jobs) as f:
        for line in f:
            kind, label, source, tslice_args, numpy_index, result, file_bytes, input_bytes = line.rstrip("\n").split("\t")
            jobs.append(dict(kind=kind, label=label, input=source, args=json.loads(tslice_args),
                             numpy_index=numpy_index, result=int(result), file_bytes=int(file_bytes),
                             input_bytes=int(input_bytes)))

    out_tslice = os.path.join(args.dir, "out_tslice.npy")
    out_floor = os.path.join(args.dir, "out_floor.npy")
    out_pread = os.path.join(args.dir, "out_pread_floor.npy")
    out_numpy = os.path.join(args.dir, "out_numpy.npy")

    def numpy_command(job, out, mmap=False):
        load = f"np.load({job['input']!r}" + (", mmap_mode='r')" if mmap else ")")
        code = f"import numpy as np; np.save({out!r}, {load}{job['numpy_index']})"
        return [args.python, "-c", code]

    runs = args.runs or (3, 5)
    rounds = 3
    numpy_runs = args.runs or (3, 11)
    tally = Tally()
    failures = 0
    print(f"\nwhole process (hyperfine -N, warm page cache, output to a file in {args.dir}; "
          f"medians; tslice and the floor in {rounds} alternating rounds of {args.runs or '3-5'} runs, numpy "
          f"{args.runs or '3-11'} runs; {args.warmup} warm-up each)"
          + ("\nquick mode: small files; the numbers mean little and a MISS does not fail" if args.quick else ""))
    print("  floor: tslice_io_floor maps the input and write()s the bytes of tslice's output file from the "
          "mapping; pread: the same bytes read with pread() into a 1 MiB buffer and written from there "
          "(not judged); numpy: python3 -c \"np.save(OUT, np.load(IN)[EXPR])\"; mmap: the same with "
          "np.load(IN, mmap_mode='r'); RSS: peak resident memory")
    print("  targets: tslice/floor <= 1.15 where the result is at least half the input, <= 2 for the row "
          "gather; RSS <= a quarter of a whole-input result, <= 128 MiB for the gathers; tslice never "
          "slower than either numpy (numpy/tslice >= 1)")
    # Every input cached the same way right before its cases, whatever read it last (the
    # in-process part, an earlier case): what its pages were cached as decides mapped reads by
    # 10x. Cached all at once at the start, they did not stay: the bench's inputs (36 GiB with
    # the checkpoint) exceed this machine's memory, and by the row gather's cases its input was
    # 55% cached. The other inputs leave the cache first, so that the one read has room.
    inputs = list(dict.fromkeys(j["input"] for j in jobs if j["kind"] == "case"))
    print("  inputs: each read into the page cache in order, the others dropped, before its cases")
    header = (f"{'case':<36} {'result MiB':>10} | {'tslice ms':>9} {'floor ms':>9} {'pread ms':>9} {'numpy ms':>9} "
              f"{'mmap ms':>9} | {'tslice/floor':<17} {'tslice/pread':<12} {'numpy/floor':<11} {'mmap/floor':<10} {'numpy/tslice':<15} "
              f"{'mmap/tslice':<15} | {'tslice RSS MiB':<20} {'numpy RSS MiB':>13} {'mmap RSS MiB':>12} | output")
    print(header)
    sys.stdout.flush()
    cached = None
    for job in (j for j in jobs if j["kind"] == "case"):
        if job["input"] != cached:
            drop(*(path for path in inputs if path != job["input"]))
            recache(job["input"])
            cached = job["input"]
        tslice = [args.tslice, job["input"]] + job["args"] + ["-o", out_tslice]
        floor = [args.floor, job["input"], out_floor, str(job["file_bytes"])]
        pread_floor = [args.floor, "--pread", job["input"], out_pread, str(job["file_bytes"])]
        numpy = numpy_command(job, out_numpy)
        # One file at a time stays dirty in the page cache, so writeback does not start mid-run.
        t_floor, t_pread, t_tslice = alternating_medians(
            [(floor, out_floor), (pread_floor, out_pread), (tslice, out_tslice)], rounds, runs, args.warmup)
        rss_tslice = peak_rss_mib(args.peak_rss, tslice)
        t_numpy = hyperfine(numpy, numpy_runs, args.warmup, prepare=["rm", "-f", out_numpy])
        rss_numpy = peak_rss_mib(args.peak_rss, numpy)
        output, same = compare_outputs(args.python, out_tslice, out_numpy)
        failures += not same
        remove(out_numpy)
        numpy_mmap = numpy_command(job, out_numpy, mmap=True)
        t_mmap = hyperfine(numpy_mmap, numpy_runs, args.warmup, prepare=["rm", "-f", out_numpy])
        rss_mmap = peak_rss_mib(args.peak_rss, numpy_mmap)
        output_mmap, same = compare_outputs(args.python, out_tslice, out_numpy)
        failures += not same
        if output_mmap != output:
            output += f" (mmap: {output_mmap})"
        remove(out_tslice, out_numpy)
        # The floor target is judged where the result is at least half the input (the floor then
        # reads most of what tslice must read; for [..., 5] it reads 1 MiB where tslice must
        # fault in every page of the file) and for the row gather (2x: the floor writes its
        # bytes from one run of the mapping, tslice reads 100,000 scattered rows; not for
        # the gather of short rows, "take N rows of 64 B", which reads a line where the floor
        # reads a row); the RSS target where the result is the whole input, and for every gather.
        gather = " take " in job["label"]
        row_gather = gather and job["label"].endswith(" rows")
        large_result = job["result"] >= 0.5 * job["input_bytes"]
        whole_result = job["result"] >= 0.99 * job["input_bytes"]
        floor_bound = 2 if row_gather else 1.15
        rss_bound = 128 if gather else round(job["result"] / 4 / MiB)
        print(f"{job['label']:<36} {job['result'] / MiB:>10.1f} | {t_tslice * 1e3:>9.1f} {t_floor * 1e3:>9.1f} "
              f"{t_pread * 1e3:>9.1f} {t_numpy * 1e3:>9.1f} {t_mmap * 1e3:>9.1f} | "
              f"{tally.check(t_tslice / t_floor, '<=', floor_bound, large_result or row_gather):<17} "
              f"{t_tslice / t_pread:<12.2f} "
              f"{t_numpy / t_floor:<11.2f} {t_mmap / t_floor:<10.2f} "
              f"{tally.check(t_numpy / t_tslice, '>=', 1):<15} {tally.check(t_mmap / t_tslice, '>=', 1):<15} | "
              f"{tally.check(rss_tslice, '<=', rss_bound, whole_result or gather, '{:.1f}'):<20} "
              f"{rss_numpy:>13.1f} {rss_mmap:>12.1f} | {output}")
        sys.stdout.flush()

    for job in (j for j in jobs if j["kind"] == "small"):
        out = os.path.join(args.dir, "out_small.npy")
        tslice = [args.tslice, job["input"]] + job["args"] + ["-o", out]
        t_tslice = hyperfine(tslice, args.runs * 10 if args.runs else 100, 3)
        t_numpy = hyperfine(numpy_command(job, os.path.join(args.dir, "out_small_numpy.npy")), numpy_runs, 1)
        output, same = compare_outputs(args.python, out, os.path.join(args.dir, "out_small_numpy.npy"))
        failures += not same
        remove(out, os.path.join(args.dir, "out_small_numpy.npy"))
        print(f"1 KiB .npy ({job['label']} -o FILE): tslice {tally.check(t_tslice * 1e3, '<=', 3, unit=' ms')}; "
              f"numpy's one-liner {t_numpy * 1e3:.1f} ms; output {output}")

    baseline = peak_rss_mib(args.peak_rss, ["true"])
    for job in (j for j in jobs if j["kind"] == "shape"):
        tslice = [args.tslice, job["input"]] + job["args"]
        t_shape = hyperfine(tslice, args.runs * 10 if args.runs else 100, 5)
        rss = peak_rss_mib(args.peak_rss, tslice)
        print(f"--shape on the {job['input_bytes'] / MiB:.0f} MiB file ({job['label']}): "
              f"{tally.check(t_shape * 1e3, '<=', 2, unit=' ms')}; "
              f"peak RSS {tally.check(rss, '<=', 8, fmt='{:.1f}', unit=' MiB')} "
              f"(`true` under the same wrapper: {baseline:.1f} MiB)")

    failures += containers(args, jobs, tally)
    failures += update_checkpoint(args, jobs, tally)

    print(tally.summary("whole-process", args.quick, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
