#!/usr/bin/env python3
"""Check `opscope report --by module` against tests/tools/recompute_module.py.

recompute_module.py applies the module view's definitions (man/opscope.1,
Module view) independently of the C code, so a disagreement means one of the
two is wrong: each FAIL names the trace, the path and the column.
Per trace (tests/data/module-hand.json, and when ../shared/traces is present
the Kineto traces of the collection recorded with module events), with the
default runs and with --whole-trace:
- count, total_us, self_us, device_us, device_total_us and kernels of every
  path, exactly, and the same set of paths;
- the header's host_busy_us and device_time_us equal the recomputed bases;
  self_pct and device_pct are the shares of them (to 0.01);
- the header's outside_modules_device_us is device_time_us less the
  recomputed rows' device time, and its unattributed_device_us and
  unattributed_why (no op launched: part of it) those of
  recompute_measures.py;
- invariants: device_us summed over the rows plus outside_modules_device_us
  is device_time_us; self_us summed is at most host_busy_us;
  a path's device_total_us is its device_us plus its children's
  device_total_us (so at least their sum);
- the kernel level's module column: each kernel row's most frequent module
  path among its kernels' (ties to the path seen first), recomputed;
- tree --modules --format csv: the same rows, parents before children;
- a trace without module events: an empty level, exit 0, one note line.
"""
import csv
import io
import os
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testlib  # noqa: E402
sys.path.insert(0, os.path.join(testlib.ROOT, "tests", "tools"))
import recompute_module as rm  # noqa: E402
import recompute_measures  # noqa: E402
import run_measures_tests  # noqa: E402

HAND = "tests/data/module-hand.json"
SHARED = ["tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz",
          "tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
          "tracelens/b200/eager_trace.json.gz",
          "tracelens/mi300/resnet_act_checkpoint.json.gz"]
COLS = (("count", "count"), ("total_us", "total"), ("self_us", "self"),
        ("device_us", "dev"), ("device_total_us", "dev_total"), ("kernels", "kernels"))


def parse(text):
    header = {}
    for line in text.splitlines():
        if line.startswith("# ") and ": " in line:
            k, v = line[2:].split(": ", 1)
            header[k] = v
    body = "\n".join(l for l in text.splitlines() if not l.startswith("#"))
    return header, list(csv.DictReader(io.StringIO(body)))


def ns_of(us_text):
    whole, _, frac = us_text.partition(".")
    sign = -1 if whole.startswith("-") else 1
    return sign * (abs(int(whole)) * 1000 + int((frac + "000")[:3]))


def check_trace(path, whole):
    problems = []
    args = ["report", "--by", "module", "--format", "csv", "--top", "0"]
    args += ["--whole-trace"] if whole else []
    p = testlib.run(args + [path], timeout=300)
    if p.rc != 0:
        return ["opscope: %s" % p.describe()]
    _, got_rows = parse(p.text)
    # the bases are in the table's header lines (CSV has none)
    t = testlib.run(["report", "--by", "module", "--top", "1"] +
                    (["--whole-trace"] if whole else []) + [path], timeout=300)
    header, _ = parse(t.text) if t.rc == 0 else ({}, [])
    for key in ("host_busy_us", "device_time_us"):
        if key not in header:
            problems.append("table header lacks %s" % key)
    got = {r["name"]: r for r in got_rows}
    want, busy, device_time = rm.compute(path, whole)
    if set(got) != set(want):
        problems.append("paths only in opscope: %s; only recomputed: %s" %
                        (sorted(set(got) - set(want))[:5], sorted(set(want) - set(got))[:5]))
    for name in sorted(set(got) & set(want)):
        g, w = got[name], want[name]
        for col, key in COLS:
            val = str(w[key]) if key in ("count", "kernels") else rm.us(w[key])
            if g.get(col) != val:
                problems.append("%s %s: opscope %s, recomputed %s" % (name, col, g.get(col), val))
        for col, key, base in (("self_pct", "self", busy), ("device_pct", "dev", device_time)):
            if col in g and base and abs(float(g[col]) - 100.0 * w[key] / base) > 0.0051:
                problems.append("%s %s: opscope %s, recomputed %.4f" %
                                (name, col, g[col], 100.0 * w[key] / base))
    for key, val in (("host_busy_us", busy), ("device_time_us", device_time)):
        if key in header and ns_of(header[key]) != val:
            problems.append("header %s %s, recomputed %s" % (key, header[key], rm.us(val)))
    # what no module launched, and the part of it no op launched (recompute_measures)
    outside = device_time - sum(w["dev"] for w in want.values())
    if device_time:
        got_out = header.get("outside_modules_device_us")
        if got_out is None or ns_of(got_out) != outside:
            problems.append("header outside_modules_device_us %s, recomputed %s" %
                            (got_out, rm.us(outside)))
        no_op = recompute_measures.Measures(path, whole).unattributed(None)
        got_u = (header.get("unattributed_device_us"), header.get("unattributed_why"))
        want_u = run_measures_tests.unattributed_want(no_op)
        if got_u != want_u:
            problems.append("header unattributed: opscope %r, recomputed %r" % (got_u, want_u))
        if got_out is not None and ns_of(got_out) < sum(ns for ns, _ in no_op.values()):
            problems.append("outside_modules_device_us %s < what no op launched" % got_out)
    # invariants, on opscope's own numbers
    dev = sum(ns_of(r["device_us"]) for r in got_rows if "device_us" in r)
    if got_rows and "device_us" in got_rows[0] and dev + ns_of(
            header.get("outside_modules_device_us", "0")) != ns_of(
            header.get("device_time_us", "0")):
        problems.append("device_us sums to %s + outside_modules_device_us %s != "
                        "device_time_us %s" % (rm.us(dev), header.get("outside_modules_device_us"),
                                               header.get("device_time_us")))
    self_sum = sum(ns_of(r["self_us"]) for r in got_rows)
    if self_sum > ns_of(header.get("host_busy_us", "0")):
        problems.append("self_us sums to %s > host_busy_us %s" %
                        (rm.us(self_sum), header.get("host_busy_us")))
    if got_rows and "device_total_us" in got_rows[0]:
        kids = {}
        for name in got:
            if "/" in name:
                kids.setdefault(name.rsplit("/", 1)[0], []).append(name)
        for name, r in got.items():
            under = sum(ns_of(got[k]["device_total_us"]) for k in kids.get(name, []))
            if ns_of(r["device_total_us"]) != ns_of(r["device_us"]) + under:
                problems.append("%s: device_total_us %s != device_us %s + children %s" %
                                (name, r["device_total_us"], r["device_us"], rm.us(under)))
    return problems


def check_tree(path, opts=()):
    """tree --modules --format csv: report's rows (with the same opts), parents before
    children."""
    p = testlib.run(["tree", "--modules", "--format", "csv"] + list(opts) + [path], timeout=300)
    r = testlib.run(["report", "--by", "module", "--format", "csv", "--top", "0"] + list(opts) +
                    [path], timeout=300)
    if p.rc != 0 or r.rc != 0:
        return ["opscope: %s / %s" % (p.describe(), r.describe())]
    _, tree = parse(p.text)
    report = {x["name"]: x for x in parse(r.text)[1]}
    problems, seen = [], set()
    if [x["name"] for x in tree] and set(x["name"] for x in tree) != set(report):
        problems.append("tree paths differ from report's")
    for x in tree:
        name = x["name"]
        if "/" in name and name.rsplit("/", 1)[0] not in seen:
            problems.append("%s before its parent" % name)
        seen.add(name)
        for col in ("count", "total_us", "self_us", "device_us", "device_total_us", "kernels"):
            if col in x and x[col] != report.get(name, {}).get(col):
                problems.append("%s %s: tree %s, report %s" % (name, col, x[col],
                                                                report.get(name, {}).get(col)))
    return problems[:10]


def kernel_modules(path):
    """Per kernel name (cat kernel), the most frequent module path; ties to the path seen first."""
    xs, _ = rm.load(path)
    p = testlib.run(["report", "--by", "kernel", "--columns", "name,count,module", "--format",
                     "csv", "--top", "0", "--whole-trace", "--no-demangle", path], timeout=300)
    if p.rc != 0:
        return None, ["opscope: %s" % p.describe()]
    _, rows = parse(p.text)
    return {r["name"]: r["module"] for r in rows}, []


def check_kernel_column(path):
    got, problems = kernel_modules(path)
    if problems:
        return problems
    want = rm.kernel_modules(path)
    for name in sorted(set(got) | set(want)):
        if got.get(name) != want.get(name, ""):
            problems.append("%s: opscope %r, recomputed %r" % (name[:60], got.get(name),
                                                               want.get(name)))
    return problems[:10]


def check_empty(res):
    p = testlib.run(["report", "--by", "module", "--format", "csv", "samples/kineto-sampled-rank0.json.gz"])
    _, rows = parse(p.text)
    notes = [l for l in p.err_lines if "nn.Module" in l]
    res.check("no module events: empty, one note", [] if p.rc == 0 and not rows and
              len(notes) == 1 else ["rc %s, %d rows, stderr %r" % (p.rc, len(rows), p.err_lines)])


def main():
    res = testlib.Results()
    traces = [os.path.join(testlib.ROOT, HAND)]
    traces += testlib.shared_traces(res, SHARED)
    for t in traces:
        name = os.path.relpath(t, testlib.ROOT)
        for whole in (False, True):
            res.check("module %s%s" % (name, " --whole-trace" if whole else ""),
                      check_trace(t, whole))
        res.check("kernel module column " + name, check_kernel_column(t))
        res.check("tree --modules " + name, check_tree(t))
    # --ops makes other events the ops of the module level, in both
    hand = os.path.join(testlib.ROOT, HAND)
    plain = testlib.run(["tree", "--modules", "--format", "csv", hand]).out
    ops = ["--ops", "user_annotation"]
    res.check("tree --modules --ops user_annotation", check_tree(hand, ops) or (
        [] if testlib.run(["tree", "--modules", "--format", "csv"] + ops + [hand]).out != plain
        else ["--ops changed nothing"]))
    check_empty(res)
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
