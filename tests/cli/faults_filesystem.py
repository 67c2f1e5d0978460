"""The output fault checks about the file system: permissions (as the user nobody), a
symbolic link another user made, a read-only directory and mount, a full disk, and what a
replaced file keeps. Run by tests/cli/test_faults.py, which describes each check."""

import os
import shutil
import stat
import subprocess

import numpy as np

from faults_common import (ARANGE, EXISTING, Skip, check, expect_error, listing, nobody_setup, run, save,
                           temporaries)


def check_protected_symlinks(tslice, tmp):
    # -o through a link that the user nobody made in a sticky world-writable directory (as an
    # attacker would in /tmp): the kernel refuses to follow it for root (fs.protected_symlinks),
    # and tslice must let it decide, so the file the link names stays as it was. Its owner
    # still writes through it.
    exe, src, prefix = nobody_setup(tslice, tmp)
    if not prefix:
        raise Skip("needs root, to make a link as another user")
    setting = "/proc/sys/fs/protected_symlinks"
    try:
        with open(setting) as f:
            before = f.read().strip()
        if before != "1":
            with open(setting, "w") as f:
                f.write("1")
    except OSError as e:
        raise Skip(f"cannot read or turn on {setting}: {e}")
    try:
        sticky = os.path.join(tmp, "sticky")
        os.mkdir(sticky)
        os.chmod(sticky, 0o1777)
        victim = os.path.join(tmp, "victim.npy")
        with open(victim, "wb") as f:
            f.write(EXISTING)
        os.chmod(victim, 0o666)
        link = os.path.join(sticky, "out.npy")
        made = subprocess.run(prefix + ["ln", "-s", victim, link], capture_output=True)
        check(made.returncode == 0, f"ln -s as nobody: {made.stderr!r}")
        res = subprocess.run([exe, src, "::-1", "-o", link], capture_output=True, timeout=60)
        expect_error(res, "Permission denied")
        with open(victim, "rb") as f:
            check(f.read() == EXISTING, "root wrote through another user's link in a sticky directory")
        check(os.path.islink(link) and sorted(os.listdir(sticky)) == ["out.npy"], "the link was replaced")
        res = subprocess.run(prefix + [exe, src, "::-1", "-o", link], capture_output=True, timeout=60)
        check(res.returncode == 0, f"the link's owner could not write through it: {res.stderr!r}")
        check(np.array_equal(np.load(victim), np.load(ARANGE)[::-1]), "the link's target holds the wrong array")
    finally:
        if before != "1":
            with open(setting, "w") as f:
                f.write(before)


def check_read_only_dir(tslice, tmp):
    exe, src, prefix = nobody_setup(tslice, tmp)
    ro = os.path.join(tmp, "ro")
    os.mkdir(ro)
    with open(os.path.join(ro, "out.npy"), "wb") as f:
        f.write(EXISTING)
    os.chmod(os.path.join(ro, "out.npy"), 0o644)
    os.chmod(ro, 0o555)
    for target in ("out.npy", "new.npy"):
        res = subprocess.run(prefix + [exe, src, "::-1", "-o", os.path.join(ro, target)], capture_output=True,
                             timeout=60)
        expect_error(res, "Permission denied")
        check(listing(ro) == ["out.npy"], f"the read-only directory holds {listing(ro)}")
        with open(os.path.join(ro, "out.npy"), "rb") as f:
            check(f.read() == EXISTING, "the existing file changed")


def in_private_mounts(script, tmp):
    """Runs a shell script in a private mount namespace; Skip if that is not permitted."""
    if not shutil.which("unshare"):
        raise Skip("unshare (util-linux) is missing")
    probe_dir = make_dir(tmp, "probe")
    probe = subprocess.run(["unshare", "-m", "sh", "-c", f"mount -t tmpfs -o size=64k tslice-probe '{probe_dir}'"],
                           capture_output=True)
    if probe.returncode != 0:
        raise Skip("mounting in a private namespace is not permitted here: " +
                   probe.stderr.decode("utf-8", "replace").strip())
    return subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, timeout=120)


def parse_report(res):
    """The KEY=VALUE lines a namespace script printed."""
    report = {}
    for line in res.stdout.decode("utf-8", "replace").splitlines():
        key, sep, value = line.partition("=")
        if sep:
            report[key] = value
    return report


def check_write_fails_on_mount(tmp, target, mount, command, reason, what):
    """Mounts `target` with the shell command `mount` in a private namespace, puts an existing
    out.npy there, runs `command` (tslice's words, writing `-o target/out.npy`) and checks: exit
    1, one line of stderr naming `reason`, no temporary left, the existing file unchanged."""
    with open(os.path.join(tmp, "existing"), "wb") as f:
        f.write(EXISTING)
    script = f"""
        {mount} || exit 99
        cp '{tmp}/existing' '{target}/out.npy' 2>/dev/null || [ -f '{target}/out.npy' ] || exit 99
        {command} -o '{target}/out.npy' 2> '{tmp}/stderr'
        echo "exit=$?"
        echo "listing=$(ls -A '{target}' | tr '\\n' ' ')"
        cmp -s '{target}/out.npy' '{tmp}/existing' && echo same=yes
    """
    res = in_private_mounts(script, tmp)
    report = parse_report(res)
    check(res.returncode != 99 and "exit" in report, f"the namespace script failed: {res.stderr!r}")
    with open(os.path.join(tmp, "stderr"), "rb") as f:
        err = f.read().decode("utf-8", "replace")
    check(report["exit"] == "1", f"exit {report['exit']}, expected 1; stderr {err!r}")
    check(err.startswith("tslice: error: ") and reason in err and err.count("\n") == 1,
          f"stderr should be one line about {what}, got {err!r}")
    check(report["listing"].split() == ["out.npy"], f"the mount holds {report['listing']!r}")
    check(report.get("same") == "yes", "the existing file changed")


def check_read_only_mount(tslice, tmp):
    target = make_dir(tmp, "mnt")
    with open(os.path.join(target, "out.npy"), "wb") as f:  # there before the mount turns read-only
        f.write(EXISTING)
    check_write_fails_on_mount(tmp, target, f"mount --bind '{target}' '{target}' && "
                               f"mount -o remount,bind,ro '{target}'",
                               f"'{tslice}' '{ARANGE}' '::-1'", "Read-only file system", "the read-only file system")


def make_dir(tmp, name):
    path = os.path.join(tmp, name)
    os.mkdir(path)
    return path


def check_disk_full_tmpfs(tslice, tmp):
    src = os.path.join(tmp, "in.npy")
    save(src, np.arange(1 << 20, dtype="<u4"))  # 4 MiB of data, 2 MiB of it in the result
    target = make_dir(tmp, "mnt")
    check_write_fails_on_mount(tmp, target, f"mount -t tmpfs -o size=1m tslice-test '{target}'",
                               f"'{tslice}' '{src}' '::-2' -t 2", "No space left on device", "the full disk")


def check_unwritable_existing_file(tslice, tmp):
    # A file the user could not open for writing is not replaced, even in a directory the user
    # may write: a 0444 file of one's own, and (as root) another user's 0644 file.
    exe, src, prefix = nobody_setup(tslice, tmp)
    cases = [("own_readonly.npy", 0o444, os.geteuid() if not prefix else 65534)]
    if prefix:
        cases.append(("others.npy", 0o644, 0))
    for name, mode, owner in cases:
        out = os.path.join(tmp, name)
        with open(out, "wb") as f:
            f.write(EXISTING)
        os.chown(out, owner, owner)
        os.chmod(out, mode)
        before = os.stat(out)
        res = subprocess.run(prefix + [exe, src, "::-1", "-o", out], capture_output=True, timeout=60)
        expect_error(res, "Permission denied")
        after = os.stat(out)
        check((after.st_ino, after.st_uid, after.st_mode) == (before.st_ino, before.st_uid, before.st_mode),
              f"{name}: the file was replaced")
        with open(out, "rb") as f:
            check(f.read() == EXISTING, f"{name}: the file changed")
        check(temporaries(tmp) == [], f"{name}: a temporary was left behind")


def check_replaced_file_keeps_attributes(tslice, tmp):
    # A replaced file keeps its mode and its extended attributes (ACLs are some).
    out = os.path.join(tmp, "out.npy")
    with open(out, "wb") as f:
        f.write(EXISTING)
    os.chmod(out, 0o640)
    try:
        os.setxattr(out, "user.origin", b"kept")
    except OSError as error:
        raise Skip(f"this file system has no user extended attributes ({error})")
    res = run(tslice, [ARANGE, "::-1", "-o", out])
    check(res.returncode == 0, f"exit {res.returncode}, {res.stderr!r}")
    check(np.array_equal(np.load(out), np.load(ARANGE)[::-1]), "wrong values")
    check(stat.S_IMODE(os.stat(out).st_mode) == 0o640, f"mode {oct(os.stat(out).st_mode)}")
    check(os.getxattr(out, "user.origin") == b"kept", "the extended attribute was lost")
