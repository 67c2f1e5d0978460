#!/usr/bin/python3
"""Hostile inputs: files made to break a reader, each against numpy (the oracle) or a rule.

    /usr/bin/python3 tests/cli/test_hostile.py build/tslice [CHECK-NAME-SUBSTRING ...]

  zero_and_huge_axis    a shape with a 0 and axes whose product overflows 63 bits is refused
                        when the header is read (numpy: "array is too big"), in every format
                        and for every action; just below the limit it is an empty array
  json_surrogates       a '<U' holding lone surrogates is written as valid JSON ("\\ud800", as
                        json.dumps writes it), read back by a strict reader as the same str;
                        a code point past U+10FFFF is exit 1 for printing and JSON alike
  op_file_nul           a NUL byte in an --op @FILE spec is exit 2 at its line and column
  stdin_safetensors     a hostile safetensors header on standard input gets the file's checks,
                        limits and speed: depth, 100 MB, bad JSON, all exit 1 with the file's
                        message, under an address-space limit
  text_bounded_memory   JSON and CSV of empty results of every rank and of huge elements stream
                        in bounded memory (an address-space limit, RLIMIT_AS); the text equals
                        json.dumps(a.tolist()) where that is small; a result whose text would
                        pass 2**63 bytes is refused at once
  npz_duplicates        an .npz with a member name twice: the last one, as np.load reads, and
                        --list says so
  npz_crc               a changed byte in a stored or deflated member (file and pipe, header or
                        data) is exit 1 naming the member, as numpy's "Bad CRC-32"
  member_names          names with newlines, quotes and invalid UTF-8 are shown as Python's
                        repr() shows them in --list and in messages; -o out.npz of a name that
                        is not valid UTF-8 is exit 2 naming it, and writes nothing

Under AddressSanitizer (which reserves terabytes of address space) the same cases run without
the address-space limit. The last line printed is `N passed, M failed, K skipped`; the exit status is 1 if
anything failed, else 77 if anything was skipped.
"""

import io
import json
import os
import re
import resource
import struct
import subprocess
import sys
import tempfile
import zipfile
import zlib

import numpy as np

TSLICE = None
SANITIZED = False


class Failure(Exception):
    pass


class Skip(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def run(args, stdin=None, address_space_mib=None, timeout=120):
    """Runs tslice; returns (exit code, stdout bytes, stderr text)."""
    def limit():
        if address_space_mib is not None:
            resource.setrlimit(resource.RLIMIT_AS, (address_space_mib << 20, address_space_mib << 20))
    stdin_file = None
    if isinstance(stdin, str):
        stdin_file = open(stdin, "rb")
    try:
        done = subprocess.run([TSLICE] + args, stdin=stdin_file if stdin_file else subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                              preexec_fn=limit)
    finally:
        if stdin_file:
            stdin_file.close()
    return done.returncode, done.stdout, done.stderr.decode("utf-8", "replace")


def one_error(stderr):
    check(stderr.startswith("tslice: error: ") and stderr.count("\n") == 1, f"not one error line: {stderr!r}")
    return stderr[len("tslice: error: "):-1]


def npy_bytes(descr, shape, body=b""):
    header = ("{'descr': %r, 'fortran_order': False, 'shape': %r, }" % (descr, tuple(shape))).encode("latin1")
    header += b" " * ((-(10 + len(header) + 1)) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + body


def safetensors_bytes(header, data=b""):
    text = header if isinstance(header, bytes) else json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + data


def npz_bytes(members, compression=zipfile.ZIP_STORED):
    """A zip of (name, bytes) pairs, duplicates allowed."""
    out = io.BytesIO()
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of duplicate names
        with zipfile.ZipFile(out, "w", compression) as z:
            for name, data in members:
                z.writestr(name, data)
    return out.getvalue()


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def numpy_error(path):
    try:
        np.load(path)
    except Exception as e:  # noqa: BLE001 (any refusal counts)
        return str(e)
    return None


# --------------------------------------------------------------------------- checks


def check_zero_and_huge_axis(tmp):
    big = 2**63 - 1
    cases = [  # (numpy descr, safetensors dtype, shape, numpy refuses)
        ("<f4", "F32", (0, big), True),
        ("<f4", "F32", (big, 0), True),
        ("<u2", "U16", (0, 2**62), True),
        ("|b1", "BOOL", (2, 0, 2**62), True),
        ("<f8", "F64", (0, 1, 2**60, 0), True),
        ("<f8", "F64", (0, 1, 2**60 - 1, 0), False),
        ("|b1", "BOOL", (big, 0), False),
        ("<u2", "U16", (0, 2**62 - 1), False),
    ]
    for descr, st_dtype, shape, refused in cases:
        npy = write(os.path.join(tmp, "z.npy"), npy_bytes(descr, shape))
        np_error = numpy_error(npy)
        check((np_error is not None) == refused, f"{shape} {descr}: numpy says {np_error!r}")
        st = write(os.path.join(tmp, "z.safetensors"),
                   safetensors_bytes({"t": {"dtype": st_dtype, "shape": list(shape), "data_offsets": [0, 0]}}))
        npz = write(os.path.join(tmp, "z.npz"), npz_bytes([("t.npy", npy_bytes(descr, shape))]))
        npzc = write(os.path.join(tmp, "zc.npz"), npz_bytes([("t.npy", npy_bytes(descr, shape))], zipfile.ZIP_DEFLATED))
        for path in [npy, st, npz, npzc]:
            key = [] if path == npy else ["-k", "t"]
            for action in [[], ["--shape"], ["--list"], ["--explain"], ["--format", "json", "-o", "-"],
                           ["-o", os.path.join(tmp, "out.npy")], ["0:1"]]:
                args = [path] + (key if action != ["--list"] else []) + action
                for stdin in [False, True]:
                    code, out, err = run(["-"] + args[1:] if stdin else args, stdin=path if stdin else None)
                    what = f"{os.path.basename(path)} {shape} {' '.join(action)}{' (stdin)' if stdin else ''}"
                    if refused and action == ["--list"] and path in (npz, npzc):
                        # An .npz's arrays are read one by one, as np.load reads them: the
                        # member is listed with why, and refused only when chosen.
                        check(code == 0 and "is too large" in out.decode() and "(unreadable:" in out.decode(),
                              f"{what}: exit {code}, {out!r} {err!r}")
                    elif refused:
                        check(code == 1 and "is too large" in one_error(err), f"{what}: exit {code}, {err!r}")
                    elif "json" in action and code == 2:  # more text than a file holds: refused alike
                        check("more than 2**63 - 1 bytes" in one_error(err), f"{what}: {err!r}")
                    else:
                        check(code == 0, f"{what}: exit {code}, {err!r}")
                    check(not os.path.exists(os.path.join(tmp, "out.npy")) or not refused, f"{what}: wrote a file")
                    if os.path.exists(os.path.join(tmp, "out.npy")):
                        os.unlink(os.path.join(tmp, "out.npy"))


def check_json_surrogates(tmp):
    cases = [np.array(["\ud800", "a", "\udfff\U0010ffff", "\udbff\udc00"], "<U2"),
             np.array([["\ud800\x00"]], ">U2"),
             np.array([("\udc80", 1)], [("s", "<U1"), ("i", "<i4")])]
    for value in cases:
        path = os.path.join(tmp, "s.npy")
        np.save(path, value)
        code, out, err = run([path, "--format", "json", "-o", "-"])
        check(code == 0, f"{value!r}: exit {code}, {err!r}")
        text = out.decode("utf-8")  # strict: a surrogate's bytes would fail here
        items = value.tolist()
        if value.dtype.names:
            items = [dict(zip(value.dtype.names, row)) for row in items]
        # json.dumps as tslice writes text: other characters as UTF-8, lone surrogates escaped
        # (what ensure_ascii=True writes for them).
        expected = json.dumps(items, separators=(",", ":"), ensure_ascii=False)
        expected = re.sub("[\ud800-\udfff]", lambda m: "\\u%04x" % ord(m.group()), expected) + "\n"
        check(text == expected, f"{value!r}: {text!r}, json.dumps gives {expected!r}")
        check(json.loads(text) == json.loads(json.dumps(items)), f"{value!r}: reads back otherwise")
        code, out, err = run([path])
        check(code == 0 and out.decode("utf-8") == str(value) + "\n", f"print {value!r}: {out!r} {err!r}")
    # Past U+10FFFF: numpy cannot read it; neither printing nor JSON writes anything.
    raw = np.zeros(3, "<u4")
    raw[2] = 0x110000
    path = write(os.path.join(tmp, "big.npy"), npy_bytes("<U1", (3,), raw.tobytes()))
    for action in [[], ["--format", "json", "-o", "-"], ["--format", "json", "-o", os.path.join(tmp, "o.json")]]:
        code, out, err = run([path] + action)
        check(code == 1 and "1114112" in one_error(err) and out == b"", f"0x110000 {action}: {code} {out!r} {err!r}")
    check(not os.path.exists(os.path.join(tmp, "o.json")), "0x110000: a partial JSON file was left")


def check_op_file_nul(tmp):
    npy = os.path.join(tmp, "a.npy")
    np.save(npy, np.arange(5))
    for text, line, column in [(b'{"op":"slice","starts":[1],"ends":[3]}\0garbage{{{', 1, 39),
                               (b'[\n{"op":"slice","starts":[1],\n"ends":[3\0]}]', 3, 10),
                               (b'\0', 1, 1)]:
        spec = write(os.path.join(tmp, "spec.json"), text)
        code, out, err = run([npy, "--op", "@" + spec])
        message = one_error(err) if code == 2 else err
        check(code == 2 and f"line {line}, column {column}: a NUL byte" in message, f"{text!r}: exit {code}, {err!r}")
    spec = write(os.path.join(tmp, "spec.json"), b'{"op":"slice","starts":[1],"ends":[3]}\n')
    code, out, err = run([npy, "--op", "@" + spec, "--format", "json", "-o", "-"])
    check(code == 0 and out == b"[1,2]\n", f"the spec without NUL: {code} {out!r} {err!r}")


def address_space_limit(mib):
    """`mib`, or None (no limit) under AddressSanitizer, which reserves terabytes of address
    space: the sanitizer build runs the same cases for what its checks see."""
    return None if SANITIZED else mib


def json_text(value):
    """json.dumps as tslice writes values: compact, UTF-8, lone surrogates escaped."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return re.sub("[\ud800-\udfff]", lambda m: "\\u%04x" % ord(m.group()), text) + "\n"


def latin1(b):
    return b.decode("latin-1")


def check_text_bounded_memory(tmp):
    # The whole tslice, its mapping of the input included, within this much address space
    # (tslice itself runs in 64 MiB).
    limit = address_space_limit(96)
    # Empty results of every rank up to 32, as json.dumps(a.tolist()) writes them.
    for shape in [(0,), (3, 0), (0, 3), (2, 3, 0, 5), (1, 1, 1, 0), (4, 0, 0), tuple([1] * 31 + [0]), (5, 2, 1, 0)]:
        path = os.path.join(tmp, "e.npy")
        np.save(path, np.zeros(shape, "<f4"))
        code, out, err = run([path, "--format", "json", "-o", "-"], address_space_mib=limit)
        check(code == 0 and out.decode() == json_text(np.zeros(shape).tolist()), f"{shape}: {code} {out[:80]!r} {err!r}")
        if len(shape) <= 2:
            code, out, err = run([path, "--format", "csv", "-o", "-"], address_space_mib=limit)
            check(code == 0 and out == b"", f"{shape} csv: {code} {out[:80]!r} {err!r}")
    # 51 GB of text: its first 64 MiB come out in bounded memory (then the pipe closes).
    path = os.path.join(tmp, "e.npy")
    np.save(path, np.zeros((4294967295, 4, 0), "?"))
    def limited():
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limit << 20, limit << 20))
    proc = subprocess.Popen([TSLICE, path, "--format", "json", "-o", "-"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=limited)
    head = proc.stdout.read(64 << 20)
    proc.stdout.close()
    proc.wait(timeout=60)
    err = proc.stderr.read().decode()
    proc.stderr.close()
    row = "[" + ",".join(["[]"] * 4) + "]"
    expected = "[" + ",".join([row] * ((64 << 20) // len(row) + 2))
    check(head.decode() == expected[:64 << 20], f"(4294967295, 4, 0): the text starts {head[:60]!r}")
    check(err == "", f"(4294967295, 4, 0): {err!r}")
    # Text past 2**63 - 1 bytes is refused at once, whatever the file format.
    for shape in [(2**63 - 1, 0), (2**62, 0), (3, 2**60, 0, 2), (2**31, 2**31, 0)]:
        np_path = write(os.path.join(tmp, "h.npy"), npy_bytes("|b1", shape))
        st_path = write(os.path.join(tmp, "h.safetensors"),
                        safetensors_bytes({"t": {"dtype": "BOOL", "shape": list(shape), "data_offsets": [0, 0]}}))
        for path in [np_path, st_path]:
            code, out, err = run([path, "--format", "json", "-o", "-"], address_space_mib=limit, timeout=20)
            check(code == 2 and "more than 2**63 - 1 bytes" in one_error(err) and out == b"",
                  f"{shape} {path}: {code} {err!r}")
    # A shape just under it streams.
    code, out, err = run([write(os.path.join(tmp, "h.npy"), npy_bytes("|b1", (2**61, 0)))] +
                         ["0:3", "--format", "json", "-o", "-"], address_space_mib=limit)
    check(code == 0 and out == b"[[],[],[]]\n", f"(2**61, 0)[0:3]: {code} {out!r} {err!r}")

    # Huge elements (the file is sparse: its zero pages cost nothing), each kind, as a whole,
    # a slice, a gather and a strided view, against json.dumps. The input's mapping counts
    # towards the limit.
    rng = np.random.default_rng(5)
    item = 3 << 20
    cases = []
    v = np.zeros(3, "V%d" % item)
    raw = v.view(np.uint8).reshape(3, item)
    raw[0, :5] = [1, 2, 34, 92, 200]
    raw[1, item // 2] = 255
    cases.append(("V", v, lambda a: [latin1(x.tobytes()) for x in a]))
    s = np.zeros(3, "S%d" % item)
    sraw = s.view(np.uint8).reshape(3, item)
    sraw[0, 10] = 65
    sraw[1, item - 1] = 66
    sraw[2, : 1 << 20] = rng.integers(0, 256, 1 << 20)
    cases.append(("S", s, lambda a: [latin1(x) for x in a]))
    u = np.zeros(3, "<U%d" % (item // 4))
    uraw = u.view("<u4").reshape(3, -1)
    uraw[0, :4] = [0xD800, 0x41, 0, 0x10FFFF]
    uraw[1, -1] = 0xE9
    uraw[2, : 1 << 18] = rng.integers(0x20, 0x3000, 1 << 18)
    cases.append(("U", u, lambda a: a.tolist()))
    rec = np.zeros(2, [("a", "<f8", (item // 8,)), ("n", ">i2")])
    rec["a"][0, :3] = [1.5, -2, 1e300]
    rec["n"] = [7, -7]
    cases.append(("record", rec, lambda a: [{"a": r[0].tolist(), "n": int(r[1])} for r in a]))
    for name, value, to_list in cases:
        path = os.path.join(tmp, "big.npy")
        np.save(path, value)
        size_mib = os.path.getsize(path) >> 20
        for expr, pick in [("...", slice(None)), ("::-2", slice(None, None, -2)), ("[[1, 0, 1]]", [1, 0, 1])]:
            code, out, err = run([path, expr, "--format", "json", "-o", "-"],
                                 address_space_mib=None if limit is None else limit + size_mib)
            # Parsed, since tslice escapes control characters as \u00XX where json.dumps
            # writes \n; lone surrogates read back alike either way.
            want = json.loads(json_text(to_list(value[pick])))
            check(code == 0 and json.loads(out.decode("utf-8")) == want,
                  f"{name} {expr}: exit {code}, {len(out)} bytes: {err!r}")


def check_stdin_safetensors(tmp):
    # Each header as a file and through a pipe: the same exit and message (after the name),
    # within an address space that holds the header once (a stream's header is read into
    # memory, up to the format's 100 MB).
    limit = address_space_limit(96)
    deep = lambda n: b'{"a":' + b"[" * n  # noqa: E731
    nest = lambda n: b'{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":' + b"[" * n + b"]" * n + b"}}"  # noqa: E731
    good = {"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}
    cases = [  # (name, file bytes, exit)
        ("deep 20M", safetensors_bytes(deep(20_000_000)), 1),
        ("deep 129", safetensors_bytes(deep(129)), 1),
        ("nested 126 in an entry", safetensors_bytes(nest(126), b"\0" * 4), 0),
        ("nested 127 in an entry", safetensors_bytes(nest(127)), 1),
        ("not JSON", safetensors_bytes(b'{"a":{"dtype":"F32",}}'), 1),
        ("bad UTF-8", safetensors_bytes(b'{"\xff":{"dtype":"F32","shape":[0],"data_offsets":[0,0]}}'), 1),
        ("header past 100 MB", struct.pack("<Q", 100_000_001) + b"{" + b" " * 64, 1),
        ("header cut short", struct.pack("<Q", 1000) + b'{"a":{}}', 1),
        ("offsets past the data", safetensors_bytes(good, b"\0" * 4), 1),
        ("valid", safetensors_bytes(good, np.array([1.5, -2], "<f4").tobytes()), 0),
        ("valid, data after", safetensors_bytes(good, np.array([1.5, -2, 7], "<f4").tobytes()), 0),
    ]
    for name, data, exit_code in cases:
        path = write(os.path.join(tmp, "h.safetensors"), data)
        for action in [["--list"], ["-k", "a", "--format", "json", "-o", "-"]]:
            results = []
            for stdin in [False, True]:
                code, out, err = run((["-"] if stdin else [path]) + action, stdin=path if stdin else None,
                                     address_space_mib=limit, timeout=30)
                results.append((code, out, err.split("': ", 1)[-1].split("standard input: ", 1)[-1]))
            check(results[0] == results[1], f"{name} {action}: file {results[0]!r}, pipe {results[1]!r}")
            check(results[0][0] == exit_code, f"{name} {action}: exit {results[0][0]}: {results[0][2]!r}")
    # Without a limit too: a parser without the depth limit took 1.5 GB for this header. The
    # peak resident memory of the child (wait4) counts what it inherited from this process
    # before exec, so it is compared with that of a run on a small file.
    def peak_mib_through_pipe(path):
        cat = subprocess.Popen(["cat", path], stdout=subprocess.PIPE)
        proc = subprocess.Popen([TSLICE, "-", "--list"], stdin=cat.stdout, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        cat.stdout.close()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        cat.wait()
        return proc.returncode, usage.ru_maxrss >> 10
    _, base = peak_mib_through_pipe(write(os.path.join(tmp, "ok.safetensors"), safetensors_bytes(good, b"\0" * 8)))
    code, peak = peak_mib_through_pipe(write(os.path.join(tmp, "h.safetensors"), safetensors_bytes(deep(20_000_000))))
    check(code == 1 and peak < base + 48, f"deep 20M on a pipe, no limit: exit {code}, {peak} MiB resident "
                                          f"({base} MiB for a small file)")
    # A stream is read no further than its header when the header is refused: an endless one
    # ends.
    proc = subprocess.Popen([TSLICE, "-", "--list"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        proc.stdin.write(safetensors_bytes(deep(200)))
        proc.stdin.flush()
        code = proc.wait(timeout=20)
    finally:
        proc.kill()
        for f in (proc.stdin, proc.stdout, proc.stderr):
            f.close()
    check(code == 1, f"an endless stream after a refused header: exit {code}")


def check_npz_crc(tmp):
    # One byte changed in a member's data or header, stored or deflated (for deflated, the
    # CRC-32 in the directory and local header changed instead, so that the stream still
    # inflates): numpy raises "Bad CRC-32"; tslice is exit 1 naming the member, for a file and
    # a pipe, for every action that reads the data; --list (headers only) still lists it.
    a = np.arange(1000, dtype="<i4")
    b = np.linspace(0, 1, 7)
    for compressed in [False, True]:
        path = os.path.join(tmp, "c.npz")
        (np.savez_compressed if compressed else np.savez)(path, a=a, b=b)
        with open(path, "rb") as f:
            good = bytearray(f.read())
        with zipfile.ZipFile(path) as z:
            info = z.getinfo("a.npy")
        local = info.header_offset
        start = local + 30 + struct.unpack("<H", good[local + 26:local + 28])[0] + \
            struct.unpack("<H", good[local + 28:local + 30])[0]
        variants = []
        if compressed:
            bad = bytearray(good)
            crc = struct.pack("<I", info.CRC ^ 0x10)
            bad[local + 14:local + 18] = crc
            at = 0
            while True:
                at = bad.find(b"PK\x01\x02", at)
                if at < 0:
                    break
                if bad[at + 46:at + 46 + 5] == b"a.npy":
                    bad[at + 16:at + 20] = crc
                at += 4
            variants.append(("crc field", bad))
        else:
            for name, offset, byte in [("data", start + info.file_size - 3, 0x55),
                                       ("dtype in the header", start + good[start:].find(b"<i4") + 1, ord("u"))]:
                bad = bytearray(good)
                bad[offset] = byte
                variants.append((name, bad))
        for name, bad in variants:
            bad_path = write(os.path.join(tmp, "bad.npz"), bytes(bad))
            try:
                np.load(bad_path)["a"]
                check(False, f"{name}: numpy read it")
            except zipfile.BadZipFile as e:
                check("CRC" in str(e), f"{name}: numpy says {e}")
            what = f"{'deflated' if compressed else 'stored'} {name}"
            for action in [["-k", "a"], ["-k", "a", "0"], ["-k", "a", "-o", os.path.join(tmp, "o.npy")],
                           ["-k", "a", "--format", "json", "-o", "-"]]:
                for stdin in [False, True]:
                    code, out, err = run((["-"] if stdin else [bad_path]) + action, stdin=bad_path if stdin else None)
                    check(code == 1 and "member 'a.npy' is corrupt: its bytes have CRC-32" in one_error(err)
                          and out == b"", f"{what} {action} stdin={stdin}: {code} {out[:60]!r} {err!r}")
            check(not os.path.exists(os.path.join(tmp, "o.npy")), f"{what}: wrote o.npy")
            code, out, err = run([bad_path, "-k", "b", "--format", "json", "-o", "-"])
            check(code == 0 and json.loads(out) == b.tolist(), f"{what}: b: {code} {err!r}")
            code, out, err = run([bad_path, "--list"])
            check(code == 0 and out.decode().startswith("a "), f"{what}: --list: {code} {out!r} {err!r}")


def json_of(path, key=None, stdin=False):
    code, out, err = run((["-"] if stdin else [path]) + (["-k", key] if key else []) + ["--format", "json", "-o", "-"],
                         stdin=path if stdin else None)
    check(code == 0, f"{path} -k {key}: exit {code}: {err!r}")
    return json.loads(out)


def npy_of(value):
    out = io.BytesIO()
    np.save(out, value)
    return out.getvalue()


def check_npz_duplicates(tmp):
    first, last = np.arange(3), np.arange(5.0)
    cases = [  # (name, members, key, the array np.load gives, --list note)
        ("twice", [("a.npy", npy_of(first)), ("a.npy", npy_of(last))], "a", 2),
        ("three times", [("a.npy", npy_of(first)), ("a.npy", npy_of(first)), ("b.npy", npy_of(first)),
                         ("a.npy", npy_of(last))], "a", 3),
        ("an earlier one broken", [("a.npy", b"not an npy at all"), ("a.npy", npy_of(last))], "a", 2),
    ]
    for name, members, key, count in cases:
        for compression in [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED]:
            path = write(os.path.join(tmp, "d.npz"), npz_bytes(members, compression))
            with np.load(path) as z:
                expected = z[key].tolist()
            check(expected == last.tolist(), f"{name}: numpy gives {expected}")
            for stdin in [False, True]:
                check(json_of(path, key, stdin) == expected, f"{name} stdin={stdin}: not numpy's array")
            code, out, err = run([path, "--list"])
            line = [l for l in out.decode().splitlines() if l.startswith(key + " ")]
            check(code == 0 and len(line) == 1 and line[0].endswith(
                f"(5,)  (the last of {count} members named 'a.npy', which np.load reads)"),
                f"{name} --list: {out!r} {err!r}")
            code, out, err = run([path, "--list", "--json"])
            listed = [a for a in json.loads(out) if a["name"] == key]
            check(listed == [{"name": "a", "dtype": "<f8", "shape": [5], "duplicates": count - 1}], f"{listed}")
    # Members "a" and "a.npy": np.load's key "a" is the member named so, "a.npy" the other.
    path = write(os.path.join(tmp, "d.npz"), npz_bytes([("a.npy", npy_of(first)), ("a", npy_of(last))]))
    with np.load(path) as z:
        for key in ["a", "a.npy"]:
            check(json_of(path, key) == z[key].tolist(), f"'a' and 'a.npy', key {key}: not numpy's")


def raw_name_npz(name_bytes, flag_utf8, value):
    """A stored .npz of one member whose name is `name_bytes` exactly, in both headers."""
    placeholder = "N" * len(name_bytes) + ".npy"
    data = bytearray(npz_bytes([(placeholder, npy_of(value))]))
    raw = placeholder.encode()
    for signature, flag_at, name_at in [(b"PK\x03\x04", 6, 30), (b"PK\x01\x02", 8, 46)]:
        at = data.find(signature)
        check(data[at + name_at:at + name_at + len(raw)] == raw, "the fixture's layout")
        data[at + name_at:at + name_at + len(name_bytes)] = name_bytes
        flags = struct.unpack("<H", data[at + flag_at:at + flag_at + 2])[0]
        flags = flags | 0x800 if flag_utf8 else flags & ~0x800
        data[at + flag_at:at + flag_at + 2] = struct.pack("<H", flags)
    return bytes(data)


def check_member_names(tmp):
    value = np.arange(4, dtype="<i2")
    # Names that need escaping: shown as repr() shows them, on one line, in --list and in errors.
    for name in ["line\nbreak", "tab\there", "it's", "bell\x07", "\u2028sep", "quote\"and'both"]:
        path = os.path.join(tmp, "n.npz")
        np.savez(path, **{name: value, "other": value})
        code, out, err = run([path, "--list"])
        lines = out.decode().splitlines()
        shown = name if name.isprintable() else repr(name)  # printable names as they are
        check(code == 0 and len(lines) == 2 and any(l.startswith(shown + " ") for l in lines),
              f"{name!r} --list: {out!r}")
        check(json.loads(run([path, "--list", "--json"])[1])[0]["name"] in (name, "other"), f"{name!r} --list --json")
        check(json_of(path, name) == value.tolist(), f"{name!r}: -k reads it")
        code, out, err = run([path, "-k", "nope"])
        check(code == 2 and repr(name) in one_error(err), f"{name!r}: the missing key's message: {err!r}")
        # A broken member named so: the message names it as repr() does, on one line.
        with open(path, "rb") as f:
            data = f.read()
        data = data.replace(b"\x93NUMPY", b"\x93NUMPZ", 1)
        bad = write(os.path.join(tmp, "bad.npz"), data)
        # (An .npz's members are read one by one: --list shows it with why; choosing it fails.)
        code, out, err = run([bad, "--list"])
        check(code == 0 and repr(name + ".npy") in out.decode() and "(unreadable:" in out.decode(),
              f"{name!r} broken --list: {out!r} {err!r}")
        code, out, err = run([bad, "-k", name])
        check(code == 1 and repr(name + ".npy") in one_error(err), f"{name!r} broken: {err!r}")
    # A name flagged UTF-8 that is not: numpy (zipfile) cannot open the file; tslice reads it,
    # shows the byte as surrogateescape does, and refuses to write the name into an .npz or
    # a safetensors file (exit 2, nothing written); a .npy is fine.
    path = write(os.path.join(tmp, "u.npz"), raw_name_npz(b"bad\xff", True, value))
    check(numpy_error(path) is not None, "numpy opened a name that is not UTF-8")
    code, out, err = run([path, "--list"])
    check(code == 0 and out.decode().startswith("'bad\\udcff'  <i2"), f"invalid UTF-8 --list: {out!r} {err!r}")
    code, out, err = run([path, "--list", "--json"])
    check(code == 0 and json.loads(out)[0]["name"] == "bad\ufffd", f"invalid UTF-8 --list --json: {out!r}")
    for target in ["o.npz", "o.safetensors"]:
        code, out, err = run([path, "-k", os.fsdecode(b"bad\xff"), "-o", os.path.join(tmp, target)])
        check(code == 2 and "'bad\\udcff' is not valid UTF-8" in one_error(err), f"-o {target}: {code} {err!r}")
        check(not os.path.exists(os.path.join(tmp, target)), f"-o {target}: written")
    code, out, err = run([path, "-o", os.path.join(tmp, "o.npy")])
    check(code == 0 and np.load(os.path.join(tmp, "o.npy")).tolist() == value.tolist(), f"-o o.npy: {err!r}")
    # A NUL ends a member's name in zipfile (np.load knows "a\0b.npy" as "a"): so in tslice.
    path = write(os.path.join(tmp, "z.npz"), raw_name_npz(b"a\0b", True, value))
    with np.load(path) as z:
        check(z.files == ["a"], f"numpy: {z.files}")
    check(json_of(path, "a") == value.tolist(), "a\\0b.npy as 'a'")
    # Without the flag the bytes are code page 437, as zipfile reads them: valid, and written
    # back so that zipfile reads the same name.
    path = write(os.path.join(tmp, "c.npz"), raw_name_npz(b"caf\x82", False, value))
    with zipfile.ZipFile(path) as z:
        name = z.namelist()[0][:-4]
    check(name == "caf\u00e9", f"zipfile reads {name!r}")
    code, out, err = run([path, "-k", name, "-o", os.path.join(tmp, "o.npz")])
    check(code == 0, f"cp437 -o o.npz: {err!r}")
    with np.load(os.path.join(tmp, "o.npz")) as z:
        check(z.files == [name] and z[name].tolist() == value.tolist(), f"cp437 round trip: {z.files}")


CHECKS = [(name[len("check_"):], fn) for name, fn in list(globals().items()) if name.startswith("check_") and name != "check"]


def main():
    global TSLICE, SANITIZED
    TSLICE = os.path.abspath(sys.argv[1])
    with open(TSLICE, "rb") as f:
        SANITIZED = b"__asan_init" in f.read()
    wanted = sys.argv[2:]
    passed = failed = skipped = 0
    for name, fn in CHECKS:
        if wanted and not any(w in name for w in wanted):
            continue
        with tempfile.TemporaryDirectory(prefix="tslice_hostile_") as tmp:
            try:
                fn(tmp)
                passed += 1
                print(f"ok    {name}")
            except Skip as e:
                skipped += 1
                print(f"skip  {name}: {e}")
            except Failure as e:
                failed += 1
                print(f"FAIL  {name}: {e}")
            except Exception as e:  # noqa: BLE001 (a crash of the check is a failure too)
                failed += 1
                print(f"FAIL  {name}: {type(e).__name__}: {e}")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    sys.exit(1 if failed else 77 if skipped else 0)


if __name__ == "__main__":
    main()
