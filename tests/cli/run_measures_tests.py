#!/usr/bin/env python3
"""Compare the exclusive-time measures of `opscope report` with tests/tools/recompute_measures.py.

recompute_measures.py implements the measures (self_us, device_us,
device_total_us, kernels, the run level's busy and idle times, the bases
host_busy / device_time) independently, so a disagreement means one of the
two is wrong: each FAIL line names the trace, level, run spec, row and column
with both values.

Per trace and run selection (the default one, `all`, and each run alone):
- every cell of `report --format csv --columns ... --by op|shape|path|run`
  equals the recomputation (µs to the ns as exact text, pct within 0.01;
  cum pcts accumulate the recomputed pcts in opscope's row order), rows
  compared as a multiset keyed by the key columns; also with a --filter,
  which keeps rows but not the bases of the pcts;
- the bases in `--format json`'s meta (host_busy_us, device_time_us) equal
  the recomputation, and so do the device time no op launched and its
  reasons (unattributed_device_us, unattributed_why);
- invariants: sum of self_us over op rows == host_busy, to the ns; sum of
  device_us == the device time attributed to the selected ops, and at most
  device_time (plus what the recomputation finds attributed across runs);
  sum of device_us + unattributed_device_us == device_time, to the ns;
  sum of self_pct <= 100.005; no run row's device_busy_us exceeds its wall_us;
  a run row's host_busy_us / device_us equal the bases of that run alone;
  per thread, host busy time never exceeds the union of the op windows;
- the recomputation's self time equals a second, plain one (duration less
  the union of the children) on every thread without partial overlaps.
The hand-made traces tests/data/measures-*.json also have their expected
numbers written below as literals, computed by hand, so neither program is
only checked against the other.

Runs samples/, tests/data/measures-*.json and, when ../shared/traces is
present, the real traces of run_recompute_tests.py and a few more.
"""
import concurrent.futures
import csv
import decimal
import io
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testlib  # noqa: E402
import recompute  # noqa: E402  (path set up by testlib)
import recompute_measures as rm  # noqa: E402
import run_recompute_tests  # noqa: E402

SHARED_TRACES = run_recompute_tests.SHARED_TRACES + [
    ("speedscope/invalid-x-nesting.json", True),
    ("hta/negative_queue_length_values_check/rank0.json.gz", False),
    ("tracelens/torch_compile_triton/trace.json.gz", True),
    # 30% of its device time was launched before the trace began
    ("tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", False),
]
MAX_ALONE = 8  # runs checked alone per trace (spread over the trace when more)
PCT_TOL = 0.01 + 1e-9

# Hand-computed expectations (µs). Columns: op/path name,count,total_us,
# self_us,device_us,device_total_us,kernels; shape the same with the shape
# after the name; run name,wall_us,host_busy_us,device_busy_us,
# device_idle_us,device_us,ops,kernels. "bases": host_busy_us,device_time_us.
# "unattributed": unattributed_device_us|unattributed_why (report's meta).
HAND_OP = ["name", "count", "total_us", "self_us", "device_us", "device_total_us", "kernels"]
HAND_SHAPE = HAND_OP[:1] + ["input_type_shape"] + HAND_OP[1:]
HAND_RUN = ["name", "wall_us", "host_busy_us", "device_busy_us", "device_idle_us", "device_us",
            "ops", "kernels"]
HAND = {
    # linear [0,100) > t [5,15), addmm [20,80) > view [50,50); addmm's launch
    # sits inside t but names addmm's External id; the memcpy's launch names an
    # unknown External id and falls back to the op open at its start (linear);
    # orphan_kernel has no correlation: unattributed. linear again at 200.
    "tests/data/measures-nested.json": [
        ("op", None, """
aten::linear,2,110.000,40.000,20.250,60.250,1
aten::addmm,1,60.000,60.000,40.000,40.000,1
aten::t,1,10.000,10.000,0.000,0.000,0
aten::view,1,0.000,0.000,0.000,0.000,0
"""),
        ("path", None, """
aten::linear,2,110.000,40.000,20.250,60.250,1
aten::linear$$aten::addmm,1,60.000,60.000,40.000,40.000,1
aten::linear$$aten::t,1,10.000,10.000,0.000,0.000,0
aten::linear$$aten::addmm$$aten::view,1,0.000,0.000,0.000,0.000,0
"""),
        ("shape", None, """
aten::linear,"float(4x8),float(16x8),float(16)",1,100.000,30.000,20.250,60.250,1
aten::addmm,"float(16),float(4x8),float(8x16)",1,60.000,60.000,40.000,40.000,1
aten::linear,"float(2x8),float(16x8),float(16)",1,10.000,10.000,0.000,0.000,0
aten::t,float(16x8),1,10.000,10.000,0.000,0.000,0
aten::view,float(4x16),1,0.000,0.000,0.000,0.000,0
"""),
        ("run", None, """
0: whole trace,210.000,110.000,61.750,148.250,61.750,5,3
"""),
        ("bases", None, "110.000,61.750"),
    ],
    # thread 1: A [0,10) and B [5,15) overlap partially (A self 5, B 10; B is
    # not A's child); B's launch at 7 goes to B. thread 2: C [2,12) > D [4,6).
    "tests/data/measures-overlap.json": [
        ("op", None, """
aten::A,1,10.000,5.000,0.000,0.000,0
aten::B,1,10.000,10.000,3.000,3.000,1
aten::C,1,10.000,8.000,0.000,2.000,0
aten::D,1,2.000,2.000,2.000,2.000,1
"""),
        ("path", None, """
aten::A,1,10.000,5.000,0.000,0.000,0
aten::B,1,10.000,10.000,3.000,3.000,1
aten::C,1,10.000,8.000,0.000,2.000,0
aten::C$$aten::D,1,2.000,2.000,2.000,2.000,1
"""),
        ("run", None, """
0: whole trace,27.000,25.000,5.000,22.000,5.000,4,2
"""),
        ("bases", None, "25.000,5.000"),
    ],
    # P [0,10) > zero [0,0); zero [10,10) is not inside P; first [20,30) and
    # second [20,30): equal windows, the second (later in the file) is the
    # child and owns the time. The launch at 0 goes to P (a zero-length op
    # holds nothing), the one at 10 to nobody; second launches k3 and the
    # zero-length k4.
    "tests/data/measures-zero.json": [
        ("op", None, """
aten::P,1,10.000,10.000,4.000,4.000,1
aten::first,1,10.000,0.000,0.000,4.000,0
aten::second,1,10.000,10.000,4.000,4.000,2
aten::zero,2,0.000,0.000,0.000,0.000,0
"""),
        ("path", None, """
aten::P,1,10.000,10.000,4.000,4.000,1
aten::first,1,10.000,0.000,0.000,4.000,0
aten::first$$aten::second,1,10.000,10.000,4.000,4.000,2
aten::P$$aten::zero,1,0.000,0.000,0.000,0.000,0
aten::zero,1,0.000,0.000,0.000,0.000,0
"""),
        ("run", None, """
0: whole trace,40.000,20.000,9.000,31.000,9.000,5,4
"""),
        ("bases", None, "20.000,9.000"),
    ],
    # Steps [0,100) and [100,200); A [10,150) spans the boundary: run 0, with
    # B [20,40) (run 0) and C [120,140) (run 1) nested; D [160,190) run 1;
    # Z [300,310) in no run. k1 [90,110) is launched in B (run 0) and crosses
    # into run 1; the memset [195,205) ends after run 1. device_total of A
    # counts C although C is in another run (nesting, not runs).
    "tests/data/measures-runs.json": [
        ("op", None, """
aten::A,1,140.000,100.000,0.000,40.000,0
aten::D,1,30.000,30.000,10.000,10.000,1
aten::B,1,20.000,20.000,20.000,20.000,1
aten::C,1,20.000,20.000,20.000,20.000,1
"""),
        ("op", "0", """
aten::A,1,140.000,100.000,0.000,40.000,0
aten::B,1,20.000,20.000,20.000,20.000,1
"""),
        ("op", "1", """
aten::D,1,30.000,30.000,10.000,10.000,1
aten::C,1,20.000,20.000,20.000,20.000,1
"""),
        ("path", "1", """
aten::D,1,30.000,30.000,10.000,10.000,1
aten::C,1,20.000,20.000,20.000,20.000,1
"""),
        ("run", None, """
0: ProfilerStep#1,100.000,120.000,10.000,90.000,20.000,2,1
1: ProfilerStep#2,100.000,50.000,35.000,65.000,30.000,2,2
"""),
        ("bases", None, "170.000,50.000"),
        ("bases", "0", "120.000,20.000"),
        ("bases", "1", "50.000,30.000"),
    ],
    # ORT: two model_runs (run 0 the warm-up); kernels link by op_name to the
    # nearest node: conv_b (gap 4 vs 26) and conv_tie (15 vs 15: the earlier)
    # to Conv_0, gemm_e to nobody, relu_g (run 0 by its start) to run 1's Relu
    # (41 vs 49). A device event counts in the run of its op (aggregate.h):
    # relu_g in run 1 (2), gemm_e in its own run 0: run 0 has conv_a 8, conv_b
    # 2, conv_tie 1, relu_c 3, gemm_e 1 = 15 in 5 events; run 1 relu_g 2,
    # conv_h 10, conv_f 5 = 17 in 3.
    "tests/data/measures-ort.json": [
        ("op", None, """
Conv,2,40.000,40.000,15.000,15.000,2
Relu,1,10.000,10.000,2.000,2.000,1
"""),
        ("op", "all", """
Conv,4,80.000,80.000,26.000,26.000,5
Relu,2,20.000,20.000,5.000,5.000,2
"""),
        ("op", "0", """
Conv,2,40.000,40.000,11.000,11.000,3
Relu,1,10.000,10.000,3.000,3.000,1
"""),
        ("run", "all", """
0: model_run,100.000,50.000,16.000,84.000,15.000,3,5
1: model_run,100.000,50.000,16.000,84.000,17.000,3,3
"""),
        ("bases", None, "50.000,17.000"),
        ("bases", "all", "100.000,32.000"),
        ("bases", "0", "50.000,15.000"),
    ],
    # Links by flow (correlate.h): k_flow (no correlation) and
    # k_corr_unmatched (a correlation no runtime call has) by ac2g flows from
    # the launch at 5 in op_a, k_old_flow by an async_gpu flow from op_b's
    # launch; k_corr by correlation. Runs follow correlation ids only, so the
    # three flow-linked kernels are in run 1 by their own start, but count in
    # run 0 with their ops (4 + 8 + 1 + 2 = 15, device busy in [0,30) only
    # k_corr's 2); run 1 has no op, so no run row, and no device time.
    "tests/data/measures-flow.json": [
        ("op", None, """
op_a,1,20.000,20.000,12.000,12.000,2
op_b,1,20.000,20.000,3.000,3.000,2
"""),
        ("op", "1", ""),
        ("run", "all", """
0: ProfilerStep#1,30.000,40.000,2.000,28.000,15.000,2,4
"""),
        ("bases", None, "40.000,15.000"),
        ("bases", "0", "40.000,15.000"),
        ("bases", "1", "0.000,0.000"),
    ],
    # A graph launched from Python: cudaGraphLaunch at 15 lies in no cpu_op,
    # so the innermost python_function / user_annotation around it,
    # "## forward ##" [12,20) (not graph_replay [0,30)), becomes an op and
    # gets both graph kernels; "unrelated" launches nothing and stays out.
    "tests/data/measures-frames.json": [
        ("op", None, """
## forward ##,1,8.000,8.000,7.000,7.000,2
aten::mm,1,5.000,5.000,1.000,1.000,1
"""),
        ("run", None, """
0: whole trace,50.000,13.000,8.000,42.000,8.000,2,3
"""),
        ("bases", None, "13.000,8.000"),
    ],
    # Device work no op launched, by reason (unattributed.h): k_before and
    # k_before_too have ids below every launch's (90, 95 < 100): launched
    # before the trace, 7 + 2 µs; k_outside's launch (102) lies in no op, 4;
    # k_missing's id 101 no launch has, 3; k_rocm_comm's id 0 and the
    # memset's none: no link, 1 + 2 (a tie at 3 µs: the reasons' order).
    # Only k_mm (5) is aten::mm's: 5 + 19 = 24 µs of device time.
    "tests/data/measures-unattributed.json": [
        ("op", None, "aten::mm,1,20.000,20.000,5.000,5.000,1\n"),
        ("bases", None, "20.000,24.000"),
        ("unattributed", None, "19.000|launched before the trace 9.000 us (2 events); "
         "launched outside any op 4.000 us (1 event); launch not in the trace 3.000 us "
         "(1 event); no correlation id or flow 3.000 us (2 events)"),
    ],
}
# The reasons of unattributed.h in their order (ties go to the earlier).
UNATTRIBUTED_META = ["unattributed_device_us", "unattributed_why"]
REASONS = ["attributed", "launched before the trace", "launch not in the trace",
           "no correlation id or flow", "launched outside any op"]


def us_ns(text):
    """ns of a µs text with 3 decimals, or None."""
    try:
        return int(decimal.Decimal(text) * 1000)
    except (decimal.InvalidOperation, TypeError, ValueError):
        return None


def spec_text(spec):
    return "default" if spec is None else spec


def parse_csv(text):
    rows = list(csv.reader(io.StringIO(text)))
    return (rows[0], rows[1:]) if rows else (None, [])


def compare_rows(columns, nkey, got, want, label, sides=("opscope", "recompute")):
    """Problems between rows got and want (lists of text), named by sides."""
    problems = []
    gk = [tuple(r[:nkey]) for r in got]
    wk = [tuple(r[:nkey]) for r in want]
    if sorted(gk) != sorted(wk):
        gs, ws = set(gk), set(wk)
        problems.append("%s: %d rows vs %d expected; missing %r; extra %r" % (
            label, len(gk), len(wk), [k[0][:60] for k in wk if k not in gs][:4],
            [k[0][:60] for k in gk if k not in ws][:4]))
    by_key = {}
    for r in got:
        by_key.setdefault(tuple(r[:nkey]), r)
    for w in want:
        g = by_key.get(tuple(w[:nkey]))
        if g is None:
            continue
        if len(g) != len(columns):
            problems.append("%s: row %r has %d cells" % (label, w[0][:60], len(g)))
            continue
        for col, gv, wv in list(zip(columns, g, w))[nkey:]:
            if col.endswith("pct"):
                try:
                    bad = abs(float(gv) - float(wv)) > PCT_TOL
                except ValueError:
                    bad = True
            else:
                bad = gv != wv
            if bad:
                problems.append("%s: row %r %s: %s %s, %s %s" % (
                    label, w[0][:80], col, sides[0], gv, sides[1], wv))
    return problems


def want_cells(rows, columns, got_order=None, nkey=1):
    """Text rows of recompute rows; the cum pcts accumulate in got_order
    (opscope's key order) when given."""
    cum = {}
    if got_order is not None and ("self_cum_pct" in columns or "device_cum_pct" in columns):
        by_key = {tuple(rm.cell(r, c) for c in columns[:nkey]): r for r in rows}
        s = d = 0.0
        for k in got_order:
            r = by_key.get(k)
            if r is None:
                continue
            s += r["self_pct"]
            d += r["device_pct"]
            cum[k] = (s, d)
    out = []
    for r in rows:
        k = tuple(rm.cell(r, c) for c in columns[:nkey])
        cells = []
        for c in columns:
            if c in ("self_cum_pct", "device_cum_pct") and k in cum:
                cells.append("%.2f" % cum[k][0 if c == "self_cum_pct" else 1])
            else:
                cells.append(rm.cell(r, c))
        out.append(cells)
    return out


def unattributed_want(by_reason):
    """(unattributed_device_us, unattributed_why) as report's meta should
    give them for Measures.unattributed: reasons by time, largest first."""
    total = sum(ns for ns, _ in by_reason.values())
    order = sorted(by_reason.items(), key=lambda kv: (-kv[1][0], REASONS.index(kv[0])))
    why = "; ".join("%s %s us (%d event%s)" % (r, recompute.us_exact(ns), n,
                                               "" if n == 1 else "s")
                    for r, (ns, n) in order)
    return recompute.us_exact(total), why or "none"


def meta_bases(text, has_device=True):
    """(host_busy ns, device_time ns) from report --format json's meta, or a
    problem. A trace without device events has no device_time_us (taken as 0)."""
    try:
        # the bases are JSON numbers with exact decimals: read them as written
        meta = json.loads(text, parse_float=str)["meta"]
        dev = meta.get("device_time_us")
        if dev is None and has_device:
            return None, "no device_time_us in the JSON meta"
        return (us_ns(meta["host_busy_us"]), us_ns(dev) if dev is not None else 0), None
    except (ValueError, KeyError, TypeError) as e:
        return None, "no bases in the JSON meta (%s)" % e


class Case:
    """One opscope invocation (CSV, and JSON for the bases at the op level)
    with everything needed to check it."""

    def __init__(self, label, path, level, spec, columns, want, extra):
        self.label, self.path, self.level, self.spec = label, path, level, spec
        self.columns, self.want, self.extra = columns, want, extra

    @property
    def name(self):
        return "%s --by %s --runs %s%s%s" % (
            self.label, self.level, spec_text(self.spec),
            " --whole-trace" if self.extra.get("whole") else "",
            " --filter %r" % (self.extra["filter"],) if self.extra.get("filter") else "")

    def args(self, fmt):
        a = ["report", "--format", fmt, "--by", self.level, "--columns", ",".join(self.columns)]
        if self.spec is not None:
            a += ["--runs", self.spec]
        for pat in self.extra.get("filter", ()):
            a += ["--filter", pat]
        if self.extra.get("whole"):
            a.append("--whole-trace")
        return a + [self.path]


def check_case(case):
    problems = []
    nkey = len(rm.KEY_COLUMNS[case.level])
    p = testlib.run(case.args("csv"), timeout=300, **testlib.sweep_env())
    if p.rc != 0:
        return case.name, ["opscope " + p.describe()], None
    header, got = parse_csv(p.text)
    if header != case.columns:
        return case.name, ["header %r, expected %r" % (header, case.columns)], None
    order = [tuple(r[:nkey]) for r in got]
    want = want_cells(case.want, case.columns, order, nkey)
    problems += compare_rows(case.columns, nkey, got, want, "cells")
    col = {c: i for i, c in enumerate(case.columns)}
    info = {}
    if case.level == "op":
        # The bases, and the invariants over the rows.
        j = testlib.run(case.args("json"), timeout=300, **testlib.sweep_env())
        if j.rc != 0:
            return case.name, problems + ["opscope --format json " + j.describe()], None
        bases, why = meta_bases(j.text, case.extra["has_device"])
        if why:
            return case.name, problems + [why], None
        host_busy, device_time = bases
        want_host, want_dev = case.extra["bases"]
        if host_busy != want_host:
            problems.append("meta host_busy_us: opscope %s, recompute %s" % (
                recompute.us_exact(host_busy) if host_busy is not None else None,
                recompute.us_exact(want_host)))
        if device_time != want_dev:
            problems.append("meta device_time_us: opscope %s, recompute %s" % (
                recompute.us_exact(device_time) if device_time is not None else None,
                recompute.us_exact(want_dev)))
        if case.extra["has_device"]:
            meta = json.loads(j.text, parse_float=str)["meta"]
            got_u = (meta.get("unattributed_device_us"), meta.get("unattributed_why"))
            want_u = unattributed_want(case.extra["unattributed"])
            if got_u != want_u:
                problems.append("meta unattributed: opscope %r, recompute %r" % (got_u, want_u))
            if device_time is not None and "device_us" in col and not case.extra.get("filter"):
                dev_sum = sum(us_ns(r[col["device_us"]]) or 0 for r in got)
                orphans = us_ns(str(got_u[0])) or 0
                if dev_sum + orphans != device_time:
                    problems.append("invariant: sum of device_us %s + unattributed %s != "
                                    "device_time_us %s" % (
                                        recompute.us_exact(dev_sum), got_u[0],
                                        recompute.us_exact(device_time)))
        self_sum = sum(us_ns(r[col["self_us"]]) or 0 for r in got)
        filtered = bool(case.extra.get("filter"))
        if host_busy is not None and (self_sum > host_busy if filtered
                                      else self_sum != host_busy):
            problems.append("invariant: sum of self_us %s %s host_busy_us %s" % (
                recompute.us_exact(self_sum), ">" if filtered else "!=",
                recompute.us_exact(host_busy)))
        if "device_us" in col and not filtered:
            dev_sum = sum(us_ns(r[col["device_us"]]) or 0 for r in got)
            attributed, _ = case.extra["attributed"]
            if dev_sum != attributed:
                problems.append("invariant: sum of device_us %s != device time attributed "
                                "to the selected ops %s" % (recompute.us_exact(dev_sum),
                                                           recompute.us_exact(attributed)))
            if device_time is not None and dev_sum > device_time:
                problems.append("invariant: sum of device_us %s > device_time_us %s" % (
                    recompute.us_exact(dev_sum), recompute.us_exact(device_time)))
        if "self_pct" in col and got:
            # Each printed pct is rounded to 0.005; the cum column is not.
            pct = sum(float(r[col["self_pct"]]) for r in got)
            if pct > 100.005 + 0.005 * len(got):
                problems.append("invariant: sum of self_pct %.3f > 100.005" % pct)
            if "self_cum_pct" in col and float(got[-1][col["self_cum_pct"]]) > 100.005:
                problems.append("invariant: last self_cum_pct %s > 100.005" %
                                got[-1][col["self_cum_pct"]])
        info["bases"] = bases
    if case.level == "run":
        for r in got:
            if "device_busy_us" in col:
                b, w = us_ns(r[col["device_busy_us"]]), us_ns(r[col["wall_us"]])
                if b is None or w is None or b > w:
                    problems.append("invariant: run %r device_busy_us %s > wall_us %s" % (
                        r[0], r[col["device_busy_us"]], r[col["wall_us"]]))
        info["runs"] = {r[0]: dict(zip(case.columns, r)) for r in got}
    return case.name, problems, info


def alone_specs(n, sweep):
    """The runs checked alone: all of them, or some spread over the trace."""
    if sweep == "light":
        return [str(i) for i in sorted({0, n - 1})]
    if n <= MAX_ALONE:
        return [str(i) for i in range(n)]
    pick = sorted({0, 1, n // 3, n // 2, (2 * n) // 3, n - 2, n - 1})
    return [str(i) for i in pick]


def cases_for(label, path, sweep, res):
    """Recompute the trace once and build its cases (path relative to the
    root, where opscope runs, or absolute)."""
    try:
        m = rm.Measures(os.path.join(testlib.ROOT, path))
    except recompute.RecomputeError as e:
        res.fail("%s: recompute cannot read it: %s" % (label, e))
        return []
    # The recomputation's own checks: two self-time algorithms, the union.
    plain, partial = rm.self_by_children(m.ops)
    bad = [(o, s) for o, s in zip(m.ops, plain) if o["thread"] not in partial and o["self"] != s]
    res.check("%s: self time = duration - children on %d of %d threads" % (
        label, len({o["thread"] for o in m.ops} - partial), len({o["thread"] for o in m.ops})),
        ["%s at %d: segments %d, children %d" % (o["name"][:60], o["ts"], o["self"], s)
         for o, s in bad[:4]])
    n = m.tr.nr_runs
    thorough = sweep == "thorough"
    specs = [None]
    if m.tr.warmup and n > 1 and sweep != "light" or thorough:
        specs.append("all")
    specs += alone_specs(n, sweep)
    specs = list(dict.fromkeys(specs))
    res.check("%s: per-thread host busy <= union of op windows" % label,
              [p for s in specs for p in m.thread_union_check(s)])
    cases = []
    for spec in specs:
        extra = {"bases": m.bases(spec), "attributed": m.attributed(spec),
                 "unattributed": m.unattributed(spec), "has_device": m.has_device}
        cases.append(Case(label, path, "op", spec, rm.level_columns("op", m.has_device),
                          m.rows("op", spec), extra))
    for level in ("shape", "path", "run"):
        level_specs = [None, "all"] if level == "run" and sweep != "light" or thorough \
            else [None]
        for spec in dict.fromkeys(level_specs):
            cases.append(Case(label, path, level, spec, rm.level_columns(level, m.has_device),
                              m.rows(level, spec), {}))
    # A filter keeps rows; the bases (and so the pcts' denominators) stay.
    top = m.rows("op", None)
    if thorough and len(top) >= 2:
        pats = (top[1]["name"], top[0]["name"][:3] + "*")
        extra = {"bases": m.bases(None), "attributed": m.attributed(None),
                 "unattributed": m.unattributed(None), "has_device": m.has_device,
                 "filter": pats}
        cases.append(Case(label, path, "op", None, rm.level_columns("op", m.has_device),
                          m.rows("op", None, pats), extra))
    if m.tr.nr_runs > 1 or thorough:
        m.ignore_runs()
        for level in ("op", "run"):
            extra = {"bases": m.bases(None), "attributed": m.attributed(None), "whole": True,
                     "unattributed": m.unattributed(None), "has_device": m.has_device}
            cases.append(Case(label, path, level, None, rm.level_columns(level, m.has_device),
                              m.rows(level, None), extra))
    return cases


def cross_checks(results):
    """A run row's host_busy_us / device_us against the bases of that run alone
    (None when the trace has no such pair of cases)."""
    runs, bases = None, {}
    for case, info in results:
        if info is None or case.extra.get("whole") or case.extra.get("filter"):
            continue
        if case.level == "run" and case.spec == "all":
            runs = info["runs"]
        if case.level == "op" and case.spec is not None and case.spec.isdigit():
            bases[int(case.spec)] = info["bases"]
    if runs is None or not bases:
        return None
    problems = []
    for name, r in runs.items():
        i = int(name.split(":")[0])
        if i not in bases:
            continue
        for col, want in (("host_busy_us", bases[i][0]), ("device_us", bases[i][1])):
            if col in r and us_ns(r[col]) != want:
                problems.append("run %r %s %s != the meta's %s of --runs %d, %s" % (
                    name, col, r[col], "host_busy_us" if col == "host_busy_us"
                    else "device_time_us", i,
                    recompute.us_exact(want) if want is not None else None))
    return problems


def check_hand(res, pool):
    """The hand-computed literals: recompute must give them, and so must opscope."""
    jobs = []
    for path, expectations in HAND.items():
        m = rm.Measures(os.path.join(testlib.ROOT, path))
        for level, spec, text in expectations:
            name = "hand %s --by %s --runs %s" % (path, level, spec_text(spec))
            if level == "unattributed":
                want = [text.split("|")]
                mine = [list(unattributed_want(m.unattributed(spec)))]
                res.check(name + " (recompute)", compare_rows(
                    UNATTRIBUTED_META, 0, mine, want, "literal", ("recompute", "by hand")))
                jobs.append((name, ["report", "--format", "json"] +
                             (["--runs", spec] if spec else []) + [path], level, want))
                continue
            if level == "bases":
                want = [text.split(",")]
                mine = [[recompute.us_exact(v) for v in m.bases(spec)]]
                res.check(name + " (recompute)", compare_rows(
                    ["host_busy_us", "device_time_us"], 0, mine, want, "literal",
                    ("recompute", "by hand")))
                jobs.append((name, ["report", "--format", "json", "--by", "op", "--columns",
                                    ",".join(HAND_OP)] + (["--runs", spec] if spec else []) +
                             [path], "bases", want))
                continue
            cols = {"op": HAND_OP, "path": HAND_OP, "shape": HAND_SHAPE, "run": HAND_RUN}[level]
            nkey = len(rm.KEY_COLUMNS[level])
            want = list(csv.reader(io.StringIO(text.strip())))
            mine = [[rm.cell(r, c) for c in cols] for r in m.rows(level, spec)]
            res.check(name + " (recompute)", compare_rows(cols, nkey, mine, want, "literal",
                                                          ("recompute", "by hand")))
            jobs.append((name, ["report", "--format", "csv", "--by", level, "--columns",
                                ",".join(cols)] + (["--runs", spec] if spec else []) + [path],
                         level, want))

    def run(job):
        name, args, level, want = job
        p = testlib.run(args)
        if p.rc != 0:
            return name, ["opscope " + p.describe()]
        if level == "unattributed":
            meta = json.loads(p.text, parse_float=str)["meta"]
            got = [[str(meta.get(k)) for k in UNATTRIBUTED_META]]
            return name, compare_rows(UNATTRIBUTED_META, 0, got, want, "literal",
                                      ("opscope", "by hand"))
        if level == "bases":
            bases, why = meta_bases(p.text)
            if why:
                return name, [why]
            got = [[recompute.us_exact(v) if v is not None else "?" for v in bases]]
            return name, compare_rows(["host_busy_us", "device_time_us"], 0, got, want,
                                      "literal", ("opscope", "by hand"))
        cols = {"op": HAND_OP, "path": HAND_OP, "shape": HAND_SHAPE, "run": HAND_RUN}[level]
        header, got = parse_csv(p.text)
        if header != cols:
            return name, ["header %r" % (header,)]
        return name, compare_rows(cols, len(rm.KEY_COLUMNS[level]), got, want, "literal",
                                  ("opscope", "by hand"))

    for name, problems in pool.map(run, jobs):
        res.check(name + " (opscope)", problems)


def ms_text(ns):
    """A time as info's text and JSON give it: ms with 3 decimals, ns rounded to the us."""
    us = (ns + 500) // 1000
    return "%d.%03d" % divmod(us, 1000)


def check_info_device(res, paths):
    """info's device section, over the whole trace: the device events' summed durations and
    the part no op launched, by reason (events and time), as recompute_measures gives them
    with --whole-trace."""
    for path in paths:
        m = rm.Measures(os.path.join(testlib.ROOT, path), whole=True)
        p = testlib.run(["info", "--format", "json", path])
        if p.rc != 0:
            res.fail("info device " + path, p.describe())
            continue
        got = json.loads(p.text, parse_float=str)["device"]
        why = m.unattributed()
        want = {"time_ms": ms_text(m.bases()[1]),
                "unattributed_events": sum(n for _, n in why.values()),
                "unattributed_ms": ms_text(sum(ns for ns, _ in why.values())),
                "unattributed_why": {k.replace(" ", "_"): {"events": n, "time_ms": ms_text(ns)}
                                     for k, (ns, n) in why.items()}}
        res.check("info device " + path,
                  [] if {k: got.get(k) for k in want} == want
                  else ["opscope %r\nrecompute %r" % ({k: got.get(k) for k in want}, want)])


def main():
    res = testlib.Results()
    check_info_device(res, ["tests/data/measures-unattributed.json",
                            "samples/kineto-2021-resnet50.json.gz",
                            "samples/kineto-sampled-rank0.json.gz",
                            "samples/rocm-torch-compile-triton.json.gz",
                            "tests/data/ort-cuda-synthetic.json"])
    traces = []
    for f in sorted(os.listdir(testlib.SAMPLES)):
        if f.endswith(".json") or f.endswith(".json.gz"):
            traces.append(("samples/" + f, "samples/" + f, testlib.sweep(True, bundled=True)))
    data = os.path.join(testlib.ROOT, "tests", "data")
    for f in sorted(os.listdir(data)):
        if f.startswith("measures-") or f == "ort-cuda-synthetic.json":
            traces.append(("tests/data/" + f, "tests/data/" + f, testlib.sweep(True, bundled=True)))
    shared = testlib.shared("")
    if shared and os.path.isdir(shared):
        own = SHARED_TRACES[len(run_recompute_tests.SHARED_TRACES):]
        for rel, thorough in testlib.share(run_recompute_tests.SHARED_TRACES, 1) + own:
            p = testlib.shared(rel)
            if p:
                traces.append(("shared/" + rel, p, testlib.sweep(thorough)))
            else:
                res.skip("shared/" + rel, "not in the collection")
    else:
        res.skip("shared traces", "%s is absent" % testlib.SHARED)
    jobs = int(os.environ.get("OPSCOPE_TEST_JOBS", "0")) or min(4, os.cpu_count() or 2)
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        check_hand(res, pool)
        # Submit each trace's cases as soon as they are built, so opscope runs
        # while the next trace is recomputed.
        pending = []
        for label, path, sweep in traces:
            cases = cases_for(label, path, sweep, res)
            pending.append((label, cases, [pool.submit(check_case, c) for c in cases]))
        for label, cases, futures in pending:
            results = []
            for case, fut in zip(cases, futures):
                name, problems, info = fut.result()
                res.check(name, problems)
                results.append((case, info))
            problems = cross_checks(results)
            if problems is not None:
                res.check("%s: run rows = bases of each run alone" % label, problems)
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
