#!/usr/bin/env python3
"""Tests of the collective skew across ranks (collective_skew.h).

Every cell of the per-call table that tests/tools/dump_skew.c prints (the C
code: load, runs, osc_summary_add_calls, osc_collective_skew) equals
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
A trace that cannot be loaded: exit 2 with one line.

Prints "N passed, M failed" last; exits 1 on any failure.
"""
import os
import subprocess
import sys

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
    exe = os.environ.get("DUMP_SKEW") or os.path.join(testlib.ROOT, "build", "tests", "dump_skew")
    p = subprocess.run([exe] + paths, capture_output=True, timeout=300)
    return p.returncode, p.stdout.decode().splitlines(), p.stderr.decode()


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
    rc, got, err = dump([HAND[0], os.path.join(testlib.ROOT, "tests", "data", "no-such.json")])
    res.check("a trace that cannot be loaded: exit 2, one line",
              [] if rc == 2 and not got and err.count("\n") == 1 else
              ["exit %d, stderr %r" % (rc, err)])
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
