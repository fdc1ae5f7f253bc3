#!/usr/bin/env python3
"""nvprof and Nsight Systems SQLite inputs, checked against SQL (tests/tools/sqlite_recompute.py).

Per database: kernel rows (count, total, min, max per name), NVTX op rows,
event counts by kind from `info`, the gather_op_profile JSON of
`report --by mapping --format json` (every op with its kernels by the
projection rule), the args of every device event (its row's facts, in a
slice), --run-range runs, standard input and gzip, and that no
environment or host data is printed. Bad databases (cut short, garbage after
the header, an SQLite file without profiler tables) exit 2 with one line.

Uses samples/nvprof-lstm-pyprof.sql.gz and a synthetic nsys 2022 export
(tests/tools/make_nsys2022_db.py: every API call written twice, as nsys
2022 does; each must count once; once more with 144,000 API rows, more than
the loader makes events of between giving their rows' pages back) always
and, when ../shared/traces is present, the nsys 2025/2024 exports and the
plain nvprof file.
"""
import csv
import gzip
import io
import json
import os
import random
import re
import sqlite3
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testlib  # noqa: E402
import make_nsys2022_db  # noqa: E402  (path set up by testlib)
import sqlite_recompute as sr  # noqa: E402

MANY_STEPS = 16000  # 144,000 API rows: over twice load_nsys.c's GIVE_BACK_ROWS
SHARED = ["nvfuser/report1.sqlite", "pipit/perlmutter-cloverleaf-cuda.sqlite",
          "profiling-lm/net.sql"]
# Things the files carry that must never be printed.
SECRETS = ["PMI_SHARED_SECRET", "ENVIRONMENT_VARIABLE", "HOSTNAME", "nvidia.com", "login11",
           "/Users/", "SSH_AUTH_SOCK", "umd.edu", "PATH="]


def us(ns):
    sign = "-" if ns < 0 else ""
    ns = abs(ns)
    return "%s%d.%03d" % (sign, ns // 1000, ns % 1000)


def csv_rows(proc):
    rows = list(csv.DictReader(io.StringIO(proc.text)))
    return {r["name"]: (int(r["count"]), r["total_us"], r["min_us"], r["max_us"]) for r in rows}


def compare_rows(got, want):
    problems = []
    for name in sorted(set(got) | set(want)):
        w = want.get(name)
        w = (w[0], us(w[1]), us(w[2]), us(w[3])) if w else None
        if got.get(name) != w:
            problems.append("%r: opscope %s, SQL %s" % (name[:60], got.get(name), w))
    return problems


def check_levels(res, label, path):
    for level, want in (("kernel", sr.kernels(path)), ("op", sr.ranges(path))):
        # SQL has the names as recorded: mangled (report demangles by default)
        p = testlib.run(["report", "--by", level, "--format", "csv", "--top", "0",
                         "--no-demangle", path])
        if p.rc != 0:
            res.fail("%s %s rows" % (label, level), p.describe())
            continue
        res.check("%s %s rows match SQL (%d names)" % (label, level, len(want)),
                  compare_rows(csv_rows(p), want))


def check_counts(res, label, path, want_format):
    p = testlib.run(["info", path])
    if p.rc != 0:
        res.fail(label + " info", p.describe())
        return
    kinds = {}
    fmt = None
    for line in p.text.splitlines():
        if line.startswith("format:"):
            fmt = line.split()[1]
        if line.strip().startswith("by kind:"):
            for part in line.split(":", 1)[1].split(","):
                k, n = part.split()
                kinds[k] = int(n)
    want = sr.counts(path)
    problems = ["%s: opscope %s, SQL %d" % (k, kinds.get(k, 0), n)
                for k, n in want.items() if kinds.get(k, 0) != n]
    if fmt != want_format:
        problems.append("format %s, expected %s" % (fmt, want_format))
    res.check("%s info counts and format match SQL" % label, problems)
    leaks = [s for s in SECRETS if s in p.text or s in p.err.decode("utf-8", "replace")]
    res.check(label + " info prints no environment or host data", leaks)


def check_gather(res, label, path):
    p = testlib.run(["report", "--by", "mapping", "--format", "json", path])
    if p.rc != 0:
        res.fail(label + " gather json", p.describe())
        return
    try:
        doc = json.loads(p.text)
    except ValueError as e:
        res.fail(label + " gather json", "not JSON: %s" % e)
        return
    problems = []
    if set(doc) != {"forward", "backward"}:
        problems.append("keys %s" % sorted(doc))
    got = []
    for op in doc.get("forward", []) + doc.get("backward", []):
        (name, ks), = op.items()
        for k in ks:
            if k["duration(ns)"] != k["end"] - k["start"]:
                problems.append("duration of %r" % k["name"][:40])
        got.append((name, sorted((k["start"], k["end"], k["n_registers_per_thread"],
                                  k["stream_id"]) for k in ks)))
    want = [(n, [tuple(k) for k in ks]) for n, ks in sr.gather(path)]
    if sorted(got) != sorted(want):
        missing = [w[0][:50] for w in want if w not in got][:3]
        problems.append("%d ops vs %d by SQL; first differing: %s" % (len(got), len(want),
                                                                      missing))
    res.check("%s gather_op_profile JSON matches SQL (%d ops, %d kernels)" %
              (label, len(want), sum(len(k) for _, k in want)), problems)


def check_device_args(res, label, path):
    """The args of the device events in a slice: each row's facts, from SQL."""
    p = testlib.run(["slice", "--runs", "all", path])
    try:
        events = json.loads(p.text)["traceEvents"] if p.rc == 0 else []
    except ValueError as e:
        events = []
        res.fail(label + " device args", "slice is not JSON: %s" % e)
        return
    got = sorted(json.dumps(e.get("args"), sort_keys=True) for e in events
                 if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"))
    want = sr.device_args(path)
    problems = [] if p.rc == 0 else [p.describe()]
    if got != want:
        diff = [g for g in got if g not in want][:2] + [w for w in want if w not in got][:2]
        problems.append("%d device events vs %d rows by SQL; differing: %s" %
                        (len(got), len(want), diff))
    res.check("%s device events' args are their rows' facts (%d rows)" % (label, len(want)),
              problems)


def check_run_range(res, label, path, regex):
    """--run-range RE/0: the kernels of the first matching range's window, by SQL."""
    with sr.connect(path) as db:
        ranges = sorted((s, -(e - s), e, n) for n, s, e, _ in db.execute(sr._range_sql(db)))
        first = next(r for r in ranges if re.search(regex, r[3]))
        start, end = first[0], first[2]
        sql = sr._kernel_sql(db)
        launch = dict(db.execute("SELECT correlationId, start FROM CUPTI_ACTIVITY_KIND_RUNTIME"))
        rows = [(r[0], r[1]) for r in db.execute(sql)
                if r[6] in launch and start <= launch[r[6]] < end]
    want = sr._stats(rows)
    p = testlib.run(["report", "--by", "kernel", "--format", "csv", "--top", "0",
                     "--no-demangle", "--run-range", regex + "/0", path])
    if p.rc != 0:
        res.fail(label + " --run-range", p.describe())
        return
    problems = compare_rows(csv_rows(p), want)
    if "using run 0 of 1 (NVTX range)" not in p.err.decode():
        problems.append("stderr %r" % p.err.decode()[:200])
    res.check("%s --run-range '%s/0' kernels match SQL (%d)" % (label, regex, len(want)),
              problems)


def check_nsys2022(res, path, made):
    """Each API call of the nsys 2022 file once: in `info`, in launch time, in a warning."""
    p = testlib.run(["info", path])
    runtime = None
    for line in p.text.splitlines():
        if line.strip().startswith("by kind:"):
            kinds = dict(part.split() for part in line.split(":", 1)[1].split(","))
            runtime = int(kinds.get("runtime", 0))
    problems = [] if p.rc == 0 and runtime == made["calls"] else \
        ["runtime events %s, want %d calls (%d rows)" % (runtime, made["calls"], made["rows"])]
    want = "%d runtime rows repeating a call's correlation id" % made["repeats"]
    if want not in p.err.decode():
        problems.append("stderr %r, want %r" % (p.err.decode()[:200], want))
    res.check("nsys 2022: %d API calls in %d rows counted once by info" %
              (made["calls"], made["rows"]), problems)
    p = testlib.run(["tree", "--format", "csv", path])
    rows = {r["name"].split("$$")[-1]: r for r in csv.DictReader(io.StringIO(p.text))}
    want = dict(made["launch_ns"])
    want["step"] = sum(want.values())  # the tree's launch time covers the subtree
    got = {op: r["launch_total_us"] for op, r in rows.items()}
    problems = ["%s: launch %s us, want %.3f" % (op, got.get(op), ns / 1e3)
                for op, ns in sorted(want.items()) if got.get(op) != "%.3f" % (ns / 1e3)]
    res.check("nsys 2022: launch time of each op counts each of %d calls once" % made["calls"],
              problems)


def huge_rowids(src, path):
    """A copy of src with the first API and kernel rows again at rowid 2^62 (new
    correlation ids): the loader reserves room by the largest rowid, which a
    hostile file may set anywhere; it must read the rows as any others."""
    with open(src, "rb") as f, open(path, "wb") as g:
        g.write(f.read())
    db = sqlite3.connect(path)
    for table in ("CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_KERNEL"):
        cols = [r[1] for r in db.execute("PRAGMA table_info(%s)" % table)]
        picked = ["correlationId + 1000000000" if c == "correlationId" else c for c in cols]
        db.execute("INSERT INTO %s (rowid, %s) SELECT %d, %s FROM %s LIMIT 1" %
                   (table, ", ".join(cols), 1 << 62, ", ".join(picked), table))
    db.commit()
    db.close()


def check_one_line_error(res, name, args, stdin=None, expect_rc=2):
    p = testlib.run(args, stdin=stdin)
    lines = p.err_lines
    ok = p.rc == expect_rc and len(lines) == 1 and lines[0].startswith("opscope: ")
    res.check(name, [] if ok else [p.describe()])


def bad_inputs(res, src, tmp):
    with open(src, "rb") as f:
        data = f.read()
    cases = {
        "header cut short": data[:60],
        "cut in half": data[:len(data) // 2],
        "cut to one page": data[:4096],
    }
    rnd = random.Random(8)
    cases["random bytes after the header"] = data[:100] + bytes(
        rnd.randrange(256) for _ in range(len(data) - 100))
    for name, blob in cases.items():
        path = os.path.join(tmp, name.replace(" ", "_") + ".sqlite")
        with open(path, "wb") as f:
            f.write(blob)
        check_one_line_error(res, "bad sqlite (%s): exit 2, one line" % name, ["info", path])
        check_one_line_error(res, "bad sqlite (%s): report exit 2" % name,
                             ["report", "--by", "kernel", path])
    other = os.path.join(tmp, "unrelated.db")
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE recipes (id INTEGER PRIMARY KEY, name TEXT)")
    db.execute("INSERT INTO recipes (name) VALUES ('bread')")
    db.commit()
    db.close()
    p = testlib.run(["info", other])
    ok = p.rc == 2 and len(p.err_lines) == 1 and "without nvprof or Nsight" in p.err_lines[0]
    res.check("unrelated SQLite database: exit 2, says what it is", [] if ok else [p.describe()])
    empty = os.path.join(tmp, "empty.db")
    sqlite3.connect(empty).close()  # 0 bytes: the usual empty-file error
    check_one_line_error(res, "empty SQLite file: exit 2, one line", ["info", empty])


def main():
    res = testlib.Results()
    sample = testlib.sample("nvprof-lstm-pyprof.sql.gz")
    traces = [("sample nvprof (gzip)", sample, "nvprof-sqlite")]
    for rel in SHARED:
        p = testlib.shared(rel)
        if p:
            traces.append((rel, p, "nsys-sqlite" if sr.schema(p) == "nsys" else
                           "nvprof-sqlite"))
        else:
            res.skip(rel, "../shared/traces not present")
    tmp = tempfile.TemporaryDirectory()
    nsys2022 = os.path.join(tmp.name, "nsys2022.sqlite")
    made = make_nsys2022_db.make(nsys2022)
    traces.append(("synthetic nsys 2022", nsys2022, "nsys-sqlite"))
    huge = os.path.join(tmp.name, "huge-rowids.sqlite")
    huge_rowids(nsys2022, huge)
    traces.append(("nsys 2022 with rows at rowid 2^62", huge, "nsys-sqlite"))
    for label, path, fmt in traces:
        check_levels(res, label, path)
        check_counts(res, label, path, fmt)
        check_gather(res, label, path)
        check_device_args(res, label, path)
    check_nsys2022(res, nsys2022, made)
    # more API rows than the loader turns into events between giving their pages back
    many = os.path.join(tmp.name, "nsys2022-many.sqlite")
    check_nsys2022(res, many, make_nsys2022_db.make(many, MANY_STEPS))
    tmp.cleanup()
    check_run_range(res, "sample nvprof", sample, "embedding")
    nvfuser = testlib.shared("nvfuser/report1.sqlite")
    if nvfuser:
        check_run_range(res, "nvfuser", nvfuser, "FusionKernelRuntime::runWithInputs")
    with open(sample, "rb") as f:
        gz = f.read()
    a = testlib.run(["info", sample])
    b = testlib.run(["info", "-"], stdin=gz)
    same = a.rc == 0 and b.rc == 0 and \
        a.text.split("\n", 1)[1].split("size:")[0] == b.text.split("\n", 1)[1].split("size:")[0] \
        and a.text.split("\n", 3)[3] == b.text.split("\n", 3)[3]
    res.check("gzip'd database on standard input reads as the file", [] if same else
              [a.describe(), b.describe()])
    check_one_line_error(res, "--run-range matching nothing: exit 2",
                         ["report", "--run-range", "no such range", sample])
    check_one_line_error(res, "--run-range bad regex: exit 2",
                         ["report", "--run-range", "(", sample])
    check_one_line_error(res, "--run-range instance out of range: exit 2",
                         ["report", "--run-range", "embedding/100000", sample])
    with tempfile.TemporaryDirectory() as tmp:
        plain = os.path.join(tmp, "net.sql")
        with open(plain, "wb") as f:
            f.write(gzip.decompress(gz))
        bad_inputs(res, plain, tmp)
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
