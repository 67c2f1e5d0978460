#!/usr/bin/python3
"""tslice under valgrind's memcheck: a handful of representative runs must be clean.

    /usr/bin/python3 tests/cli/test_valgrind.py build/tslice [RUN-NAME-SUBSTRING ...]

Each run is `valgrind --error-exitcode=99 --leak-check=full
--errors-for-leak-kinds=definite,indirect tslice ...` and must end with tslice's own exit
status (99 rather than valgrind's customary 1, because 1 is also tslice's status for a bad
file). The runs cover printing, writing a result of several chunks with worker threads
(the chunk pipeline), standard input, --shape and --explain, the JSON ops with a gather of a
gather, integer-list indexing, the copy kernel sets valgrind's CPU offers (TSLICE_KERNEL;
memcheck does not emulate AVX-512, so that set is never chosen under it), and an error
of each exit status. The sanitizer build (scripts/test.sh, build-asan) covers the rest with
AddressSanitizer; memcheck adds uninitialised reads, which AddressSanitizer does not see.

The last line printed is `N passed, M failed`.
"""

import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ARANGE = os.path.join(REPO, "data", "arange_2x3x4_f4.npy")
VALGRIND = ["valgrind", "-q", "--error-exitcode=99", "--leak-check=full",
            "--errors-for-leak-kinds=definite,indirect", "--track-origins=yes"]


def runs(tmp):
    """(name, arguments, standard input file or None, expected exit, environment additions)."""
    big = os.path.join(tmp, "big.npy")
    np.save(big, np.arange(5 << 20, dtype="<u2").reshape(5, 1 << 20))  # 10 MiB: several chunks
    structured = os.path.join(tmp, "structured.npy")
    np.save(structured, np.zeros((3, 2), dtype=[("x", "<i4", (2,)), ("y", "S3"), ("z", ">f8")]))
    bad = os.path.join(tmp, "bad.npy")
    with open(bad, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00\x20\x00{'descr': '<f4', 'shape': (3,)}\n")
    out = os.path.join(tmp, "out.npy")
    gathers = ('[{"op": "gather", "indices": [[1, 0], [0, 1]], "axis": 0}, '
               '{"op": "gather", "indices": [3, -1, 9], "axis": -1}, {"op": "slice", "starts": [-1], "ends": [0], '
               '"steps": [-1]}]')
    result = [
        ("print_slice", [ARANGE, "[1:, ..., ::-1]"], None, 0, {}),
        ("print_structured", [structured, "::-1"], None, 0, {}),
        ("write_chunks_threads", [big, "::-1, 1::3", "-o", out, "-t", "3", "-q"], None, 0, {}),
        ("write_contiguous_from_mapping", [big, "1:4", "-o", out, "-t", "2", "-q"], None, 0, {}),
        ("stdin_to_stdout", ["-", "[:, [0, 2], ::-1]", "-o", "-"], ARANGE, 0, {}),
        ("shape_json", [ARANGE, "None, ..., 0", "-s", "--json"], None, 0, {}),
        ("explain", [ARANGE, "1:, ::-2", "--explain", "--op", '{"op": "strided_slice", "begin": [0], "end": [1], '
                     '"shrink_axis_mask": 0, "new_axis_mask": 0}'], None, 0, {}),
        ("ops_gather_of_gather", [ARANGE, "--op", gathers, "-o", out], None, 0, {}),
        ("error_usage", [ARANGE, "[0, 5]"], None, 2, {}),
        ("error_bad_file", [bad, "0"], None, 1, {}),
        ("error_spec", [ARANGE, "--op", '{"op": "slice", "starts": [0', "-o", out], None, 2, {}),
    ]
    # Containers: a deflated member in memory and one through a spool, a stored one mapped, the
    # writers' framing, a bfloat16 tensor printed, standard input spooled, a corrupt member.
    pair = os.path.join(tmp, "pair.npz")
    np.savez_compressed(pair, small=np.arange(12, dtype=">i4").reshape(3, 4),
                        big=np.arange(9 << 20, dtype="<u4").reshape(9, 1 << 20))
    stored = os.path.join(tmp, "stored.npz")
    np.savez(stored, a=np.arange(24, dtype="<f4").reshape(2, 3, 4))
    tensors = os.path.join(REPO, "data", "f32_bf16.safetensors")
    corrupt = os.path.join(tmp, "corrupt.npz")
    with open(pair, "rb") as f:
        data = bytearray(f.read())
    data[len(data) // 3] ^= 0xFF
    with open(corrupt, "wb") as f:
        f.write(data)
    result += [
        ("npz_list_json", [pair, "--list", "--json"], None, 0, {}),
        ("npz_small_to_safetensors", [pair, "-k", "small", "::-1", "-o", os.path.join(tmp, "o.safetensors")], None, 0,
         {}),
        ("npz_big_spooled", [pair, "-k", "big.npy", "::-2, 5::7", "-o", os.path.join(tmp, "o.npz"), "-q"], None, 0, {}),
        ("npz_stored_stdin", ["-", "[:, ::-1]"], stored, 0, {}),
        ("safetensors_bf16_print", [tensors, "-k", "scale"], None, 0, {}),
        ("npz_corrupt", [corrupt, "-k", "big", "0"], None, 1, {}),
    ]
    for kernels in ("scalar", "sse4.2", "avx2"):
        result.append((f"kernels_{kernels}", [big, "::-1, ::-2", "-o", out, "-t", "2", "-q"], None, 0,
                       {"TSLICE_KERNEL": kernels}))
    return result


def main():
    if len(sys.argv) < 2:
        print("usage: test_valgrind.py TSLICE [RUN-NAME-SUBSTRING ...]")
        print("0 passed, 1 failed")
        return 2
    tslice = os.path.abspath(sys.argv[1])
    filters = sys.argv[2:]
    if not shutil.which("valgrind"):
        print("valgrind is not installed (scripts/test.sh installs it)")
        print("0 passed, 1 failed")
        return 1
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="tslice-valgrind-") as tmp:
        for name, args, stdin, want, env in runs(tmp):
            if filters and not any(f in name for f in filters):
                continue
            with open(stdin or os.devnull, "rb") as source:
                res = subprocess.run(VALGRIND + [tslice] + args, stdin=source, capture_output=True, timeout=600,
                                     env={**os.environ, **env})
            err = res.stderr.decode("utf-8", "replace")
            problems = []
            if res.returncode != want:
                problems.append(f"exit {res.returncode}, expected {want}" +
                                (" (valgrind found errors)" if res.returncode == 99 else ""))
            # valgrind's own lines start with ==PID==; tslice's with "tslice: ".
            report = [line for line in err.splitlines() if line.startswith("==")]
            if report:
                problems.append("valgrind reported:\n      " + "\n      ".join(report[:60]))
            # tslice's: nothing for a success (so a kernel set that valgrind's CPU lacks, which
            # tslice reports and replaces, fails the run), an error message otherwise (one
            # line, or three with an expression and its caret).
            own = [line for line in err.splitlines() if not line.startswith("==")]
            if (want == 0 and own) or (want != 0 and (len(own) not in (1, 3) or not own[0].startswith("tslice: error: "))):
                problems.append(f"tslice's stderr: {own!r}")
            if problems:
                failed += 1
                print(f"FAIL {name}: tslice {' '.join(args)}")
                for p in problems:
                    print("    " + p)
            else:
                passed += 1
                print(f"ok   {name}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
