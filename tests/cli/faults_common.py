"""What the output fault checks share (tests/cli/test_faults.py and faults_filesystem.py):
the inputs, running tslice, the outcome of a check, and running as the user nobody."""

import os
import shutil
import struct
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ARANGE = os.path.join(REPO, "data", "arange_2x3x4_f4.npy")
EXISTING = b"an existing file that must survive every failure\n"


class Skip(Exception):
    pass


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def run(tslice, args, **kwargs):
    kwargs.setdefault("capture_output", True)
    kwargs.setdefault("timeout", 120)
    return subprocess.run([tslice] + args, **kwargs)


# Runs a command and prints its exit code and peak resident memory (KiB). A child's peak
# starts from its parent's resident memory at exec (vfork), so it is measured from this small
# interpreter (no site, no numpy), not from the tests' own process.
PEAK_RSS_RUNNER = """
import os, sys
pid = os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ)
_, status, usage = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)
"""


def peak_rss_mib(command):
    """Runs `command` (output to /dev/null); returns (exit code, stderr, peak resident MiB)."""
    done = subprocess.run([sys.executable, "-S", "-c", PEAK_RSS_RUNNER] + command, capture_output=True, text=True,
                          timeout=600)
    code, kib = (int(x) for x in done.stdout.split())
    return code, done.stderr, kib / 1024


def expect_error(res, fragment, code=1):
    """Exit `code`, nothing on stdout, one line on stderr that holds `fragment`."""
    err = res.stderr.decode("utf-8", "replace")
    check(res.returncode == code, f"exit {res.returncode}, expected {code}; stderr {err!r}")
    check(res.stdout == b"", f"stdout should be empty, got {res.stdout[:200]!r}")
    check(err.startswith("tslice: error: ") and err.count("\n") == 1 and err.endswith("\n"),
          f"stderr should be one 'tslice: error: ' line, got {err!r}")
    check(fragment in err, f"stderr {err!r} does not say {fragment!r}")


def listing(directory):
    return sorted(os.listdir(directory))


def temporaries(directory):
    return [n for n in os.listdir(directory) if ".tslice-" in n]


def save(path, array):
    np.save(path, array)
    return np.load(path)


def big_input(directory, nbytes, row=None):
    """A sparse .npy of `nbytes` uint8 zeros (in rows of `row` bytes, if given): costs no disk
    until read."""
    path = os.path.join(directory, "big.npy")
    shape = f"({nbytes},)" if row is None else f"({nbytes // row}, {row})"
    header = "{'descr': '|u1', 'fortran_order': False, 'shape': %s, }" % shape
    header = header.encode("latin1")
    header += b" " * ((-(10 + len(header) + 1)) % 64) + b"\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header)
        f.truncate(10 + len(header) + nbytes)
    return path


# ------------------------------------------------------------------------------ checks


def as_nobody():
    """preexec settings to run tslice as an unprivileged user, or None when that is not needed."""
    if os.geteuid() != 0:
        return None
    if not shutil.which("setpriv"):
        raise Skip("running as root and setpriv (util-linux) is missing")
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]


def nobody_setup(tslice, tmp):
    """A copy of tslice and of the small input that the user nobody can reach, and the command
    prefix that runs as nobody (empty when not root)."""
    os.chmod(tmp, 0o777)
    exe = os.path.join(tmp, "tslice")
    shutil.copy(tslice, exe)
    os.chmod(exe, 0o755)
    src = os.path.join(tmp, "in.npy")
    shutil.copy(ARANGE, src)
    os.chmod(src, 0o644)
    prefix = as_nobody() or []
    if prefix and subprocess.run(prefix + [exe, "--help"], capture_output=True).returncode != 0:
        raise Skip(f"the user nobody cannot run {exe} (is a parent of {tmp} closed to others?)")
    return exe, src, prefix
