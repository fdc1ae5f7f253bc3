#!/usr/bin/env python3
"""Independent recomputation of `opscope diff` (CSV output).

Written from the definitions in include/opscope/analysis/diff.h, never from opscope's
C code. Standard library only; the trace loading, run windows and run
selection come from recompute.py (itself independent of opscope).

    diff_recompute.py [--by op|kernel] [--match name|shape|occurrence]
                      [--runs SPEC] [--other-runs SPEC] [--whole-trace] BASE OTHER

prints the CSV of `opscope diff --format csv` (every row, sorted by |delta|
descending, ties by name). Shape and occurrence labels are recomputed for
ONNX Runtime profiles (Node *_kernel_time events with their args):
"[PRO]op(in)->out", PRO the provider without "ExecutionProvider", shapes
compacted (float -> f-1x3x112x112, int64 -> i64-..., ...), plus "[k]" for
the k-th event with that label in its run (ordered by start time).
--whole-trace: each trace is one run spanning all of it (runs.h). Names are
compared as recorded (opscope diff --no-demangle).
"""

import argparse
import csv
import decimal
import io
import sys
import os

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recompute  # noqa: E402
import recompute_measures  # noqa: E402

COLUMNS = ["name", "side", "base_total_us", "other_total_us", "delta_us", "delta_pct", "ratio",
           "base_count", "other_count", "base_mean_us", "other_mean_us",
           "base_self_us", "other_self_us", "delta_self_us",
           "base_device_us", "other_device_us", "delta_device_us"]

# diff.h: the short codes of element types.
CODES = {"float": "f", "float32": "f", "fp32": "f", "f32": "f", "double": "d",
         "float64": "d", "fp64": "d", "float16": "h", "fp16": "h", "c10::Half": "h",
         "half": "h", "bfloat16": "bf16", "c10::BFloat16": "bf16", "bf16": "bf16",
         "int64": "i64", "long int": "i64", "int32": "i32", "int": "i32", "int16": "i16",
         "int8": "i8", "s8": "i8", "uint64": "u64", "uint32": "u32", "uint16": "u16",
         "uint8": "u8", "u8": "u8", "unsigned char": "u8", "bool": "b", "string": "s"}


def dims(v, depth=0):
    if not isinstance(v, list):
        return str(v)
    parts = []
    for e in v:
        if isinstance(e, list) and depth < 4:
            parts.append("[" + dims(e, depth + 1) + "]")
        else:
            parts.append(dims(e, depth + 1))
    return ("," if depth else "x").join(parts)


def compact(type_shapes):
    """[{"float": [1, 3]}, ...] -> "f-1x3,..." (an empty dims list -> the code alone)."""
    out = []
    for item in type_shapes or []:
        if not isinstance(item, dict) or not item:
            out.append(dims(item))
            continue
        t, d = next(iter(item.items()))
        code = CODES.get(t, t)
        text = dims(d)
        out.append(code + ("-" + text if text else ""))
    return ",".join(out)


def label(args):
    prov = args.get("provider") or ""
    if prov.endswith("ExecutionProvider") and len(prov) > len("ExecutionProvider"):
        prov = prov[:-len("ExecutionProvider")]
    s = ("[%s]" % prov if prov else "") + "%s(%s)" % (args.get("op_name"),
                                                     compact(args.get("input_type_shape")))
    outs = compact(args.get("output_type_shape"))
    return s + ("->" + outs if outs else "")


def op_costs(path):
    """{(name, ts, dur): (self, dev)} of the trace's ops (recompute_measures)."""
    m = recompute_measures.Measures(path)
    return {(o["name"], o["ts"], o["dur"]): (o["self"], o["dev"]) for o in m.ops}


def ort_shape_groups(path, runs, match):
    """{label: [(dur, self, dev), ...]} of an ORT profile's selected Node ops."""
    t = recompute.Trace(path)
    costs = op_costs(path)
    if t.format != "ort":
        raise recompute.RecomputeError("%s: shape labels are recomputed for ORT only" % path)
    sel = recompute.parse_runs(runs, t.nr_runs, t.warmup)
    raw, _, _ = recompute.load_events(path)
    ops = []
    for i, e in enumerate(raw):
        if not isinstance(e, dict) or e.get("ph") != "X" or e.get("cat") != "Node":
            continue
        name = e.get("name") or ""
        if not name.endswith("_kernel_time"):
            continue
        ts, dur = recompute.to_ns(e.get("ts")), recompute.to_ns(e.get("dur")) or 0
        run = t._window_of(ts)
        if run is None or run not in sel:
            continue
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        ops.append((run, ts, -dur, i, label(args), (dur,) + costs[(name, ts, dur)]))
    ops.sort()
    groups, seen = {}, {}
    for run, _, _, _, lab, cost in ops:
        if match == "occurrence":
            k = seen.get((run, lab), 0)
            seen[(run, lab)] = k + 1
            lab = "%s[%d]" % (lab, k)
        groups.setdefault(lab, []).append(cost)
    return groups


def name_groups(path, level, runs, whole=False):
    """{name: (count, total, self, device)} of a trace's rows at level."""
    t = recompute.Trace(path)
    if whole:
        t.ignore_runs()
    if level == "kernel":
        return {r["name"]: (r["count"], r["total"], 0, r["total"]) for r in t.rows(level, runs)}
    m = recompute_measures.Measures(path, whole)
    return {r["name"]: (r["count"], r["total"], r["self"], r["dev"])
            for r in m.rows(level, runs)}


def summarise(groups):
    return {k: (len(v), sum(c[0] for c in v), sum(c[1] for c in v), sum(c[2] for c in v))
            for k, v in groups.items()}


def half_away(x, quantum):
    """The exact value of x rounded half away from zero to a multiple of quantum."""
    return decimal.Decimal(x).quantize(decimal.Decimal(quantum), decimal.ROUND_HALF_UP)


def mean_us(count, total):
    if not count:
        return "0.000"
    q = decimal.Decimal(total) / decimal.Decimal(count)
    ns = int(q.quantize(decimal.Decimal(1), decimal.ROUND_HALF_UP))
    return recompute.us_exact(ns)


def rows(base, other):
    out = []
    for key in set(base) | set(other):
        bc, bt, bs, bd = base.get(key, (0, 0, 0, 0))
        oc, ot, os_, od = other.get(key, (0, 0, 0, 0))
        side = "-" if not oc else "+" if not bc else "="
        delta = ot - bt
        pct = ratio = ""
        if bt:
            q = half_away(100.0 * delta / bt * 100, 1)
            pct = format((q if q else decimal.Decimal(0)).scaleb(-2), ".2f")
            ratio = "%.3f" % (ot / bt)
        out.append((abs(delta), key, [key, side, recompute.us_exact(bt), recompute.us_exact(ot),
                                      recompute.us_exact(delta), pct, ratio, str(bc), str(oc),
                                      mean_us(bc, bt), mean_us(oc, ot),
                                      recompute.us_exact(bs), recompute.us_exact(os_),
                                      recompute.us_exact(os_ - bs), recompute.us_exact(bd),
                                      recompute.us_exact(od), recompute.us_exact(od - bd)]))
    out.sort(key=lambda r: (-r[0], r[1].encode("utf-8")))
    return [r[2] for r in out]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--by", default="op", choices=["op", "kernel"])
    ap.add_argument("--match", default="name", choices=["name", "shape", "occurrence"])
    ap.add_argument("--runs")
    ap.add_argument("--other-runs")
    ap.add_argument("--whole-trace", action="store_true")
    ap.add_argument("base")
    ap.add_argument("other")
    a = ap.parse_args(argv)
    other_runs = a.other_runs if a.other_runs is not None else a.runs
    if a.whole_trace and a.match != "name":
        print("diff_recompute: --whole-trace is recomputed for --match name only",
              file=sys.stderr)
        return 2
    try:
        if a.match == "name":
            b = name_groups(a.base, a.by, a.runs, a.whole_trace)
            o = name_groups(a.other, a.by, other_runs, a.whole_trace)
        else:
            b = summarise(ort_shape_groups(a.base, a.runs, a.match))
            o = summarise(ort_shape_groups(a.other, other_runs, a.match))
    except recompute.RecomputeError as e:
        print("diff_recompute: %s" % e, file=sys.stderr)
        return 2
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    for r in rows(b, o):
        w.writerow(r)
    sys.stdout.write(buf.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
