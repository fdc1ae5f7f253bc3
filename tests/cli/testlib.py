"""Shared helpers for the opscope script tests (standard library only).

Environment: OPSCOPE is the binary under test, OPSCOPE_SOURCE_ROOT the repo
root (both set by `meson test`). The real-trace collection is looked up at
../shared/traces relative to the root; tests that need it skip cleanly when
it is absent.
"""
import itertools
import os
import subprocess
import sys

ROOT = os.path.abspath(os.environ.get("OPSCOPE_SOURCE_ROOT") or
                       os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SAMPLES = os.path.join(ROOT, "samples")
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared", "traces"))
EXPECTED = os.path.join(ROOT, "tests", "cli", "expected")
# Set by meson for a b_sanitize build (tests/meson.build).
SANITIZED = os.environ.get("OPSCOPE_TEST_SANITIZED") == "1"

sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))


def opscope():
    path = os.environ.get("OPSCOPE")
    if not path:
        for cand in ("build/opscope", "builddir/opscope"):
            if os.path.exists(os.path.join(ROOT, cand)):
                path = os.path.join(ROOT, cand)
                break
    if not path or not os.access(path, os.X_OK):
        sys.stderr.write("OPSCOPE is not set to an executable opscope binary\n")
        print("0 passed, 1 failed")
        sys.exit(1)
    return path


def sample(name):
    return os.path.join(SAMPLES, name)


def shared(rel):
    """Path of a trace in the collection, or None when it is absent."""
    p = os.path.join(SHARED, rel)
    return p if os.path.exists(p) else None


def shared_traces(res, rels):
    """The paths of the collection's traces rels that exist; each missing one,
    or the whole collection when it is absent, is a skip in res."""
    if not os.path.isdir(SHARED):
        res.skip("shared traces", "%s is absent" % SHARED)
        return []
    found = []
    for rel in rels:
        p = shared(rel)
        if p:
            found.append(p)
        else:
            res.skip("shared/" + rel, "not in the collection")
    return found


# A sweep's runs of opscope keep LeakSanitizer on in one of this many (sweep_env).
LEAK_EVERY = 8
_sweep_runs = itertools.count()


def sweep_env():
    """The environment additions of one run of a sweep: under sanitizers,
    LeakSanitizer off but in one run of LEAK_EVERY. A sweep runs the same code
    hundreds of times over run selections; each leak scan costs about 25 ms
    (libasan's own 5.5 MB of data, page by page), and every other suite checks
    each of its runs."""
    if not SANITIZED or next(_sweep_runs) % LEAK_EVERY == 0:
        return {}
    opts = [o for o in os.environ.get("ASAN_OPTIONS", "").split(":")
            if o and not o.startswith("detect_leaks=")]
    return {"ASAN_OPTIONS": ":".join(opts + ["detect_leaks=0"])}


def sweep(thorough, bundled=False):
    """How much a sweep over a trace tries: "thorough" (every run selection) or
    "normal". Under sanitizers, which check memory while the plain build checks
    every number, less: "normal" for the bundled traces (samples/, tests/data/)
    and "light" for those of ../shared, each loaded at each level with few run
    selections."""
    if SANITIZED:
        return "normal" if bundled else "light"
    return "thorough" if thorough else "normal"


def share(rels, part, parts=2):
    """The items of rels (traces of ../shared) that part of parts takes:
    all of them, but under sanitizers, where suites that read the same traces
    through much the same code (measures and recompute, gpu and launches)
    split them, each trace going through one of each pair. The plain build
    checks every number of every trace in every suite; each sanitized run of
    opscope over a trace of ../shared costs 0.1-1 s."""
    if not SANITIZED:
        return list(rels)
    return [r for i, r in enumerate(rels) if i % parts == part]


def env(**extra):
    e = dict(os.environ)
    e.update({"LC_ALL": "C.UTF-8", "TZ": "UTC", "TERM": "xterm-256color"})
    e.pop("COLUMNS", None)
    e.pop("NO_COLOR", None)
    for k, v in extra.items():
        if v is None:
            e.pop(k, None)
        else:
            e[k] = v
    return e


class Proc:
    """Result of one run: rc (None on timeout), stdout/stderr bytes."""

    def __init__(self, rc, out, err, timed_out=False):
        self.rc, self.out, self.err, self.timed_out = rc, out, err, timed_out

    @property
    def text(self):
        return self.out.decode("utf-8", "replace")

    @property
    def err_lines(self):
        return self.err.decode("utf-8", "replace").splitlines()

    def describe(self):
        if self.timed_out:
            return "timed out"
        if self.rc is not None and self.rc < 0:
            return "killed by signal %d" % -self.rc
        return "exit %s, stderr %r" % (self.rc, self.err.decode("utf-8", "replace")[-600:])


def run(args, stdin=None, timeout=120, cwd=ROOT, **envextra):
    """Run opscope with args in cwd (the repo root, so sample paths are relative)."""
    try:
        p = subprocess.run([opscope()] + list(args), input=stdin, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout, cwd=cwd,
                           env=env(**envextra))
        return Proc(p.returncode, p.stdout, p.stderr)
    except subprocess.TimeoutExpired as e:
        return Proc(None, e.stdout or b"", e.stderr or b"", timed_out=True)


def golden_stdout(res, name, args, update, **envextra):
    """stdout of `opscope args` against tests/cli/expected/NAME.out (update: rewrite it)."""
    p = run(args, **envextra)
    path = os.path.join(EXPECTED, name + ".out")
    if p.rc != 0:
        res.fail(name, p.describe())
        return
    if update:
        with open(path, "wb") as f:
            f.write(p.out)
        res.ok(name + " (written)")
        return
    want = open(path, "rb").read() if os.path.exists(path) else None
    res.check(name, [] if want == p.out else ["stdout differs from %s" % os.path.relpath(path)])


class Results:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0

    def ok(self, name):
        self.passed += 1
        print("PASS " + name, flush=True)

    def fail(self, name, detail=""):
        self.failed += 1
        print("FAIL " + name + (": " + detail if detail else ""), flush=True)

    def skip(self, name, why):
        self.skipped += 1
        print("SKIP %s: %s" % (name, why), flush=True)

    def check(self, name, problems):
        """PASS when problems (a list of strings) is empty, else FAIL with them."""
        if problems:
            self.fail(name, "; ".join(problems[:6]) +
                      (" (+%d more)" % (len(problems) - 6) if len(problems) > 6 else ""))
        else:
            self.ok(name)

    def finish(self):
        line = "%d passed, %d failed" % (self.passed, self.failed)
        if self.skipped:
            line += ", %d skipped" % self.skipped
        print(line)
        return 1 if self.failed else 0
