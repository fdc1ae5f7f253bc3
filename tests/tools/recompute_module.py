#!/usr/bin/env python3
"""Independent recomputation of `opscope report --by module` (issue 15 item 6).

Written from the Kineto trace format and the definitions in man/opscope.1
(Module view) and include/opscope/analysis/module.h, never from the C code:
it reads the JSON itself, nests the module events by time with a quadratic
search per thread (not a stack), and maps each device event to the op that
launched it through its correlation id (or an ac2g flow) itself.

Rules implemented:
- times: ts and dur parsed as decimal.Decimal, ns = int(us * 1000) exactly;
  model order: ts ascending, dur descending, then file order; complete (X)
  events only; threads are (pid, tid) as text;
- module instances: cat python_function, name "nn.Module: X"; the parent of
  an instance is, among the instances of its thread before it in model order
  whose window [ts, ts+dur) holds its start and that end no earlier than it,
  the last in model order; path = the names without the prefix from the
  outermost, '/'-joined;
- self of an instance: its duration minus the length of the union of its
  children's windows clipped to its own;
- the module of an event: among the non-empty instances of its thread
  before it in model order whose window holds its start, the last in model
  order (a module event: itself);
- device events: cat kernel, gpu_memcpy, gpu_memset, Memcpy, Memset. Launch:
  the runtime call (cat cuda_runtime, cuda_driver, Runtime) with the same
  args.correlation, the first in model order; else the runtime call whose
  window holds the start of an ac2g flow ending on the device event's thread
  at its ts. Launching op: the last in model order of the ops (cat cpu_op,
  Operator, names other than ProfilerStep#N) of the launch's thread whose
  window holds the launch's start; when none, the innermost python_function
  or user_annotation frame holding it (not a ProfilerStep), which is an op
  from then on; a device event's module is its launching op's;
- runs: host ProfilerStep#N windows (not gpu_user_annotation); an event
  belongs to the window holding its start; a device event counts in the run
  of its launching op, else in its own; --whole-trace: one run;
- per path over the selected instances: count, total (their durations), self
  (their selves), device (device events whose module is the path), kernels
  (their number), device_total (device events whose module is the path or
  under it); bases: device_time = the durations of the selected device
  events; host_busy = per thread the union of the windows of the ops and
  module instances of the selected runs, summed.

    recompute_module.py [--whole-trace] TRACE
        prints CSV: name,count,total_us,self_us,device_us,device_total_us,kernels
        by path, then lines '# host_busy_ns N' and '# device_time_ns N'.
"""
import argparse
import bisect
import decimal
import gzip
import json
import re
import sys

PREFIX = "nn.Module: "
STEP_RE = re.compile(r"ProfilerStep#\d+\Z")
DEVICE_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "Memcpy", "Memset"}
RUNTIME_CATS = {"cuda_runtime", "cuda_driver", "Runtime"}
OP_CATS = {"cpu_op", "Operator"}
FRAME_CATS = {"python_function", "user_annotation"}


def ns(v):
    return int(decimal.Decimal(str(v)) * 1000)


class Ev:
    __slots__ = ("i", "name", "cat", "ts", "dur", "end", "th", "args", "rank")

    def __init__(self, i, e):
        self.i = i
        self.name = str(e.get("name", ""))
        self.cat = str(e.get("cat", ""))
        self.ts = ns(e["ts"])
        self.dur = max(ns(e.get("dur", 0)), 0)
        self.end = self.ts + self.dur
        self.th = (str(e.get("pid", "")), str(e.get("tid", "")))
        self.args = e.get("args") or {}
        self.rank = 0


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    doc = json.loads(raw.decode("utf-8"), parse_float=decimal.Decimal)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    xs = [Ev(i, e) for i, e in enumerate(events)
          if isinstance(e, dict) and e.get("ph") == "X" and "ts" in e]
    xs.sort(key=lambda e: (e.ts, -e.dur, e.i))
    for r, e in enumerate(xs):
        e.rank = r
    flows = [e for e in events if isinstance(e, dict) and e.get("cat") == "ac2g"
             and e.get("ph") in ("s", "f") and "ts" in e]
    return xs, flows


def holder(cands, e, empty_ok=False):
    """Among cands (one thread, model order), the last before e holding e's start."""
    best = None
    for c in cands:
        if c.rank >= e.rank:
            break
        if c.ts <= e.ts < c.end and (empty_ok or c.dur > 0):
            best = c
    return best


def union_clipped(spans, lo, hi):
    total, cur = 0, lo
    for a, b in sorted(spans):
        a, b = max(a, cur), min(b, hi)
        if b > a:
            total += b - a
            cur = b
    return total


def compute(path, whole=False):
    """(rows by path, host_busy ns, device_time ns) of the selection."""
    a = analyse(path, whole)
    return a["rows"], a["busy"], a["device_time"]


def kernel_modules(path):
    """Per kernel name (cat kernel), over the whole trace: the most frequent
    module path of its kernels' launching ops, ties to the path whose first
    instance comes first in model order; "" when none has a module."""
    return analyse(path, True)["kernel_modules"]


def analyse(path, whole=False):
    xs, flows = load(path)
    by_thread = {}
    for e in xs:
        by_thread.setdefault(e.th, []).append(e)

    # modules: parents, paths, selves
    mods = [e for e in xs if e.cat == "python_function" and e.name.startswith(PREFIX)]
    mods_of = {}
    for m in mods:
        mods_of.setdefault(m.th, []).append(m)
    parent, pathof = {}, {}
    for th, ms in mods_of.items():
        for k, m in enumerate(ms):
            p = None
            for c in ms[:k]:
                if c.dur > 0 and c.ts <= m.ts < c.end and c.end >= m.end:
                    p = c
            parent[m.rank] = p
            name = m.name[len(PREFIX):]
            pathof[m.rank] = name if p is None else pathof[p.rank] + "/" + name
    children = {}
    for m in mods:
        if parent[m.rank] is not None:
            children.setdefault(parent[m.rank].rank, []).append(m)
    selfof = {m.rank: m.dur - union_clipped([(c.ts, c.end) for c in children.get(m.rank, [])],
                                            m.ts, m.end) for m in mods}

    def module_path(e):
        if e.cat == "python_function" and e.name.startswith(PREFIX):
            return pathof[e.rank]
        m = holder(mods_of.get(e.th, []), e)
        return pathof[m.rank] if m else None

    # device events -> launch -> launching op
    runtime_by_corr = {}
    for e in xs:
        if e.cat in RUNTIME_CATS and "correlation" in e.args:
            runtime_by_corr.setdefault(e.args["correlation"], e)
    flow_s = {f.get("id"): f for f in flows if f.get("ph") == "s"}
    flow_f = {}
    for f in flows:
        if f.get("ph") == "f":
            flow_f[((str(f.get("pid", "")), str(f.get("tid", ""))), ns(f["ts"]))] = f.get("id")
    runtimes_of = {}
    for e in xs:
        if e.cat in RUNTIME_CATS:
            runtimes_of.setdefault(e.th, []).append(e)
    ops_of = {}
    for e in xs:
        if e.cat in OP_CATS and not STEP_RE.match(e.name):
            ops_of.setdefault(e.th, []).append(e)
    frames_of = {}
    for e in xs:
        if e.cat in FRAME_CATS and not STEP_RE.match(e.name):
            frames_of.setdefault(e.th, []).append(e)

    def launch_of(d):
        corr = d.args.get("correlation")
        if corr is not None and corr in runtime_by_corr:
            return runtime_by_corr[corr]
        fid = flow_f.get((d.th, d.ts))
        s = flow_s.get(fid) if fid is not None else None
        if s is None:
            return None
        sts, sth = ns(s["ts"]), (str(s.get("pid", "")), str(s.get("tid", "")))
        for r in runtimes_of.get(sth, []):
            if r.ts <= sts < r.end:
                return r
        return None

    devices = [e for e in xs if e.cat in DEVICE_CATS]
    launcher, frames = {}, set()
    for d in devices:
        r = launch_of(d)
        op = None
        if r is not None:
            op = holder(ops_of.get(r.th, []), r, empty_ok=True)
            if op is None:
                op = holder(frames_of.get(r.th, []), r, empty_ok=True)
                if op is not None:
                    frames.add(op.rank)
        launcher[d.rank] = op

    # runs
    wins = None if whole else sorted((e.ts, e.end) for e in xs
                                     if STEP_RE.match(e.name) and e.cat != "gpu_user_annotation")
    starts = [w[0] for w in wins] if wins else []

    def run_of(t):
        if not wins:
            return 0
        i = bisect.bisect_right(starts, t) - 1
        return i if i >= 0 and t < wins[i][1] else None

    selected = lambda t: run_of(t) is not None  # every run is selected (Kineto)

    rows = {}

    def row(p):
        return rows.setdefault(p, {"count": 0, "total": 0, "self": 0, "dev": 0,
                                   "dev_total": 0, "kernels": 0})

    for m in mods:
        if selected(m.ts):
            r = row(pathof[m.rank])
            r["count"] += 1
            r["total"] += m.dur
            r["self"] += selfof[m.rank]
    device_time = 0
    for d in devices:
        op = launcher[d.rank]
        if not selected(op.ts if op is not None else d.ts):
            continue
        device_time += d.dur
        p = module_path(op) if op is not None else None
        if p is None:
            continue
        r = row(p)
        r["dev"] += d.dur
        r["kernels"] += 1
        parts = p.split("/")
        for k in range(1, len(parts) + 1):
            row("/".join(parts[:k]))["dev_total"] += d.dur

    # host busy: per thread the union of ops (frames included) and module windows
    busy = 0
    for th, evs in by_thread.items():
        spans = [(e.ts, e.end) for e in evs if selected(e.ts) and (
            (e.cat in OP_CATS and not STEP_RE.match(e.name)) or e.rank in frames or
            (e.cat == "python_function" and e.name.startswith(PREFIX)))]
        if spans:
            lo = min(a for a, _ in spans)
            busy += union_clipped(spans, lo, max(b for _, b in spans))
    first = {}
    for m in mods:
        first.setdefault(pathof[m.rank], m.rank)
    counts = {}
    for d in devices:
        if d.cat != "kernel":
            continue
        op = launcher[d.rank]
        p = module_path(op) if op is not None else None
        c = counts.setdefault(d.name, {})
        if p is not None:
            c[p] = c.get(p, 0) + 1
    kmods = {k: (min(c, key=lambda p: (-c[p], first[p])) if c else "")
             for k, c in counts.items()}
    return {"rows": rows, "busy": busy, "device_time": device_time, "kernel_modules": kmods}


def us(v):
    return "%s%d.%03d" % ("-" if v < 0 else "", abs(v) // 1000, abs(v) % 1000)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--whole-trace", action="store_true")
    ap.add_argument("trace")
    a = ap.parse_args(argv)
    rows, busy, device_time = compute(a.trace, a.whole_trace)
    print("name,count,total_us,self_us,device_us,device_total_us,kernels")
    for p in sorted(rows):
        r = rows[p]
        print("%s,%d,%s,%s,%s,%s,%d" % (p, r["count"], us(r["total"]), us(r["self"]),
                                        us(r["dev"]), us(r["dev_total"]), r["kernels"]))
    print("# host_busy_ns %d" % busy)
    print("# device_time_ns %d" % device_time)
    return 0


if __name__ == "__main__":
    sys.exit(main())
