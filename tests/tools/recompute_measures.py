#!/usr/bin/env python3
"""Independent recomputation of the exclusive-time measures of `opscope report`.

Written from the trace formats and the rules below, never from opscope's C
code, so the two can check each other. Standard library only; reuses
recompute.py's event reading, op classification and run windows, and
recompute_tree.py's nesting rule.

    recompute_measures.py [--by op|shape|path|run] [--runs SPEC] [--whole-trace]
                          [--filter PAT]... [--regex RE] [--columns LIST]
                          [--bases | --unattributed] TRACE

prints CSV rows (op/path: name,count,total_us,self_us,self_pct,self_cum_pct,
device_us,device_pct,device_cum_pct,device_total_us,kernels; shape: the same
with input_type_shape after name; run: name,wall_us,host_busy_us,
device_busy_us,device_busy_pct,device_idle_us,device_us,ops,kernels, without
the device columns on a trace without device events), rows by total_us
descending (run level: run index), ties by name. --bases prints
host_busy_ns,device_time_ns of the selection instead; --unattributed
reason,ns,events of its device time no op launched (Measures.unattributed).
Importable: Measures.

Rules implemented here:
- host ops: recompute.py's op-level events, plus the launching frames: for
  each runtime call that launched device work but lies in no op (a graph
  replayed from Python), the innermost python_function or user_annotation
  event of its thread holding its start, run markers excepted (correlate.h's
  osc_host_analysis); everything below is then computed again with them;
  threads are (pid, tid) as text;
- model order: ts ascending, dur descending, then file order;
- self time: per thread, each instant belongs to the innermost active op, the
  op LAST in model order among the thread's ops whose half-open window
  [ts, ts+dur) holds it. Computed by cutting the thread's timeline at every
  start and end into elementary segments and giving each segment to the
  covering op of highest model rank (a heap with lazy removal), so per
  thread the sum of self times is the length of the union of the op windows;
- device events: cat kernel / Kernel, gpu_memcpy / gpu_memset and the 2021
  Kineto Memcpy / Memset, in Kineto and ORT traces;
- device event -> launch: the runtime call (cat cuda_runtime / cuda_driver /
  Runtime) with the same args.correlation, the first in model order; else
  (correlate.h's FLOW) the runtime call whose window holds the start (s) of
  an ac2g / async_gpu flow ending (f) on the device event's thread and ts;
  launch -> op: the op with the same args."External id" (first in model
  order), else the innermost op of the launch's thread whose window holds the
  launch's start (the latest in model order, as recompute_tree.OpenAt);
- ORT device events without a launch: the op with the same
  args.correlation_id, else the op with the same args.op_name whose window is
  nearest the device event's start (0 inside it; ties: the earlier op in
  model order); no link: unattributed;
- device_us / kernels of an op instance: durations / number of the device
  events attributed to it; device_total_us adds those of every op nested
  under it (recompute_tree.nest over all ops, whatever their run, with its
  1 µs slack on legacy PyTorch traces);
- runs: an op belongs to the window holding its start; a device event to the
  run of its launch's start (by correlation id only, runs.h), else to the
  window holding its own start;
- rows sum their selected instances; bases of the selection: host_busy = sum
  of the self times of its ops, device_time = sum of the durations of its
  device events; self_pct / device_pct divide by them (0 when the base is 0),
  the cum columns accumulate in row order;
- run level: one row per selected run holding ops: wall_us (window length,
  the stored span without run markers), host_busy_us (sum of its ops' self
  times), device_busy_us (length of the union of every device event of the
  trace, clipped to the window), device_busy_pct, device_idle_us, device_us
  and kernels (its device events), ops.
All times are integer ns, printed as µs with 3 decimals; pct with 2.
"""
import argparse
import bisect
import csv
import heapq
import io
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recompute  # noqa: E402
import recompute_tree  # noqa: E402

DEVICE_CATS = ("kernel", "Kernel", "gpu_memcpy", "gpu_memset", "Memcpy", "Memset")
FLOW_CATS = ("ac2g", "async_cpu_to_gpu", "async_gpu")
FRAME_CATS = ("python_function", "user_annotation")
OP_COLUMNS = ["name", "count", "total_us", "self_us", "self_pct", "self_cum_pct",
              "device_us", "device_pct", "device_cum_pct", "device_total_us", "kernels"]
RUN_COLUMNS = ["name", "wall_us", "host_busy_us", "device_busy_us", "device_busy_pct",
               "device_idle_us", "device_us", "ops", "kernels"]
RUN_HOST_COLUMNS = ["name", "wall_us", "host_busy_us", "ops"]
KEY_COLUMNS = {"op": ["name"], "path": ["name"], "shape": ["name", "input_type_shape"],
               "run": ["name"]}


def trace_and_events(path):
    """(recompute.Trace of path, load_events(path)); the file is read once."""
    return recompute.Trace(path), recompute.load_events(path)


def level_columns(level, has_device=True):
    if level == "run":
        return RUN_COLUMNS if has_device else RUN_HOST_COLUMNS
    if level == "shape":
        return ["name", "input_type_shape"] + OP_COLUMNS[1:]
    return OP_COLUMNS


def model_key(x):
    return (x["ts"], -x["dur"], x["order"])


def _args(e):
    a = e.get("args")
    return a if isinstance(a, dict) else {}


def _hashable(v):
    """An args value usable as a dict key (ids are numbers or text)."""
    try:
        hash(v)
        return v
    except TypeError:
        return repr(v)


def self_times(ops):
    """Self time (ns) of each op dict (ts, end, rank, thread), by elementary segments.

    Returns a list aligned with ops. Per thread: the sorted distinct start and
    end times cut the timeline into segments; a segment belongs to the active
    op of highest rank (model order), found on a max-heap of started ops from
    which ended ones are dropped lazily."""
    out = [0] * len(ops)
    by_thread = {}
    for i, o in enumerate(ops):
        by_thread.setdefault(o["thread"], []).append(i)
    for idx in by_thread.values():
        idx.sort(key=lambda i: (ops[i]["ts"], ops[i]["rank"]))
        cuts = sorted({ops[i]["ts"] for i in idx} | {ops[i]["end"] for i in idx})
        heap = []
        k = 0
        for a, b in zip(cuts, cuts[1:]):
            while k < len(idx) and ops[idx[k]]["ts"] <= a:
                o = ops[idx[k]]
                heapq.heappush(heap, (-o["rank"], o["end"], idx[k]))
                k += 1
            while heap and heap[0][1] <= a:
                heapq.heappop(heap)
            if heap:
                out[heap[0][2]] += b - a
    return out


def union_length(intervals):
    """Length of the union of (start, end) intervals."""
    total = 0
    cur_s = cur_e = None
    for s, e in sorted(intervals):
        if e <= s:
            continue
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        elif e > cur_e:
            cur_e = e
    if cur_e is not None:
        total += cur_e - cur_s
    return total


def merge_intervals(intervals):
    out = []
    for s, e in sorted(intervals):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1][1] = e
        else:
            out.append([s, e])
    return out


def clipped_length(merged, ends, lo, hi):
    """Length of the merged (disjoint, sorted) intervals, whose ends are ends,
    inside [lo, hi)."""
    total = 0
    for s, e in merged[bisect.bisect_right(ends, lo):]:
        if s >= hi:
            break
        a, b = max(s, lo), min(e, hi)
        if b > a:
            total += b - a
    return total


def self_by_children(ops):
    """The second, plain self time: per op dict (with parent from
    recompute_tree.nest) its duration less the union of its children's
    windows. Returns (list aligned with ops, threads with a partial overlap):
    on those threads the two definitions differ, elsewhere they must agree."""
    children = {}
    for o in ops:
        if o["parent"] is not None:
            children.setdefault(id(o["parent"]), []).append(o)
    out = [o["dur"] - union_length((c["ts"], c["end"]) for c in children.get(id(o), ()))
           for o in ops]
    partial = set()
    by_thread = {}
    for o in ops:
        by_thread.setdefault(o["thread"], []).append(o)
    for t, lst in by_thread.items():
        lst.sort(key=model_key)
        open_ = []
        for o in lst:
            while open_ and not (open_[-1]["end"] > o["ts"] and open_[-1]["end"] >= o["end"]):
                if open_[-1]["end"] > o["ts"]:
                    partial.add(t)
                open_.pop()
            open_.append(o)
    return out, partial


def device_run(d):
    """The run a device event counts in for the op levels: its op's, else its own."""
    return d["op"]["run"] if d["op"] is not None else d["run"]


class Measures:
    """The measures of one trace: per op instance self, device, device_total,
    kernels; per device event its op and run."""

    def __init__(self, path, whole=False):
        self.path = path
        self.tr, (raw, _, _) = trace_and_events(path)
        tr = self.tr
        complete = recompute._complete_events(raw)
        self.devs = []
        launches = {}
        self.runtime = []  # every runtime call, for the flow links
        if tr.format in ("kineto", "ort"):
            for order, (e, ts, dur) in enumerate(complete):
                c = e.get("cat")
                if c not in DEVICE_CATS and c not in recompute.RUNTIME_CATS:
                    continue
                rec = self._record(e, ts, dur, order)
                if c in DEVICE_CATS:
                    self.devs.append(rec)
                else:
                    self.runtime.append(rec)
                    if rec["corr"] is not None and (
                            rec["corr"] not in launches or
                            model_key(rec) < model_key(launches[rec["corr"]])):
                        launches[rec["corr"]] = rec
        flows = self._flow_launches(raw)
        op_evs = list(zip(tr.ops, tr.run_of_op))
        self._build(op_evs, complete, launches, flows)
        frames = self._launch_frames(complete)
        self.frames = [tr.events[i] for i in frames]
        if frames:
            self._build(op_evs + [(ev, tr._window_of(ev.ts)) for ev in self.frames],
                        complete, launches, flows)
        self.device_union = merge_intervals((d["ts"], d["end"]) for d in self.devs)
        self.device_union_ends = [e for _, e in self.device_union]
        if whole:
            self.ignore_runs()

    @staticmethod
    def _record(e, ts, dur, order):
        a = _args(e)
        return {"name": str(e.get("name", "")), "cat": e.get("cat"), "ts": ts, "dur": dur,
                "end": ts + dur,
                "thread": (str(e.get("pid")), str(e.get("tid"))), "order": order,
                "corr": _hashable(a.get("correlation")),
                "ext": _hashable(a.get("External id")),
                "corr_id": _hashable(a.get("correlation_id")),
                "op_name": a.get("op_name")}

    def _build(self, op_evs, complete, launches, flows):
        """The ops (Ev, run) with their self times, nesting and device links."""
        self.ops = []
        for ev, r in op_evs:
            o = self._record(complete[ev.order][0], ev.ts, ev.dur, ev.order)
            o.update({"ev": ev, "name": ev.name, "key": ev.key, "shape": ev.shape,
                      "thread": ev.thread, "run": r})
            self.ops.append(o)
        for rank, o in enumerate(sorted(self.ops, key=model_key)):
            o["rank"] = rank
        for o, s in zip(self.ops, self_times(self.ops)):
            o["self"] = s
            o["dev"] = 0
            o["kernels"] = 0
        recompute_tree.nest(self.ops, recompute_tree.slack_of(self.tr))
        self._link(launches, flows)
        # device_total: own plus every nested op's, children before parents.
        for o in self.ops:
            o["dev_total"] = o["dev"]
        for o in sorted(self.ops, key=model_key, reverse=True):
            if o["parent"] is not None:
                o["parent"]["dev_total"] += o["dev_total"]

    def _launch_frames(self, complete):
        """Event orders of the launching frames: for each launch that started
        device work but has no op, the innermost (last in model order)
        python_function or user_annotation event of its thread whose window
        holds its start, run markers (ProfilerStep#N) excepted."""
        orphans = {}
        for d in self.devs:
            if d["launch"] is not None and d["op"] is None:
                orphans[id(d["launch"])] = d["launch"]
        if not orphans:
            return []
        frames = {}
        for order, (e, ts, dur) in enumerate(complete):
            name = e.get("name")
            if e.get("cat") in FRAME_CATS and not (
                    isinstance(name, str) and recompute.STEP_RE.match(name)):
                rec = {"ts": ts, "dur": dur, "end": ts + dur, "order": order}
                frames.setdefault((str(e.get("pid")), str(e.get("tid"))), []).append(rec)
        for lst in frames.values():
            lst.sort(key=model_key)
        frame_at = recompute_tree.OpenAt(frames)
        out = set()
        for launch in orphans.values():
            holder = frame_at(launch["thread"], launch["ts"])
            if holder is not None:
                out.add(holder["order"])
        return sorted(out)

    # ------------------------------------------------------------ linking

    def _flow_launches(self, raw):
        """{(thread, ts): runtime call} for the device events a flow links:
        an ac2g / async_gpu flow whose end (f) sits at that thread and ts and
        whose start (s) lies in the window of a runtime call of its thread
        (the latest in model order holding it)."""
        starts, ends = {}, []
        for e in raw:
            if not isinstance(e, dict) or e.get("ph") not in ("s", "f"):
                continue
            if e.get("cat") not in FLOW_CATS and e.get("name") not in FLOW_CATS:
                continue
            ts = recompute.to_ns(e.get("ts"))
            fid = _hashable(e.get("id"))
            if ts is None or fid is None:
                continue
            thread = (str(e.get("pid")), str(e.get("tid")))
            if e["ph"] == "s":
                starts.setdefault(fid, (thread, ts))
            else:
                ends.append((fid, thread, ts))
        calls = {}
        for r in sorted(self.runtime, key=model_key):
            calls.setdefault(r["thread"], []).append(r)
        call_at = recompute_tree.OpenAt(calls)
        out = {}
        for fid, thread, ts in ends:
            if fid not in starts or (thread, ts) in out:
                continue
            s_thread, s_ts = starts[fid]
            holder = call_at(s_thread, s_ts)
            if holder is not None:
                out[(thread, ts)] = holder
        return out

    def _link(self, launches, flow_launches):
        tr = self.tr
        by_ext, by_corr_id, by_op_name = {}, {}, {}
        for o in sorted(self.ops, key=model_key):
            if o["ext"] is not None:
                by_ext.setdefault(o["ext"], o)
            if o["corr_id"] is not None:
                by_corr_id.setdefault(o["corr_id"], o)
            if isinstance(o["op_name"], str):
                by_op_name.setdefault(o["op_name"], []).append(o)
        threads = {}
        for o in sorted(self.ops, key=model_key):
            threads.setdefault(o["thread"], []).append(o)
        innermost = recompute_tree.OpenAt(threads)

        def nearest(name, ts):
            best, best_d = None, None
            for o in by_op_name.get(name, ()):
                if o["ts"] <= ts < o["end"]:
                    d = 0
                elif ts < o["ts"]:
                    d = o["ts"] - ts
                else:
                    d = ts - o["end"]
                if best_d is None or d < best_d:  # model order: first wins ties
                    best, best_d = o, d
            return best

        op_of_launch = {}
        for d in self.devs:
            launch = launches.get(d["corr"]) if d["corr"] is not None else None
            run_launch = launch  # the run follows the correlation id only (runs.h)
            if launch is None:
                launch = flow_launches.get((d["thread"], d["ts"]))
            op = None
            if launch is not None:
                key = id(launch)
                if key not in op_of_launch:
                    lop = by_ext.get(launch["ext"]) if launch["ext"] is not None else None
                    op_of_launch[key] = lop or innermost(launch["thread"], launch["ts"])
                op = op_of_launch[key]
            elif tr.format == "ort":
                if d["corr_id"] is not None:
                    op = by_corr_id.get(d["corr_id"])
                if op is None and isinstance(d["op_name"], str):
                    op = nearest(d["op_name"], d["ts"])
            d["run"] = tr._window_of((run_launch or d)["ts"])
            d["launch"] = launch
            d["op"] = op
            if op is not None:
                op["dev"] += d["dur"]
                op["kernels"] += 1

    def ignore_runs(self):
        """--whole-trace: one run holding every op and device event (the
        links and self times do not depend on runs)."""
        self.tr.ignore_runs()
        for x in self.ops + self.devs:
            x["run"] = 0
        return self

    # ------------------------------------------------------------ queries

    @property
    def has_device(self):
        return bool(self.devs)

    def selection(self, runs=None):
        return recompute.parse_runs(runs, self.tr.nr_runs, self.tr.warmup)

    def bases(self, runs=None):
        """(host_busy, device_time) in ns of the selection; a device event
        counts in the run of the op it is attributed to (device_run)."""
        sel = self.selection(runs)
        host = sum(o["self"] for o in self.ops if o["run"] is not None and o["run"] in sel)
        dev = sum(d["dur"] for d in self.devs if device_run(d) is not None and
                  device_run(d) in sel)
        return host, dev

    def attributed(self, runs=None):
        """(device ns attributed to the selected ops, of which from device
        events outside the selection)."""
        sel = self.selection(runs)
        total = outside = 0
        for d in self.devs:
            o = d["op"]
            if o is not None and o["run"] is not None and o["run"] in sel:
                total += d["dur"]
                if d["run"] is None or d["run"] not in sel:
                    outside += d["dur"]
        return total, outside

    def unattributed(self, runs=None):
        """{reason: (ns, events)} of the selection's device events that no op
        launched, each in the run of its own start (or of its launch's, by
        correlation id). The reasons, from the trace alone: its launch was
        found (correlation id or flow) but lies in no op: "launched outside
        any op"; else its id (args.correlation, ORT's args.correlation_id) is
        not a positive integer: "no correlation id or flow"; else the id is
        below every runtime call's: "launched before the trace"; else
        "launch not in the trace"."""
        sel = self.selection(runs)
        ids = [r["corr"] for r in self.runtime
               if isinstance(r["corr"], int) and r["corr"] > 0]
        first = min(ids) if ids else None
        out = {}
        for d in self.devs:
            if d["op"] is not None or d["run"] is None or d["run"] not in sel:
                continue
            cid = d["corr"] if d["corr"] is not None else d["corr_id"]
            if d["launch"] is not None:
                why = "launched outside any op"
            elif not isinstance(cid, int) or isinstance(cid, bool) or cid <= 0:
                why = "no correlation id or flow"
            elif first is not None and cid < first:
                why = "launched before the trace"
            else:
                why = "launch not in the trace"
            ns, n = out.get(why, (0, 0))
            out[why] = (ns + d["dur"], n + 1)
        return out

    def path_of(self, o, sel):
        names = []
        while o is not None:
            if o["run"] is not None and o["run"] in sel:
                names.append(o["name"])
            o = o["parent"]
        return "$$".join(reversed(names))

    def rows(self, level="op", runs=None, patterns=(), regex=None):
        """Rows of a level: dicts with name (and shape), count and ns sums.
        patterns / regex keep the instances whose name or op key matches
        (recompute.py's filter); the pct bases stay unfiltered."""
        if level == "run":
            return self.run_rows(runs)
        sel = self.selection(runs)
        host_busy, device_time = self.bases(runs)
        rx = recompute.re.compile(regex) if regex else None
        groups = {}
        for o in self.ops:
            if o["run"] is None or o["run"] not in sel:
                continue
            if (patterns or rx) and not (recompute._passes(o["name"], patterns, rx) or
                                         recompute._passes(o["key"], patterns, rx)):
                continue
            if level == "op":
                key = (o["key"],)
            elif level == "shape":
                key = (o["key"], o["shape"])
            elif level == "path":
                key = (self.path_of(o, sel),)
            else:
                raise recompute.RecomputeError("unknown level %r" % level)
            g = groups.get(key)
            if g is None:
                g = groups[key] = {"key": key, "name": key[0],
                                   "shape": key[1] if level == "shape" else None,
                                   "count": 0, "total": 0, "self": 0, "dev": 0,
                                   "dev_total": 0, "kernels": 0}
            g["count"] += 1
            g["total"] += o["dur"]
            g["self"] += o["self"]
            g["dev"] += o["dev"]
            g["dev_total"] += o["dev_total"]
            g["kernels"] += o["kernels"]
        rows = sorted(groups.values(), key=lambda g: (-g["total"],) + tuple(
            k.encode("utf-8") for k in g["key"]))
        cum_s = cum_d = 0.0
        for g in rows:
            g["self_pct"] = 100.0 * g["self"] / host_busy if host_busy else 0.0
            g["device_pct"] = 100.0 * g["dev"] / device_time if device_time else 0.0
            cum_s += g["self_pct"]
            cum_d += g["device_pct"]
            g["self_cum_pct"], g["device_cum_pct"] = cum_s, cum_d
        return rows

    def run_rows(self, runs=None):
        sel = self.selection(runs)
        tr = self.tr
        per = {}
        for o in self.ops:
            if o["run"] is not None and o["run"] in sel:
                p = per.setdefault(o["run"], {"ops": 0, "host_busy": 0})
                p["ops"] += 1
                p["host_busy"] += o["self"]
        rows = []
        for r in sorted(per):
            p = per[r]
            if tr.windows is None:
                wall = tr.stored_span()
                busy = sum(e - s for s, e in self.device_union)
            else:
                lo, wall = tr.windows[r]
                busy = clipped_length(self.device_union, self.device_union_ends, lo, lo + wall)
            mine = [d for d in self.devs if device_run(d) == r]
            rows.append({"key": (r,), "name": "%d: %s" % (r, tr.run_names[r]), "run": r,
                         "wall": wall, "host_busy": p["host_busy"], "ops": p["ops"],
                         "device_busy": busy, "device_idle": wall - busy,
                         "device_busy_pct": 100.0 * busy / wall if wall else 0.0,
                         "dev": sum(d["dur"] for d in mine), "kernels": len(mine)})
        return rows

    def thread_union_check(self, runs=None):
        """Problems where a thread's host busy time (sum of self of the
        selected ops on it) exceeds the union of their windows."""
        sel = self.selection(runs)
        per = {}
        for o in self.ops:
            if o["run"] is not None and o["run"] in sel:
                p = per.setdefault(o["thread"], [0, []])
                p[0] += o["self"]
                p[1].append((o["ts"], o["end"]))
        out = []
        for t, (busy, iv) in sorted(per.items()):
            u = union_length(iv)
            if busy > u:
                out.append("thread %s/%s: host busy %d ns > union %d ns" % (t[0], t[1], busy, u))
        return out


# ---------------------------------------------------------------- output

def cell(row, col):
    """CSV text of one column of a row (as opscope prints it)."""
    us = recompute.us_exact
    f = {
        "name": lambda: row["name"],
        "input_type_shape": lambda: row["shape"],
        "count": lambda: str(row["count"]),
        "total_us": lambda: us(row["total"]),
        "self_us": lambda: us(row["self"]),
        "self_pct": lambda: "%.2f" % row["self_pct"],
        "self_cum_pct": lambda: "%.2f" % row["self_cum_pct"],
        "device_us": lambda: us(row["dev"]),
        "device_pct": lambda: "%.2f" % row["device_pct"],
        "device_cum_pct": lambda: "%.2f" % row["device_cum_pct"],
        "device_total_us": lambda: us(row["dev_total"]),
        "kernels": lambda: str(row["kernels"]),
        "wall_us": lambda: us(row["wall"]),
        "host_busy_us": lambda: us(row["host_busy"]),
        "device_busy_us": lambda: us(row["device_busy"]),
        "device_busy_pct": lambda: "%.2f" % row["device_busy_pct"],
        "device_idle_us": lambda: us(row["device_idle"]),
        "ops": lambda: str(row["ops"]),
    }.get(col)
    if f is None:
        raise recompute.RecomputeError("unknown column %r" % col)
    return f()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--by", default="op", choices=["op", "shape", "path", "run"])
    ap.add_argument("--runs")
    ap.add_argument("--whole-trace", action="store_true")
    ap.add_argument("--filter", action="append", default=[])
    ap.add_argument("--regex")
    ap.add_argument("--columns", help="comma-separated columns (default: all of the level)")
    ap.add_argument("--bases", action="store_true", help="print host_busy_ns,device_time_ns")
    ap.add_argument("--unattributed", action="store_true",
                    help="print reason,ns,events of the device events no op launched")
    ap.add_argument("trace")
    a = ap.parse_args(argv)
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    try:
        m = Measures(a.trace, a.whole_trace)
        if a.bases:
            w.writerow(["host_busy_ns", "device_time_ns"])
            w.writerow(m.bases(a.runs))
        elif a.unattributed:
            w.writerow(["reason", "ns", "events"])
            for why, (ns, n) in sorted(m.unattributed(a.runs).items()):
                w.writerow([why, ns, n])
        else:
            cols = a.columns.split(",") if a.columns else level_columns(a.by, m.has_device)
            rows = m.rows(a.by, a.runs, a.filter, a.regex)
            w.writerow(cols)
            for r in rows:
                w.writerow([cell(r, c) for c in cols])
    except recompute.RecomputeError as e:
        print("recompute_measures: %s" % e, file=sys.stderr)
        return 2
    sys.stdout.write(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
