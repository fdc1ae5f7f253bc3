#!/usr/bin/env python3
"""Independent recomputation of `opscope gpu --launches [--per-op]`.

Written from the trace format and the rules below, never from opscope's C
code. Standard library only; reuses recompute_measures.py's device events,
their launches, launching ops and runs.

    recompute_launches.py [--runs SPEC] [--short NS] [--per-op] [--short-only] TRACE

prints the CSV opscope prints (columns COLUMNS, "op" first with --per-op).

Rules implemented here:
- kernels: device events of cat kernel / Kernel (not copies nor memsets) in
  the selected runs, each in the run of its launch (recompute_measures:
  the run of the runtime call with its correlation id, else its own);
- a row per kernel name, or with --per-op per launching op name
  (recompute_measures' op: External id, else the innermost op holding the
  launch), "<unattributed>" for kernels of no op;
- count, total = sum of durations; short = the kernels shorter than --short
  (default 10000 ns), short_pct = 100 short / count, short_us their sum;
- over the kernels with a launch (recompute_measures' launch: correlation
  id, else an ac2g flow): delay = kernel start - launch start, launch =
  the launch's duration, queue = kernel start - max(launch end, the furthest
  end of the earlier device events of the kernel's stream, copies and
  memsets included, model order), at least 0; p50/p90/p99 by linear
  interpolation between closest ranks, shown to the whole ns (halves away
  from zero); empty cells without launches;
- rows by total descending, ties by name (bytes); --short-only keeps the
  rows with a short kernel, by short_us descending, then as above.
"""
import argparse
import csv
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recompute  # noqa: E402
import recompute_measures as rm  # noqa: E402

COLUMNS = ["kernel", "count", "total_us", "short", "short_pct", "short_us", "delay_p50_us",
           "delay_p90_us", "delay_p99_us", "launch_p50_us", "launch_p90_us", "launch_p99_us",
           "queue_p50_us", "queue_p99_us"]
KERNEL_CATS = ("kernel", "Kernel")
DEFAULT_SHORT = 10000


def queue_times(devs):
    """Per device event (by id) its queue time, when it has a launch."""
    last_end = {}
    queue = {}
    for d in sorted(devs, key=rm.model_key):
        launch = d["launch"]
        if launch is not None:
            ready = max(launch["end"], last_end.get(d["thread"], launch["end"]))
            queue[id(d)] = max(0, d["ts"] - ready)
        last_end[d["thread"]] = max(last_end.get(d["thread"], d["end"]), d["end"])
    return queue


def round_half_away(v):
    """The nearest integer, halves away from zero (a percentile of ns is a
    fraction of a ns; the µs text shows whole ns)."""
    return int(math.floor(v + 0.5)) if v >= 0 else -int(math.floor(-v + 0.5))


def dist_us(vals):
    """p50, p90, p99 texts (µs, 3 decimals) of ns values; empty without any."""
    if not vals:
        return ["", "", ""]
    s = sorted(vals)
    return [recompute.us_exact(round_half_away(recompute.percentile(s, q)))
            for q in (0.50, 0.90, 0.99)]


def rows(m, kernel_cats, runs=None, short=DEFAULT_SHORT, per_op=False, short_only=False):
    """The table (lists of cells, header first) and (count, short, total, short_total)."""
    sel = m.selection(runs)
    queue = queue_times(m.devs)
    groups = {}
    for d in m.devs:
        if d["cat"] not in kernel_cats or d["run"] is None or d["run"] not in sel:
            continue
        if per_op:
            key = d["op"]["name"] if d["op"] is not None else "<unattributed>"
        else:
            key = d["name"]
        groups.setdefault(key, []).append(d)
    table = []
    totals = [0, 0, 0, 0]
    for name, ks in groups.items():
        total = sum(k["dur"] for k in ks)
        shorts = [k["dur"] for k in ks if k["dur"] < short]
        launched = [k for k in ks if k["launch"] is not None]
        delay = [k["ts"] - k["launch"]["ts"] for k in launched]
        call = [k["launch"]["dur"] for k in launched]
        qs = [queue[id(k)] for k in launched]
        if short_only and not shorts:
            totals = [totals[0] + len(ks), totals[1], totals[2] + total, totals[3]]
            continue
        table.append((-sum(shorts) if short_only else 0, total, name, [name, str(len(ks)), recompute.us_exact(total),
                                    str(len(shorts)), "%.2f" % (100.0 * len(shorts) / len(ks)),
                                    recompute.us_exact(sum(shorts))] + dist_us(delay) +
                      dist_us(call) + [dist_us(qs)[0], dist_us(qs)[2]]))
        totals = [totals[0] + len(ks), totals[1] + len(shorts), totals[2] + total,
                  totals[3] + sum(shorts)]
    table.sort(key=lambda r: (r[0], -r[1], r[2].encode("utf-8")))
    header = (["op"] if per_op else ["kernel"]) + COLUMNS[1:]
    return [header] + [r[3] for r in table], totals


class Launches:
    """The kernels of a trace, for rows()."""

    def __init__(self, path):
        self.m = rm.Measures(path)

    def rows(self, runs=None, short=DEFAULT_SHORT, per_op=False, short_only=False):
        return rows(self.m, KERNEL_CATS, runs, short, per_op, short_only)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs")
    ap.add_argument("--short", type=int, default=DEFAULT_SHORT)
    ap.add_argument("--per-op", action="store_true")
    ap.add_argument("--short-only", action="store_true")
    ap.add_argument("trace")
    a = ap.parse_args(argv)
    table, _ = Launches(a.trace).rows(a.runs, a.short, a.per_op, a.short_only)
    csv.writer(sys.stdout, lineterminator="\n").writerows(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
