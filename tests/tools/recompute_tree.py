#!/usr/bin/env python3
"""Independent recomputation of `opscope tree` totals.

Written from the rules in include/opscope/analysis/calltree.h and correlate.h, never
from opscope's C code. Standard library only; reuses recompute.py's event
reading and run windows.

    recompute_tree.py [--runs SPEC] [--monitor-cat C] [--host-cat C] [--device-cat C]
                      [--calls-of PAT]... TRACE

prints one line per merged call path:
    PATH<TAB>count<TAB>host_ns<TAB>device_ns<TAB>launch_ns<TAB>kernels
where device, launch and kernels cover the path's subtree, as the CSV does.
With --by-path it prints `opscope report --by path --format csv` instead
(path_rows: the op-level events of recompute.py, nested by the same rule).

Rules implemented here (category names must be given explicitly, default
cpu_op / cuda_runtime / kernel):
- tree: per (pid, tid), an event's parent is the latest-starting event of
  that thread (ties: longer first, then file order) that is still open at its
  start and ends no earlier than it; windows are half-open [ts, ts+dur);
  legacy PyTorch traces allow a child to end up to 1000 ns after its parent,
  and such a child then counts as ending when its parent does;
- ops: the events of the monitored categories but run markers
  (ProfilerStep#N), and the frames recompute.launch_frames adds (the
  python_function / user_annotation frame around a launch that no op holds);
- selection: a host op is in the tree when its start is in a selected run
  window; unselected ops are transparent (their children hang on the nearest
  selected ancestor);
- --calls-of: only the ops under (or at) a selected op whose name or ORT
  op_name matches, the outermost such op as the root of their paths; the
  device events and launches of other ops are left out, none unattributed;
- a device event goes to its launch (runtime event with the same
  args.correlation, the earliest), the launch to the op with the same
  "External id", else to the innermost op of the launch's thread open at the
  launch's start; device events without an op, and launches without one,
  go to "<unattributed>" when their own run (the launch's, for device
  events) is selected.
"""
import argparse
import bisect
import fnmatch
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recompute  # noqa: E402


def cats(spec):
    return set(spec.split(","))


# Legacy PyTorch exports round ts and dur to µs separately (calltree.h).
LEGACY_SLACK_NS = 1000


def slack_of(tr):
    return LEGACY_SLACK_NS if tr.format == "legacy" else 0



def selected_path(o, in_runs, top=None):
    """The $$-joined names of the selected ops (in_runs(ts)) from the root (or top, an
    ancestor of o) down to o, or None."""
    names = []
    while o is not None:
        if in_runs(o["ts"]):
            names.append(o["name"])
        if o is top:
            break
        o = o["parent"]
    return "$$".join(reversed(names)) if names else None


def calls_root(o, called, in_runs):
    """The outermost selected op at or above o that called(op) accepts, or None."""
    root = None
    while o is not None:
        if in_runs(o["ts"]) and called(o):
            root = o
        o = o["parent"]
    return root


def caller(patterns):
    """called(op): its name or its ORT op_name matches a pattern (exact, or a wildcard
    with any of *?[), as --calls-of takes them."""
    def one(p, name):
        return fnmatch.fnmatchcase(name, p) if any(c in p for c in "*?[") else name == p

    def called(o):
        names = [o["name"], o["args"].get("op_name")]
        return any(one(p, n) for p in patterns for n in names if isinstance(n, str))
    return called


def selected_holder(o, in_runs):
    """The nearest selected op at or above o."""
    while o is not None and not in_runs(o["ts"]):
        o = o["parent"]
    return o

def nest(ops, slack=0):
    """Set o["parent"] of each op (dicts with ts, dur, end, thread, order) by the
    rule above, a child ending up to slack ns after its parent still nesting;
    returns the ops per thread in tree order."""
    by_thread = {}
    for o in ops:
        by_thread.setdefault(o["thread"], []).append(o)
    for lst in by_thread.values():
        lst.sort(key=lambda o: (o["ts"], -o["dur"], o["order"]))
        open_ = []
        for o in lst:
            while open_ and not (open_[-1]["closes"] > o["ts"] and
                                 open_[-1]["closes"] + slack >= o["end"]):
                open_.pop()
            p = open_[-1] if open_ else None
            o["parent"] = p
            o["closes"] = o["end"] if p is None else min(o["end"], p["closes"])
            open_.append(o)
    return by_thread


def path_rows(tr, runs=None, patterns=(), regex=None):
    """`report --by path` rows of recompute.Trace tr: the op-level events (tr.ops)
    nested as above, keyed by the $$-joined names of their selected ancestors and
    themselves; an op counts when its run is selected and it passes the filter
    (name or op key), as at the op level."""
    sel = recompute.parse_runs(runs, tr.nr_runs, tr.warmup)
    rx = recompute.re.compile(regex) if regex else None
    ops = [{"ev": ev, "ts": ev.ts, "dur": ev.dur, "end": ev.ts + ev.dur, "thread": ev.thread,
            "order": ev.order, "on": r is not None and r in sel}
           for ev, r in zip(tr.ops, tr.run_of_op)]
    nest(ops, slack_of(tr))
    groups = {}
    for o in ops:
        ev = o["ev"]
        if not o["on"] or not (recompute._passes(ev.name, patterns, rx) or
                               recompute._passes(ev.key, patterns, rx)):
            continue
        names, a = [], o
        while a is not None:
            if a["on"]:
                names.append(a["ev"].name)
            a = a["parent"]
        groups.setdefault("$$".join(reversed(names)), []).append(ev.dur)
    return recompute.compute_rows(groups, "path", recompute.runs_holding(tr.run_of_op, sel))


class OpenAt:
    """open_at(thread, t): the latest-starting op of the thread still open at t,
    the last o in the thread's list with o["ts"] <= t < o["end"]. by_thread maps
    a thread to its ops in start order. The last op starting at or before t is
    found by bisection; from an op that ends too soon, the search goes back to
    the nearest earlier op ending later (those between end sooner still)."""

    def __init__(self, by_thread):
        self.by_thread = by_thread
        self.starts, self.back = {}, {}
        for thread, lst in by_thread.items():
            self.starts[thread] = [o["ts"] for o in lst]
            back, later = [], []  # later: ops with ends falling from the left
            for i, o in enumerate(lst):
                while later and lst[later[-1]]["end"] <= o["end"]:
                    later.pop()
                back.append(later[-1] if later else -1)
                later.append(i)
            self.back[thread] = back

    def __call__(self, thread, t):
        lst = self.by_thread.get(thread)
        if not lst:
            return None
        i = bisect.bisect_right(self.starts[thread], t) - 1
        back = self.back[thread]
        while i >= 0 and lst[i]["end"] <= t:
            i = back[i]
        return lst[i] if i >= 0 else None


class _Rec:
    """A record as recompute.launch_frames reads it."""
    def __init__(self, r):
        self.r, self.ts, self.dur, self.thread, self.order = r, r["ts"], r["dur"], r["thread"], \
            r["order"]
        self.ext = r["args"].get("External id")


def launch_frames(ops, launches, frames, devs):
    """The frames that become ops (recompute.launch_frames) among these records."""
    corr = {d["args"].get("correlation") for d in devs}
    got = recompute.launch_frames([_Rec(o) for o in ops],
                                  [(_Rec(l), l["args"].get("correlation")) for l in launches],
                                  [_Rec(f) for f in frames], corr)
    return [g.r for g in got]



def records(path, mon, hc, dc):
    """The trace's complete events as records: the ops (categories mon, run
    markers excepted, plus the frames that launch device work outside every
    op) in trace order, the runtime calls (hc) and the device events (dc)."""
    raw, _, _ = recompute.load_events(path)
    ops, launches, devs, frames = [], [], [], []
    for order, (e, ts, dur) in enumerate(recompute._complete_events(raw)):
        c = e.get("cat")
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        rec = {"name": str(e.get("name", "")), "ts": ts, "dur": dur, "end": ts + dur,
               "thread": (str(e.get("pid")), str(e.get("tid"))), "order": order,
               "args": args}
        if c in mon and not recompute.STEP_RE.match(rec["name"]):  # run markers are no ops
            ops.append(rec)
        elif c in dc:
            devs.append(rec)
        elif c in hc:
            launches.append(rec)
        if c in recompute.FRAME_CATS and c not in mon and not recompute.STEP_RE.match(rec["name"]):
            frames.append(rec)
    ops += launch_frames(ops, launches, frames, devs)
    ops.sort(key=lambda o: o["order"])
    return ops, launches, devs

def build(path, runs=None, monitor="cpu_op", host="cuda_runtime", device="kernel", whole=False,
          calls_of=()):
    """The merged paths' totals; with calls_of (patterns), only the merged subtrees of the
    outermost selected calls of those ops, rooted there, nothing unattributed."""
    tr = recompute.Trace(path)
    if whole:  # --whole-trace
        tr.ignore_runs()
    sel = recompute.parse_runs(runs, tr.nr_runs, tr.warmup)
    ops, launches, devs = records(path, cats(monitor), cats(host), cats(device))

    def in_runs(ts):
        r = tr._window_of(ts)
        return r is not None and r in sel

    by_thread = nest(ops, slack_of(tr))

    called = caller(calls_of)

    def path_of(o):
        if not calls_of:
            return selected_path(o, in_runs)
        top = calls_root(o, called, in_runs)
        return selected_path(o, in_runs, top) if top is not None else None

    def holder(o):
        return selected_holder(o, in_runs)

    rows = {}

    def row(p):
        return rows.setdefault(p, {"count": 0, "host": 0, "dev": 0, "launch": 0, "kernels": 0})

    def add_up(p, key, v):
        """Add v to p and every prefix of p (subtree totals)."""
        parts = p.split("$$") if p != "<unattributed>" else [p]
        for i in range(1, len(parts) + 1):
            row("$$".join(parts[:i]))[key] += v

    for o in ops:
        if in_runs(o["ts"]) and path_of(o):
            r = row(path_of(o))
            r["count"] += 1
            r["host"] += o["dur"]

    ext = {}
    for o in sorted(ops, key=lambda o: (o["ts"], -o["dur"], o["order"])):
        x = o["args"].get("External id")
        if x is not None and x not in ext:
            ext[x] = o
    innermost = OpenAt(by_thread)

    by_corr = {}
    for l in sorted(launches, key=lambda l: (l["ts"], -l["dur"], l["order"])):
        x = l["args"].get("External id")
        l["op"] = ext.get(x) if x is not None else None
        if l["op"] is None:
            l["op"] = innermost(l["thread"], l["ts"])
        c = l["args"].get("correlation")
        if c is not None and c not in by_corr:
            by_corr[c] = l

    def target(op, own_ts):
        if op is not None:
            h = holder(op)
            return path_of(h) if h is not None else None
        return "<unattributed>" if in_runs(own_ts) and not calls_of else None

    for l in launches:
        p = target(l["op"], l["ts"])
        if p:
            add_up(p, "launch", l["dur"])
    for d in devs:
        l = by_corr.get(d["args"].get("correlation"))
        op = l["op"] if l else None
        p = target(op, l["ts"] if l else d["ts"])
        if p:
            add_up(p, "dev", d["dur"])
            add_up(p, "kernels", 1)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs")
    ap.add_argument("--monitor-cat", default="cpu_op")
    ap.add_argument("--host-cat", default="cuda_runtime")
    ap.add_argument("--device-cat", default="kernel")
    ap.add_argument("--calls-of", action="append", default=[])
    ap.add_argument("--by-path", action="store_true",
                    help="print `report --by path --format csv` instead")
    ap.add_argument("trace")
    a = ap.parse_args(argv)
    if a.by_path:
        w = recompute.csv.writer(sys.stdout, lineterminator="\n")
        w.writerow(recompute.LEVEL_COLUMNS["path"])
        for r in path_rows(recompute.Trace(a.trace), a.runs):
            w.writerow(recompute.row_csv(r, "path"))
        return
    rows = build(a.trace, a.runs, a.monitor_cat, a.host_cat, a.device_cat,
                 calls_of=a.calls_of)
    for p in sorted(rows):
        r = rows[p]
        print("%s\t%d\t%d\t%d\t%d\t%d" % (p, r["count"], r["host"], r["dev"], r["launch"],
                                          r["kernels"]))


if __name__ == "__main__":
    main()
