#!/usr/bin/env python3
"""Check `opscope report --by category` against tests/tools/recompute_category.py.

recompute_category.py applies the op category rule (man/opscope.1, Op
categories) independently of the C code, so a disagreement means one of the
two is wrong: each FAIL names the trace, the category and the column.
Per trace (the bundled GPU samples, and when ../shared/traces is present a
few GPU traces of the collection): count, self_us, device_us and kernels of
every category row exactly; the rows' device_us add up to the header's
device_time_us and their self_us to host_busy_us. Also: --categories moves
an op to the user's category (whatif's rows too), and a bad rule line is one error line naming
the file and line, exit status 2.
"""
import csv
import io
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testlib  # noqa: E402
sys.path.insert(0, os.path.join(testlib.ROOT, "tests", "tools"))
import recompute  # noqa: E402
import recompute_category as rc  # noqa: E402

SAMPLES = ["kineto-sampled-rank0.json.gz", "kineto-2021-resnet50.json.gz",
           "rocm-torch-compile-triton.json.gz"]
SHARED = ["hta/trace_filter/sampled_rank-0.json.gz",
          "hta/alexnet/benchmark_result_2869224_1695835535_trace.json.gz",
          "hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
          "hta/trace_diff/control.json.gz"]


def header(text, key):
    for line in text.splitlines():
        if line.startswith("# %s: " % key):
            return line.split(": ", 1)[1]
    return None


def check_trace(path):
    problems = []
    p = testlib.run(["report", "--by", "category", "--format", "csv", "--top", "0", path],
                    timeout=300)
    if p.rc != 0:
        return ["opscope: %s" % p.describe()]
    text = p.text
    got = {r["name"]: r for r in csv.DictReader(
        io.StringIO("\n".join(l for l in text.splitlines() if not l.startswith("#"))))}
    want, host_busy, device_time = rc.rows(os.path.join(testlib.ROOT, path))
    if set(got) != set(want):
        problems.append("categories: opscope %s, recomputed %s" % (sorted(got), sorted(want)))
    for name in sorted(set(got) & set(want)):
        g, w = got[name], want[name]
        for col, val in (("count", str(w["count"])), ("self_us", recompute.us_exact(w["self"])),
                         ("device_us", recompute.us_exact(w["dev"])),
                         ("kernels", str(w["kernels"]))):
            if g.get(col) != val:
                problems.append("%s %s: opscope %s, recomputed %s" % (name, col, g.get(col), val))
    sums = {"device_us": sum(w["dev"] for w in want.values()),
            "self_us": sum(w["self"] for w in want.values())}
    if sums["device_us"] != device_time:
        problems.append("recomputed device_us adds up to %d ns, not device_time %d" %
                        (sums["device_us"], device_time))
    if sums["self_us"] != host_busy:
        problems.append("recomputed self_us adds up to %d ns, not host_busy %d" %
                        (sums["self_us"], host_busy))
    for col, base in (("device_us", "device_time_us"), ("self_us", "host_busy_us")):
        hv = header(text, base)
        total = sum(round(float(r[col]) * 1000) for r in got.values() if r.get(col))
        if hv is not None and round(float(hv) * 1000) != total:
            problems.append("opscope %s adds up to %d ns, header %s %s" % (col, total, base, hv))
    return problems


def csv_rows(p):
    """The CSV rows of a run of opscope by name (none when it failed)."""
    return {r["name"]: r for r in csv.DictReader(io.StringIO(
        "\n".join(l for l in p.text.splitlines() if not l.startswith("#"))))} if p.rc == 0 else {}


def check_whatif_user_file(trace, rules):
    """whatif --by category: the rows of report --by category under the same rules, and a
    rule on a category halves its rows' self time (that of the ops nested in them too)."""
    report = csv_rows(testlib.run(["report", "--by", "category", "--format", "csv", "--top", "0",
                                   "--categories", rules, trace]))
    whatif = csv_rows(testlib.run(["whatif", "--by", "category", "--format", "csv", "--top",
                                   "0", "--categories", rules, "-x", "reduce=2", trace]))
    if not report or set(report) != set(whatif):
        return ["rows: report %s, whatif %s" % (sorted(report), sorted(whatif))]
    problems = []
    for name, r in sorted(report.items()):
        w = whatif[name]
        if (w["count"], w["self_us"]) != (r["count"], r["self_us"]):
            problems.append("%s: whatif count %s self_us %s, report %s %s" % (
                name, w["count"], w["self_us"], r["count"], r["self_us"]))
    if whatif["reduce"]["factor"] != "2.000":
        problems.append("reduce: factor %s, want 2.000" % whatif["reduce"]["factor"])
    return problems


def check_user_file(res):
    trace = "samples/kineto-2021-resnet50.json.gz"
    with tempfile.TemporaryDirectory() as d:
        good = os.path.join(d, "good.txt")
        with open(good, "w") as f:
            f.write("# mine\nreduce op aten::cudnn_convolution\n")
        p = testlib.run(["report", "--by", "op", "--columns", "name,category", "--format",
                         "csv", "--categories", good, "--top", "0", trace])
        rows = {r["name"]: r["category"] for r in csv.DictReader(
            io.StringIO("\n".join(l for l in p.text.splitlines()
                                  if not l.startswith("#"))))} if p.rc == 0 else {}
        res.check("user file moves an op", [] if rows.get("aten::cudnn_convolution") ==
                  "reduce" and rows.get("aten::cudnn_batch_norm") == "norm"
                  else ["rc %s, rows %r" % (p.rc, {k: rows.get(k) for k in (
                      "aten::cudnn_convolution", "aten::cudnn_batch_norm")})])
        res.check("whatif takes the user's categories", check_whatif_user_file(trace, good))
        bad = os.path.join(d, "bad.txt")
        with open(bad, "w") as f:
            f.write("GEMM op aten::mm\n\nGEMM operator x\n")
        p = testlib.run(["report", "--by", "category", "--categories", bad, trace])
        lines = p.err_lines
        want = "opscope: %s: line 3: expected 'op' or 'kernel'" % bad
        res.check("bad rule line", [] if p.rc == 2 and len(lines) == 1 and
                  lines[0].startswith(want) else ["rc %s, stderr %r" % (p.rc, lines)])


def main():
    res = testlib.Results()
    traces = []
    for f in SAMPLES:
        if os.path.exists(testlib.sample(f)):
            traces.append("samples/" + f)
        else:
            res.fail("samples/" + f, "missing")
    traces += testlib.shared_traces(res, SHARED)
    for t in traces:
        res.check("category " + os.path.relpath(t, testlib.ROOT), check_trace(t))
    check_user_file(res)
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
