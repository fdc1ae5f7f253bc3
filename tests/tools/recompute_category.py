#!/usr/bin/env python3
"""Independent recomputation of `opscope report --by category` (issue 15 item 3).

Written from the rule in man/opscope.1 (AGGREGATION, Op categories) and
include/opscope/analysis/category.h, never from the C code that applies it.
The pattern table itself is data: it is read from the rows of
src/core/analysis/category.c (OP(CAT, "pattern") / K(CAT, "pattern")) and
matched here with Python's fnmatch (exact when no *?[ is in the pattern),
first match wins. Ops, self times, device events, their launching op and
their runs come from recompute_measures.py (itself independent of the C code).

Rule implemented:
- name category of a host op: its op key's, else its name's, by the op rows;
- device event: its launching op's name category unless that is other, else
  its own name's by the kernel rows;
- host op category: its name category; when other, the category holding most
  device time among the device events it launched (each by its own name
  category), ties to the earlier category, none with time: other;
- rows: count, total and self over the selected ops by op category; device
  (a sum of durations) and kernels over the device events by device event
  category, a device event counting in the run of its launching op.

    recompute_category.py TRACE      prints name,count,self_us,device_us,kernels
"""
import fnmatch
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recompute  # noqa: E402
import recompute_measures as rm  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
NAMES = {"GEMM": "GEMM", "CONV_FWD": "CONV_fwd", "CONV_BWD": "CONV_bwd",
         "SDPA_FWD": "SDPA_fwd", "SDPA_BWD": "SDPA_bwd", "NORM": "norm",
         "ELEMENTWISE": "elementwise", "REDUCE": "reduce", "TRITON": "triton",
         "COMM": "communication", "MEMCPY": "memcpy/memset", "OTHER": "other"}
ORDER = list(NAMES.values())  # category order: ties go to the earlier one


def load_table():
    """The built-in rows as (category, 'op' | 'kernel', pattern), in order."""
    with open(os.path.join(ROOT, "src", "core", "analysis", "category.c")) as f:
        text = f.read()
    body = text[text.index("builtin[] = {"):]
    body = body[:body.index("};")]
    rows = [(NAMES[c], "op" if k == "OP" else "kernel", p)
            for k, c, p in re.findall(r'\b(OP|K)\((\w+), "((?:[^"\\]|\\.)*)"\)', body)]
    if len(rows) < 50:
        raise RuntimeError("could not read the category table")
    return rows


class Categories:
    def __init__(self):
        self.rows = load_table()
        self.memo = {}

    def match(self, kind, name):
        k = (kind, name)
        if k not in self.memo:
            self.memo[k] = "other"
            for cat, rk, pat in self.rows:
                if rk != kind:
                    continue
                wild = any(ch in pat for ch in "*?[")
                if (fnmatch.fnmatchcase(name, pat) if wild else name == pat):
                    self.memo[k] = cat
                    break
        return self.memo[k]

    def op_name_cat(self, o):
        c = self.match("op", o["key"])
        if c == "other" and o["name"] != o["key"]:
            c = self.match("op", o["name"])
        return c


def rows(path, runs=None):
    m = rm.Measures(path)
    cats = Categories()
    sel = m.selection(runs)
    name_cat = {id(o): cats.op_name_cat(o) for o in m.ops}
    acc = {}  # id(op) -> {category: device ns} for ops named other
    dev_cat = []
    for d in m.devs:
        own = cats.match("kernel", d["name"])
        o = d["op"]
        if o is not None and name_cat[id(o)] != "other":
            dev_cat.append(name_cat[id(o)])
            continue
        dev_cat.append(own)
        if o is not None:
            a = acc.setdefault(id(o), {})
            a[own] = a.get(own, 0) + d["dur"]
    out = {}

    def row(c):
        return out.setdefault(c, {"name": c, "count": 0, "total": 0, "self": 0, "dev": 0,
                                  "kernels": 0})
    for o in m.ops:
        if o["run"] is None or o["run"] not in sel:
            continue
        c = name_cat[id(o)]
        if c == "other" and id(o) in acc:
            live = [(t, -ORDER.index(k), k) for k, t in acc[id(o)].items() if t > 0]
            c = max(live)[2] if live else "other"
        r = row(c)
        r["count"] += 1
        r["total"] += o["dur"]
        r["self"] += o["self"]
    for d, c in zip(m.devs, dev_cat):
        run = rm.device_run(d)
        if run is None or run not in sel:
            continue
        r = row(c)
        r["dev"] += d["dur"]
        r["kernels"] += 1
    host_busy, device_time = m.bases(runs)
    return out, host_busy, device_time


def main(argv):
    out, hb, dt = rows(argv[1])
    print("# host_busy_ns=%d device_time_ns=%d" % (hb, dt))
    print("name,count,self_us,device_us,kernels")
    for r in sorted(out.values(), key=lambda r: -r["dev"]):
        print("%s,%d,%s,%s,%d" % (r["name"], r["count"], recompute.us_exact(r["self"]),
                                 recompute.us_exact(r["dev"]), r["kernels"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
