#!/usr/bin/env python3
"""Independent recomputation of `opscope report --histogram` and `--matrix`.

Written from the rules in include/opscope/analysis/histogram.h and matrix.h,
never from opscope's C code, so the two can check each other. Standard
library only; the events, runs, self times and device links come from
recompute.py and recompute_measures.py (which read the trace JSON).

    recompute_dist.py --histogram NAME [--by op|kernel] [--bins N] [--scale S] TRACE
    recompute_dist.py --matrix [--by op|kernel] [--measure self|device] [--top N] TRACE

prints the same CSV as opscope (bins: bin,lo_us,hi_us,count,pct,cum_pct;
matrix: name,median_us,slow_run,slow_pct,run<N>_us...). Importable:
histogram(), matrix(), hist_csv(), matrix_csv().

Rules implemented here:
- instances: at the op level the ops keyed NAME in the selected runs (an op
  in the run window holding its start), their own durations; at the kernel
  level the kernels named NAME in the selected runs (a kernel in the run of
  its launching runtime call, else of its own start);
- bins (histogram.h): auto = log when min >= 1 ns and max >= 100 * min;
  linear width = 2 * IQR / cbrt(n), or (max - min) / ceil(sqrt(n)) when the
  IQR is 0, at least (max - min) / bins, rounded up to 1, 2 or 5 x 10^k ns,
  edges at its multiples from floor(min / w) * w to the bin holding max, the
  width stepping 1 -> 2 -> 5 -> 10 while more than `bins` bins; log edges on
  the 1-2-5 series, else every 1st, 2nd, ... decade from 10^0, from the
  largest edge <= max(min, 1) to the smallest > max; values under the first
  edge go to bin 0 whose lower edge is then min; one bin [min, max] when all
  values are equal or bins is 1; the last bin holds max;
- matrix (matrix.h): rows = the level's rows by the measure descending (ties
  by name bytes), the first `top`; measure self = exclusive host time per op
  instance, device = the device time each op launched itself (in the op's
  run), at the kernel level the kernels' durations (in the kernel's run);
  cells per selected run; per row median over the runs (mean of the middle
  two), slowest run the first largest cell, slow_pct = 100 * (max - median)
  / median (empty when the median is 0); a "total" row of the runs' sums
  over the rows and a "vs_median_pct" row of each run's total against the
  median total.
"""
import argparse
import csv
import io
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recompute  # noqa: E402
import recompute_measures  # noqa: E402


def us(ns):
    return recompute.us_exact(ns)


def pct(v):
    return "%.2f" % v if v is not None else ""


# ------------------------------------------------------------- histogram

def nice_at_least(x):
    p = 1
    while True:
        for m in (1, 2, 5):
            if m * p >= x:
                return m * p
        p *= 10


def nice_next(w):
    p = 1
    while p * 10 <= w:
        p *= 10
    return 2 * p if w == p else 5 * p if w == 2 * p else 10 * p


def _cbrt(x):
    return math.cbrt(x) if hasattr(math, "cbrt") else x ** (1.0 / 3.0)


def log_edge(k, series):
    kind, per = series
    if kind == "125":
        return (1, 2, 5)[k % 3] * 10 ** (k // 3)
    return 10 ** (k * per)


def bins_of(values, max_bins=16, scale="auto"):
    """[(lo, hi, count)], log? for the values (ns)."""
    v = sorted(values)
    n = len(v)
    if not n:
        return [], False
    max_bins = max(1, min(1000, max_bins))
    mn, mx = v[0], v[-1]
    if scale == "auto":
        scale = "log" if mn >= 1 and mx >= 100 * mn else "linear"
    if mn == mx or max_bins == 1:
        return [(mn, mx, n)], False
    if scale == "log" and mx >= 1:
        lo = max(mn, 1)
        for series in [("125", 1)] + [("dec", p) for p in range(1, 64)]:
            k0 = 0
            while log_edge(k0 + 1, series) <= lo:
                k0 += 1
            k1 = k0 + 1
            while log_edge(k1, series) <= mx:
                k1 += 1
            if k1 - k0 <= max_bins:
                break
        edges = [log_edge(k, series) for k in range(k0, k1 + 1)]
        edges[0] = min(edges[0], mn)
        is_log = True
    else:
        rng = mx - mn
        iqr = recompute.percentile(v, 0.75) - recompute.percentile(v, 0.25)
        raw = 2 * iqr / _cbrt(n) if iqr > 0 else rng / math.ceil(math.sqrt(n))
        raw = max(raw, rng / max_bins)
        w = nice_at_least(max(raw, 1))
        while True:
            first = mn // w
            nr = mx // w - first + 1
            if nr <= max_bins:
                break
            w = nice_next(w)
        edges = [(first + i) * w for i in range(nr + 1)]
        is_log = False
    counts = [0] * (len(edges) - 1)
    b = 0
    for x in v:
        while b + 1 < len(counts) and x >= edges[b + 1]:
            b += 1
        counts[b] += 1
    return [(edges[i], edges[i + 1], counts[i]) for i in range(len(counts))], is_log


def instances(path, level, name, runs=None):
    tr = recompute.Trace(path)
    sel = recompute.parse_runs(runs, tr.nr_runs, tr.warmup)
    if level == "op":
        evs, run_of = tr.ops, tr.run_of_op
    else:
        evs, run_of = tr.kernels, tr.run_of_kernel
    return [ev.dur for ev, r in zip(evs, run_of) if r is not None and r in sel and ev.key == name]


def histogram(path, level, name, runs=None, max_bins=16, scale="auto"):
    vals = instances(path, level, name, runs)
    bins, is_log = bins_of(vals, max_bins, scale)
    v = sorted(vals)
    stats = {}
    if v:
        stats = {"min": v[0], "max": v[-1], "p50": recompute.percentile(v, 0.5),
                 "p90": recompute.percentile(v, 0.9), "p99": recompute.percentile(v, 0.99)}
    return bins, is_log, stats


def hist_csv(bins):
    n = sum(c for _, _, c in bins)
    out, cum = ["bin,lo_us,hi_us,count,pct,cum_pct"], 0
    for i, (lo, hi, c) in enumerate(bins):
        cum += c
        out.append("%d,%s,%s,%d,%s,%s" % (i, us(lo), us(hi), c, pct(100.0 * c / n),
                                           pct(100.0 * cum / n)))
    return "\n".join(out) + "\n"  # numbers only: nothing to quote


# ---------------------------------------------------------------- matrix

def matrix(path, level="op", measure=None, runs=None, top=10):
    """(names, runs, cells[row][col]) in ns."""
    if level == "op":
        m = recompute_measures.Measures(path)
        if measure is None:
            measure = "device" if m.has_device else "self"
        field = "dev" if measure == "device" else "self"
        sel = m.selection(runs)
        per = {}
        for o in m.ops:
            if o["run"] is None or o["run"] not in sel:
                continue
            per.setdefault(o["key"], {}).setdefault(o["run"], 0)
            per[o["key"]][o["run"]] += o[field]
    else:
        tr = recompute.Trace(path)
        sel = recompute.parse_runs(runs, tr.nr_runs, tr.warmup)
        per = {}
        for k, r in zip(tr.kernels, tr.run_of_kernel):
            if r is None or r not in sel:
                continue
            per.setdefault(k.key, {}).setdefault(r, 0)
            per[k.key][r] += k.dur
    cols = sorted(sel)
    names = sorted(per, key=lambda n: (-sum(per[n].values()), n.encode("utf-8")))
    if top:
        names = names[:top]
    cells = [[per[n].get(r, 0) for r in cols] for n in names]
    return names, cols, cells


def _excess(v, med):
    return 100.0 * (v - med) / med if med else None


def matrix_csv(names, cols, cells):
    out = [["name", "median_us", "slow_run", "slow_pct"] + ["run%d_us" % r for r in cols]]

    def line(name, vals, text, median=True):
        med = statistics.median(vals) if vals else 0
        slow = max(range(len(vals)), key=lambda j: (vals[j], -j)) if vals else None
        return [name, median_us(med) if median else "",
                str(cols[slow]) if slow is not None else "",
                pct(_excess(vals[slow], med)) if slow is not None else ""] + \
            [text(x, med) for x in vals]

    for n, row in zip(names, cells):
        out.append(line(n, row, lambda x, med: us(x)))
    totals = [sum(row[j] for row in cells) for j in range(len(cols))]
    out.append(line("total", totals, lambda x, med: us(x)))
    out.append(line("vs_median_pct", totals, lambda x, med: pct(_excess(x, med)), False))
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(out)
    return buf.getvalue()


def median_us(v):
    """A median (a whole or half ns) in us with 3 decimals."""
    return "%.3f" % (v / 1000.0)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--by", default="op", choices=["op", "kernel"])
    ap.add_argument("--runs")
    ap.add_argument("--histogram")
    ap.add_argument("--bins", type=int, default=16)
    ap.add_argument("--scale", default="auto")
    ap.add_argument("--matrix", action="store_true")
    ap.add_argument("--measure", choices=["self", "device"])
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("trace")
    a = ap.parse_args(argv)
    if a.histogram is not None:
        bins, _, _ = histogram(a.trace, a.by, a.histogram, a.runs, a.bins, a.scale)
        sys.stdout.write(hist_csv(bins))
    else:
        sys.stdout.write(matrix_csv(*matrix(a.trace, a.by, a.measure, a.runs, a.top)))


if __name__ == "__main__":
    main()
