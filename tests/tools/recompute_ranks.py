#!/usr/bin/env python3
"""Independent recomputation of `opscope report` on a distributed job.

Written from the definitions in include/opscope/analysis/ranks.h, job.h and
man/opscope.1 (DISTRIBUTED JOBS) and the trace formats, never from opscope's
C code. Standard library only; each rank's numbers come from the other
recomputations (recompute_measures.Measures: op rows and the bases;
recompute.Trace: kernel rows; recompute_gpu.Gpu: the GPU breakdown).

    recompute_ranks.py (--by rank | --by op | --by kernel | --split-op | --info)
                       [--runs SPEC] [--straggler K] TRACE...

prints the CSV of `opscope report -F csv` with the same arguments:
- ranks: distributedInfo.rank when a whole number, else the number after
  the last "rank" (else "worker") in the file name, else the trace's place
  among the arguments; the rows ordered by rank;
- --by rank: per rank over its selected runs (recompute.parse_runs, the ORT
  warm-up rule): runs, wall (the length of the union of the runs' windows:
  nested runs count once), step = wall / spans (the union's stretches,
  windows that only touch kept apart), the GPU breakdown of the device with
  the most device events (recompute_gpu's selection row: busy, compute,
  comm, memcpy, exposed comm, idle over the spans), host_busy, the
  kernel with the most device time (ties: the first name), and the ratios
  to the median over ranks (the mean of the middle two for an even count)
  of step, work (compute, or host_busy without device events) and comm;
  flags "slow step", "straggler", "waits" beyond K (default 1.10);
- --by op / --by kernel: per key (name) its value on each rank, 0 where
  absent: op level device time launched when any rank has device events,
  else self time; kernel level the kernels' own durations; total, mean over
  ranks, min / max with the lowest rank of equals, median, spread =
  100 (max - min) / median, max / median; rows by total descending, ties by
  name;
- --split-op: every rank's op rows: count, total, self, device,
  device_total, kernels, min, max and the percentages of the rank's
  host_busy and device time; by rank, then by the measure above
  descending, ties by name;
- --info: the job's ranks against the world size most ranks state (missing
  ranks as ranges, or the world sizes when they differ), then per rank
  its world size, where its rank came from, its runs and the time their
  windows cover (their union: NVTX ranges may nest).
"""
import argparse
import csv
import gzip
import io
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recompute  # noqa: E402
import recompute_gpu  # noqa: E402
import recompute_measures  # noqa: E402

STRAGGLER_K = 1.10


def us(ns):
    """µs with 3 decimals of a ns value, rounded half away from zero to whole ns."""
    n = math.floor(abs(ns) + 0.5)
    return recompute.us_exact(-n if ns < 0 else n)


def ratio(x):
    return "" if x is None else "%.3f" % x


def pct(x):
    return "" if x is None else "%.2f" % (math.floor(abs(x) * 100 + 0.5) / 100 * (1 if x >= 0 else -1))


def median(v):
    s = sorted(v)
    n = len(s)
    if not n:
        return 0.0
    return float(s[n // 2]) if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2.0


def top_level(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        doc = json.load(f)
    return doc if isinstance(doc, dict) else {}


def rank_of(path, index):
    """(rank, world size or None, where the rank came from)."""
    info = top_level(path).get("distributedInfo")
    if isinstance(info, dict):
        r = info.get("rank")
        if isinstance(r, int) and not isinstance(r, bool) and 0 <= r < 2 ** 31:
            w = info.get("world_size")
            return r, (w if isinstance(w, int) and w > 0 else None), "distributedInfo"
    base = os.path.basename(path)
    for word in ("rank", "worker"):
        found = re.findall(word + r"[-_]?(\d+)", base)
        if found:
            return int(found[-1]), None, "file name"
    return index, None, "input order"


class Rank:
    def __init__(self, path, index, runs):
        self.path = path
        self.rank, self.world, self.rank_from = rank_of(path, index)
        self.m = recompute_measures.Measures(path)
        self.g = recompute_gpu.Gpu(path)
        self.t = recompute.Trace(path)
        self.runs = runs
        self.has_device = bool(self.m.devs)
        self.sel = self.m.selection(runs)

    def table_row(self):
        wins = self.g.windows(self.runs)
        spans = []
        for _, _, start, length in sorted(wins, key=lambda w: w[2]):
            if spans and start < spans[-1][1]:
                spans[-1][1] = max(spans[-1][1], start + length)
            else:
                spans.append([start, start + length])
        wall = sum(b - a for a, b in spans)
        host_busy, device_time = self.m.bases(self.runs)
        devices = {}
        for (dev, stream), evs in self.g.rows_of.items():
            if stream is None:
                devices[dev] = len(evs)
        busiest = max(sorted(devices), key=lambda d: devices[d]) if devices else None
        rows, _ = self.g.breakdown(self.runs)
        sel = [x for x in rows if x["run"] == "selection" and x["device"] == busiest and
               x["stream"] == "all"]
        b = sel[0] if sel else {k: 0 for k in recompute_gpu.NUM_KEYS}
        kernels = self.kernel_values()
        top = None
        for name in sorted(kernels):
            if top is None or kernels[name] > kernels[top]:
                top = name
        return {"rank": self.rank, "world": self.world, "runs": len(wins), "wall": wall,
                "step": wall / len(spans) if spans else 0.0, "busy": b["busy"],
                "compute": b["compute"], "comm": b["comm"], "memcpy": b["memcpy"],
                "exposed": b["exposed_comm"], "idle": wall - b["busy"],
                "host_busy": host_busy, "top": top,
                "top_us": kernels[top] if top is not None else None}

    def kernel_values(self):
        return {r["name"]: r["total"] for r in self.t.rows("kernel", self.runs)}

    def op_rows(self):
        return self.m.rows("op", self.runs)


def rank_table(ranks, k):
    rows = [r.table_row() for r in ranks]
    work = [x["compute"] if r.has_device else x["host_busy"] for r, x in zip(ranks, rows)]
    ms, mw, mc = median([x["step"] for x in rows]), median(work), median([x["comm"] for x in rows])
    out = []
    for x, w in zip(rows, work):
        sx = x["step"] / ms if ms > 0 else None
        wx = w / mw if mw > 0 else None
        cx = x["comm"] / mc if mc > 0 else None
        flags = [name for name, v in (("slow step", sx), ("straggler", wx), ("waits", cx))
                 if v is not None and v > k]
        out.append([str(x["rank"]), us(x["step"]), ratio(sx), us(x["compute"]), ratio(wx),
                    us(x["comm"]), ratio(cx), ", ".join(flags),
                    pct(100.0 * x["busy"] / x["wall"]) if x["wall"] > 0 else "",
                    us(x["exposed"]), us(x["idle"]), us(x["memcpy"]), us(x["wall"]),
                    us(x["host_busy"]), "" if x["world"] is None else str(x["world"]),
                    str(x["runs"]), x["top"] or "",
                    us(x["top_us"]) if x["top"] is not None else "", x_path(x, ranks)])
    return RANK_COLUMNS, out


def x_path(x, ranks):
    return [r.path for r in ranks if r.rank == x["rank"]][0]


RANK_COLUMNS = ["rank", "step_us", "step_x_median", "compute_us", "work_x_median", "comm_us",
                "comm_x_median", "flags", "busy_pct_of_wall", "exposed_comm_us", "idle_us",
                "memcpy_us", "wall_us", "host_busy_us", "world_size", "runs", "top_kernel",
                "top_kernel_us", "trace"]
DIST_COLUMNS = ["name", "ranks", "count", "total_us", "mean_per_rank_us", "min_us", "min_rank",
                "median_us", "max_us", "max_rank", "spread_pct_of_median", "max_x_median"]
SPLIT_COLUMNS = ["name", "rank", "count", "total_us", "self_us", "self_pct_of_rank_host_busy",
                 "device_us", "device_pct_of_rank_device_time", "device_total_us", "kernels",
                 "min_us", "max_us"]


def distribution(ranks, level):
    any_device = any(r.has_device for r in ranks)
    values, counts = {}, {}
    for i, r in enumerate(ranks):
        if level == "kernel":
            rows = [(x["name"], x["count"], x["total"]) for x in r.t.rows("kernel", r.runs)]
        else:
            rows = [(x["name"], x["count"], x["dev"] if any_device else x["self"])
                    for x in r.op_rows()]
        for name, count, v in rows:
            values.setdefault(name, [0] * len(ranks))[i] += v
            counts.setdefault(name, [0, 0])
            counts[name][0] += count
            counts[name][1] += 1
    out = []
    for name, v in values.items():
        n = len(v)
        lo = min(range(n), key=lambda i: (v[i], i))
        hi = min(range(n), key=lambda i: (-v[i], i))
        med = median(v)
        total = sum(v)
        out.append((total, name, [name, str(counts[name][1]), str(counts[name][0]), us(total),
                                  us(total / n), us(v[lo]), str(ranks[lo].rank), us(med),
                                  us(v[hi]), str(ranks[hi].rank),
                                  pct(100.0 * (v[hi] - v[lo]) / med) if med > 0 else "",
                                  ratio(v[hi] / med) if med > 0 else None]))
    out.sort(key=lambda x: (-x[0], x[1].encode()))
    return DIST_COLUMNS, [[c if c is not None else "" for c in x[2]] for x in out]


def split_ops(ranks):
    any_device = any(r.has_device for r in ranks)
    out = []
    for i, r in enumerate(ranks):
        host_busy, device_time = r.m.bases(r.runs)
        durs = {}
        for o in r.m.ops:
            if o["run"] is not None and o["run"] in r.sel:
                durs.setdefault(o["key"], []).append(o["dur"])
        rows = []
        for x in r.op_rows():
            v = x["dev"] if any_device else x["self"]
            x["min"], x["max"] = min(durs[x["name"]]), max(durs[x["name"]])
            rows.append((v, x["name"], [
                x["name"], str(r.rank), str(x["count"]), us(x["total"]), us(x["self"]),
                pct(100.0 * x["self"] / host_busy) if host_busy > 0 else "",
                us(x["dev"]), pct(100.0 * x["dev"] / device_time) if device_time > 0 else "",
                us(x["dev_total"]), str(x["kernels"]), us(x["min"]), us(x["max"])]))
        rows.sort(key=lambda y: (-y[0], y[1].encode()))
        out += [y[2] for y in rows]
    return SPLIT_COLUMNS, out


INFO_COLUMNS = ["rank", "world_size", "rank_from", "runs", "runs_wall_us"]


def covered(wins):
    """The time the windows [(_, _, start, length)] cover together: their union."""
    total, start, end = 0, None, None
    for a, length in sorted((s, n) for _, _, s, n in wins):
        if end is None or a > end:
            total += (end - start) if end is not None else 0
            start, end = a, a + length
        else:
            end = max(end, a + length)
    return total + ((end - start) if end is not None else 0)


def info_table(ranks):
    """`opscope info` of a job: the columns above, the union of every run's window."""
    rows = []
    for r in ranks:
        wins = r.g.windows("all")
        rows.append([r.rank, "" if r.world is None else r.world, r.rank_from, len(wins),
                     us(covered(wins))])
    return INFO_COLUMNS, rows


def world_text(ranks):
    """The job's ranks against the world size most ranks state (job_info.h)."""
    sizes = [r.world for r in ranks if r.world is not None]
    if not sizes:
        return "%d; no world size recorded" % len(ranks)
    world = max(sorted(set(sizes), key=sizes.index), key=sizes.count)
    text = "%d of world size %d" % (len(ranks), world)
    if len(set(sizes)) > 1:
        parts = []
        for w in sorted(set(r.world for r in ranks), key=[x.world for x in ranks].index):
            n = sum(1 for x in ranks if x.world == w)
            parts.append("%s (%d rank%s)" % ("none" if w is None else w, n, "" if n == 1 else "s"))
        return text + "; world sizes differ: " + ", ".join(parts)
    have = {r.rank for r in ranks}
    gaps, r = [], 0
    while r < world:
        if r in have:
            r += 1
            continue
        end = r
        while end < world and end not in have:
            end += 1
        gaps.append("%d-%d" % (r, end - 1) if end - r > 1 else "%d" % r)
        r = end
    return text + ("; missing " + ", ".join(gaps) if gaps else "")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--by", choices=["rank", "op", "kernel"])
    ap.add_argument("--split-op", action="store_true")
    ap.add_argument("--info", action="store_true")
    ap.add_argument("--runs")
    ap.add_argument("--straggler", type=float, default=STRAGGLER_K)
    ap.add_argument("traces", nargs="+")
    a = ap.parse_args(argv)
    try:
        ranks = [Rank(p, i, a.runs) for i, p in enumerate(a.traces)]
    except recompute.RecomputeError as e:
        print("recompute_ranks: %s" % e, file=sys.stderr)
        return 2
    ranks.sort(key=lambda r: r.rank)
    if a.info:
        print("# ranks: " + world_text(ranks))
        cols, rows = info_table(ranks)
    elif a.split_op:
        cols, rows = split_ops(ranks)
    elif a.by == "rank":
        cols, rows = rank_table(ranks, a.straggler)
    else:
        cols, rows = distribution(ranks, a.by or "op")
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(cols)
    w.writerows(rows)
    sys.stdout.write(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
