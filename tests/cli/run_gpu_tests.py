#!/usr/bin/env python3
"""Compare `opscope gpu --format csv` with tests/tools/recompute_gpu.py.

recompute_gpu.py implements the contract of include/opscope/analysis/gpu.h
(and the GPU section of man/opscope.1) independently, so a disagreement means
one of the two is wrong: each FAIL line names the trace, the arguments, the
row (run, device, stream) and the column with both values.

Per trace (samples with device events; when ../shared/traces is present, the
GPU traces of the collection: NCCL, ROCm, graph replay, 6 streams ...):
- every cell of the breakdown with the default runs, --runs 0 and
  --whole-trace (and --kernel-wait 0 and 5000 on two traces): times as exact
  µs text (integer ns), pcts within 0.01; rows compared as a set keyed by
  (run, device, stream); a device row comes before its streams, the
  selection rows last;
- the --gaps 10 table: every cell exact, longest first; gaps of equal length
  compared as a set (at the cut, opscope's must be among the recomputed);
- invariants on opscope's rows: host + kernel + other wait == idle ==
  wall - busy, busy <= wall, exposed_comm <= comm, exposed_memcpy <= memcpy;
  per run and device, its busy is at most the sum of its streams' busy and at
  least the largest, and its events are the sum of its streams' events (each
  device event is on one stream).
The hand-made trace tests/data/gpu-hand.json also has its numbers written
below as literals, worked out by hand, so neither program is only checked
against the other.
"""
import concurrent.futures
import csv
import io
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testlib  # noqa: E402
import recompute  # noqa: E402  (path set up by testlib)
import recompute_gpu as rg  # noqa: E402

SAMPLE_TRACES = ["kineto-sampled-rank0.json.gz", "rocm-torch-compile-triton.json.gz",
                 "kineto-2021-resnet50.json.gz"]
# (path relative to ../shared/traces, also try --kernel-wait 0 and 5000?)
SHARED_TRACES = [
    ("hta/trace_diff/control.json.gz", False),
    ("hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", False),
    ("hta/negative_queue_length_values_check/rank0.json.gz", True),   # 6 streams
    ("hta/nccl_parser_config/nccl_data.json.gz", True),                 # NCCL
    ("tracelens/mi300/resnet_act_checkpoint.json.gz", False),           # ROCm, RCCL
    ("tracelens/sglang_decode/sglang_Qwen3-8B_decode.json.gz", False),  # graph replay
    ("tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz", False),
    ("hta/cuda_event_sync_multi_stream/event_sync_trace.json.gz", False),
    ("hta/alexnet/benchmark_result_2869224_1695835535_trace.json.gz", False),
]
NGAPS = 10
PCT = {"busy_pct", "comm_overlap_pct"}
PCT_TOL = 0.01 + 1e-9
KEY = 3  # run, device, stream

# Hand-computed expectations for tests/data/gpu-hand.json (µs). Runs
# ProfilerStep#1 [0,100) and #2 [100,200); device 0: stream 7 gemm [10,30),
# memcpy [30,40), relu [40.02,50) (20 ns after it: kernel wait), add [70,80)
# (launched at 65, after the device went idle at 50: host wait), mul [85,90)
# (launched at 66, before add ended: other), sum [95,110) (launched at 94:
# host wait; straddles the runs), sum_2 [130,140) (launched at 125); stream
# 20 NCCL [20,50) (over gemm, memcpy and relu: overlap 10 + 9.98), a memset
# [98,99) launched at 97.5 (inside sum on the device: no device gap; the
# device has 8 events in run 0), NCCL [120,150) launched at 115, a memset
# [160,165) launched at 158; device 2, stream 7 (same tid) [30,60). Host ops
# on 1/1: relu [45,68) > clamp [48,52), add [90,96), nccl:all_reduce
# [108,116). The one copy is HtoD: memcpy_htod_us = memcpy_us, the other
# directions 0. Run 1 starts with sum running on stream 7 (its gap [110,130) is
# a between gap), and after stream 20's last run-0 event ended (99 < 100:
# [100,120) is leading, other). Selection = run 0 + run 1.
HAND_COLUMNS = rg.COLUMNS
HAND = [
    # (args, expected rows, complete: no other rows allowed)
    ([], """
0: ProfilerStep#1,0,all,100.000,60.000,60.00,40.000,49.980,30.000,10.000,1.000,10.000,0.000,0.000,0.000,10.020,0.000,66.60,25.000,0.000,15.000,8
0: ProfilerStep#1,0,7,100.000,59.980,59.98,40.020,49.980,0.000,10.000,0.000,10.000,0.000,0.000,0.000,0.000,10.000,0.00,25.000,0.020,15.000,6
0: ProfilerStep#1,0,20,100.000,31.000,31.00,69.000,0.000,30.000,0.000,1.000,0.000,0.000,0.000,0.000,30.000,0.000,0.00,48.000,0.000,21.000,2
0: ProfilerStep#1,2,all,100.000,30.000,30.00,70.000,30.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.00,0.000,0.000,70.000,1
0: ProfilerStep#1,2,7,100.000,30.000,30.00,70.000,30.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.00,0.000,0.000,70.000,1
1: ProfilerStep#2,0,all,100.000,45.000,45.00,55.000,20.000,30.000,0.000,5.000,0.000,0.000,0.000,0.000,20.000,0.000,33.33,20.000,0.000,35.000,3
1: ProfilerStep#2,0,7,100.000,20.000,20.00,80.000,20.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.00,20.000,0.000,60.000,1
1: ProfilerStep#2,0,20,100.000,35.000,35.00,65.000,0.000,30.000,0.000,5.000,0.000,0.000,0.000,0.000,30.000,0.000,0.00,10.000,0.000,55.000,2
1: ProfilerStep#2,2,all,100.000,0.000,0.00,100.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.00,0.000,0.000,100.000,0
1: ProfilerStep#2,2,7,100.000,0.000,0.00,100.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.00,0.000,0.000,100.000,0
selection,0,all,200.000,105.000,52.50,95.000,69.980,60.000,10.000,6.000,10.000,0.000,0.000,0.000,30.020,0.000,49.97,45.000,0.000,50.000,11
selection,0,7,200.000,79.980,39.99,120.020,69.980,0.000,10.000,0.000,10.000,0.000,0.000,0.000,0.000,10.000,0.00,45.000,0.020,75.000,7
selection,0,20,200.000,66.000,33.00,134.000,0.000,60.000,0.000,6.000,0.000,0.000,0.000,0.000,60.000,0.000,0.00,58.000,0.000,76.000,4
selection,2,all,200.000,30.000,15.00,170.000,30.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.00,0.000,0.000,170.000,1
selection,2,7,200.000,30.000,15.00,170.000,30.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.00,0.000,0.000,170.000,1
""", True),
    (["--runs", "1"], """
1: ProfilerStep#2,0,all,100.000,45.000,45.00,55.000,20.000,30.000,0.000,5.000,0.000,0.000,0.000,0.000,20.000,0.000,33.33,20.000,0.000,35.000,3
1: ProfilerStep#2,0,7,100.000,20.000,20.00,80.000,20.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.00,20.000,0.000,60.000,1
1: ProfilerStep#2,0,20,100.000,35.000,35.00,65.000,0.000,30.000,0.000,5.000,0.000,0.000,0.000,0.000,30.000,0.000,0.00,10.000,0.000,55.000,2
1: ProfilerStep#2,2,all,100.000,0.000,0.00,100.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.00,0.000,0.000,100.000,0
1: ProfilerStep#2,2,7,100.000,0.000,0.00,100.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.00,0.000,0.000,100.000,0
selection,0,all,100.000,45.000,45.00,55.000,20.000,30.000,0.000,5.000,0.000,0.000,0.000,0.000,20.000,0.000,33.33,20.000,0.000,35.000,3
selection,0,7,100.000,20.000,20.00,80.000,20.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.00,20.000,0.000,60.000,1
selection,0,20,100.000,35.000,35.00,65.000,0.000,30.000,0.000,5.000,0.000,0.000,0.000,0.000,30.000,0.000,0.00,10.000,0.000,55.000,2
selection,2,all,100.000,0.000,0.00,100.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.00,0.000,0.000,100.000,0
selection,2,7,100.000,0.000,0.00,100.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.00,0.000,0.000,100.000,0
""", True),
    # The 20 ns gap before relu is no kernel wait below 0 ns: relu's launch
    # (at 9) came before the gap, so other.
    (["--kernel-wait", "0"], """
0: ProfilerStep#1,0,7,100.000,59.980,59.98,40.020,49.980,0.000,10.000,0.000,10.000,0.000,0.000,0.000,0.000,10.000,0.00,25.000,0.000,15.020,6
0: ProfilerStep#1,0,all,100.000,60.000,60.00,40.000,49.980,30.000,10.000,1.000,10.000,0.000,0.000,0.000,10.020,0.000,66.60,25.000,0.000,15.000,8
selection,0,7,200.000,79.980,39.99,120.020,69.980,0.000,10.000,0.000,10.000,0.000,0.000,0.000,0.000,10.000,0.00,45.000,0.000,75.020,7
""", False),
    # Under 6 µs the two 5 µs gaps of run 0 are kernel waits too.
    (["--kernel-wait", "6000"], """
0: ProfilerStep#1,0,all,100.000,60.000,60.00,40.000,49.980,30.000,10.000,1.000,10.000,0.000,0.000,0.000,10.020,0.000,66.60,20.000,10.000,10.000,8
0: ProfilerStep#1,0,7,100.000,59.980,59.98,40.020,49.980,0.000,10.000,0.000,10.000,0.000,0.000,0.000,0.000,10.000,0.00,20.000,10.020,10.000,6
0: ProfilerStep#1,0,20,100.000,31.000,31.00,69.000,0.000,30.000,0.000,1.000,0.000,0.000,0.000,0.000,30.000,0.000,0.00,48.000,0.000,21.000,2
1: ProfilerStep#2,0,all,100.000,45.000,45.00,55.000,20.000,30.000,0.000,5.000,0.000,0.000,0.000,0.000,20.000,0.000,33.33,20.000,0.000,35.000,3
selection,0,all,200.000,105.000,52.50,95.000,69.980,60.000,10.000,6.000,10.000,0.000,0.000,0.000,30.020,0.000,49.97,40.000,10.000,45.000,11
selection,0,7,200.000,79.980,39.99,120.020,69.980,0.000,10.000,0.000,10.000,0.000,0.000,0.000,0.000,10.000,0.00,40.000,10.020,70.000,7
""", False),
    # One window [0,200): stream 20's gap [99,120) is now between (host wait:
    # launched at 115), [50,98) too (launched at 97.5).
    (["--whole-trace"], """
0: whole trace,0,all,200.000,105.000,52.50,95.000,69.980,60.000,10.000,6.000,10.000,0.000,0.000,0.000,30.020,0.000,49.97,45.000,0.000,50.000,11
0: whole trace,0,7,200.000,79.980,39.99,120.020,69.980,0.000,10.000,0.000,10.000,0.000,0.000,0.000,0.000,10.000,0.00,45.000,0.020,75.000,7
0: whole trace,0,20,200.000,66.000,33.00,134.000,0.000,60.000,0.000,6.000,0.000,0.000,0.000,0.000,60.000,0.000,0.00,79.000,0.000,55.000,4
0: whole trace,2,all,200.000,30.000,15.00,170.000,30.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.00,0.000,0.000,170.000,1
0: whole trace,2,7,200.000,30.000,15.00,170.000,30.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.00,0.000,0.000,170.000,1
selection,0,all,200.000,105.000,52.50,95.000,69.980,60.000,10.000,6.000,10.000,0.000,0.000,0.000,30.020,0.000,49.97,45.000,0.000,50.000,11
selection,0,7,200.000,79.980,39.99,120.020,69.980,0.000,10.000,0.000,10.000,0.000,0.000,0.000,0.000,10.000,0.00,45.000,0.020,75.000,7
selection,0,20,200.000,66.000,33.00,134.000,0.000,60.000,0.000,6.000,0.000,0.000,0.000,0.000,60.000,0.000,0.00,79.000,0.000,55.000,4
selection,2,all,200.000,30.000,15.00,170.000,30.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.00,0.000,0.000,170.000,1
selection,2,7,200.000,30.000,15.00,170.000,30.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.00,0.000,0.000,170.000,1
""", True),
]
# The device gaps, longest first (the two 10 µs gaps tie, so do the 5 µs
# ones); host_op: the innermost op of the launch's thread at the gap's start
# (clamp inside relu at 50; none at 80 or at 150; add starts at 90).
HAND_GAPS = [
    (["--gaps", "10"], """
0: ProfilerStep#1,0/7,50.000,20.000,host wait,add_kernel,aten::clamp
1: ProfilerStep#2,0/20,10.000,10.000,host wait,ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>),nccl:all_reduce
1: ProfilerStep#2,0/20,50.000,10.000,host wait,Memset (Device),
0: ProfilerStep#1,0/7,80.000,5.000,other,mul_kernel,
0: ProfilerStep#1,0/7,90.000,5.000,host wait,sum_kernel,aten::add
"""),
    (["--gaps", "3"], """
0: ProfilerStep#1,0/7,50.000,20.000,host wait,add_kernel,aten::clamp
1: ProfilerStep#2,0/20,10.000,10.000,host wait,ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>),nccl:all_reduce
1: ProfilerStep#2,0/20,50.000,10.000,host wait,Memset (Device),
"""),
    (["--gaps", "4", "--kernel-wait", "6000", "--runs", "0"], """
0: ProfilerStep#1,0/7,50.000,20.000,host wait,add_kernel,aten::clamp
0: ProfilerStep#1,0/7,80.000,5.000,kernel wait,mul_kernel,
0: ProfilerStep#1,0/7,90.000,5.000,kernel wait,sum_kernel,aten::add
"""),
]
HAND_TRACE = "tests/data/gpu-hand.json"

# tests/data/gpu-nested.json: runs that nest and overlap. ProfilerStep#1
# [0,100) holds #2 [20,60); #3 [100,150) touches #1 and overlaps #4
# [140,170). Device 0: stream 7 gemm [10,30), relu [40,50), late [55,58)
# (launched at 52), add [110,120), mul [160,165) (launched at 150); stream
# 20 NCCL [25,45). The selection's spans are [0,100) (run 0's window: #2
# counts no second time) and [100,170) (#3 and #4 merged): wall 170, not
# the windows' 220; busy 43 + 15. In [0,100) the gap [50,55) before late is
# a host wait, [0,10) and [58,100) other; in [100,170) the gap [120,160)
# before mul is a host wait, [100,110) and [165,170) other; comm overlap
# [25,30) and [40,45). Each gap is listed once, under the latest-starting
# run holding its start: [50,55) under #2 (at 30), not #1 too.
NESTED_TRACE = "tests/data/gpu-nested.json"
NESTED = [
    ([], """
selection,0,all,170.000,58.000,34.12,112.000,48.000,20.000,0.000,0.000,0.000,0.000,0.000,0.000,10.000,0.000,50.00,45.000,0.000,67.000,6
selection,0,7,170.000,48.000,28.24,122.000,48.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.00,45.000,0.000,77.000,5
selection,0,20,170.000,20.000,11.76,150.000,0.000,20.000,0.000,0.000,0.000,0.000,0.000,0.000,20.000,0.000,0.00,0.000,0.000,150.000,1
""", False),
    (["--runs", "1:3"], """
selection,0,all,90.000,43.000,47.78,47.000,33.000,20.000,0.000,0.000,0.000,0.000,0.000,0.000,10.000,0.000,50.00,5.000,0.000,42.000,4
""", False),
]
NESTED_GAPS = [
    (["--gaps", "10"], """
2: ProfilerStep#3,0/7,20.000,40.000,host wait,mul_kernel,
1: ProfilerStep#2,0/7,30.000,5.000,host wait,late_kernel,
"""),
]


def parse_csv(text):
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return None, []
    return rows[0], rows[1:]


def literal(text):
    return list(csv.reader(io.StringIO(text.strip())))


def us_ns(text):
    """ns of an exact µs text ("12.345"), None when it is not one."""
    try:
        whole, _, frac = text.partition(".")
        if len(frac) != 3:
            return None
        ns = abs(int(whole)) * 1000 + int(frac)
        return -ns if text.startswith("-") else ns
    except ValueError:
        return None


def row_name(r):
    return "(%s, %s, %s)" % tuple(r[:KEY])


def compare_rows(got, want, complete=True, sides=("opscope", "recompute")):
    """Problems between two lists of breakdown rows (lists of cells)."""
    problems = []
    g_by = {}
    for r in got:
        if len(r) != len(rg.COLUMNS):
            problems.append("row %r has %d cells" % (r[:KEY], len(r)))
            continue
        if tuple(r[:KEY]) in g_by:
            problems.append("row %s twice" % row_name(r))
        g_by[tuple(r[:KEY])] = r
    w_keys = {tuple(r[:KEY]) for r in want}
    missing = [row_name(r) for r in want if tuple(r[:KEY]) not in g_by]
    if missing:
        problems.append("%s lacks rows %s" % (sides[0], ", ".join(missing[:4])))
    if complete:
        extra = [row_name(r) for r in got if tuple(r[:KEY]) not in w_keys]
        if extra:
            problems.append("%s has extra rows %s" % (sides[0], ", ".join(extra[:4])))
    for w in want:
        g = g_by.get(tuple(w[:KEY]))
        if g is None:
            continue
        for col, gv, wv in list(zip(rg.COLUMNS, g, w))[KEY:]:
            if col in PCT:
                try:
                    bad = abs(float(gv) - float(wv)) > PCT_TOL
                except ValueError:
                    bad = True
            else:
                bad = gv != wv
            if bad:
                problems.append("row %s %s: %s %s, %s %s" % (row_name(w), col, sides[0], gv,
                                                            sides[1], wv))
    return problems


def order_problems(rows):
    """A run's device row comes before its streams; the selection rows last."""
    problems = []
    seen_devices = set()
    in_selection = False
    for r in rows:
        run, dev, stream = r[:KEY]
        if run == "selection":
            in_selection = True
        elif in_selection:
            problems.append("run row %s after the selection rows" % row_name(r))
        if stream == "all":
            seen_devices.add((run, dev))
        elif (run, dev) not in seen_devices:
            problems.append("stream row %s before its device row" % row_name(r))
    return problems[:2]


def invariants(rows):
    """Problems with the invariants of the breakdown (see the top comment)."""
    col = {c: i for i, c in enumerate(rg.COLUMNS)}
    problems = []
    devices = {}
    streams = {}
    for r in rows:
        if len(r) != len(rg.COLUMNS):
            continue
        v = {c: us_ns(r[col[c]]) for c in rg.COLUMNS[3:] if c.endswith("_us")}
        if any(x is None for x in v.values()):
            problems.append("row %s: a time is not exact µs text" % row_name(r))
            continue
        name = row_name(r)
        waits = v["host_wait_us"] + v["kernel_wait_us"] + v["other_wait_us"]
        if waits != v["idle_us"]:
            problems.append("row %s: host + kernel + other wait %s != idle %s" % (
                name, recompute.us_exact(waits), r[col["idle_us"]]))
        if v["wall_us"] - v["busy_us"] != v["idle_us"]:
            problems.append("row %s: wall - busy != idle %s" % (name, r[col["idle_us"]]))
        if v["busy_us"] > v["wall_us"]:
            problems.append("row %s: busy %s > wall %s" % (name, r[col["busy_us"]],
                                                          r[col["wall_us"]]))
        if not 0 <= v["exposed_comm_us"] <= v["comm_us"]:
            problems.append("row %s: exposed_comm %s not in [0, comm %s]" % (
                name, r[col["exposed_comm_us"]], r[col["comm_us"]]))
        if not 0 <= v["exposed_memcpy_us"] <= v["memcpy_us"]:
            problems.append("row %s: exposed_memcpy %s not in [0, memcpy %s]" % (
                name, r[col["exposed_memcpy_us"]], r[col["memcpy_us"]]))
        for c in ("compute_us", "comm_us", "memcpy_us", "memset_us"):
            if v[c] > v["busy_us"]:
                problems.append("row %s: %s %s > busy %s" % (name, c, r[col[c]],
                                                            r[col["busy_us"]]))
        busy, events = v["busy_us"], int(r[col["events"]])
        if r[2] == "all":
            devices[(r[0], r[1])] = (busy, events)
        else:
            streams.setdefault((r[0], r[1]), []).append((busy, events))
    for key, (busy, events) in devices.items():
        lst = streams.get(key, [])
        if not lst:
            problems.append("device row (%s, %s) without stream rows" % key)
            continue
        s_busy = sum(b for b, _ in lst)
        if not max(b for b, _ in lst) <= busy <= s_busy:
            problems.append("device row (%s, %s): busy %s not between its largest stream's "
                            "%s and the sum of its streams' %s" % (
                                key + (recompute.us_exact(busy),
                                       recompute.us_exact(max(b for b, _ in lst)),
                                       recompute.us_exact(s_busy))))
        s_events = sum(e for _, e in lst)
        if events != s_events:
            problems.append("device row (%s, %s): events %d != the sum of its streams' "
                            "events %d" % (key + (events, s_events)))
    return problems


def compare_gaps(got, want_all, n, sides=("opscope", "recompute")):
    """got: opscope's gap rows; want_all: every gap, longest first (cells);
    n: how many were asked for. Equal lengths compare as sets; at the cut,
    got's must be among want_all's of that length."""
    problems = []
    if any(len(r) != len(rg.GAP_COLUMNS) for r in got):
        return ["a gap row has %s cells" % sorted({len(r) for r in got})]
    want_n = min(n, len(want_all))
    if len(got) != want_n:
        problems.append("%d gaps, %s %d" % (len(got), sides[1], want_n))
    lens = [us_ns(r[3]) for r in got]
    if None in lens or lens != sorted(lens, reverse=True):
        problems.append("gaps not longest first: %s" % [r[3] for r in got][:12])
        return problems
    def by_len(rows):
        out = {}
        for r in rows:
            out.setdefault(r[3], []).append(tuple(r))
        return out

    pool, top, mine = by_len(want_all), by_len(want_all[:want_n]), by_len(got)
    cut = want_all[want_n - 1][3] if want_n else None
    for length in sorted(set(top) | set(mine), key=lambda x: -(us_ns(x) or 0)):
        rows, want = mine.get(length, []), top.get(length, [])
        if length == cut:  # the last length listed: any of that length will do
            bad = [r for r in rows if r not in pool[length]]
            if len(rows) != len(want) or bad:
                problems.append("gaps of %s µs (the shortest listed): %s %d, %s %d of %d; "
                                "%s only %r" % (length, sides[0], len(rows), sides[1], len(want),
                                                len(pool[length]), sides[0],
                                                [list(r) for r in bad[:2]]))
        elif sorted(rows) != sorted(want):
            extra = [r for r in rows if r not in want]
            lack = [r for r in want if r not in rows]
            problems.append("gaps of %s µs: %s only %r, %s only %r" % (
                length, sides[0], [list(r) for r in extra[:2]], sides[1],
                [list(r) for r in lack[:2]]))
    return problems


def gap_rows(gpu, gaps):
    return [rg.gap_cells(gpu, g) for g in gaps]


def expected(gpu, runs=None, kernel_wait=rg.DEFAULT_KERNEL_WAIT):
    rows, gaps = gpu.breakdown(runs, kernel_wait)
    return [[rg.cell(x, c) for c in rg.COLUMNS] for x in rows], gap_rows(gpu, gaps)


def run_case(case):
    """Run opscope for one case: (name, problems)."""
    name, args, kind, want, extra = case
    # kernel names as the trace has them, as recompute reads them
    p = testlib.run(["gpu", "--format", "csv", "--no-demangle"] + args, timeout=300)
    if p.rc != 0:
        return name, ["opscope " + p.describe()]
    header, got = parse_csv(p.text)
    if kind == "gaps":
        if header != rg.GAP_COLUMNS:
            return name, ["header %r" % (header,)]
        return name, compare_gaps(got, want, extra["n"], extra.get("sides",
                                                                   ("opscope", "recompute")))
    if header != rg.COLUMNS:
        return name, ["header %r" % (header,)]
    sides = extra.get("sides", ("opscope", "recompute"))
    problems = compare_rows(got, want, extra.get("complete", True), sides)
    problems += order_problems(got)
    problems += ["invariant: " + p for p in invariants(got)]
    return name, problems


def cases_for(label, path, kernel_waits, res):
    """Recompute the trace once and build its cases."""
    try:
        gpu = rg.Gpu(os.path.join(testlib.ROOT, path))
    except recompute.RecomputeError as e:
        res.fail("%s: recompute cannot read it: %s" % (label, e))
        return []
    if not gpu.devs:
        res.fail("%s: no device events" % label)
        return []
    cases = []
    want, gaps = expected(gpu)
    cases.append(("%s (default runs)" % label, [path], "rows", want, {}))
    cases.append(("%s --gaps %d" % (label, NGAPS), ["--gaps", str(NGAPS), path], "gaps", gaps,
                  {"n": NGAPS}))
    want, _ = expected(gpu, "0")
    cases.append(("%s --runs 0" % label, ["--runs", "0", path], "rows", want, {}))
    for kw in kernel_waits:
        want, gaps = expected(gpu, None, kw)
        cases.append(("%s --kernel-wait %d" % (label, kw), ["--kernel-wait", str(kw), path],
                      "rows", want, {}))
        cases.append(("%s --kernel-wait %d --gaps %d" % (label, kw, NGAPS),
                      ["--kernel-wait", str(kw), "--gaps", str(NGAPS), path], "gaps", gaps,
                      {"n": NGAPS}))
    gpu.tr.ignore_runs()   # last: --whole-trace
    want, gaps = expected(gpu)
    cases.append(("%s --whole-trace" % label, ["--whole-trace", path], "rows", want, {}))
    cases.append(("%s --whole-trace --gaps %d" % (label, NGAPS),
                  ["--whole-trace", "--gaps", str(NGAPS), path], "gaps", gaps, {"n": NGAPS}))
    return cases


def hand_row_cases(res, trace, literals):
    """The row literals of trace: recompute must give them (checked here),
    and so must opscope (the returned cases)."""
    gpu = rg.Gpu(os.path.join(testlib.ROOT, trace))
    whole = rg.Gpu(os.path.join(testlib.ROOT, trace), whole=True)
    cases = []
    for args, text, complete in literals:
        want = literal(text)
        name = "hand %s %s" % (trace, " ".join(args) or "(default runs)")
        runs = args[args.index("--runs") + 1] if "--runs" in args else None
        kw = int(args[args.index("--kernel-wait") + 1]) if "--kernel-wait" in args \
            else rg.DEFAULT_KERNEL_WAIT
        mine, _ = expected(whole if "--whole-trace" in args else gpu, runs, kw)
        res.check(name + " (recompute)", compare_rows(mine, want, complete,
                                                      ("recompute", "by hand")))
        if complete:
            res.check(name + " (literal invariants)", invariants(want))
        cases.append((name + " (opscope)", args + [trace], "rows", want,
                      {"complete": complete, "sides": ("opscope", "by hand")}))
    return cases


def hand_cases(res):
    """The literals: recompute must give them (checked here), and so must
    opscope (the returned cases)."""
    cases = []
    for trace, literals in ((HAND_TRACE, HAND), (NESTED_TRACE, NESTED)):
        cases += hand_row_cases(res, trace, literals)
    for trace, literals in ((HAND_TRACE, HAND_GAPS), (NESTED_TRACE, NESTED_GAPS)):
        cases += hand_gap_cases(res, trace, literals)
    return cases


def hand_gap_cases(res, trace, literals):
    """The gap literals of trace, as hand_row_cases."""
    gpu = rg.Gpu(os.path.join(testlib.ROOT, trace))
    cases = []
    for args, text in literals:
        want = literal(text)
        n = int(args[args.index("--gaps") + 1])
        name = "hand %s %s" % (trace, " ".join(args))
        runs = args[args.index("--runs") + 1] if "--runs" in args else None
        kw = int(args[args.index("--kernel-wait") + 1]) if "--kernel-wait" in args \
            else rg.DEFAULT_KERNEL_WAIT
        _, mine = expected(gpu, runs, kw)
        res.check(name + " (recompute)", compare_gaps(mine[:n], want, n,
                                                      ("recompute", "by hand")))
        cases.append((name + " (opscope)", args + [trace], "gaps", want,
                      {"n": n, "sides": ("opscope", "by hand")}))
    return cases


def main():
    res = testlib.Results()
    traces = [("tests/data/gpu-hand.json", HAND_TRACE, (0, 5000)),
              ("tests/data/gpu-nested.json", NESTED_TRACE, ())]
    for f in SAMPLE_TRACES:
        if os.path.exists(testlib.sample(f)):
            traces.append(("samples/" + f, "samples/" + f, ()))
        else:
            res.fail("samples/" + f, "missing")
    kws = dict(SHARED_TRACES)
    for p in testlib.shared_traces(res, testlib.share([rel for rel, _ in SHARED_TRACES], 0)):
        rel = os.path.relpath(p, testlib.SHARED)
        traces.append(("shared/" + rel, p, (0, 5000) if kws[rel] else ()))
    jobs = int(os.environ.get("OPSCOPE_TEST_JOBS", "0")) or min(4, os.cpu_count() or 2)
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        pending = [pool.submit(run_case, c) for c in hand_cases(res)]
        # Submit each trace's cases as soon as they are built, so opscope runs
        # while the next trace is recomputed.
        for label, path, kernel_waits in traces:
            pending += [pool.submit(run_case, c)
                        for c in cases_for(label, path, kernel_waits, res)]
        for fut in pending:
            name, problems = fut.result()
            res.check(name, problems)
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
