#!/usr/bin/env python3
"""Tests of `opscope gpu --collectives`.

- tests/data/collectives-hand.json, worked out by hand: two allreduce calls
  of 1000 floats in a group of 4, 10 us of kernel each, one by NCCL's RING
  LL and one by TREE LL128 (their kernels' names), so two rows: S = 4000 B,
  algbw = 4000 B / 10000 ns = 0.400 GB/s, busbw = 0.400 x 2(4-1)/4 = 0.600; one
  _allgather_base of 100 -> 400 bf16 elements, 2 us: S = 800 B (the
  output), algbw 0.400, busbw 0.400 x 3/4 = 0.300, RING SIMPLE (an
  ncclKernel_ name of NCCL <= 2.18); a broadcast of an unknown dtype by
  ncclDevKernel_Generic: no size, no bandwidth, no algorithm or protocol,
  its time kept; a wait without device work.
- every cell equals tests/tools/recompute_collectives.py (written from the
  trace format) on the hand trace and on the collection's traces with
  collectives (--whole-trace; skipped when ../shared is absent);
- --runs keeps the calls of the selected runs only; a trace without any
  collective is a note on stderr and exit 0; JSON numbers are numbers.

Prints "N passed, M failed" last; exits 1 on any failure.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import testlib  # noqa: E402
import recompute_collectives as rc  # noqa: E402

HAND = "tests/data/collectives-hand.json"
SHARED = ["hta/nccl_parser_config/nccl_data.json.gz",
          "tracelens/mi300/resnet_act_checkpoint.json.gz",
          "tracelens/b200/eager_trace.json.gz"]
HAND_ROWS = [
    "collective,dtype,group_size,msg_mb,algorithm,protocol,count,device_us,algbw_gbs,busbw_gbs",
    "allreduce,Float,4,0.004000,RING,LL,1,10.000,0.400,0.600",
    "allreduce,Float,4,0.004000,TREE,LL128,1,10.000,0.400,0.600",
    "_allgather_base,BFloat16,4,0.000800,RING,SIMPLE,1,2.000,0.400,0.300",
    "broadcast,Quux,4,,,,1,1.000,,",
    "wait,Byte,1,0.000000,,,1,0.000,,",
]


def csv_of(path, *extra):
    p = testlib.run(["gpu", "--collectives", "-F", "csv"] + list(extra) + [path])
    return p, p.text.splitlines() if p.rc == 0 else []


def main():
    res = testlib.Results()
    p, got = csv_of(HAND)
    res.check("hand trace: the figures worked out by hand",
              [] if got == HAND_ROWS else ["got %s" % got, p.describe()])
    traces = [os.path.join(testlib.ROOT, HAND)] + testlib.shared_traces(res, SHARED)
    for t in traces:
        want = rc.csv_lines(rc.rows(t))
        p, got = csv_of(t, "--whole-trace")
        res.check("recomputed: " + os.path.relpath(t, testlib.ROOT),
                  [] if got == want and len(got) > 1 else
                  ["%s\nwant %s\ngot  %s" % (p.describe(), want[:4], got[:4])])
    # runs: the hand trace's one run holds every call; a run window without calls holds none
    p, got = csv_of(HAND, "--runs", "0")
    res.check("--runs 0 keeps the run's calls", [] if got == HAND_ROWS else [p.describe()])
    p = testlib.run(["gpu", "--collectives", testlib.sample("ort-cnn-opt.json")])
    res.check("no collective: a note, exit 0",
              [] if p.rc == 0 and "no collective" in p.err.decode() else [p.describe()])
    p = testlib.run(["gpu", "--collectives", "-F", "json", HAND])
    probs = [p.describe()] if p.rc else []
    if not probs:
        rows = json.loads(p.text)["rows"]
        if not (rows[0]["busbw_gbs"] == 0.6 and rows[0]["count"] == 1 and
                rows[0]["algorithm"] == "RING" and rows[3]["protocol"] == "" and
                rows[3]["algbw_gbs"] is None):
            probs.append("json rows %s" % rows[:3])
    res.check("json: numbers as numbers, unknown as null", probs)
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
