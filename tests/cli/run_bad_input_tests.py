#!/usr/bin/env python3
"""Bad input must give exit 2 and one clear line; tolerated damage must not crash.

Errors: exit status 2, exactly one line on stderr, starting `opscope: `,
naming the file (or the option at fault) and, where a position applies,
`byte N`. Tolerated inputs (truncated JSON, unescaped quotes, invalid UTF-8,
huge numbers, deep nesting): exit 0 (with a warning on stderr) or exit 2
with one line - never a signal, a sanitizer report or a timeout (20 s each).
Truncated files that load are also checked against tests/tools/recompute.py,
which keeps exactly the complete events before the cut.

Every bad file is generated into a temporary directory at test time.
"""
import bz2
import csv
import gzip
import lzma
import json
import os
import pty
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testlib  # noqa: E402
import recompute  # noqa: E402
from run_recompute_tests import compare  # noqa: E402

TIMEOUT = 20
BYTE_RE = re.compile(r"\bbyte \d+\b")


def error_problems(p, names=(), byte=False, also=()):
    """Problems with an expected error: exit 2, one `opscope: ` line naming names."""
    if p.timed_out or p.rc != 2:
        return ["expected exit 2, got " + p.describe()]
    lines = p.err_lines
    if len(lines) != 1:
        return ["expected one stderr line, got %d: %r" % (len(lines), lines[:4])]
    line = lines[0]
    probs = []
    if not line.startswith("opscope: "):
        probs.append("line does not start with 'opscope: ': %r" % line)
    for n in names:
        if n not in line:
            probs.append("line does not name %r: %r" % (n, line))
    if byte and not BYTE_RE.search(line):
        probs.append("line has no 'byte N': %r" % line)
    for pat in also:
        if not re.search(pat, line, re.I):
            probs.append("line does not match /%s/: %r" % (pat, line))
    if p.out:
        probs.append("stdout not empty: %r" % p.out[:200])
    return probs


def tolerated_problems(p):
    """Exit 0 or a clean exit 2; never a crash, a sanitizer report or a hang."""
    if p.timed_out:
        return ["timed out after %d s" % TIMEOUT]
    err = p.err.decode("utf-8", "replace")
    if "Sanitizer" in err or "runtime error:" in err:
        return ["sanitizer report: " + err[-800:]]
    if p.rc == 0:
        return []
    if p.rc == 2:
        lines = p.err_lines
        if len(lines) == 1 and lines[0].startswith("opscope: "):
            return []
        return ["exit 2 but stderr is %r" % lines[:4]]
    return ["expected exit 0 or 2, got " + p.describe()]


def write(d, name, data):
    path = os.path.join(d, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def tiny_ort(node_name=b"Conv_0_kernel_time", op=b"Conv", ts_big=None):
    """A small ORT profile: 2 model_run windows with 2 nodes each."""
    evs = []
    for run in range(2):
        base = 1000 + run * 1000
        evs.append(b'{"cat" : "Session","pid" :1,"tid" :1,"dur" :500,"ts" :%d,'
                   b'"ph" : "X","name" :"model_run","args" : {}}' % base)
        for k in range(2):
            ts = b"%d" % (base + 10 + k * 100) if ts_big is None else ts_big
            evs.append(b'{"cat" : "Node","pid" :1,"tid" :1,"dur" :50,"ts" :' + ts +
                       b',"ph" : "X","name" :"' + node_name + b'","args" : {"op_name" : "' +
                       op + b'","provider" : "CPUExecutionProvider"}}')
    return b"[\n" + b",\n".join(evs) + b"\n]\n"


def load_error_cases(d):
    """(name, path, expect_byte) for files that must fail to load: every error
    about the content says where (byte N); those about the file itself cannot."""
    cases = []
    cases.append(("nonexistent file", os.path.join(d, "no-such-file.json"), False))
    cases.append(("directory", d, False))
    cases.append(("empty file", write(d, "empty.json", b""), True))
    cases.append(("whitespace only", write(d, "blank.json", b" \n\t\n"), True))
    shutil.copy("/bin/true", os.path.join(d, "true.bin"))
    cases.append(("binary file (/bin/true)", os.path.join(d, "true.bin"), True))
    rnd = random.Random(1234)
    cases.append(("random bytes", write(d, "random.json",
                                        bytes(rnd.randrange(256) for _ in range(4096))), True))
    cases.append(("not JSON (hello)", write(d, "hello.json", b"hello\n"), True))
    cases.append(("not JSON after a bracket", write(d, "bracket.json", b"[ hello ]\n"), True))
    cases.append(("JSON object, not a trace", write(d, "obj.json", b'{"a": 1}\n'), True))
    cases.append(("JSON array of numbers", write(d, "nums.json", b"[1,2,3]\n"), True))
    cases.append(("JSON number", write(d, "num.json", b"42\n"), True))
    cases.append(("JSON string", write(d, "str.json", b'"traceEvents"\n'), True))
    cases.append(("traceEvents not an array", write(d, "te.json", b'{"traceEvents": 5}\n'), True))
    gz = open(testlib.sample("kineto-sampled-rank0.json.gz"), "rb").read()
    cases.append(("gzip header only", write(d, "hdr.json.gz", gz[:10]), True))
    bad_crc = bytearray(gzip.compress(open(testlib.sample("ort-cnn-opt.json"), "rb").read()))
    bad_crc[-8] ^= 0xFF
    cases.append(("gzip with a bad CRC", write(d, "crc.json.gz", bytes(bad_crc)), True))
    cases.append(("gzip of garbage", write(d, "garbage.json.gz", gzip.compress(b"\x00\x01 hello")),
                  True))
    return cases


def check_error_lines(res, d):
    """The byte of an error is where the fault is; a file name that holds a
    newline or an escape stays one line, escaped."""
    nul = write(d, "nul40.json", b'[{"ph":"X","name":"a","ts":1,"dur":2,"pi' + b"\x00" +
                b'd":1,"tid":1}]')
    p = testlib.run(["report", nul], timeout=TIMEOUT)
    res.check("a NUL at byte 40 is reported at byte 40",
              error_problems(p, names=[nul], also=[r"\bbyte 40\b"]))
    gz = bytearray(open(testlib.sample("kineto-sampled-rank0.json.gz"), "rb").read())
    gz[-8] ^= 0xff  # a bad CRC
    p = testlib.run(["report", "-"], stdin=bytes(gz), timeout=TIMEOUT)
    res.check("a corrupt gzip on standard input counts the compressed bytes read",
              error_problems(p, byte=True, also=[r"after %d compressed bytes" % len(gz)]))
    odd = os.path.join(d, "x\x1b[31mred\nline.json")
    write(d, os.path.basename(odd), b"hello")
    p = testlib.run(["report", odd], timeout=TIMEOUT)
    probs = error_problems(p, byte=True, also=[r"x\\x1b\[31mred\\x0aline\.json"])
    if b"\x1b" in p.err:
        probs.append("raw ESC in the error line")
    res.check("a file name with ESC and a newline: one escaped line", probs)


def option_cases(ort):
    """(name, args, names the line must contain, extra patterns)."""
    c = []
    for spec in ["1:2:3:4", "abc", "[1,", "range(1", "1..3", "[]", "range()", "1:x", "0x1",
                 "range(1,2,0)", "::0"]:
        c.append(("--runs %r (syntax)" % spec, ["report", "--runs", spec, ort], ["--runs"], []))
    for spec in ["11", "-12", "[0,11]", "99", "5:5", "range(20,30)", "[-12]"]:
        c.append(("--runs %r (range)" % spec, ["report", "--runs", spec, ort], ["--runs"], []))
    c.append(("bad regex '('", ["report", "--regex", "(", ort], ["--regex"],
              [r"missing closing parenthesis", r"\b1\b"]))
    c.append(("bad regex 'a{2,1}'", ["report", "--regex", "a{2,1}", ort], ["--regex"],
              [r"out of order", r"\b\d+\b"]))
    c.append(("bad regex '[z-a]'", ["report", "--regex", "[z-a]", ort], ["--regex"],
              [r"range out of order", r"\b\d+\b"]))
    c.append(("unknown --by", ["report", "--by", "layer", ort], ["layer"], [r"--by"]))
    c.append(("unknown --format", ["report", "--format", "xml", ort], ["xml"], [r"--format"]))
    c.append(("unknown option", ["report", "--bogus", ort], ["--bogus"], []))
    c.append(("unknown subcommand", ["frobnicate", ort], ["frobnicate"], []))
    c.append(("bad --top", ["report", "--top", "x", ort], ["--top"], []))
    c.append(("negative --top", ["report", "--top", "-3", ort], ["--top"], []))
    c.append(("unknown --sort column", ["report", "--sort", "median", ort], ["median"], []))
    c.append(("missing argument to --runs", ["report", ort, "--runs"], ["--runs"], []))
    c.append(("one file twice as a job's ranks", ["report", ort, ort], ["given twice"], []))
    return c


def truncation_offsets(size):
    offs = {1, 2, 3, 10, 57, 100, 200, 1000, size // 7, size // 3, size // 2,
            (2 * size) // 3, size - 200, size - 3, size - 2, size - 1}
    return sorted(o for o in offs if 0 < o < size)


def check_truncated(res, d, label, data):
    """Cut data at several offsets: exit 0 with a truncation warning, or a clean 2."""
    for off in truncation_offsets(len(data)):
        name = "truncated %s at byte %d of %d" % (label, off, len(data))
        path = write(d, "cut-%s-%d.json" % (label.replace("/", "_"), off), data[:off])
        try:
            t = recompute.Trace(path)
        except recompute.RecomputeError:
            t = None
        p = testlib.run(["report", "--format", "csv", "--sort", "total", "--columns",
                         ",".join(recompute.LEVEL_COLUMNS["op"]), path], timeout=TIMEOUT)
        probs = tolerated_problems(p)
        if not probs and p.rc == 0:
            errtxt = p.err.decode("utf-8", "replace")
            if t is None or not t.events:
                probs.append("exit 0 although no complete event remains (expected exit 2)")
            elif t.truncated and not re.search(r"truncat|ends inside", errtxt, re.I):
                probs.append("exit 0 without a truncation warning on stderr (%r)" % errtxt[:300])
            if t is not None:
                probs += compare(p.text, t.rows("op", None))
        if not probs and p.rc == 2 and t is not None and t.events:
            probs.append("exit 2 although %d complete events precede the cut (%s)"
                         % (len(t.events), p.err_lines[0]))
        res.check(name, probs)


def check_signals(res, d, ort):
    """A write cut by a signal leaves no OUT.XXXXXX (SIGXFSZ from a file size
    limit cuts it at a known point); a FIFO with no writer says so instead of
    hanging silently."""
    out_dir = os.path.join(d, "sig")
    os.mkdir(out_dir)

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))
    p = subprocess.run([testlib.opscope(), "report", "--format", "csv", "-o",
                        os.path.join(out_dir, "out.csv"), ort], capture_output=True,
                       env=testlib.env(), timeout=TIMEOUT, preexec_fn=limit)
    res.check("report -o cut by a signal leaves no temporary file",
              [] if p.returncode == -signal.SIGXFSZ and not os.listdir(out_dir) else
              ["rc=%s files=%s" % (p.returncode, os.listdir(out_dir))])
    fifo = os.path.join(d, "nowriter.fifo")
    os.mkfifo(fifo)
    p = subprocess.Popen([testlib.opscope(), "report", fifo], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=testlib.env())
    time.sleep(1.5)
    p.terminate()
    out, err = p.communicate(timeout=TIMEOUT)
    res.check("a FIFO with no writer: a note, and a signal still ends the wait",
              [] if p.returncode == -signal.SIGTERM and b"waiting for data" in err and
              fifo.encode() in err else ["rc=%s stderr=%r" % (p.returncode, err)])


UNSAFE = [b"\x1b", b"\x07", b"\x7f", b"\xc2\x9b", b"\xe2\x80\xae", b"\xe2\x81\xa6"]


def on_tty(args):
    """stdout of opscope run with a pseudo-terminal as stdout (stderr apart)."""
    master, slave = pty.openpty()
    p = subprocess.Popen([testlib.opscope()] + args, stdin=subprocess.DEVNULL, stdout=slave,
                         stderr=subprocess.PIPE, env=testlib.env())
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    p.wait(timeout=TIMEOUT)
    return p.returncode, out


def check_output_safety(res, d):
    """Names carrying escapes, C1 controls and bidi overrides never reach a
    terminal raw (tables always, CSV and JSON on a terminal); JSON escapes them
    and still holds the same strings; a NUL in a name does not cut it."""
    names = ["esc\x1b]0;pwned\x07", "c1\u009b31m", "bidi\u202egnp.exe", "iso\u2066x\u2069",
             "del\x7f", "=HYPERLINK(\"x\")"]
    evs = [{"ph": "X", "name": n, "cat": "cpu_op", "ts": 10 * i, "dur": 5, "pid": 1, "tid": 1}
           for i, n in enumerate(names)]
    path = write(d, "hostile.json", json.dumps(evs).encode())
    for fmt in ("table", "csv", "json"):
        rc, out = on_tty(["report", "--format", fmt, path])
        raw = [u for u in UNSAFE if u in out]
        res.check("%s on a terminal: no raw control or bidi character" % fmt,
                  [] if rc == 0 and not raw else ["rc=%s raw=%r out=%r" % (rc, raw, out[:300])])
    for cmd in (["info"], ["tree"], ["kernels"], ["report", "--by", "path"], ["flame"],
                ["slice"]):
        p = testlib.run(cmd + [path], timeout=TIMEOUT)
        raw = [u for u in UNSAFE if u in p.out or u in p.err]
        res.check("%s: no raw control or bidi character" % " ".join(cmd),
                  [] if p.rc == 0 and not raw else ["rc=%s raw=%r" % (p.rc, raw)])
    p = testlib.run(["report", "--format", "json", path], timeout=TIMEOUT)
    probs = [] if p.rc == 0 and not [u for u in UNSAFE if u in p.out] else ["raw in json"]
    if not probs:
        got = sorted(r["name"] for r in json.loads(p.text)["rows"])
        if got != sorted(names):
            probs.append("JSON names differ: %r" % got)
    res.check("JSON escapes unsafe characters and keeps the strings", probs)
    p = testlib.run(["report", "--format", "csv", "--csv-safe", path], timeout=TIMEOUT)
    res.check("--csv-safe quotes a formula", [] if b"\"'=HYPERLINK" in p.out else [p.text[:300]])
    nul = write(d, "nul-names.json", b'[{"ph":"X","name":"a\\u0000b","ts":1,"dur":2,"pid":1,'
                b'"tid":1},{"ph":"X","name":"a\\u0000c","ts":5,"dur":2,"pid":1,"tid":1},'
                b'{"ph":"X","name":"a","ts":9,"dur":2,"pid":1,"tid":1}]')
    p = testlib.run(["report", "--format", "csv", nul], timeout=TIMEOUT)
    rows = [line.split(",")[0] for line in p.text.splitlines()[1:]]
    res.check("a NUL in a name neither cuts nor merges names",
              [] if p.rc == 0 and len(set(rows)) == 3 and "NUL" in p.err.decode() else
              ["rows %r stderr %r" % (rows, p.err)])


def check_replace(res, d, ort):
    """-o never replaces a file silently; --force replaces it keeping its mode,
    through a symbolic link."""
    out = os.path.join(d, "keep.csv")
    with open(out, "w") as f:
        f.write("precious\n")
    os.chmod(out, 0o600)
    p = testlib.run(["report", "--format", "csv", "-o", out, ort], timeout=TIMEOUT)
    probs = error_problems(p, names=[out], also=["exists", "--force"])
    if open(out).read() != "precious\n":
        probs.append("the file was replaced")
    res.check("-o on an existing file: exit 2, the file kept", probs)
    link = os.path.join(d, "link.csv")
    os.symlink("keep.csv", link)
    p = testlib.run(["report", "--format", "csv", "--force", "-o", link, ort], timeout=TIMEOUT)
    probs = [] if p.rc == 0 else [p.describe()]
    if not os.path.islink(link):
        probs.append("the symbolic link became a file")
    if not open(out).read().startswith("name,"):
        probs.append("the link's target was not written")
    if os.stat(out).st_mode & 0o777 != 0o600:
        probs.append("mode %o, not 0600" % (os.stat(out).st_mode & 0o777))
    left = [f for f in os.listdir(d) if f.startswith(("keep.csv.", "link.csv."))]
    if left:
        probs.append("temporary files left: %r" % left)
    res.check("--force: replaced in place of the link's target, mode kept", probs)


def huge_trace(d):
    """A Kineto trace whose durations (9.2e15 us, near 2^63 ns) overflow every sum:
    ops on two threads, launches, kernels on two streams, two runs."""
    big = 9200000000000000
    evs = []
    for run in range(2):
        t0 = run * 100
        evs.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % run,
                    "pid": 1, "tid": 1, "ts": t0, "dur": 90})
        for i in range(6):
            ts, tid = t0 + i * 10, 1 + i % 2
            name = ["aten::mm", "aten::add", "aten::relu"][i % 3]
            ext, corr = run * 100 + i + 1, run * 100 + i + 1000
            evs.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": tid, "ts": ts,
                        "dur": big // (i + 2), "args": {"External id": ext}})
            evs.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                        "tid": tid, "ts": ts + 1, "dur": 2,
                        "args": {"correlation": corr, "External id": ext}})
            evs.append({"ph": "X", "cat": "kernel", "name": "k%d" % (i % 2), "pid": 0,
                        "tid": 7 + i % 2, "ts": ts + 5, "dur": big - i,
                        "args": {"correlation": corr, "External id": ext, "stream": 7 + i % 2,
                                 "device": 0, "grid": [1, 1, 1], "block": [32, 1, 1]}})
    return write(d, "huge.json", json.dumps({"schemaVersion": 1, "traceEvents": evs}).encode())


def numeric_problems(rows, cols):
    """Sums that wrapped: negative durations, percentages over 100, a mean
    outside [min, max]."""
    probs = []
    for r in rows:
        for c in cols:
            v = r.get(c, "")
            try:
                x = float(v)
            except ValueError:
                continue
            if c.startswith(("delta", "saved")) or c == "ratio":
                continue
            if x < 0:
                probs.append("%s = %s < 0 in %r" % (c, v, r.get("name")))
            if c.endswith("pct") and x > 100.0001:
                probs.append("%s = %s > 100 in %r" % (c, v, r.get("name")))
        if r.get("mean_us") and r.get("min_us") and r.get("max_us"):
            mean, lo, hi = float(r["mean_us"]), float(r["min_us"]), float(r["max_us"])
            if not lo * (1 - 1e-9) <= mean <= hi * (1 + 1e-9):
                probs.append("mean %s outside [%s, %s] in %r" % (mean, lo, hi, r.get("name")))
    return probs


def check_overflow(res, d):
    """Durations near INT64_MAX through every level and command: sums saturate
    (never wrap) and a warning says so."""
    path = huge_trace(d)
    runs = ["--runs", "all"]
    cmds = [["report", "--by", lv] + runs
            for lv in ("op", "shape", "kernel", "dims", "run", "path")]
    cmds += [["report", "--by", "mapping"] + runs, ["tree", "--runs", "all"],
             ["kernels", "--runs", "all"], ["whatif", "-x", "aten::mm=2", "-x", "k0=4"] + runs,
             ["diff", path] + runs, ["diff", "--match", "occurrence", path] + runs]
    for cmd in cmds:
        p = testlib.run(cmd + ["--format", "csv", path], timeout=TIMEOUT)
        probs = tolerated_problems(p)
        if not probs and p.rc != 0:
            probs.append("exit %d: %r" % (p.rc, p.err_lines[-1:]))
        if not probs:
            rows = list(csv.DictReader(p.text.splitlines()))
            probs += numeric_problems(rows, rows[0].keys() if rows else [])
            if not re.search(r"saturate", p.err.decode(), re.I):
                probs.append("no warning that sums saturate: %r" % p.err_lines)
        res.check("durations near INT64_MAX: %s" % " ".join(cmd[:3]), probs)
    for cmd in (["whatif", "-x", "aten::mm=2"], ["kernels"], ["info"]):
        p = testlib.run(cmd + runs[:0] + [path], timeout=TIMEOUT)
        bad = re.findall(r"(?<![\w.])-\d[\d.]*", p.text)
        res.check("durations near INT64_MAX: %s text has no negative number" % cmd[0],
                  [] if p.rc == 0 and not bad else ["rc %s: %r" % (p.rc, bad[:5])])


def check_silent_acceptance(res, d):
    """What the format does not allow is handled by a documented rule and said:
    unknown phases and non-numeric durs are skipped, a second traceEvents array
    is ignored, garbage after a gzip stream is a warning; Input Dims without
    Input type is no undefined behaviour."""
    def ev(name, ph="X", dur=b"5", ts=b"1"):
        return (b'{"ph":"%s","name":"%s","ts":%s,"dur":%s,"pid":1,"tid":1}'
                % (ph.encode(), name.encode(), ts, dur))

    def names_and_err(path, *extra):
        p = testlib.run(["report", "--format", "csv"] + list(extra) + [path], timeout=TIMEOUT)
        return (p, sorted(line.split(",")[0] for line in p.text.splitlines()[1:]),
                p.err.decode("utf-8", "replace"))
    path = write(d, "phases.json", b"[" + b",".join([ev("z", "Z"), ev("xx", "XX"), ev("ok")]) +
                 b"]")
    p, names, err = names_and_err(path)
    res.check("unknown phases (Z, XX) are skipped and counted",
              [] if names == ["ok"] and "2 events with a phase" in err else ["names %r, stderr %r" % (names, err)])
    path = write(d, "dur.json", b"[" + b",".join([ev("inf", dur=b"Infinity"),
                                                    ev("nan", dur=b"NaN"),
                                                    ev("obj", dur=b"{}"), ev("ok")]) + b"]")
    p, names, err = names_and_err(path)
    res.check("dur Infinity/NaN/{} is skipped and counted, never taken as 0",
              [] if names == ["ok"] and "3 X events whose dur is not a number" in err
              else ["names %r, stderr %r" % (names, err)])
    two = (b'{"traceEvents":[' + ev("first") + b'],"traceEvents":[' + ev("second") + b"]}")
    p, names, err = names_and_err(write(d, "two.json", two))
    res.check("a second traceEvents array is ignored, with a warning",
              [] if names == ["first"] and "after the first" in err else ["names %r, stderr %r" % (names, err)])
    gz = gzip.compress(two)
    p, names, err = names_and_err(write(d, "trail.json.gz", gz + b"garbage!"))
    res.check("garbage after a gzip stream is a warning at its offset in the file",
              [] if p.rc == 0 and "after the last gzip member or zstd frame ignored" in err and
              "first at byte %d\n" % len(gz) in err else [p.describe()])
    dims = write(d, "dims.json", b'[{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,'
                 b'"ts":1,"dur":2,"args":{"Input Dims":[[2,2],[3]]}}]')
    p, names, err = names_and_err(dims, "--by", "shape")
    probs = tolerated_problems(p)
    if not probs and "(2x2),(3)" not in p.text:
        probs.append("shapes without types missing: %r" % p.text)
    res.check("Input Dims without Input type: shapes without types, no UB", probs)


def check_truncated_gzip(res, d, gz, inflater):
    """Cut a .json.gz at several offsets: exit 0 with the complete events of
    what the cut stream still decodes (recompute.py on that prefix) and a
    warning, or a clean exit 2 when no event is complete; inflated by
    OPSCOPE_INFLATE=inflater (zlib or isal, which is zlib without ISA-L)."""
    for off in (len(gz) // 7, len(gz) // 2, len(gz) - 30, len(gz) - 4):
        z = zlib.decompressobj(16 + 15)
        prefix = z.decompress(gz[:off])
        plain = write(d, "gzcut-%d.json" % off, prefix)
        cut = write(d, "gzcut-%d.json.gz" % off, gz[:off])
        try:
            t = recompute.Trace(plain)
        except recompute.RecomputeError:
            t = None
        p = testlib.run(["report", "--format", "csv", "--sort", "total", "--columns",
                         ",".join(recompute.LEVEL_COLUMNS["op"]), cut], timeout=TIMEOUT,
                        OPSCOPE_INFLATE=inflater)
        probs = tolerated_problems(p)
        if not probs and p.rc == 0:
            if "compressed stream cut short" not in p.err.decode():
                probs.append("no warning that the gzip stream was cut")
            if t is None or not t.events:
                probs.append("exit 0 although no complete event remains")
            else:
                probs += compare(p.text, t.rows("op", None))
        elif not probs and t is not None and t.events:
            probs.append("exit 2 although %d complete events precede the cut (%s)"
                         % (len(t.events), p.err_lines[0]))
        res.check("gzip (%s) cut at byte %d of %d: its complete events, a warning"
                  % (inflater, off, len(gz)), probs)


def check_zstd(res, d):
    """A .zst (zstd CLI, skipped when absent or opscope lacks libzstd) loads as
    its plain file does, from a file and from standard input, every sample;
    cut short, it keeps its complete events with a warning or fails with one
    line; pzstd's frames and --long windows load too, and bytes after the last
    frame are warned of. xz, bzip2, zip and tar are named in one line with how
    to open them."""
    for name, data in (("xz", lzma.compress(b"[]")), ("bzip2", bz2.compress(b"[]"))):
        p = testlib.run(["report", write(d, "t." + name, data)], timeout=TIMEOUT)
        probs = error_problems(p, names=[name + "-compressed"])
        res.check("%s data: named, with the command that opens it" % name, probs)
    plain_ort = testlib.sample("ort-cnn-opt.json")
    with tarfile.open(os.path.join(d, "log.tar.gz"), "w:gz") as tar:
        tar.add(plain_ort, arcname="log/trace.json")
    p = testlib.run(["report", os.path.join(d, "log.tar.gz")], timeout=TIMEOUT)
    res.check("a .tar.gz of a trace: named a tar archive, with how to read a member",
              error_problems(p, names=["tar archive", "tar -xOf"]))
    if not shutil.which("zstd"):
        print("skip: no zstd command")
        return
    for sample in sorted(os.listdir(testlib.sample(""))):
        path = testlib.sample(sample)
        if not re.search(r"\.(json|json\.gz|sql\.gz)$", sample) or "truncated" in sample:
            continue
        raw = open(path, "rb").read()
        if sample.endswith(".gz"):
            raw = gzip.decompress(raw)
        z = subprocess.run(["zstd", "-q", "-c", "--check"], input=raw, capture_output=True).stdout
        zst = write(d, sample.replace(".gz", "") + ".zst", z)
        want = testlib.run(["report", "-F", "csv", path], timeout=TIMEOUT)
        got = testlib.run(["report", "-F", "csv", zst], timeout=TIMEOUT)
        if got.rc == 2 and "zstd-compressed" in got.err.decode():
            print("skip: opscope built without libzstd")
            return
        piped = testlib.run(["report", "-F", "csv", "-"], stdin=z, timeout=TIMEOUT)
        res.check("%s.zst: report as the plain file's, from a file and a pipe" % sample,
                  [] if want.rc == got.rc == piped.rc == 0 and want.out == got.out == piped.out
                  else ["rc %d %d %d; %s" % (want.rc, got.rc, piped.rc, got.err[:300])])
    z = subprocess.run(["zstd", "-q", "-c", plain_ort], capture_output=True).stdout
    for off in (len(z) // 3, len(z) - 5):
        p = testlib.run(["report", write(d, "cut%d.json.zst" % off, z[:off])], timeout=TIMEOUT)
        probs = tolerated_problems(p)
        if not probs and p.rc == 0 and "compressed stream cut short" not in p.err.decode():
            probs.append("no warning that the zstd stream was cut")
        res.check("zstd cut at byte %d of %d: kept with a warning, or one line" % (off, len(z)),
                  probs)
    want = testlib.run(["report", "-F", "csv", plain_ort], timeout=TIMEOUT)
    # pzstd starts each frame with a skippable one; --long writes a window past 2^27
    for how in (["pzstd", "-q", "-p", "2", "-c"], ["zstd", "-q", "--long=30", "--no-content-size"]):
        if not shutil.which(how[0]):
            print("skip: no %s command" % how[0])
            continue
        z = subprocess.run(how, input=open(plain_ort, "rb").read(), capture_output=True).stdout
        for tail in (b"", b"\0" * 9):
            zst = write(d, "%s%d.json.zst" % (how[0], len(tail)), z + tail)
            got = testlib.run(["report", "-F", "csv", zst], timeout=TIMEOUT)
            warned = "after the last gzip member or zstd frame ignored" in got.err.decode()
            res.check("%s output%s: report as the plain file's%s"
                      % (" ".join(how[:3]), " and zero bytes" if tail else "",
                         ", a warning naming the tail" if tail else ""),
                      [] if got.rc == 0 and got.out == want.out and warned == bool(tail)
                      else ["rc %d, warned %s: %s" % (got.rc, warned, got.err[:300])])


def check_limits(res, d):
    """A gzip bomb stops at --max-input with one line; out of memory is exit 2
    with one line naming the file, never an abort."""
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    bomb = c.compress(b'[{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1}')
    for _ in range(64):
        bomb += c.compress(b" " * (1 << 20))
    bomb += c.compress(b"]") + c.flush()
    path = write(d, "bomb.json.gz", bomb)
    p = testlib.run(["report", "--max-input", "16M", path], timeout=TIMEOUT)
    res.check("a gzip bomb stops at --max-input, one line",
              error_problems(p, names=[path], byte=True, also=[r"more than 16777216 bytes",
                                                              r"--max-input"]))
    p = testlib.run(["report", "--format", "csv", "--max-input", "0", path], timeout=TIMEOUT)
    res.check("--max-input 0: no limit", [] if p.rc == 0 else [p.describe()])
    p = testlib.run(["report", "--max-input", "12Q", path], timeout=TIMEOUT)
    res.check("--max-input with a bad size", error_problems(p, names=["--max-input"]))

    def limit(kb):
        return lambda: resource.setrlimit(resource.RLIMIT_AS, (kb << 10, kb << 10))
    probe = subprocess.run([testlib.opscope(), "--version"], capture_output=True,
                           preexec_fn=limit(1 << 20))
    if probe.returncode != 0:  # sanitizers reserve terabytes of address space
        res.skip("out of memory: exit 2, one line", "cannot run under an address-space limit")
        return
    evs = b",\n".join(b'{"ph":"X","cat":"cpu_op","name":"op%d","pid":1,"tid":%d,"ts":%d,'
                      b'"dur":3,"args":{"k":"%s"}}' % (i % 5000, i % 7, i, b"v" * (i % 50))
                      for i in range(100000))
    big = write(d, "big.json", b"[" + evs + b"]")
    saw_oom, probs = False, []
    for mb in (24, 48):
        p = subprocess.run([testlib.opscope(), "report", "--format", "csv", big],
                           capture_output=True, env=testlib.env(), timeout=TIMEOUT,
                           preexec_fn=limit(mb << 10))
        lines = p.stderr.decode("utf-8", "replace").splitlines()
        if p.returncode == 2 and "out of memory" in p.stderr.decode():
            saw_oom = True
            if len(lines) != 1 or big not in lines[0]:
                probs.append("%d MB: %r" % (mb, lines))
        elif p.returncode not in (0, 2):
            probs.append("%d MB: exit %s, %r" % (mb, p.returncode, lines[-2:]))
    if not saw_oom:
        probs.append("no limit ran out of memory")
    res.check("out of memory: exit 2, one line naming the file", probs)


def check_depth(res, d):
    """A chain of ops 3,000 deep: the tree, its CSV paths and the path level
    take time linear in the depth per row (the guides and paths were built
    in O(depth^2) per row: cubic in all, 294 s at depth 10,000)."""
    n = 3000
    evs = b",".join(b'{"ph":"X","cat":"cpu_op","name":"op%d","pid":1,"tid":1,"ts":%d,"dur":%d}'
                    % (i, i, 2 * (n - i) + 1) for i in range(n))
    path = write(d, "deep.json", b"[" + evs + b"]")
    for cmd in (["tree"], ["tree", "--format", "csv"], ["report", "--by", "path", "--format",
                                                         "csv"]):
        start = time.monotonic()
        p = testlib.run(cmd + [path], timeout=TIMEOUT)
        took = time.monotonic() - start
        probs = tolerated_problems(p)
        if not probs and p.rc != 0:
            probs.append(p.describe())
        if not probs and took > 5:
            probs.append("took %.1f s" % took)
        if not probs and cmd == ["tree"]:
            last = p.text.splitlines()[-1]
            if not last.endswith("op%d" % (n - 1)) or last.count("   ") < 1000:
                probs.append("last row %r" % last[-80:])
        if not probs and cmd[1:3] == ["--format", "csv"]:
            row = p.text.splitlines()[-1]
            if "$$".join("op%d" % i for i in range(n)) not in row:
                probs.append("the deepest path is not whole")
        res.check("ops nested %d deep: %s in %.1f s" % (n, " ".join(cmd), took), probs)


def main():
    res = testlib.Results()
    ort = testlib.sample("ort-cnn-opt.json")
    d = tempfile.mkdtemp(prefix="opscope-bad-")
    try:
        # Files that cannot be loaded, through `report` and `info`.
        for name, path, want_byte in load_error_cases(d):
            for cmd in (["report"], ["info"]):
                p = testlib.run(cmd + [path], timeout=TIMEOUT)
                res.check("%s: %s" % (cmd[0], name),
                          error_problems(p, names=[path], byte=want_byte))
        p = testlib.run(["report", "-"], stdin=b"hello\n", timeout=TIMEOUT)
        res.check("report: not JSON on standard input", error_problems(p, byte=True))
        p = testlib.run(["report", "-"], stdin=b"", timeout=TIMEOUT)
        res.check("report: empty standard input", error_problems(p))

        # Bad options and selections.
        for name, args, names, also in option_cases(ort):
            p = testlib.run(args, timeout=TIMEOUT)
            res.check(name, error_problems(p, names=names, also=also))

        # Tolerated damage.
        check_truncated(res, d, "ort-cnn-opt", open(ort, "rb").read())
        check_truncated(res, d, "torch-resnet18-infer",
                        open(testlib.sample("torch-resnet18-infer.json"), "rb").read())
        check_truncated(res, d, "kineto-sampled-rank0",
                        gzip.decompress(open(testlib.sample("kineto-sampled-rank0.json.gz"),
                                             "rb").read()))

        check_zstd(res, d)

        # A gzip stream cut short is a cut file (one rule for every container):
        # the complete events it held are kept, with a warning.
        for inflater in ("zlib", "isal"):
            check_truncated_gzip(res, d, open(testlib.sample("kineto-sampled-rank0.json.gz"),
                                              "rb").read(), inflater)

        quote = write(d, "quote.json", tiny_ort(node_name=b'a"b_kernel_time'))
        p = testlib.run(["report", "--format", "csv", quote], timeout=TIMEOUT)
        probs = tolerated_problems(p)
        if not probs and p.rc == 0 and "Conv,2," not in p.text:
            probs.append("the Conv op of the repaired events is missing: %r" % p.text[:400])
        res.check("unescaped quote in an ORT name", probs)

        utf8 = write(d, "utf8.json", tiny_ort(node_name=b"bad\xff\xfe_kernel_time",
                                               op=b"Co\xc3nv"))
        p = testlib.run(["report", "--format", "csv", utf8], timeout=TIMEOUT)
        probs = tolerated_problems(p)
        if not probs and p.rc == 0:
            try:
                txt = p.out.decode("utf-8")
                if "\ufffd" not in txt:
                    probs.append("no U+FFFD in the output: %r" % txt[:300])
            except UnicodeDecodeError as e:
                probs.append("output is not valid UTF-8: %s" % e)
        res.check("invalid UTF-8 in names", probs)

        for label, big in [("ts beyond int64", b"99999999999999999999999"),
                           ("ts beyond int64 in ns", b"9223372036854775"),
                           ("negative huge ts", b"-99999999999999999999999"),
                           ("float ts with exponent", b"1.5e300"),
                           ("ts 1e-400", b"1e-400")]:
            path = write(d, "big-%d.json" % len(label), tiny_ort(ts_big=big))
            p = testlib.run(["report", "--format", "csv", "--sort", "total", "--columns",
                         ",".join(recompute.LEVEL_COLUMNS["op"]), path], timeout=TIMEOUT)
            res.check("integer/number edge: " + label, tolerated_problems(p))
        big_dur = write(d, "bigdur.json", tiny_ort().replace(b'"dur" :50,',
                                                     b'"dur" :18446744073709551616,'))
        p = testlib.run(["report", "--format", "json", big_dur], timeout=TIMEOUT)
        res.check("dur beyond uint64", tolerated_problems(p))
        neg = write(d, "negdur.json", tiny_ort().replace(b'"dur" :50,', b'"dur" :-50,'))
        p = testlib.run(["report", "--format", "csv", neg], timeout=TIMEOUT)
        probs = tolerated_problems(p)
        if not probs and p.rc == 0 and "Conv,2,0.000," not in p.text:
            probs.append("negative dur not taken as 0: %r" % p.text[:300])
        res.check("negative dur", probs)

        deep = write(d, "deep.json", b'[{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1,'
                     b'"args":' + b"[" * 200000 + b"]" * 200000 + b"}]")
        p = testlib.run(["report", deep], timeout=TIMEOUT)
        res.check("args nested 200000 deep", tolerated_problems(p))
        longname = write(d, "long.json", b'[{"ph":"X","name":"' + b"x" * (4 << 20) +
                         b'","ts":1,"dur":2,"pid":1,"tid":1}]')
        p = testlib.run(["report", "--format", "csv", longname], timeout=TIMEOUT)
        res.check("a 4 MB event name", tolerated_problems(p))
        nul = write(d, "nul.json", tiny_ort()[:60] + b"\x00" + tiny_ort()[60:])
        p = testlib.run(["report", nul], timeout=TIMEOUT)
        res.check("NUL byte inside the JSON", tolerated_problems(p))
        check_signals(res, d, ort)
        check_output_safety(res, d)
        check_replace(res, d, ort)
        check_error_lines(res, d)
        check_overflow(res, d)
        check_silent_acceptance(res, d)
        check_limits(res, d)
        check_depth(res, d)
        mixed = write(d, "mixed.json", b'{"traceEvents":[1,"x",null,{"ph":"X"},{"ts":"5"},'
                      b'{"ph":"X","name":"ok","ts":1,"dur":2,"pid":"p","tid":[1]}]}')
        p = testlib.run(["report", "--format", "csv", mixed], timeout=TIMEOUT)
        res.check("events of the wrong shape", tolerated_problems(p))
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
