#!/usr/bin/env python3
"""Tests of `opscope slice` (the selected runs as a Chrome trace).

- golden: the help (tests/cli/expected/slice-help.out; `--update` rewrites it);
- a slice of runs SPEC, loaded again, gives the same `report` (with --runs
  all: an ORT slice's run 0 would be taken for a warm-up) as the selection
  it came from at the op, kernel and run levels (CSV; the runs' indexes
  aside), on the samples with runs and a few ../shared/traces
  (skipped cleanly when absent); with a filter, the matching ops' rows are
  the same but for the percentages (their base is the slice's);
- the slice is valid JSON (json.load; gzip.open for .gz), an object with
  traceEvents and the input's other top-level keys, with process names for
  the pids of its events, each complete event's args as in the input (an
  empty args object is left out), and flows whole, as in the input;
- errors are one line and exit 2.
"""
import decimal
import gzip
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testlib  # noqa: E402
import recompute  # noqa: E402

KINETO21 = "samples/kineto-2021-resnet50.json.gz"
CASES = [
    (KINETO21, "3"),
    (KINETO21, "0"),
    ("samples/kineto-sampled-rank0.json.gz", "1"),
    ("samples/ort-cnn-opt.json", "3"),
    ("samples/ort-cnn-noopt.json", "5"),
    ("samples/ort-resnet18-opt.json", "3"),
    ("samples/rocm-torch-compile-triton.json.gz", None),
    ("samples/ort-cnn-opt.json", None),   # runs 1-10: the slice's warm-up run 0 must be asked for
    (KINETO21, "1:2"),
]
SHARED = [("hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", "1"),
          ("hta/trace_filter/sampled_rank-0.json.gz", "1")]
RUN_INDEX = re.compile(r"^\d+: ", re.M)


def load(path):
    with (gzip.open(path, "rt", encoding="utf-8") if path.endswith(".gz") else
          open(path, encoding="utf-8")) as f:
        return json.load(f, parse_float=decimal.Decimal)  # exact ts


def report(trace, level, runs, extra=()):
    p = testlib.run(["report", "--by", level, "-F", "csv"] + (["--runs", runs] if runs else []) +
                    list(extra) + [trace])
    return p.rc, RUN_INDEX.sub("", p.text)


def same_report(res, trace, runs, out, label):
    probs = []
    p = testlib.run(["slice", "-o", out] + (["--runs", runs] if runs else []) + [trace])
    if p.rc != 0:
        res.fail(label, p.describe())
        return None
    rc, runs_csv = report(out, "run", "all")
    rc1, want = report(trace, "run", runs)
    if rc != 0 or len(runs_csv.splitlines()) != len(want.splitlines()):
        probs.append("the slice has not the runs selected: %r" % runs_csv[:300])
    for level in ("op", "kernel", "run"):
        rc1, want = report(trace, level, runs)
        rc2, got = report(out, level, "all")
        if rc1 or rc2:
            probs.append("%s: report failed (%s, %s)" % (level, rc1, rc2))
        elif want != got:
            a, b = want.splitlines(), got.splitlines()
            diff = [(x, y) for x, y in zip(a, b) if x != y][:1] or [(len(a), len(b))]
            probs.append("%s level differs: %r" % (level, diff))
    res.check(label, probs)
    return p


def ns(v):
    return recompute.to_ns(v)


def structure(res, trace, out, label):
    """Valid JSON, top-level keys, metadata, args as in the input, whole flows."""
    orig, sl = load(trace), load(out)
    probs = []
    if not isinstance(sl, dict) or not isinstance(sl.get("traceEvents"), list):
        res.fail(label, "not an object with traceEvents")
        return
    if isinstance(orig, dict):
        want = {k: v for k, v in orig.items() if k != "traceEvents"}
        for k, v in want.items():
            if k not in sl:
                probs.append("top-level key %s missing" % k)
            elif sl[k] != v:
                probs.append("top-level key %s differs" % k)
        events = orig["traceEvents"]
    else:
        events = orig
    args = {}
    names = {}
    orig_flows = {}
    for e in events:
        if not isinstance(e, dict):
            continue
        if e.get("ph") in ("s", "t", "f"):
            orig_flows.setdefault((e.get("cat"), e.get("id")), set()).add(e["ph"])
        if e.get("ph") == "X":
            args.setdefault((e.get("name"), str(e.get("pid")), str(e.get("tid")),
                             ns(e.get("ts"))), e.get("args"))
        elif e.get("ph") == "M" and e.get("name") == "process_name":
            names[str(e.get("pid"))] = e.get("args", {}).get("name")
    got_names = {str(e.get("pid")): e["args"]["name"] for e in sl["traceEvents"]
                 if e.get("ph") == "M" and e.get("name") == "process_name"}
    flows = {}
    checked = 0
    for e in sl["traceEvents"]:
        pid = str(e.get("pid"))
        if e.get("ph") != "M" and names.get(pid) and got_names.get(pid) != names[pid]:
            probs.append("pid %s: process_name %r, input %r" % (pid, got_names.get(pid),
                                                              names[pid]))
            names.pop(pid)
        if e.get("ph") == "X":
            key = (e.get("name"), pid, str(e.get("tid")), ns(e.get("ts")))
            if key not in args:
                probs.append("event %r not in the input" % (key,))
            elif (args[key] or None) != e.get("args"):  # an empty args object is left out
                probs.append("args of %r differ" % (key,))
            checked += 1
        elif e.get("ph") in ("s", "t", "f"):
            flows.setdefault((e.get("cat"), e.get("id")), set()).add(e["ph"])
    for k, phs in flows.items():
        if phs != orig_flows.get(k):
            probs.append("flow %r has %s, in the input %s" % (k, sorted(phs),
                                                               sorted(orig_flows.get(k, ()))))
            break
    probs += order_problems(events, sl["traceEvents"])
    if not checked:
        probs.append("no events")
    res.check(label, probs[:6])


def order_problems(events, written):
    """The slice's events (flows among them) in the model order: ts ascending,
    dur descending, then the input's order (each written event matched to the
    first input event of the same phase, name, pid, tid, ts and id)."""
    def key(e):
        return (e.get("ph"), e.get("name"), str(e.get("pid")), str(e.get("tid")),
                ns(e.get("ts")), e.get("id"))
    places = {}
    for i, e in enumerate(events):
        if isinstance(e, dict) and e.get("ph") not in ("M", "B", "E"):
            places.setdefault(key(e), []).append(i)
    seq = []
    for e in written:
        if e.get("ph") == "M" or not places.get(key(e)):
            continue
        seq.append((ns(e["ts"]), -ns(e.get("dur", 0)), places[key(e)].pop(0)))
    if seq != sorted(seq):
        first = next(i for i, (a, b) in enumerate(zip(seq, sorted(seq))) if a != b)
        return ["events out of model order from written event %d" % first]
    return []


def filtered(res, tmp):
    out = os.path.join(tmp, "conv.json.gz")
    p = testlib.run(["slice", "--runs", "3", "--filter", "aten::conv2d", "-o", out, KINETO21])
    probs = [] if p.rc == 0 else [p.describe()]
    if not probs:
        load(out)
        for level in ("op", "kernel"):
            _, want = report(KINETO21, level, "3", ["--filter", "aten::conv2d"])
            _, got = report(out, level, "0", ["--filter", "aten::conv2d"])
            # the percentages' base is the slice's host busy time: drop them
            strip = lambda t: [[c for i, c in enumerate(r.split(",")) if "pct" not in h[i]]
                               for r in t.splitlines()] if (h := t.splitlines()[0].split(",")) \
                else []
            if strip(want) != strip(got):
                probs.append("%s rows of the matching ops differ" % level)
    res.check("filter aten::conv2d: the matching ops as in the trace", probs)


def errors(res, tmp):
    existing = os.path.join(tmp, "exists.json")
    open(existing, "w").close()
    for args in (["slice", "--runs", "9", KINETO21], ["slice", "no-such.json"],
                 ["slice", "--bogus", KINETO21], ["slice", "-o", existing, KINETO21],
                 ["slice", "--regex", "(", KINETO21]):
        p = testlib.run(args)
        res.check("error " + " ".join(args[1:]).replace(tmp, "TMP"),
                  [] if p.rc == 2 and len(p.err_lines) == 1 and not p.out else [p.describe()])


def main():
    update = "--update" in sys.argv[1:]
    res = testlib.Results()
    p = testlib.run(["slice", "--help"])
    path = os.path.join(testlib.EXPECTED, "slice-help.out")
    if update and p.rc == 0:
        with open(path, "wb") as f:
            f.write(p.out)
    res.check("slice-help", [] if p.rc == 0 and os.path.exists(path) and
              open(path, "rb").read() == p.out else ["differs from %s" % path])
    cases = list(CASES)
    for rel, runs in SHARED:
        for path in testlib.shared_traces(res, [rel]):
            cases.append((path, runs))
    with tempfile.TemporaryDirectory() as tmp:
        for i, (trace, runs) in enumerate(cases):
            name = os.path.basename(trace)
            out = os.path.join(tmp, "slice%d.json%s" % (i, ".gz" if i % 2 else ""))
            label = "%s --runs %s" % (name, runs)
            p = same_report(res, os.path.join(testlib.ROOT, trace), runs, out, label + ": report")
            if p is None:
                continue
            structure(res, os.path.join(testlib.ROOT, trace), out, label + ": contents")
            print("# %s: %s" % (label, p.err.decode().strip()))
        filtered(res, tmp)
        errors(res, tmp)
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
