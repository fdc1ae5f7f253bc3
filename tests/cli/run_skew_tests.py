#!/usr/bin/env python3
"""Tests of the collective skew across ranks (collective_skew.h).

Every cell of the per-call table that `opscope gpu --collectives --per-call
-F csv` prints for a job's ranks (load, runs, osc_summary_add_calls,
osc_collective_skew) equals
tests/tools/recompute_skew.py (written from the trace format) on:
- tests/data/ranks-hand (three ranks whose figures test_collective_skew.c
  also checks by hand);
- the collection's hta/trace_filter sampled_rank-0 and sampled_rank-1 (ranks
  0 and 1 of a 128-rank job: record_param_comms without "Collective name",
  so each SendRecv kernel is a call of its stream; skipped when ../shared is
  absent);
- single ranks of the collection with "Collective name" args: HTA's
  nccl_parser_config (with "Process Group Name") and ns_resolution_trace
  (groups by "Group size").
The algorithm and protocol of each call, and the sums' keys, included.
A single rank is a job as a directory of one trace. A trace that cannot be
loaded: exit 2 with one line naming it.

Prints "N passed, M failed" last; exits 1 on any failure.
"""
import csv
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import testlib  # noqa: E402
import recompute_skew  # noqa: E402

HAND = [os.path.join(testlib.ROOT, "tests", "data", "ranks-hand", "rank%d.json" % r)
        for r in range(3)]
SHARED = ["hta/trace_filter/sampled_rank-0.json.gz", "hta/trace_filter/sampled_rank-1.json.gz"]
SINGLE = ["hta/nccl_parser_config/nccl_data.json.gz",
          "hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"]


def dump(paths):
    """The per-call CSV of the job of paths (one trace: a directory holding it)."""
    tmp = None
    if len(paths) == 1:
        tmp = tempfile.mkdtemp(prefix="opscope-skew-")
        os.symlink(paths[0], os.path.join(tmp, os.path.basename(paths[0])))
        paths = [tmp]
    try:
        p = testlib.run(["gpu", "--collectives", "--per-call", "-F", "csv"] + paths, timeout=300)
    finally:
        if tmp:
            shutil.rmtree(tmp)
    err = "\n".join(l for l in p.err_lines if not l.startswith("opscope: [")) + "\n"
    return p.rc, p.text.splitlines(), err.lstrip("\n")


def compare(res, name, paths):
    want = recompute_skew.csv_lines(recompute_skew.table(paths))
    rc, got, err = dump(paths)
    probs = []
    if rc != 0:
        probs.append("exit %d: %s" % (rc, err.strip()))
    elif len(got) < 2:
        probs.append("no calls")
    else:
        for i, (w, g) in enumerate(zip(want, got)):
            if w != g:
                probs.append("line %d\nwant %s\ngot  %s" % (i, w, g))
        if len(want) != len(got):
            probs.append("%d lines, want %d" % (len(got), len(want)))
    res.check(name, probs)


def main():
    res = testlib.Results()
    compare(res, "recomputed: tests/data/ranks-hand", HAND)
    found = testlib.shared_traces(res, SHARED)
    if len(found) == len(SHARED):
        compare(res, "recomputed: hta/trace_filter sampled ranks 0 and 1", found)
    for p in testlib.shared_traces(res, SINGLE):
        compare(res, "recomputed: " + os.path.relpath(p, testlib.SHARED), [p])
    # the sums per (group, collective, algorithm, protocol) add up the recomputed calls
    rows = list(csv.reader(recompute_skew.csv_lines(recompute_skew.table(HAND))))
    col = {name: i for i, name in enumerate(rows[0])}
    want = {}
    for c in rows[1:]:
        w = want.setdefault((c[col["group"]], c[col["collective"]], c[col["algorithm"]],
                             c[col["protocol"]]), [0, 0, 0.0])
        w[0] += 1
        w[1] += int(c[col["missing_ranks"]] != "0")
        w[2] += float(c[col["skew_us"]]) if c[col["skew_us"]] else 0.0
    p = testlib.run(["gpu", "--collectives", "-F", "csv"] + HAND)
    got = {}
    sums = list(csv.reader(p.text.splitlines()))
    col = {name: i for i, name in enumerate(sums[0])} if sums else {}
    for f in sums[1:]:
        got[(f[col["group"]], f[col["collective"]], f[col["algorithm"]],
             f[col["protocol"]])] = [int(f[col["count"]]), int(f[col["incomplete"]]),
                                     float(f[col["skew_us"]])]
    res.check("the sums per group, collective, algorithm and protocol add up the calls",
              [] if p.rc == 0 and got == want else ["want %s got %s" % (want, got), p.describe()])
    p = testlib.run(["gpu", "--per-call"] + HAND)
    res.check("--per-call without --collectives: exit 2",
              [] if p.rc == 2 and "--per-call" in p.err_lines[-1] else [p.describe()])
    p = testlib.run(["gpu"] + HAND)
    res.check("gpu on a job without --collectives: exit 2 saying what to use",
              [] if p.rc == 2 and "report --by rank" in p.err_lines[-1] else [p.describe()])
    rc, got, err = dump([HAND[0], os.path.join(testlib.ROOT, "tests", "data", "no-such.json")])
    res.check("a trace that cannot be loaded: exit 2, one line",
              [] if rc == 2 and not got and err.count("\n") == 1 else
              ["exit %d, stderr %r" % (rc, err)])
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
