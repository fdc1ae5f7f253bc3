#!/usr/bin/env python3
"""Independent recomputation of `opscope gpu` (where the GPU's time goes).

Written from the contract in the top comment of include/opscope/analysis/gpu.h,
the GPU section of man/opscope.1 and the trace formats, never from opscope's
C code, so the two can check each other. Standard library only; reuses
recompute.py's event reading, run windows and run selection, and
recompute_tree.py's innermost-op rule.

    recompute_gpu.py [--runs SPEC] [--whole-trace] [--kernel-wait NS] [--gaps N] TRACE

prints the CSV of `opscope gpu --format csv` (same arguments): one row per
selected run and device (stream "all"), then that device's streams, and the
"selection" rows last; with --gaps N the N longest device idle gaps instead.
Rows come in (run, device, stream) order here; compare them as a set.
Importable: Gpu.

Rules implemented here:
- device events: complete events (X, or B/E matched per thread) of cat
  kernel / Kernel, gpu_memcpy / Memcpy, gpu_memset / Memset
  (recompute_measures.DEVICE_CATS); stream = (pid, tid) as text, device =
  pid; category memcpy / memset by cat, a kernel whose name holds "nccl" or
  "rccl" (any case) comm, any other kernel compute; a memcpy's direction
  from its name: holding "HtoD" htod, else "DtoH" dtoh, else "DtoD" dtod,
  else other (the names CUPTI, roctracer and nsys's copyKind give);
- model order: ts ascending, dur descending, then file order;
- a device event's launch: the runtime call (cat cuda_runtime / cuda_driver /
  Runtime) with the same args.correlation, the first in model order; none
  without one;
- windows: each selected run's [ts, ts + dur) (recompute.Trace.windows,
  default selection recompute.parse_runs); without runs (or --whole-trace)
  one run from the first start to the last end of the stored events
  (recompute.Trace.stored_span);
- per window W and row (a device: all its streams; a stream): busy =
  |union of the row's events ∩ W|, idle = |W| - busy; compute, comm, memcpy,
  memset = |union of the category ∩ W|; overlap = |comm ∩ compute ∩ W|;
  memcpy_DIR = |union of the memcpys of that direction ∩ W|;
  exposed_comm = comm - overlap; exposed_memcpy = memcpy - |memcpy ∩
  (compute ∪ comm) ∩ W|; busy_pct = 100 busy / |W|; comm_overlap_pct =
  100 overlap / comm (0 without comm); events = the row's events starting in W;
- idle breakdown of a row in W: the cursor starts at W's start, or at the
  furthest end of the row's events starting before W when later; the row's
  events starting in W are walked in model order; an event starting after
  the cursor leaves the gap [cursor, start): a "between" gap when an event
  of the row was running at W's start (started before, ends after it) or an
  earlier event of W was walked, else a leading gap; a between gap shorter
  than --kernel-wait ns is kernel wait, else host wait when the event's
  launch started at or after the gap's start, else other; leading gaps and
  the trailing gap [cursor, W's end) are other; then cursor = max(cursor,
  the event's end). The three sum to idle;
- selection rows: per (device, stream), the sums of the rows of the
  selection's spans, pcts of the sums: the selected windows sorted by start,
  a window starting before the span so far ends joins it (its end the
  furthest end), else it starts a new span (windows that only touch stay
  two); each span is measured as a window of its own; every row of a
  device or stream that has a device event anywhere in the trace is
  printed for every selected run;
- gaps: the device rows' between gaps of every span (walked as a window),
  longest first, each the gap of the selected run holding its start (the
  latest-starting, the shorter of equal starts: as events): run, the next
  event's stream "pid/tid", at_us (gap start - run start),
  gap_us, cause, the next event's name, and host_op: the innermost op
  (recompute.py's op-level events, recompute_tree.OpenAt) of the
  thread of the next event's launch whose window holds the gap's start
  (empty when none or without a launch).
All times are integer ns, printed as µs with 3 decimals; pct with 2.
"""
import argparse
import bisect
import csv
import io
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recompute  # noqa: E402
import recompute_measures as rm  # noqa: E402
import recompute_tree  # noqa: E402

COLUMNS = ["run", "device", "stream", "wall_us", "busy_us", "busy_pct", "idle_us",
           "compute_us", "comm_us", "memcpy_us", "memset_us", "memcpy_htod_us",
           "memcpy_dtoh_us", "memcpy_dtod_us", "memcpy_other_us", "exposed_comm_us",
           "exposed_memcpy_us", "comm_overlap_pct", "host_wait_us", "kernel_wait_us",
           "other_wait_us", "events"]
GAP_COLUMNS = ["run", "stream", "at_us", "gap_us", "cause", "next_event", "host_op"]
CATS = ("compute", "comm", "memcpy", "memset")
DIRS = ("memcpy_htod", "memcpy_dtoh", "memcpy_dtod", "memcpy_other")
WAITS = ("host", "kernel", "other")
WAIT_NAMES = {"host": "host wait", "kernel": "kernel wait", "other": "other"}
NUM_KEYS = ("wall", "busy", "idle") + CATS + DIRS + ("overlap", "exposed_comm", "exposed_memcpy") + \
    WAITS + ("events",)
DEFAULT_KERNEL_WAIT = 30


def category(cat, name):
    if cat in ("gpu_memcpy", "Memcpy"):
        return "memcpy"
    if cat in ("gpu_memset", "Memset"):
        return "memset"
    low = name.lower()
    return "comm" if "nccl" in low or "rccl" in low else "compute"


def direction(name):
    for d in ("HtoD", "DtoH", "DtoD"):
        if d in name:
            return "memcpy_" + d.lower()
    return "memcpy_other"


def merged(intervals):
    """Disjoint sorted [s, e) of the union (empty intervals dropped)."""
    return [tuple(x) for x in rm.merge_intervals(intervals)]


def length(m):
    return sum(e - s for s, e in m)


def intersect(a, b):
    """Intersection of two disjoint sorted interval lists."""
    out = []
    i = j = 0
    while i < len(a) and j < len(b):
        s, e = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if e > s:
            out.append((s, e))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


class Gpu:
    """The device events of one trace, their launches, and the host ops."""

    def __init__(self, path, whole=False):
        self.path = path
        self.tr, (raw, _, _) = rm.trace_and_events(path)
        tr = self.tr
        self.devs = []
        launches = {}
        for order, (e, ts, dur) in enumerate(recompute._complete_events(raw)):
            c = e.get("cat")
            if c not in rm.DEVICE_CATS and c not in recompute.RUNTIME_CATS:
                continue
            a = e.get("args") if isinstance(e.get("args"), dict) else {}
            corr = rm._hashable(a.get("correlation"))
            name = e.get("name")
            name = name if isinstance(name, str) else "" if name is None else str(name)
            rec = {"name": name, "ts": ts, "dur": dur, "end": ts + dur, "order": order,
                   "thread": (str(e.get("pid")), str(e.get("tid"))), "corr": corr}
            if c in rm.DEVICE_CATS:
                rec["cat"] = category(c, name)
                self.devs.append(rec)
            elif corr is not None and (corr not in launches or
                                       rm.model_key(rec) < rm.model_key(launches[corr])):
                launches[corr] = rec
        self.devs.sort(key=rm.model_key)
        for d in self.devs:
            d["launch"] = launches.get(d["corr"]) if d["corr"] is not None else None
        # Rows: each device with its streams, in order of first appearance.
        self.rows_of = {}   # (device, stream or None) -> events in model order
        for d in self.devs:
            dev, stream = d["thread"]
            self.rows_of.setdefault((dev, None), []).append(d)
            self.rows_of.setdefault((dev, stream), []).append(d)
        self.row_starts = {k: [d["ts"] for d in v] for k, v in self.rows_of.items()}
        # Host ops per thread in model order, for the gaps' host_op.
        self.op_threads = {}
        for ev in tr.ops:
            self.op_threads.setdefault(ev.thread, []).append(
                {"name": ev.name, "ts": ev.ts, "dur": ev.dur, "end": ev.ts + ev.dur,
                 "order": ev.order})
        for lst in self.op_threads.values():
            lst.sort(key=rm.model_key)
        self.op_at = recompute_tree.OpenAt(self.op_threads)
        if whole:
            tr.ignore_runs()

    # ------------------------------------------------------------ windows

    def stored_start(self):
        """First start of the events the model stores (recompute.Trace.stored_span's lo)."""
        lo = None
        for ev in self.tr.events:
            lo = ev.ts if lo is None else min(lo, ev.ts)
        for e in self.tr.raw_other:
            ts = recompute.to_ns(e.get("ts"))
            if ts is not None:
                lo = ts if lo is None else min(lo, ts)
        return lo or 0

    def windows(self, runs=None):
        """[(run index, run name "INDEX: NAME", start ns, length ns)] of the selection."""
        tr = self.tr
        sel = recompute.parse_runs(runs, tr.nr_runs, tr.warmup)
        if tr.windows is None:
            return [(0, "0: %s" % tr.run_names[0], self.stored_start(), tr.stored_span())]
        return [(r, "%d: %s" % (r, tr.run_names[r]), tr.windows[r][0], tr.windows[r][1])
                for r in sorted(sel)]

    # ------------------------------------------------------------ one row

    def row(self, key, a, b, kernel_wait, gaps=None, run=None):
        """The numbers of row key in window [a, b); between gaps appended to gaps."""
        evs = self.rows_of[key]
        hi = bisect.bisect_left(self.row_starts[key], b)
        per_cat = {c: [] for c in CATS + DIRS}
        every = []
        reach = None   # furthest end of the events starting before a
        for d in evs[:hi]:
            if d["ts"] < a:
                reach = d["end"] if reach is None else max(reach, d["end"])
            s, e = max(d["ts"], a), min(d["end"], b)
            if e > s:
                per_cat[d["cat"]].append((s, e))
                if d["cat"] == "memcpy":
                    per_cat[direction(d["name"])].append((s, e))
                every.append((s, e))
        u = {c: merged(v) for c, v in per_cat.items()}
        r = {"wall": b - a, "busy": length(merged(every))}
        r["idle"] = r["wall"] - r["busy"]
        for c in CATS + DIRS:
            r[c] = length(u[c])
        r["overlap"] = length(intersect(u["comm"], u["compute"]))
        r["exposed_comm"] = r["comm"] - r["overlap"]
        r["exposed_memcpy"] = r["memcpy"] - length(
            intersect(u["memcpy"], merged(u["compute"] + u["comm"])))
        w = {k: 0 for k in WAITS}
        cursor = a if reach is None else max(a, reach)
        between = reach is not None and reach > a
        n = 0
        for d in evs[bisect.bisect_left(self.row_starts[key], a):hi]:
            n += 1
            if d["ts"] > cursor:
                gap = d["ts"] - cursor
                if not between:
                    why = "other"
                elif gap < kernel_wait:
                    why = "kernel"
                elif d["launch"] is not None and d["launch"]["ts"] >= cursor:
                    why = "host"
                else:
                    why = "other"
                w[why] += gap
                if between and gaps is not None:
                    gaps.append({"run": run, "start": cursor, "dur": gap, "why": why,
                                 "next": d, "at": cursor - a})
            between = True
            cursor = max(cursor, d["end"])
        if cursor < b:
            w["other"] += b - cursor
        r.update(w)
        r["events"] = n
        return r

    # ------------------------------------------------------------ queries

    def breakdown(self, runs=None, kernel_wait=DEFAULT_KERNEL_WAIT):
        """(rows, gaps): rows are dicts with run (name or "selection"), device,
        stream ("all" for a device) and the ns numbers; gaps every device
        between gap, longest first."""
        rows, gaps = [], []
        total = {}
        spans = []
        wins = self.windows(runs)
        for r, name, start, wall in wins:
            for key in self.rows_of:
                dev, stream = key
                x = self.row(key, start, start + wall, kernel_wait)
                x.update({"run": name, "device": dev,
                          "stream": "all" if stream is None else stream})
                rows.append(x)
            if spans and start < spans[-1][1]:
                spans[-1][1] = max(spans[-1][1], start + wall)
            else:
                spans.append([start, start + wall])
        for a, b in spans:
            for key in self.rows_of:
                x = self.row(key, a, b, kernel_wait, gaps if key[1] is None else None)
                t = total.setdefault(key, {k: 0 for k in NUM_KEYS})
                for k in NUM_KEYS:
                    t[k] += x[k]
        for g in gaps:  # the run holding the gap's start: the latest start, then the shortest
            owner = max((w for w in wins if w[2] <= g["start"] < w[2] + w[3]),
                        key=lambda w: (w[2], -w[3]))
            g["run"], g["at"] = owner[1], g["start"] - owner[2]
        for (dev, stream), t in total.items():
            t.update({"run": "selection", "device": dev,
                      "stream": "all" if stream is None else stream})
            rows.append(t)
        for x in rows:
            x["busy_pct"] = 100.0 * x["busy"] / x["wall"] if x["wall"] else 0.0
            x["comm_overlap_pct"] = 100.0 * x["overlap"] / x["comm"] if x["comm"] else 0.0
        gaps.sort(key=lambda g: -g["dur"])
        return rows, gaps

    def host_op(self, g):
        launch = g["next"]["launch"]
        if launch is None:
            return ""
        op = self.op_at(launch["thread"], g["start"])
        return op["name"] if op is not None else ""


# ---------------------------------------------------------------- output

def cell(row, col):
    """CSV text of one column of a breakdown row (as opscope prints it)."""
    us = recompute.us_exact
    if col in ("run", "device", "stream"):
        return row[col]
    if col in ("busy_pct", "comm_overlap_pct"):
        return "%.2f" % row[col]
    if col == "events":
        return str(row["events"])
    stem = col[:-3]
    key = {"host_wait": "host", "kernel_wait": "kernel", "other_wait": "other"}.get(stem, stem)
    return us(row[key])


def gap_cells(gpu, g):
    d = g["next"]
    return [g["run"], "%s/%s" % d["thread"], recompute.us_exact(g["at"]),
            recompute.us_exact(g["dur"]), WAIT_NAMES[g["why"]], d["name"], gpu.host_op(g)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs")
    ap.add_argument("--whole-trace", action="store_true")
    ap.add_argument("--kernel-wait", type=int, default=DEFAULT_KERNEL_WAIT)
    ap.add_argument("--gaps", type=int)
    ap.add_argument("trace")
    a = ap.parse_args(argv)
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    try:
        g = Gpu(a.trace, a.whole_trace)
        rows, gaps = g.breakdown(a.runs, a.kernel_wait)
    except recompute.RecomputeError as e:
        print("recompute_gpu: %s" % e, file=sys.stderr)
        return 2
    if a.gaps is not None:
        w.writerow(GAP_COLUMNS)
        for x in gaps[:a.gaps]:
            w.writerow(gap_cells(g, x))
    else:
        w.writerow(COLUMNS)
        for x in rows:
            w.writerow([cell(x, c) for c in COLUMNS])
    sys.stdout.write(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
