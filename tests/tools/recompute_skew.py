#!/usr/bin/env python3
"""Recompute the per-call skew table of a job's ranks (collective_skew.h) from
their Kineto traces, one per rank, in the order given.

Written from the trace format (not from opscope's C code):
- times are exact: ns = int(µs x 1000) of the decimal text;
- a call is a complete cpu_op named record_param_comms with a "Collective
  name" arg; its group is "Process Group Name", else "Group size" as text,
  else ""; S as NCCL's PERFORMANCE.md defines it (recompute_collectives.py);
- its device work: the device events (cat kernel, gpu_memcpy, gpu_memset)
  whose correlation id is that of a runtime call on the call's thread
  starting within the call's window, and within no call nested in it
  (the innermost call holding the launch takes it); ts = the first start,
  dur = the last end - ts;
- a kernel whose name holds "nccl" or "rccl" (any case) that no call took is
  a call of its own, named by the kernel, in the group "stream N" (args
  "stream", else its tid), issued at its start;
- each rank numbers the calls of each group from 0 in issue order (the op's
  start; ties by device start); calls of all ranks with the same (group,
  seq) are one call: skew = last start - first start, transfer = the
  shortest dur, wait = longest - shortest (at the first rank with it),
  busbw = S / transfer x NCCL's factor; missing = ranks with calls of the
  group but not this one; algorithm and protocol: each rank's from the
  names of its call's kernels (recompute_collectives.py's grammar and
  rule), then the ranks' values merged by the same rule (all alike, else
  "mixed"). A rank is shown by distributedInfo's rank, else
  its position. Rows by group text, then seq.

    recompute_skew.py RANK0_TRACE RANK1_TRACE ...   # prints the CSV
"""
import csv
import decimal
import gzip
import io
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recompute_collectives as rc  # noqa: E402  (dtype sizes, NCCL's factors)

DEVICE = {"kernel", "gpu_memcpy", "gpu_memset"}
RUNTIME = {"cuda_runtime", "cuda_driver", "hip_runtime", "hip_driver", "runtime"}
COLUMNS = ["group", "seq", "collective", "msg_mb", "algorithm", "protocol", "ranks", "missing_ranks", "first_rank",
           "last_rank", "skew_us", "transfer_us", "wait_us", "waited_rank", "busbw_gbs"]


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    return doc if isinstance(doc, dict) else {"traceEvents": doc}


def ns(us):
    """Kineto's µs as integer ns, exactly as written (recompute.py's rule)."""
    return int(decimal.Decimal(us) * 1000)


def calls_of(doc):
    """The calls of one rank: dicts with group, name, bytes, n, ts, dur, host."""
    ev = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
    calls = []
    for e in ev:
        a = e.get("args") or {}
        name = a.get("Collective name")
        if e.get("cat") != "cpu_op" or e.get("name") != "record_param_comms" or \
                not isinstance(name, str) or not name:
            continue
        dtype = a.get("dtype") if isinstance(a.get("dtype"), str) else ""
        n = a.get("Group size") if isinstance(a.get("Group size"), int) else -1
        pg = a.get("Process Group Name")
        group = pg if isinstance(pg, str) and pg else (str(n) if n >= 0 else "")
        nel = a.get("Out msg nelems") if rc.norm(name).startswith(("allgather", "all_gather")) \
            else a.get("In msg nelems")
        size = rc.SIZES.get(dtype, 0)
        calls.append({"group": group, "name": name, "n": n, "host": ns(e["ts"]),
                      "end": ns(e["ts"]) + ns(e["dur"]), "thread": (e["pid"], e["tid"]),
                      "bytes": nel * size if size and isinstance(nel, int) and nel >= 0 else None,
                      "ts": -1, "dur": 0, "kernels": []})
    ops = list(calls)
    launch = {}
    for e in ev:
        c = (e.get("args") or {}).get("correlation")
        if e.get("cat") in RUNTIME and c is not None:
            launch[c] = e
    for e in ev:
        if e.get("cat") not in DEVICE:
            continue
        a = e.get("args") or {}
        r = launch.get(a.get("correlation"))
        owner = None
        if r is not None:
            t = ns(r["ts"])
            holding = [c for c in ops if c["thread"] == (r["pid"], r["tid"]) and
                       c["host"] <= t < c["end"]]
            if holding:  # the innermost: latest start, then shortest
                owner = max(holding, key=lambda c: (c["host"], -c["end"]))
        if owner is None:
            name = e.get("name", "")
            if e.get("cat") != "kernel" or ("nccl" not in name.lower() and "rccl" not in name.lower()):
                continue
            stream = a.get("stream") if isinstance(a.get("stream"), int) else e.get("tid")
            owner = {"group": "stream %s" % stream, "name": name, "n": -1, "bytes": None,
                     "host": ns(e["ts"]), "ts": -1, "dur": 0, "kernels": []}
            calls.append(owner)
        if e.get("cat") == "kernel":
            owner["kernels"].append(e.get("name", ""))
        start, end = ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])
        if owner["ts"] < 0:
            owner["ts"], owner["dur"] = start, end - start
        else:
            last = max(owner["ts"] + owner["dur"], end)
            owner["ts"] = min(owner["ts"], start)
            owner["dur"] = last - owner["ts"]
    calls.sort(key=lambda c: (c["host"], c["ts"]))
    seq = {}
    for c in calls:
        c["seq"] = seq.get(c["group"], 0)
        seq[c["group"]] = c["seq"] + 1
    return calls


def us(ns):
    return "%d.%03d" % (ns // 1000, ns % 1000)


def table(paths):
    docs = [load(p) for p in paths]
    shown = []
    for i, d in enumerate(docs):
        info = d.get("distributedInfo") or {}
        shown.append(info["rank"] if isinstance(info.get("rank"), int) else i)
    by_id, group_ranks = {}, {}
    for r, d in enumerate(docs):
        for c in calls_of(d):
            by_id.setdefault((c["group"], c["seq"]), []).append((r, c))
            group_ranks.setdefault(c["group"], set()).add(r)
    rows = [COLUMNS]
    for (group, seq) in sorted(by_id, key=lambda k: (k[0].encode(), k[1])):
        have = by_id[(group, seq)]
        first = have[0][1]
        work = [(r, c) for r, c in have if c["ts"] >= 0]
        algo = proto = None
        for r, c in have:
            a, p = rc.merge_kernels(c["kernels"])
            algo, proto = rc.merge(algo, a), rc.merge(proto, p)
        row = [group, str(seq), first["name"],
               "%.6f" % (first["bytes"] / 1e6) if first["bytes"] is not None else "",
               algo, proto, str(len(have)), str(len(group_ranks[group]) - len(have))]
        if work:
            f = min(work, key=lambda x: (x[1]["ts"], x[0]))
            last = min(work, key=lambda x: (-x[1]["ts"], x[0]))
            lo = min(c["dur"] for r, c in work)
            hi = min(work, key=lambda x: (-x[1]["dur"], x[0]))
            transfer = lo
            bw = ""
            if first["bytes"] is not None and transfer > 0 and first["n"] >= 1:
                bw = "%.3f" % (first["bytes"] / transfer * rc.factor(first["name"], first["n"]))
            row += [str(shown[f[0]]), str(shown[last[0]]), us(last[1]["ts"] - f[1]["ts"]),
                    us(transfer), us(hi[1]["dur"] - lo), str(shown[hi[0]]), bw]
        else:
            row += ["", "", "", "", "", "", ""]
        rows.append(row)
    return rows


def csv_lines(rows):
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue().splitlines()


if __name__ == "__main__":
    print("\n".join(csv_lines(table(sys.argv[1:]))))
