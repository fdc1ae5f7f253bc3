#!/usr/bin/env python3
"""Independent recomputation of `opscope flame` (folded stacks).

Written from the rules in include/opscope/export/flame.h and
include/opscope/analysis/calltree.h, never from opscope's C code. Standard
library only; reuses recompute.py's event reading and run windows and
recompute_tree.py's nesting and device attribution.

    recompute_flame.py [--runs SPEC] [--value host|device] [--kernels]
                       [--monitor-cat C] [--host-cat C] [--device-cat C]
                       [--filter PAT]... [--regex RE] TRACE

prints the folded stacks `frame;frame VALUE` as opscope flame should.

- host: the ops of recompute.Trace (op-level events, the launching frames
  included), nested per thread by time (recompute_tree.nest); the self time
  of an op is the time in which it is the innermost active op of its thread,
  the innermost being the last in model order (ts, longer first, file order)
  of the ops whose half-open window holds the instant (a sweep over the
  thread's window boundaries); a path is the names of the op's selected
  ancestors and its own (an op counts when its start is in a selected run);
- device: each device event's duration at its launching op's path (by
  recompute_tree.build's rules, without the subtree sums), or
  with --kernels at that path plus the device event's name;
- --filter/--regex: the stacks with a frame whose name passes (exact or
  wildcard patterns, a regex searched);
- frames: ';' -> ':', controls (CR, LF ...) and invisible bidi characters
  -> ' ', "" -> "<unnamed>"; stacks sorted
  bytewise (UTF-8), equal stacks merged; values: the differences of the
  running sums rounded half up to whole µs; zero values left out.
"""
import argparse
import heapq
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recompute  # noqa: E402
import recompute_tree  # noqa: E402


# Characters a terminal must not get raw (strtab.h): C0 and C1 controls, DEL,
# bidi embeddings, overrides, isolates and marks, zero-width space, word
# joiner, BOM.
UNSAFE = set(range(0x20)) | set(range(0x7f, 0xa0)) | {0x061c, 0x200b, 0x200e, 0x200f, 0x2060,
                                                       0xfeff} | set(range(0x202a, 0x202f)) | \
    set(range(0x2066, 0x206a))


def frame(name):
    if name == "":
        return "<unnamed>"
    return "".join(":" if c == ";" else " " if ord(c) in UNSAFE else c for c in name)


def self_times(ops):
    """{id(op): self ns}: per thread, each instant goes to the last op in model
    order whose window holds it."""
    out = {}
    by_thread = {}
    for rank, o in enumerate(sorted(ops, key=lambda o: (o["ts"], -o["dur"], o["order"]))):
        o["rank"] = rank
        by_thread.setdefault(o["thread"], []).append(o)
    for lst in by_thread.values():
        points = sorted({o["ts"] for o in lst} | {o["end"] for o in lst})
        starts = sorted(lst, key=lambda o: o["ts"])
        heap, i = [], 0
        for a, b in zip(points, points[1:]):
            while i < len(starts) and starts[i]["ts"] <= a:
                heapq.heappush(heap, (-starts[i]["rank"], id(starts[i]), starts[i]))
                i += 1
            while heap and heap[0][2]["end"] <= a:
                heapq.heappop(heap)
            if heap:
                o = heap[0][2]
                out[id(o)] = out.get(id(o), 0) + (b - a)
    return out


def host_stacks(path, runs=None, whole=False):
    tr = recompute.Trace(path)
    if whole:
        tr.ignore_runs()
    sel = recompute.parse_runs(runs, tr.nr_runs, tr.warmup)
    ops = [{"ev": ev, "name": ev.name, "ts": ev.ts, "dur": ev.dur, "end": ev.ts + ev.dur,
            "thread": ev.thread, "order": ev.order, "on": r is not None and r in sel}
           for ev, r in zip(tr.ops, tr.run_of_op)]
    recompute_tree.nest(ops, recompute_tree.slack_of(tr))
    selfs = self_times(ops)
    stacks = {}
    for o in ops:
        if not o["on"] or not selfs.get(id(o)):
            continue
        names, a = [], o
        while a is not None:
            if a["on"]:
                names.append(frame(a["name"]))
            a = a["parent"]
        key = ";".join(reversed(names))
        stacks[key] = stacks.get(key, 0) + selfs[id(o)]
    return stacks


def device_stacks(path, runs, monitor, host, device, kernels):
    stacks = {}
    for p, name, dur in attribute(path, runs, monitor, host, device):
        key = ";".join(frame(n) for n in (p.split("$$") if p != "<unattributed>" else [p]))
        if kernels:
            key += ";" + frame(name)
        stacks[key] = stacks.get(key, 0) + dur
    return stacks


def attribute(path, runs, monitor, host, device):
    """(path, device event name, dur) of each attributed device event, by
    recompute_tree.build's rules, the device event kept at its own path."""
    out = []
    tr = recompute.Trace(path)
    sel = recompute.parse_runs(runs, tr.nr_runs, tr.warmup)
    ops, launches, devs = recompute_tree.records(path, recompute_tree.cats(monitor),
                                                 recompute_tree.cats(host),
                                                 recompute_tree.cats(device))

    def in_runs(ts):
        r = tr._window_of(ts)
        return r is not None and r in sel

    by_thread = recompute_tree.nest(ops, recompute_tree.slack_of(tr))

    def path_of(o):
        return recompute_tree.selected_path(o, in_runs)

    def holder(o):
        return recompute_tree.selected_holder(o, in_runs)

    ext = {}
    for o in sorted(ops, key=lambda o: (o["ts"], -o["dur"], o["order"])):
        x = o["args"].get("External id")
        if x is not None and x not in ext:
            ext[x] = o
    innermost = recompute_tree.OpenAt(by_thread)
    by_corr = {}
    for l in sorted(launches, key=lambda l: (l["ts"], -l["dur"], l["order"])):
        x = l["args"].get("External id")
        l["op"] = ext.get(x) if x is not None else None
        if l["op"] is None:
            l["op"] = innermost(l["thread"], l["ts"])
        c = l["args"].get("correlation")
        if c is not None and c not in by_corr:
            by_corr[c] = l
    for d in devs:
        l = by_corr.get(d["args"].get("correlation"))
        op = l["op"] if l else None
        if op is not None:
            h = holder(op)
            p = path_of(h) if h is not None else None
        else:
            p = "<unattributed>" if in_runs(l["ts"] if l else d["ts"]) else None
        if p:
            out.append((p, d["name"], d["dur"]))
    return out


def keep_through(stacks, patterns=(), regex=None):
    """The stacks with a frame passing the filter (recompute._passes)."""
    if not patterns and not regex:
        return stacks
    rx = recompute.re.compile(regex) if regex else None
    return {k: v for k, v in stacks.items()
            if any(recompute._passes(f, patterns, rx) for f in k.split(";"))}


def folded(stacks):
    lines, total, written = [], 0, 0
    for key in sorted(stacks, key=lambda s: s.encode("utf-8")):
        total += stacks[key]
        v = (total + 500) // 1000 - written
        if v > 0:
            written += v
            lines.append("%s %d" % (key, v))
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs")
    ap.add_argument("--value", default="host", choices=("host", "device"))
    ap.add_argument("--kernels", action="store_true")
    ap.add_argument("--whole-trace", action="store_true")
    ap.add_argument("--monitor-cat", default="cpu_op")
    ap.add_argument("--host-cat", default="cuda_runtime,cuda_driver")
    ap.add_argument("--device-cat", default="kernel,gpu_memcpy,gpu_memset")
    ap.add_argument("--filter", action="append", default=[])
    ap.add_argument("--regex")
    ap.add_argument("trace")
    a = ap.parse_args(argv)
    if a.value == "host":
        stacks = host_stacks(a.trace, a.runs, a.whole_trace)
    else:
        stacks = device_stacks(a.trace, a.runs, a.monitor_cat, a.host_cat, a.device_cat,
                               a.kernels)
    for line in folded(keep_through(stacks, a.filter, a.regex)):
        print(line)


if __name__ == "__main__":
    main()
