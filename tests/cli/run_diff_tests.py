#!/usr/bin/env python3
"""Golden and recomputation tests of `opscope diff`, `opscope whatif`,
`opscope BASE OTHER` and `opscope report --by op-instance`.

Goldens: tests/cli/expected/<case>.out (and .err) on samples/, and on the
trace collection (../shared/traces, skipped when absent). `--update` writes
them, but only for diff cases whose CSV agrees cell by cell with the
independent tests/tools/diff_recompute.py; read the diff before committing.

Recomputation: every ORT pair (samples, and the collection's unoptimised vs
optimised ORT profiles) under every match mode, --whole-trace, and HTA's
trace_diff control vs test at op and kernel level, must equal
diff_recompute.py's CSV byte for byte (kernel names as recorded:
--no-demangle). whatif with a factor of 2 is checked against totals
recomputed by recompute.py (projected = total / 2 per row, rounded half away
from zero).

Consistency with report: kernel names are those report shows in each style
(demangled by default), --run-range and --whole-trace select the runs of
both traces as report selects them, in diff, whatif, `opscope BASE OTHER`
and report --by op-instance.

Prints "N passed, M failed" last; exits 1 on any failure.
"""
import csv
import decimal
import io
import json
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testlib  # noqa: E402
import recompute  # noqa: E402
import diff_recompute  # noqa: E402
import recompute_measures  # noqa: E402

UPDATE = "--update" in sys.argv
NOOPT = "samples/ort-cnn-noopt.json"
OPT = "samples/ort-cnn-opt.json"
NE = "samples/ne-bert-mini-int8.json"
MANGLED = "tests/data/kineto-mangled.json"
NVPROF = "samples/nvprof-lstm-pyprof.sql.gz"
STYLES = [[], ["--short-names"], ["--no-demangle"]]
HTA = "hta/trace_diff/%s.json.gz"
GEN = "generated/%s"

passed = failed = 0


def report(ok, name, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL %s%s" % (name, "\n" + detail if detail else ""))


def run(args, **env):
    return testlib.run(args, **env)


# (case, args, env, recompute args or None)
CASES = [
    ("diff-help", ["diff", "--help"], {}, None),
    ("whatif-help", ["whatif", "--help"], {}, None),
    ("diff-ort-name-100", ["diff", NOOPT, OPT], {"COLUMNS": "100"}, None),
    ("diff-ort-name-60", ["diff", NOOPT, OPT], {"COLUMNS": "60"}, None),
    ("diff-ort-name-csv", ["diff", "--format", "csv", NOOPT, OPT], {}, ["--match", "name"]),
    ("diff-ort-shape-csv", ["diff", "--match", "shape", "--format", "csv", NOOPT, OPT], {},
     ["--match", "shape"]),
    ("diff-ort-occurrence-csv", ["diff", "-m", "occurrence", "--format", "csv", NOOPT, OPT], {},
     ["--match", "occurrence"]),
    ("diff-ort-shape-changed-130", ["diff", "--match", "shape", "--changed", "--min-change", "60",
                                    NOOPT, OPT], {"COLUMNS": "130"}, None),
    ("diff-ort-sort-ratio-json", ["diff", "--sort", "ratio", "--asc", "--format", "json", NOOPT,
                                  OPT], {}, None),
    ("diff-ort-runs-csv", ["diff", "--runs", "1:4", "--other-runs", "-3:", "--format", "csv",
                           NOOPT, OPT], {}, ["--runs", "1:4", "--other-runs=-3:"]),
    ("diff-ort-uneven-runs-csv", ["diff", "--runs", "1:5", "--other-runs", "-3:", "--format",
                                  "csv", NOOPT, OPT], {}, ["--runs", "1:5", "--other-runs=-3:"]),
    ("diff-ort-whole-csv", ["diff", "--whole-trace", "--format", "csv", NOOPT, OPT], {},
     ["--whole-trace"]),
    ("diff-mangled-kernel-csv", ["diff", "--by", "kernel", "--no-demangle", "--format", "csv",
                                 MANGLED, MANGLED], {}, ["--by", "kernel"]),
    ("diff-mangled-kernel-100", ["diff", "--by", "kernel", MANGLED, MANGLED],
     {"COLUMNS": "100"}, None),
    ("whatif-ne-table", ["whatif", "--speedup", "InnerProduct@256x256=2.5", "-x",
                         "InnerProduct@256x1024=3", NE], {"COLUMNS": "100"}, None),
    ("whatif-ort-csv", ["whatif", "--speedup", "Conv=2", "--format", "csv", OPT], {}, None),
    ("optable-ne-csv", ["report", "--by", "op-instance", "--format", "csv", NE], {}, None),
    ("optable-ort-csv", ["report", "--by", "op-instance", "--format", "csv", "--top", "4", OPT],
     {}, None),
]

# Cases on the collection, skipped when it is absent: (case, args, env, recompute args).
SHARED_CASES = [
    ("diff-hta-op-120", ["diff", "--top", "15", HTA % "control", HTA % "test"],
     {"COLUMNS": "120"}, None),
    ("diff-hta-op-csv", ["diff", "--format", "csv", HTA % "control", HTA % "test"], {},
     ["--match", "name"]),
    ("diff-hta-kernel-csv", ["diff", "--by", "kernel", "--no-demangle", "--format", "csv",
                             HTA % "control", HTA % "test"], {}, ["--by", "kernel"]),
    ("diff-resnet18-shape-csv", ["diff", "--match", "shape", "--format", "csv",
                                 GEN % "ort-resnet18-noopt.json", GEN % "ort-resnet18-opt.json"],
     {}, ["--match", "shape"]),
]


def resolve(args):
    """Collection paths made absolute; None when one is absent."""
    out = []
    for a in args:
        if a.startswith(("hta/", "generated/")):
            p = testlib.shared(a)
            if p is None:
                return None
            a = p
        out.append(a)
    return out


def recomputed(args, rargs):
    traces = [a for a in args if a.endswith((".json", ".gz"))]
    if "--no-demangle" not in args and "--by" in rargs:
        raise SystemExit("a kernel-level recomputation compares names as recorded: "
                         "give the case --no-demangle")
    buf = io.StringIO()
    old = sys.stdout
    sys.stdout = buf
    try:
        rc = diff_recompute.main(rargs + [os.path.join(testlib.ROOT, t) for t in traces])
    finally:
        sys.stdout = old
    return rc, buf.getvalue().encode("utf-8")


def check_case(name, args, env, rargs, shared_case):
    p = run(args, **env)
    label = name
    # a compare with --changed exits 1 when rows changed (checked in check_exit_status)
    ok = p.rc == (1 if "--changed" in args else 0)
    report(ok, label + " exit", p.describe())
    verified = True
    if rargs is not None:
        rc, want = recomputed(args, rargs)
        verified = rc == 0 and want == p.out
        report(verified, label + " equals diff_recompute.py", _diff(want, p.out))
    out_path = os.path.join(testlib.EXPECTED, name + ".out")
    err_path = os.path.join(testlib.EXPECTED, name + ".err")
    out, err = p.out, p.err
    if shared_case:
        # Absolute collection paths vary between machines.
        root = os.path.normpath(os.path.join(testlib.ROOT, "..", "shared")).encode()
        out = out.replace(root, b"../shared")
        err = err.replace(root, b"../shared")
    if UPDATE and ok and verified:
        open(out_path, "wb").write(out)
        if err:
            open(err_path, "wb").write(err)
        elif os.path.exists(err_path):
            os.unlink(err_path)
    want_out = open(out_path, "rb").read() if os.path.exists(out_path) else None
    want_err = open(err_path, "rb").read() if os.path.exists(err_path) else b""
    report(want_out == out, label + " stdout", _diff(want_out or b"", out))
    report(want_err == err, label + " stderr", _diff(want_err, err))


def _diff(a, b):
    import difflib
    return "".join(difflib.unified_diff(a.decode("utf-8", "replace").splitlines(True),
                                        b.decode("utf-8", "replace").splitlines(True),
                                        "expected", "got", n=1))[:3000]


def check_recompute_pairs():
    """Every ORT pair of the collection under every match mode."""
    pairs = [("ort-cnn-noopt.json", "ort-cnn-opt.json"),
             ("ort-resnet18-noopt.json", "ort-resnet18-opt.json"),
             ("ort-bert-mini-dyn-noopt.json.gz", "ort-bert-mini-dyn-opt.json")]
    for a, b in pairs:
        pa, pb = testlib.shared(GEN % a), testlib.shared(GEN % b)
        if not pa or not pb:
            print("skip %s vs %s: ../shared/traces is absent" % (a, b))
            continue
        for m in ("name", "shape", "occurrence"):
            p = run(["diff", "--match", m, "--format", "csv", pa, pb])
            rc, want = recomputed([pa, pb], ["--match", m])
            report(p.rc == 0 and rc == 0 and p.out == want,
                   "recompute %s vs %s --match %s" % (a, b, m), _diff(want, p.out))


def check_json_agrees_with_csv():
    c = run(["diff", "--match", "shape", "--format", "csv", NOOPT, OPT])
    j = run(["diff", "--match", "shape", "--format", "json", NOOPT, OPT])
    rows = list(csv.reader(io.StringIO(c.text)))
    doc = json.loads(j.text)
    ok = doc["columns"] == rows[0] and len(doc["rows"]) == len(rows) - 1
    for r, jr in zip(rows[1:], doc["rows"]):
        for title, cell in zip(rows[0], r):
            v = jr[title]
            if v is None:
                ok &= cell == ""
            elif isinstance(v, str):
                ok &= v == cell
            else:
                ok &= decimal.Decimal(cell) == decimal.Decimal(str(v))
    report(ok, "diff json agrees with csv")
    report(doc["meta"]["sides"] == {"base_only": 6, "other_only": 2, "both": 10},
           "diff json meta counts", str(doc["meta"]))


def check_default_mode():
    """`opscope BASE OTHER` to a pipe prints what `opscope diff BASE OTHER` prints."""
    a = run([NOOPT, OPT, "--match", "shape"], COLUMNS="100")
    b = run(["diff", NOOPT, OPT, "--match", "shape"], COLUMNS="100")
    report(a.rc == 0 and a.out == b.out and a.out, "opscope BASE OTHER prints the diff",
           a.describe())
    for opts in (["--whole-trace"], ["--short-names", "--by", "kernel"]):
        trace = NOOPT if opts[0] == "--whole-trace" else MANGLED
        a = run([trace, OPT if trace == NOOPT else trace, "-F", "csv"] + opts)
        b = run(["diff", trace, OPT if trace == NOOPT else trace, "-F", "csv"] + opts)
        report(a.rc == 0 and a.out == b.out and a.out,
               "opscope BASE OTHER %s prints the diff" % " ".join(opts), a.describe())


def csv_rows(p):
    return list(csv.DictReader(io.StringIO(p.text))) if p.rc == 0 else []


def us_ns(text):
    return int(decimal.Decimal(text) * 1000)


def report_totals(trace, *args, col="total_us"):
    """{name: ns of col} of `opscope report`, rows of the same name summed."""
    out = {}
    for r in csv_rows(run(["report", "-F", "csv", trace] + list(args))):
        out[r["name"]] = out.get(r["name"], 0) + us_ns(r[col])
    return out


def check_names_as_report():
    """diff and whatif name kernels as report does in every style (demangled by
    default), and diff rows pair on those names: each side's total of a name is
    report's total of the rows of that name."""
    for style in STYLES:
        want = report_totals(MANGLED, "--by", "kernel", *style)
        d = csv_rows(run(["diff", "--by", "kernel", "-F", "csv", MANGLED, MANGLED] + style))
        got = {r["name"]: us_ns(r["base_total_us"]) for r in d}
        report(got and got == want and all(r["side"] == "=" for r in d),
               "diff --by kernel %s: names and totals as report" % " ".join(style),
               "%s\n%s" % (sorted(got.items()), sorted(want.items())))
        w = csv_rows(run(["whatif", "--by", "kernel", "-x", "nothing=2", "-F", "csv", MANGLED] +
                         style))
        got = {}
        for r in w:
            got[r["name"]] = got.get(r["name"], 0) + us_ns(r["total_us"])
        report(got and got == want, "whatif --by kernel %s: names as report" % " ".join(style))
    demangled = set(report_totals(MANGLED, "--by", "kernel"))
    mangled = set(report_totals(MANGLED, "--by", "kernel", "--no-demangle"))
    report(demangled != mangled, "the mangled trace has names that demangle")
    # A rule matches the name as shown: demangled text only matches demangled names.
    rule = ["whatif", "--by", "kernel", "-x", "void aiter::add_rmsnorm*=2", "-F", "csv", MANGLED]
    hit = [r for r in csv_rows(run(rule)) if r["factor"] != "1.000"]
    miss = [r for r in csv_rows(run(rule + ["--no-demangle"])) if r["factor"] != "1.000"]
    report(len(hit) == 3 and not miss, "whatif rules match kernel names as shown",
           "%d rows hit, %d with --no-demangle" % (len(hit), len(miss)))
    # --demangler runs for diff as for report.
    a = run(["diff", "--by", "kernel", "-F", "csv", "--demangler", "c++filt", MANGLED, MANGLED])
    names = {r["name"] for r in csv_rows(a)}
    want = set(report_totals(MANGLED, "--by", "kernel", "--demangler", "c++filt"))
    report(a.rc == 0 and names == want, "diff --demangler c++filt names as report",
           a.describe())


def check_runs_as_report():
    """--run-range and --whole-trace select the same runs in diff, whatif and
    report --by op-instance as in report."""
    for opts, level, trace in ((["--run-range", "embedding/0"], "kernel", NVPROF),
                               (["--whole-trace"], "op", OPT)):
        want = report_totals(trace, "--by", level, "--no-demangle", *opts)
        plain = report_totals(trace, "--by", level, "--no-demangle")
        p = run(["diff", "--by", level, "--no-demangle", "-F", "csv", trace, trace] + opts)
        got = {r["name"]: us_ns(r["base_total_us"]) for r in csv_rows(p)}
        report(got and got == want and want != plain,
               "diff %s: each side's runs as report's" % " ".join(opts), p.describe())
        report(("using" not in p.err.decode() and
                p.err.decode().count("NVTX range" if "--run-range" in opts else
                                     "whole trace") == 2),
               "diff %s: stderr names both sides' runs" % " ".join(opts), p.describe())
        p = run(["whatif", "--by", level, "--no-demangle", "-x", "nothing=2", "-F", "csv",
                 trace] + opts)
        col = "total_us" if level == "kernel" else "self_us"  # what whatif projects
        got = {r["name"]: us_ns(r[col]) for r in csv_rows(p)}
        want = report_totals(trace, "--by", level, "--no-demangle", *opts, col=col)
        report(got and got == want, "whatif %s: runs as report's" % " ".join(opts),
               p.describe())
    # ORT's default skips the warm-up run 0; the whole trace holds it.
    a = csv_rows(run(["report", "--by", "op-instance", "-F", "csv", OPT]))
    b = csv_rows(run(["report", "--by", "op-instance", "-F", "csv", "--whole-trace", OPT]))
    report(a and [int(r["count"]) + 1 for r in a] == [int(r["count"]) for r in b],
           "report --by op-instance --whole-trace takes every run",
           "%s\n%s" % ([r["count"] for r in a], [r["count"] for r in b]))


def check_category_as_report():
    """diff --by category pairs report --by category's rows: count, self and
    device time of each side are report's; total is device time on a pair of
    GPU traces, self time on a pair of CPU traces (ops of one category nest)."""
    for base, other, col in (("samples/kineto-2021-resnet50.json.gz",
                              "samples/kineto-sampled-rank0.json.gz", "device_us"),
                             (NOOPT, OPT, "self_us")):
        want = []
        for t in (base, other):
            rows = csv_rows(run(["report", "--by", "category", "-F", "csv", t]))
            want.append({r["name"]: r for r in rows})
        d = csv_rows(run(["diff", "--by", "category", "-F", "csv", base, other]))
        names = set(want[0]) | set(want[1])
        bad = []
        for r in d:
            for i, side in enumerate(("base", "other")):
                w = want[i].get(r["name"])
                got = (us_ns(r[side + "_total_us"]), int(r[side + "_count"]),
                       us_ns(r[side + "_self_us"]), us_ns(r[side + "_device_us"]))
                exp = ((us_ns(w[col]), int(w["count"]), us_ns(w["self_us"]),
                        us_ns(w.get("device_us", "0"))) if w else (0, 0, 0, 0))
                if got != exp:
                    bad.append((r["name"], side, got, exp))
            sign = "=" if r["name"] in want[0] and r["name"] in want[1] else \
                   "-" if r["name"] in want[0] else "+"
            if r["side"] != sign:
                bad.append((r["name"], r["side"], sign))
        report(d and not bad and {r["name"] for r in d} == names,
               "diff --by category %s: rows as report's, total = %s" % (os.path.basename(base), col),
               "%s" % bad[:5])


def check_whatif_category():
    """A rule on a category (whatif --by category -x GEMM=2) projects what rules
    on every op of that category project (the categories of report --by op)."""
    trace = "samples/kineto-2021-resnet50.json.gz"
    ops = csv_rows(run(["report", "--by", "op", "--columns", "name,category", "-F", "csv",
                        trace]))
    rules = []
    for r in ops:
        if r["category"] == "CONV_fwd":
            rules += ["-x", r["name"] + "=2"]
    a = run(["whatif", "--by", "category", "-x", "CONV_fwd=2", trace])
    b = run(["whatif", "--by", "op"] + rules + [trace])
    pa = [ln for ln in a.text.splitlines() if ln.startswith("# projected")]
    pb = [ln for ln in b.text.splitlines() if ln.startswith("# projected")]
    conv = [r for r in csv_rows(run(["whatif", "--by", "category", "-x", "CONV_fwd=2", "-F",
                                     "csv", trace])) if r["name"] == "CONV_fwd"]
    report(rules and pa and pa == pb and conv and conv[0]["factor"] == "2.000",
           "whatif -x CONV_fwd=2 at the category level equals rules on its ops",
           "%s\n%s" % (pa, pb))


def check_json_meta():
    """diff's sides and totals and whatif's projected are JSON objects of
    numbers that agree with the rows and the text summary."""
    d = json.loads(run(["diff", "-F", "json", NOOPT, OPT]).text)
    m = d["meta"]
    # ORT CPU profiles: the grand totals are self time (ops may nest)
    base = sum(decimal.Decimal(str(r["base_self_us"])) for r in d["rows"])
    counts = {"-": 0, "+": 0, "=": 0}
    for r in d["rows"]:
        counts[r["side"]] += 1
    report(m["sides"] == {"base_only": counts["-"], "other_only": counts["+"],
                          "both": counts["="]} and
           decimal.Decimal(str(m["totals"]["base_us"])) == base and
           m["totals"]["measure"] == "self time",
           "diff json meta: sides and totals as numbers", "%s %s" % (m["sides"], m["totals"]))
    p = run(["whatif", "-x", "Conv=2", "-F", "json", OPT])
    w = json.loads(p.text)["meta"]["projected"]
    text = run(["whatif", "-x", "Conv=2", OPT]).text
    want = "host busy %.3f us -> %.3f us (%.3fx)" % (w["before_us"], w["after_us"], w["speedup"])
    report(w["base"] == "host busy" and want in text and w["affected_pct"] > 0,
           "whatif json meta: projected as numbers, as the text says", "%s\n%s" % (w, want))


def check_totals_recompute():
    """The header's totals never sum nested time: on nested traces they are
    each side's self time (host busy), on GPU pairs the device time the
    ops launched, both recomputed by recompute_measures.py."""
    nested = os.path.join(testlib.ROOT, "tests/data/measures-nested.json")
    cpu = os.path.join(testlib.ROOT, "samples/torch-resnet18-infer.json")
    pairs = [(nested, cpu, "self time")]
    if testlib.shared(HTA % "control"):
        pairs.append((testlib.shared(HTA % "control"), testlib.shared(HTA % "test"),
                      "device time"))
    for base, other, measure in pairs:
        m = json.loads(run(["diff", "-F", "json", base, other]).text)["meta"]["totals"]
        want = []
        for path in (base, other):
            r = recompute_measures.Measures(path)
            want.append(r.bases()[0] if measure == "self time" else r.attributed()[0])
        got = [us_ns(str(m["base_us"])), us_ns(str(m["other_us"]))]
        report(m["measure"] == measure and got == want,
               "diff totals of %s vs %s: %s recomputed" % (
                   os.path.basename(base), os.path.basename(other), measure),
               "%s: got %s, want %s" % (m, got, want))


def check_runs_of_one_trace():
    """One trace and --other-runs (or the same path twice) compares two run
    selections of it, loaded once: the same output as the trace against a
    copy of it (loaded twice), from diff, from the default command (a pipe)
    and from standard input; each side's rows are report's on its runs."""
    trace = "samples/kineto-2021-resnet50.json.gz"
    runs = ["-r", "1", "--other-runs", "2", "-F", "csv", "-n", "0"]
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "copy.json.gz")
        shutil.copy(os.path.join(testlib.ROOT, trace), copy)
        twice = run(["diff"] + runs + [trace, copy])
    once = run(["diff"] + runs + [trace])
    same = run(["diff"] + runs + [trace, trace])
    default = run(runs + [trace])
    with open(os.path.join(testlib.ROOT, trace), "rb") as f:
        piped = testlib.run(["diff"] + runs + ["-", "-"], stdin=f.read())
    got = (once, same, default, piped)
    report(twice.rc == 0 and twice.text and all(p.text == twice.text for p in got),
           "diff -r 1 --other-runs 2 TRACE (and TRACE TRACE, the default command, - -) "
           "equals TRACE COPY", " / ".join(p.describe() for p in (twice,) + got))
    rows = {r["name"]: r for r in csv_rows(once)}
    ok = bool(rows)
    for side, spec in (("base", "1"), ("other", "2")):
        for name, ns in report_totals(trace, "-r", spec).items():
            ok = ok and name in rows and us_ns(rows[name][side + "_total_us"]) == ns
    report(ok, "diff of one trace's runs: each side's totals are report's on its runs")


def check_changed_subset():
    full = list(csv.reader(io.StringIO(run(["diff", "-m", "shape", "-F", "csv", NOOPT,
                                           OPT]).text)))
    ch = list(csv.reader(io.StringIO(run(["diff", "-m", "shape", "-F", "csv", "--changed",
                                         "--min-change", "60", NOOPT, OPT]).text)))
    want = [r for r in full[1:] if r[1] != "=" or (r[5] and abs(float(r[5])) >= 60)]
    report(ch[1:] == want and len(want) < len(full) - 1, "--changed keeps -/+ and big changes",
           "%d of %d" % (len(ch) - 1, len(full) - 1))


def check_exit_status():
    """--changed exits 1 when rows are left (as diff(1)), 0 when none; never without it."""
    def rows(p):
        return len(list(csv.reader(io.StringIO(p.text)))) - 1 if p.rc in (0, 1) else -1

    cases = [
        # args, expected exit, expected rows or None
        (["diff", "-F", "csv", "--changed", NOOPT, OPT], 1, None),
        (["diff", "-F", "csv", "--changed", OPT, OPT], 0, 0),
        (["diff", "-F", "csv", OPT, OPT], 0, None),
        (["diff", "-F", "csv", NOOPT, OPT], 0, None),
        # --top cuts the output, not the verdict
        (["diff", "-F", "csv", "--changed", "--top", "1", NOOPT, OPT], 1, 1),
        (["-F", "csv", "--changed", NOOPT, OPT], 1, None),
        (["-F", "csv", "--changed", OPT, OPT], 0, 0),
    ]
    for args, want, nrows in cases:
        p = run(args)
        n = rows(p)
        report(p.rc == want and n >= 0 and (nrows is None or n == nrows) and
               (want == 0 or n > 0),
               "exit %d, %s rows: opscope %s" % (want, nrows, " ".join(args)), p.describe())
    # --min-change: with only '=' rows, a threshold above every change exits 0
    same_ops = ["diff", "-F", "csv", "-m", "shape", "--changed", "--runs", "1:4",
                "--other-runs", "5:8", OPT, OPT]
    loose = run(same_ops)
    strict = run(same_ops[:-2] + ["--min-change", "1000000", OPT, OPT])
    report(loose.rc == 1 and rows(loose) > 0 and strict.rc == 0 and rows(strict) == 0,
           "--min-change above every change: exit 0 and no rows (without it: 1)",
           loose.describe() + strict.describe())


def check_whatif_recompute():
    t = recompute.Trace(os.path.join(testlib.ROOT, OPT))
    want = {}
    total = 0
    for r in t.rows("op"):
        f = 2 if r["name"] == "Conv" else 1
        proj = decimal.Decimal(r["total"]) / f
        ns = int(proj.quantize(decimal.Decimal(1), decimal.ROUND_HALF_UP))
        want[r["name"]] = recompute.us_exact(ns)
        total += r["total"]
    rows = list(csv.DictReader(io.StringIO(run(["whatif", "-x", "Conv=2", "-F", "csv",
                                                OPT]).text)))
    got = {r["name"]: r["projected_us"] for r in rows}
    report(got == want, "whatif projected_us recomputed", "%s\n%s" % (got, want))
    p = run(["whatif", "-x", "Conv=2", "-F", "csv", OPT])
    conv = next(r for r in t.rows("op") if r["name"] == "Conv")["total"]
    ceiling = "%.3fx" % (total / (total - conv))
    report(("ceiling %s" % ceiling).encode() in p.err, "whatif ceiling recomputed",
           p.err.decode() + " want " + ceiling)


def nested_whatif(trace, rules):
    """What whatif's summary must say, recomputed from whatif.h's model on
    recompute_measures.py's ops: each op's self (and own device) time divided
    by the factor of the innermost op around it that a rule names."""
    m = recompute_measures.Measures(trace)
    sel = m.selection(None)
    ops = [o for o in m.ops if o["run"] is not None and o["run"] in sel]

    def factor(o):
        while o is not None:
            if o["name"] in rules:
                return rules[o["name"]]
            o = o["parent"]
        return 1

    busy = sum(o["self"] for o in ops)
    saved = sum(o["self"] - o["self"] / factor(o) for o in ops)
    affected = sum(o["self"] for o in ops if factor(o) != 1)
    dev_saved = sum(o["dev"] - o["dev"] / factor(o) for o in ops)
    device_time, runs = m.bases(None)[1], len(sel)
    text = "host busy %s us -> %s us (%.3fx), %.2f%% of it affected, ceiling %s" % (
        recompute.us_exact(busy // runs), "%.3f" % ((busy - saved) / runs / 1000),
        busy / (busy - saved), 100.0 * affected / busy,
        "%.3fx" % (busy / (busy - affected)) if affected < busy else "unbounded")
    if device_time:
        text += "; device time %s us -> %s us" % (
            recompute.us_exact(device_time // runs),
            "%.3f" % ((device_time - dev_saved) / runs / 1000))
    return text


NUM = r"[0-9]+\.[0-9]+"


def check_whatif_nested():
    """whatif on nested ops: rules on an op and on ops inside it do not compound."""
    traces = [os.path.join(testlib.ROOT, "tests/data/measures-nested.json")]
    bert = testlib.shared("tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz")
    traces += [bert] if bert else []
    for trace in traces:
        for rules in ({"aten::linear": 2}, {"aten::linear": 2, "aten::addmm": 2},
                      {"aten::linear": 2, "aten::addmm": 4}, {"aten::addmm": 3}):
            args = ["whatif", "-F", "csv", trace]
            for k, v in rules.items():
                args += ["-x", "%s=%g" % (k, v)]
            p = run(args)
            want = nested_whatif(trace, rules)
            got = p.err.decode()
            got = got[got.find("host busy"):]
            # the same words; numbers within a rounding step of the last digit
            same = p.rc == 0 and re.sub(NUM, "#", want) == re.sub(NUM, "#", got)[:len(
                re.sub(NUM, "#", want))] and all(
                abs(float(a) - float(b)) <= 0.0015 for a, b in
                zip(re.findall(NUM, want), re.findall(NUM, got)))
            report(same, "whatif %s on %s recomputed" % (rules, os.path.basename(trace)),
                   "want %r in %r" % (want, got))


ERRORS = [
    ("one trace", ["diff", OPT]),
    ("three traces", ["diff", OPT, OPT, OPT]),
    ("bad match", ["diff", "--match", "shapes", NOOPT, OPT]),
    ("bad sort", ["diff", "--sort", "p50", NOOPT, OPT]),
    ("bad min-change", ["diff", "--min-change", "x", NOOPT, OPT]),
    ("missing other", ["diff", OPT, "samples/no-such.json"]),
    ("bad other runs", ["diff", "--other-runs", "99", NOOPT, OPT]),
    ("one trace, bad other runs", ["diff", "--other-runs", "99", OPT]),
    ("whatif no rule", ["whatif", OPT]),
    ("whatif bad rule", ["whatif", "--speedup", "Conv=0", OPT]),
    ("whatif tiny factor", ["whatif", "--speedup", "Conv=1e-308", OPT]),
    ("whatif huge factor", ["whatif", "--speedup", "Conv=2e6", OPT]),
    ("whatif bad csv", ["whatif", "--speedup-csv", "samples/no-such.csv", OPT]),
    ("whatif bad sort", ["whatif", "-x", "Conv=2", "--sort", "delta", OPT]),
    ("whatif two traces", ["whatif", "-x", "Conv=2", OPT, NOOPT]),
    ("bad run-range", ["diff", "--run-range", "no-such-range", NVPROF, NVPROF]),
    ("whatif bad run-range", ["whatif", "-x", "Conv=2", "--run-range", "(", OPT]),
    ("bad demangler", ["diff", "--by", "kernel", "--demangler", "false", MANGLED, MANGLED]),
]


def check_errors():
    for name, args in ERRORS:
        p = run(args)
        lines = p.err_lines
        report(p.rc == 2 and len(lines) == 1 and lines[0].startswith("opscope: ") and not p.out,
               "error: " + name, p.describe())


def main():
    for name, args, env, rargs in CASES:
        check_case(name, args, env, rargs, False)
    for name, args, env, rargs in SHARED_CASES:
        full = resolve(args)
        if full is None:
            print("skip %s: ../shared/traces is absent" % name)
            continue
        check_case(name, full, env, rargs, True)
    check_recompute_pairs()
    check_json_agrees_with_csv()
    check_default_mode()
    check_names_as_report()
    check_runs_as_report()
    check_category_as_report()
    check_whatif_category()
    check_json_meta()
    check_totals_recompute()
    check_runs_of_one_trace()
    check_changed_subset()
    check_exit_status()
    check_whatif_recompute()
    check_whatif_nested()
    check_errors()
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
