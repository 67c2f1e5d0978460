"""What the differential tests in this directory share: their seeds, running cases on a
thread pool, counting and reporting failures, the last line and the exit status.

Each test keeps its own cases and checks; this module only runs them and tells the result.
The tests import it as `harness`: Python puts the directory of the script it runs first on
sys.path, so this works whatever the working directory is.
"""

import collections
import concurrent.futures
import os
import random
import shutil
import subprocess
import sys
import tempfile

# ------------------------------------------------------------------------------ seeds


def fresh_seed(stop=2**31, start=0):
    """A seed from the system's randomness, new on every run (the tests print it)."""
    return random.SystemRandom().randrange(start, stop)


class SplitSeeds:
    """A seed per case: the fixed seed for the first half of the cases and a fresh one for
    the rest, or `given` (--seed N) for every case.  A case depends only on its seed and its
    number, so `--seed S --only K` replays one."""

    def __init__(self, fixed, given):
        self.fixed = fixed
        self.given = given
        self.fresh = fresh_seed(start=1)

    def announce(self):
        if self.given is not None:
            print(f"seeds: {self.given} for every case", flush=True)
        else:
            print(f"seeds: fixed {self.fixed}, fresh {self.fresh}", flush=True)

    def seed_of(self, index, count):
        """The seed of case `index` of `count`."""
        if self.given is not None:
            return self.given
        return self.fixed if index < count // 2 else self.fresh

    def plan(self, count, only=None):
        """[(seed, index)] of the `count` cases, or of case `only` alone; a lone case outside
        the `count` gets --seed's seed or, without it, the fixed one."""
        if only is None:
            return [(self.seed_of(i, count), i) for i in range(count)]
        if 0 <= only < count:
            return [(self.seed_of(only, count), only)]
        return [(self.given or self.fixed, only)]


def seed_list(fixed, given, fresh_stop=2**31):
    """Seeds that each run a whole set of cases, printed first: `given` (the --seed values)
    or the fixed seed and a fresh one."""
    seeds = list(given) if given else [fixed, fresh_seed(fresh_stop)]
    print("seeds: " + ", ".join(str(s) for s in seeds) + " (replay one with --seed N)", flush=True)
    return seeds


def random_index_expr(r, shape, bound, steps):
    """A random numpy index expression for `shape`, from the random.Random `r`: over a random
    number of leading axes, each a slice (starts and stops within +-`bound`, a step drawn from
    `steps`, "" for none), an integer, a list of integers, or a new axis ("None", sometimes
    before one of the others); "..." alone for a scalar and now and then otherwise."""
    if not shape or r.random() < 0.1:
        return "..."
    items = []
    for dim in shape[: r.randrange(1, len(shape) + 1)]:
        kind = r.random()
        if kind < 0.1:
            items.append("None")
        if kind < 0.25 and dim > 0:
            items.append(str(r.randrange(-dim, dim)))
        elif kind < 0.35 and dim > 0:
            items.append("[" + ", ".join(str(r.randrange(-dim, dim)) for _ in range(r.randrange(1, 4))) + "]")
        else:
            parts = [r.choice(["", str(r.randrange(-bound, bound + 1))]) for _ in range(2)]
            step = r.choice(steps)
            items.append(":".join(parts + ([step] if step else [])))
    return "[" + ", ".join(items) + "]"


def nested(values, shape):
    """C-order `values` as nested lists of `shape` (the value itself for shape ())."""
    if not shape:
        return values[0]
    if shape[0] == 0:
        return []
    step = len(values) // shape[0]
    return [nested(values[k * step:(k + 1) * step], shape[1:]) for k in range(shape[0])]


def case_args(doc, cases, workers, show):
    """The arguments of the tests whose cases a (seed, number) pair replays:
    --tslice PATH --cases N --seed N --only K --workers N --keep DIR --show N. The tslice
    path is checked and --keep's directory made."""
    import argparse

    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tslice", required=True, help="path of the tslice executable")
    ap.add_argument("--cases", type=int, default=cases, help=f"number of random cases (default {cases})")
    ap.add_argument("--seed", type=int, help="use this seed for every case")
    ap.add_argument("--only", type=int, help="run only this case number")
    ap.add_argument("--workers", type=int, default=workers)
    ap.add_argument("--keep", help="copy the inputs of failing cases into this directory")
    ap.add_argument("--show", type=int, default=show, help=f"failures shown in full per kind (default {show})")
    args = ap.parse_args()
    args.tslice = require_tslice(args.tslice)
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    return args


def tslice_cases_seed_args(doc, cases, fixed_seed):
    """The arguments most tests take, --tslice PATH [--cases N] [--seed N]: returns (the
    tslice path, the case count, the seeds to run: --seed's, or `fixed_seed` and a fresh one,
    printed)."""
    import argparse

    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tslice", required=True)
    parser.add_argument("--cases", type=int, default=cases)
    parser.add_argument("--seed", type=int)
    args = parser.parse_args()
    seeds = [args.seed] if args.seed is not None else [fixed_seed, fresh_seed()]
    print("seeds:", ", ".join(map(str, seeds)), flush=True)
    return require_tslice(args.tslice), args.cases, seeds


# ---------------------------------------------------------------------------- running


def require_tslice(path):
    """`path` made absolute; if no file is there, says so, and exits as one failed case."""
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        print(f"no tslice executable at {path}")
        sys.exit(Tally(failed=1).finish())
    return path


def run_parallel(function, jobs, workers):
    """Yields function(job) for every job, in the jobs' order, computed on `workers` threads
    (an exception in one is raised here, when its turn comes)."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(function, jobs)


def run_cases(seeds, cases, check, prefix, describe=None, workers=1):
    """Runs `cases` cases shared among `seeds`: check(seed, index, directory) for each, in a new
    temporary directory (named from `prefix`, removed after), on `workers` threads. A check
    returns None or what is wrong; an exception it raises is a failure too, with its case. The
    first ten failures are printed with their seed and case (and describe(seed, index)), then
    the summary; returns the exit status."""
    tally = Tally()
    for seed in seeds:
        def one(index):
            directory = tempfile.mkdtemp(prefix=prefix)
            try:
                return check(seed, index, directory)
            except Exception as error:  # noqa: BLE001
                return f"{type(error).__name__}: {error}"
            finally:
                shutil.rmtree(directory, ignore_errors=True)

        indices = range(cases // len(seeds))
        results = map(one, indices) if workers == 1 else run_parallel(one, indices, workers)
        for index, problem in zip(indices, results):
            if isinstance(problem, Skipped):
                tally.skipped += 1
                print(f"SKIP seed {seed} case {index}: {problem}", flush=True)
                continue
            tally.count(problem)
            if problem and tally.failed <= 10:
                if describe is None:
                    print(f"FAIL seed {seed} case {index}: {problem}", flush=True)
                else:
                    print(f"FAIL seed {seed} case {index}: {describe(seed, index)}\n    {problem}", flush=True)
    return tally.finish()


def run_guarded(check, describe):
    """check(): a case's list of (kind, detail) failures.  A timeout of tslice or an exception
    of the harness becomes one failure of its own kind, described by describe()."""
    try:
        return check()
    except subprocess.TimeoutExpired as e:
        return [("timeout", f"{describe()}\n    {e}")]
    except Exception as e:  # noqa: BLE001
        return [("harness exception", f"{describe()}\n    {e!r}")]


def remove_case_dir(directory, keep=None):
    """Removes a case's working directory, first copying it into `keep` if that is given
    (--keep DIR, for a failing case)."""
    if keep:
        dst = os.path.join(keep, os.path.basename(directory))
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(directory, dst)
    shutil.rmtree(directory, ignore_errors=True)


# ---------------------------------------------------------------------------- results


class Skipped(str):
    """What a check returns for a case it could not judge, and why: neither passed nor
    failed, counted and shown as skipped."""


class Tally:
    """Cases passed and failed (and skipped, where a check can skip); as text, the summary
    `N passed, M failed` (`, K skipped`)."""

    def __init__(self, passed=0, failed=0):
        self.passed = passed
        self.failed = failed
        self.skipped = 0

    def count(self, failures):
        """Counts one case: failed if `failures` is true (a non-empty list of failures, or True)."""
        if failures:
            self.failed += 1
        else:
            self.passed += 1

    def __iadd__(self, other):
        self.passed += other.passed
        self.failed += other.failed
        self.skipped += other.skipped
        return self

    def __str__(self):
        return f"{self.passed} passed, {self.failed} failed" + (f", {self.skipped} skipped" if self.skipped else "")

    def finish(self):
        """Prints the summary as the last line; returns the exit status, 1 if anything failed."""
        print(self)
        return 1 if self.failed else 0


class FailuresByKind:
    """Failure details grouped by kind, reported a few of each kind."""

    def __init__(self):
        self.details = collections.defaultdict(list)

    def add(self, failures):
        for kind, detail in failures:
            self.details[kind].append(detail)

    def report(self, show):
        for kind, details in sorted(self.details.items()):
            print(f"=== {len(details)} failure(s) of kind: {kind}")
            for det in details[:show]:
                print("FAIL " + det)
            if len(details) > show:
                print(f"... and {len(details) - show} more of this kind")


def print_case_mix(stats, hide_zero=False):
    """The line `case mix: KIND N, ...` of a Counter, in the order of its keys."""
    print("case mix: " + ", ".join(f"{k} {v}" for k, v in sorted(stats.items()) if v or not hide_zero))
