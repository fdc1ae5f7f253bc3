#!/usr/bin/env python3
"""Independent recomputation of `opscope report` statistics.

Written from the rules in include/opscope/analysis/aggregate.h and model/runs.h (and the
CLI brief), never from opscope's C code, so the two can check each other.
Standard library only.

    recompute.py [--by op|shape|kernel|dims|run] [--runs SPEC] [--filter PAT]... [--regex RE] TRACE

prints the same CSV as `opscope report --format csv --sort total --columns
...` with these columns (rows by total descending, ties by name). Importable: load_trace(), Trace.rows().

Rules implemented here:
- times: ts/dur parsed as decimal.Decimal, ns = int(us * 1000) exactly;
- runs (time windows [ts, ts+dur)): ORT model_run; else host ProfilerStep#N
  (not gpu_user_annotation); else ORT SequentialExecutor::Execute; else one
  run covering the whole trace. Host events belong to the window holding
  their start; kernels to the run of their launching runtime event (same
  args.correlation on a cuda_runtime / Runtime / cuda_driver event), else to
  the window holding their own start;
- default selection: every run, except run 0 (warm-up) for ORT when there are
  more than one;
- op level: ORT cat Node named *_kernel_time (key args.op_name); Kineto cat
  cpu_op / Operator keyed by name without ProfilerStep#*, and the innermost
  python_function / user_annotation frame around a runtime call that
  launched device work and that no op holds (a graph replayed from Python:
  launch_frames); PyTorch legacy
  autograd (no cat, pid "CPU functions") every X but ProfilerStep#*; other
  chrome traces: every complete event (X, or B/E matched per thread);
- kernel level: cat kernel / Kernel keyed by name;
- shape level: the ops keyed by (key, input shapes): ORT args.input_type_shape
  [{"float": [1, 3]}, ...] -> "float(1x3),..."; Kineto args "Input Dims" with
  "Input type" -> "float(2048x1),Scalar()" (nested lists in brackets, joined
  by ","); per-run columns divide by the number of selected runs that hold an
  event of the level's kind (ops, or kernels at the device levels);
- dims level: kernels keyed by (name, "bBXxBYxBZ,gGXxGYxGZ") from args
  grid/block lists or grid_x.. block_z, -1 when absent;
- run level: one row per selected run holding ops, named "INDEX: NAME"
  ("0: whole trace" without run markers), wall_us the window's length, ops
  their count; rows by wall time (the measures of a run are
  recompute_measures.py's);
- stats: mean = total/count, percentiles by linear interpolation between
  closest ranks, sample stddev (0 for n == 1). Percentages and the self and
  device measures are recompute_measures.py's.
- truncated files: complete events before the cut are kept.
"""

import argparse
import bisect
import collections
import csv
import decimal
import fnmatch
import gc
import gzip
import io
import json
import math
import os
import re
import statistics
import sys
import threading

# A recomputation builds millions of small objects that form no cycles: the
# cycle collector's passes over them took half of its time (Measures of a
# 87 MB trace: 11.8 s with it, 5.2 s without). Memory is freed by counts.
gc.disable()

COLUMNS = ["name", "count", "total_us", "mean_us", "min_us", "max_us", "p50_us",
           "p90_us", "p99_us", "stddev_us"]
PER_RUN = ["count_per_run", "total_per_run_us"]
LEVEL_COLUMNS = {
    "op": COLUMNS + PER_RUN,
    "kernel": COLUMNS + PER_RUN,
    "shape": ["name", "input_type_shape"] + COLUMNS[1:] + PER_RUN,
    "dims": ["name", "kernel_dimensions"] + COLUMNS[1:] + PER_RUN,
    "run": ["name", "wall_us", "ops"],
    "path": COLUMNS + PER_RUN,
}

RUNTIME_CATS = ("cuda_runtime", "Runtime", "cuda_driver")
DEVICE_CATS = ("kernel", "Kernel", "gpu_memcpy", "gpu_memset", "Memcpy", "Memset")
FRAME_CATS = ("python_function", "user_annotation")
KERNEL_CATS = ("kernel", "Kernel")
STEP_RE = re.compile(r"ProfilerStep#\d+\Z")


class RecomputeError(Exception):
    pass


# ---------------------------------------------------------------- loading

def _read_text(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data.decode("utf-8", errors="replace")


def _decoder():
    return json.JSONDecoder(parse_float=decimal.Decimal)


def _salvage_array(text, pos, dec):
    """Parse array elements from text[pos] == '[' until the text ends or breaks."""
    events = []
    ws = " \t\r\n"
    pos += 1
    n = len(text)
    while True:
        while pos < n and text[pos] in ws:
            pos += 1
        if pos >= n or text[pos] == "]":
            return events
        try:
            obj, pos = dec.raw_decode(text, pos)
        except ValueError:
            return events
        events.append(obj)
        while pos < n and text[pos] in ws:
            pos += 1
        if pos < n and text[pos] == ",":
            pos += 1


# The last files read and traces built, by file identity: a test suite asks
# for the same trace many times. What they hold is shared, so callers only read it.
_CACHE_SIZE = 8
_cache = collections.OrderedDict()
_cache_lock = threading.Lock()


def _cached(kind, path, build):
    """build() once per kind and file (path, size, mtime, inode) among the last read."""
    try:
        st = os.stat(path)
    except OSError:
        return build()  # let it fail with its own error
    key = (kind, os.path.realpath(path), st.st_size, st.st_mtime_ns, st.st_ino)
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    value = build()
    with _cache_lock:
        _cache[key] = value
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return value


def load_events(path):
    """Return (events, truncated, top_array): the raw dicts of traceEvents,
    shared with other callers (read them, do not change them)."""
    return _cached("events", path, lambda: _parse_events(path))


def _parse_events(path):
    text = _read_text(path)
    dec = _decoder()
    try:
        doc = json.loads(text, parse_float=decimal.Decimal)
        truncated = False
    except ValueError:
        truncated = True
        start = len(text) - len(text.lstrip())
        if text[start:start + 1] == "[":
            return _salvage_array(text, start, dec), True, True
        m = re.search(r'"traceEvents"\s*:\s*\[', text)
        if not m:
            raise RecomputeError("%s: not a JSON trace" % path)
        return _salvage_array(text, m.end() - 1, dec), True, False
    top_array = isinstance(doc, list)
    if isinstance(doc, dict):
        doc = doc.get("traceEvents")
    if not isinstance(doc, list):
        raise RecomputeError("%s: no trace events" % path)
    return doc, truncated, top_array


def to_ns(v):
    """A JSON number of microseconds (int or Decimal) in whole nanoseconds,
    truncated toward zero; None for anything else."""
    t = type(v)
    if t is int:
        return v * 1000
    if t is decimal.Decimal:
        return int(v * 1000)
    return None


ITER_RE = re.compile(r"Iteration\d")


def detect_format(events, top_array):
    cats = set()
    pids = set()
    ne = False
    for e in events:
        if not isinstance(e, dict):
            continue
        cats.add(e.get("cat"))
        pids.add(str(e.get("pid")))
        name = e.get("name")
        if isinstance(name, str) and (name == "model_inference" or
                                      (ITER_RE.match(name) and e.get("cat") == "iteration")):
            ne = True  # Intel Neural Engine: model_inference, IterationN
    if top_array and cats & {"Node", "Session"}:
        return "ort"
    if cats & {"cpu_op", "Operator", "kernel", "Kernel", "cuda_runtime", "Runtime"}:
        return "kineto"
    if ne:
        return "ne"
    if "CPU functions" in pids and cats <= {None}:
        return "legacy"
    return "chrome"


# ---------------------------------------------------------------- model

class Ev:
    __slots__ = ("name", "cat", "ts", "dur", "key", "corr", "host", "shape", "dims", "thread",
                 "order", "ext")

    def __init__(self, name, cat, ts, dur, key=None, corr=None):
        self.name, self.cat, self.ts, self.dur = name, cat, ts, dur
        self.key = key if key is not None else name
        self.corr = corr
        self.host = True
        self.shape = ""
        self.dims = (-1,) * 6
        self.thread = None
        self.order = 0
        self.ext = None


def _text(v):
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, (int, decimal.Decimal)):
        return str(v)
    return ""


def _dims_text(v, depth=0):
    if not isinstance(v, list):
        return _text(v)
    parts = []
    for e in v:
        if isinstance(e, list) and depth < 4:
            parts.append("[" + _dims_text(e, depth + 1) + "]")
        else:
            parts.append(_text(e))
    return ("," if depth else "x").join(parts)


def shape_of(args):
    """Input shapes of an op's args, rendered as aggregate.h says."""
    ort = args.get("input_type_shape")
    if ort is not None:
        if not isinstance(ort, list):
            return ""
        out = []
        for e in ort:
            if isinstance(e, dict):
                if not e:
                    out.append("")
                    continue
                k, v = next(iter(e.items()))
                out.append("%s(%s)" % (k, _dims_text(v)))
            else:
                out.append(_dims_text(e))
        return ",".join(out)
    ne = args.get("input_shape")  # Neural Engine: "64*1024,256", types "fp32,fp32,"
    if isinstance(ne, str):
        types = args.get("input_type")
        types = types.split(",") if isinstance(types, str) else []
        out = []
        for i, sh in enumerate(ne.split(",")):
            t = types[i] if i < len(types) else ""
            if sh or t:
                out.append("%s(%s)" % (t, sh.replace("*", "x")))
        return ",".join(out)
    dims = args.get("Input Dims", args.get("Input dims"))  # 2021 Kineto: "Input dims"
    if isinstance(dims, list):
        types = args.get("Input type")
        types = types if isinstance(types, list) else []
        return ",".join("%s(%s)" % (_text(types[i]) if i < len(types) else "", _dims_text(d))
                        for i, d in enumerate(dims))
    return ""


def _ints3(args, name):
    v = args.get(name)
    if isinstance(v, list):
        vals = [int(x) if isinstance(x, (int, decimal.Decimal)) and not isinstance(x, bool)
                else -1 for x in v[:3]]
        return vals + [-1] * (3 - len(vals))
    out = []
    for axis in "xyz":
        x = args.get("%s_%s" % (name, axis), -1)
        out.append(int(x) if isinstance(x, (int, decimal.Decimal)) and not isinstance(x, bool)
                   else -1)
    return out


def dims_of(args):
    return tuple(_ints3(args, "block") + _ints3(args, "grid"))


def dims_text(d):
    return "b%dx%dx%d,g%dx%dx%d" % d


def _complete_events(events):
    """X events plus B/E pairs matched per (pid, tid) in time order."""
    out = []
    stacks = {}
    be = []
    for i, e in enumerate(events):
        if not isinstance(e, dict):
            continue
        ph = e.get("ph")
        ts = to_ns(e.get("ts"))
        if ts is None:
            continue
        if ph == "X":
            dur = to_ns(e.get("dur"))
            dur = 0 if dur is None or dur < 0 else dur
            out.append((e, ts, dur))
        elif ph in ("B", "E"):
            be.append((ts, i, e))
    # Match in time order (file order for ties), E closes the innermost B.
    be.sort(key=lambda x: (x[0], x[1]))
    for ts, _, e in be:
        tid = (str(e.get("pid")), str(e.get("tid")))
        st = stacks.setdefault(tid, [])
        if e.get("ph") == "B":
            st.append((e, ts))
        elif st:
            b, bts = st.pop()
            out.append((b, bts, ts - bts))
    return out


def _span(events):
    """(first start, last end) in ns over every timed event but metadata."""
    lo = hi = None
    for e in events:
        if not isinstance(e, dict) or e.get("ph") == "M":
            continue
        ts = to_ns(e.get("ts"))
        if ts is None:
            continue
        dur = to_ns(e.get("dur")) if e.get("ph") == "X" else 0
        end = ts + max(dur or 0, 0)
        lo = ts if lo is None else min(lo, ts)
        hi = end if hi is None else max(hi, end)
    return lo, hi


def launch_frames(ops, launches, frames, device_corr):
    """The python_function / user_annotation frames that are ops too: the
    innermost one (latest start, then longer first, then file order) around
    each runtime call that launched device work (its correlation is a device
    event's) and that no op holds (none has its External id, none of its
    thread holds its start): a CUDA/HIP graph replayed from Python."""
    ext = {op.ext for op in ops if op.ext is not None}
    starts, reach = {}, {}  # per thread: op starts in order, the furthest end so far
    for op in sorted(ops, key=lambda o: o.ts):
        starts.setdefault(op.thread, []).append(op.ts)
        r = reach.setdefault(op.thread, [])
        r.append(max(op.ts + op.dur, r[-1] if r else op.ts + op.dur))
    out = {}
    for l, corr in launches:
        if corr is None or corr not in device_corr:
            continue
        if l.ext is not None and l.ext in ext:
            continue
        i = bisect.bisect_right(starts.get(l.thread, []), l.ts)
        if i and reach[l.thread][i - 1] > l.ts:  # an op of its thread holds its start
            continue
        around = [f for f in frames if f.thread == l.thread and f.ts <= l.ts < f.ts + f.dur]
        if around:
            f = max(around, key=lambda f: (f.ts, -f.dur, f.order))
            out[f.order] = f
    return list(out.values())


class Trace:
    def __init__(self, path):
        built = _cached("trace", path, lambda: Trace._built(path))
        # a shallow copy: the lists are shared, ignore_runs() replaces rather than changes
        self.__dict__.update(built.__dict__)

    @staticmethod
    def _built(path):
        t = object.__new__(Trace)
        t._build(path)
        return t

    def _build(self, path):
        self.path = path
        raw, self.truncated, self.top_array = load_events(path)
        self.format = detect_format(raw, self.top_array)
        self.events = []      # Ev of every complete event
        self.ops = []
        self.kernels = []
        runtime_start = {}    # correlation -> ts of the launching runtime call
        launches, frames, device_corr = [], [], set()
        for order, (e, ts, dur) in enumerate(_complete_events(raw)):
            name = e.get("name")
            if not isinstance(name, str):
                name = "" if name is None else str(name)
            cat = e.get("cat")
            args = e.get("args") if isinstance(e.get("args"), dict) else {}
            ev = Ev(name, cat, ts, dur)
            ev.shape = shape_of(args)
            ev.thread = (str(e.get("pid")), str(e.get("tid")))
            ev.order = order
            self.events.append(ev)
            if cat in RUNTIME_CATS and "correlation" in args:
                runtime_start.setdefault(args["correlation"], ts)
            if self.format == "ort":
                if cat == "Node" and name.endswith("_kernel_time") and "_fence_" not in name:
                    op = args.get("op_name")
                    ev.key = op if isinstance(op, str) else name
                    self.ops.append(ev)
            elif self.format == "ne":
                # model_inference is the session, IterationN the runs, the rest
                # are ops keyed by their category (the op type).
                if name != "model_inference" and not ITER_RE.match(name):
                    ev.key = cat if isinstance(cat, str) and cat else name
                    self.ops.append(ev)
            elif self.format == "kineto":
                ev.ext = args.get("External id")
                if cat in RUNTIME_CATS:
                    launches.append((ev, args.get("correlation")))
                elif cat in DEVICE_CATS:
                    device_corr.add(args.get("correlation"))
                elif cat in FRAME_CATS and not STEP_RE.match(name):
                    frames.append(ev)
                if cat in ("cpu_op", "Operator") and not STEP_RE.match(name):
                    self.ops.append(ev)
                elif cat in KERNEL_CATS:
                    ev.host = False
                    ev.corr = args.get("correlation")
                    ev.dims = dims_of(args)
                    self.kernels.append(ev)
            elif self.format == "legacy":
                if e.get("ph") == "X" and not STEP_RE.match(name):
                    self.ops.append(ev)
            else:
                self.ops.append(ev)
        self.ops += launch_frames(self.ops, launches, frames, device_corr)
        self.ops.sort(key=lambda ev: ev.order)
        self.span = _span(raw)
        self.raw_other = [e for e in raw if isinstance(e, dict) and
                          e.get("ph") not in ("X", "B", "E", "M")]
        self.windows = self._find_runs()
        self.run_of_op = [self._window_of(ev.ts) for ev in self.ops]
        self.run_of_kernel = []
        for k in self.kernels:
            if k.corr is not None and k.corr in runtime_start:
                self.run_of_kernel.append(self._window_of(runtime_start[k.corr]))
            else:
                self.run_of_kernel.append(self._window_of(k.ts))

    def stored_span(self):
        """Length of the whole trace as a run: from the first start to the last end of
        the events the model stores (complete ones, B/E matched; no M, no lone B/E)."""
        lo = hi = None
        for ev in self.events:
            lo = ev.ts if lo is None else min(lo, ev.ts)
            hi = ev.ts + ev.dur if hi is None else max(hi, ev.ts + ev.dur)
        for e in self.raw_other:
            ts = to_ns(e.get("ts"))
            if ts is None:
                continue
            lo = ts if lo is None else min(lo, ts)
            hi = ts if hi is None else max(hi, ts)
        return 0 if lo is None else hi - lo

    def _find_runs(self):
        evs = self.events
        wins = []
        self.run_names = ["whole trace"]
        self.run_source = "whole"
        if self.format == "ort":
            wins = [(e.ts, e.dur) for e in evs if e.name == "model_run"]
            self.run_source = "model_run"
        if self.format == "ne":
            wins = [(e.ts, e.dur) for e in evs if ITER_RE.match(e.name)]
            self.run_source = "Iteration"
        if not wins:
            wins = [(e.ts, e.dur) for e in evs
                    if STEP_RE.match(e.name) and e.cat != "gpu_user_annotation"]
            self.run_source = "ProfilerStep"
        if not wins and self.format == "ort":
            wins = [(e.ts, e.dur) for e in evs if e.name == "SequentialExecutor::Execute"]
            self.run_source = "SequentialExecutor::Execute"
        if not wins:
            self.run_source = "whole"
            return None
        names = {}
        for e in evs:
            if (e.ts, e.dur) in set(wins) and (e.name in ("model_run", "SequentialExecutor::Execute")
                                               or ITER_RE.match(e.name)) \
                    or STEP_RE.match(e.name) and e.cat != "gpu_user_annotation":
                names.setdefault((e.ts, e.dur), e.name)
        wins.sort()
        self.run_names = [names.get(w, "") for w in wins]
        self.win_starts = [w for w, _ in wins]
        return wins

    def _window_of(self, ts):
        if self.windows is None:
            return 0
        # The latest-starting window that starts at or before ts; runs do
        # not overlap in real traces, so it is the one holding ts if any.
        i = bisect.bisect_right(self.win_starts, ts) - 1
        if i >= 0 and ts < self.windows[i][0] + self.windows[i][1]:
            return i
        return None

    def ignore_runs(self):
        """--whole-trace: one run spanning the whole trace, run markers ignored."""
        self.windows = None
        self.run_source = "whole"
        self.run_names = ["whole trace"]
        self.run_of_op = [0] * len(self.ops)
        self.run_of_kernel = [0] * len(self.kernels)
        return self

    @property
    def nr_runs(self):
        return 1 if self.windows is None else len(self.windows)

    @property
    def warmup(self):
        return self.format == "ort"

    def rows(self, level="op", runs=None, patterns=(), regex=None):
        """Rows (dicts with ns/float stats) for a level, run spec and filter."""
        sel = parse_runs(runs, self.nr_runs, self.warmup)
        if level in ("op", "shape", "run"):
            evs, run_of = self.ops, self.run_of_op
        elif level in ("kernel", "dims"):
            evs, run_of = self.kernels, self.run_of_kernel
        else:
            raise RecomputeError("unknown level %r" % level)
        rx = re.compile(regex) if regex else None
        groups = {}
        for ev, r in zip(evs, run_of):
            if r is None or r not in sel:
                continue
            if not (_passes(ev.name, patterns, rx) or _passes(ev.key, patterns, rx)):
                continue
            if level == "shape":
                key = (ev.key, ev.shape)
            elif level == "dims":
                key = (ev.key, ev.dims)
            elif level == "run":
                key = (r,)
            else:
                key = ev.key
            groups.setdefault(key, []).append(ev.dur)
        rows = compute_rows(groups, level, runs_holding(run_of, sel))
        for row in rows:
            if level == "run":
                r = row["key"][0]
                row["name"] = "%d: %s" % (r, self.run_names[r])
                if self.windows is None:
                    row["run_us"] = self.stored_span()
                else:
                    row["run_us"] = self.windows[r][1]
        if level == "run":
            rows.sort(key=lambda r: _sort_key(level, r))
        return rows


def _passes(name, patterns, rx):
    if patterns:
        ok = False
        for p in patterns:
            if any(c in p for c in "*?["):
                ok = fnmatch.fnmatchcase(name, p)
            else:
                ok = name == p
            if ok:
                break
        if not ok:
            return False
    return rx is None or rx.search(name) is not None


# ---------------------------------------------------------------- runs

def _int(s):
    s = s.strip()
    if not re.fullmatch(r"[+-]?\d+", s):
        raise RecomputeError("bad --runs number %r" % s)
    return int(s)


def parse_runs(spec, n, warmup):
    """Set of selected run indices (Python semantics, see runs.h)."""
    if spec is None:
        if warmup and n > 1:
            return set(range(1, n))
        return set(range(n))
    s = spec.strip()

    def index(i):
        if not -n <= i < n:
            raise RecomputeError("--runs: %d out of range" % i)
        return i % n

    if s == "all":
        out = set(range(n))
    elif s.startswith("[") and s.endswith("]"):
        out = {index(_int(x)) for x in s[1:-1].split(",")}
    elif s.startswith("range(") and s.endswith(")"):
        a = [_int(x) for x in s[6:-1].split(",")]
        if not 1 <= len(a) <= 3:
            raise RecomputeError("bad range")
        out = {index(i) for i in range(*a)}
    elif ":" in s:
        p = s.split(":")
        if len(p) > 3:
            raise RecomputeError("bad slice")
        a = [None if x.strip() == "" else _int(x) for x in p]
        out = set(list(range(n))[slice(*a)])
    else:
        out = {index(_int(s))}
    if not out:
        raise RecomputeError("--runs: empty selection")
    return out


# ---------------------------------------------------------------- stats

def percentile(sorted_vals, q):
    n = len(sorted_vals)
    pos = (n - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, n - 1)
    frac = pos - lo
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * frac


def _sort_key(level, r):
    """Ties: run index, name bytes, then shape / dims (aggregate.h's identity)."""
    k = r["key"]
    if level == "run":
        return (-r["run_us"], k[0])
    if level == "shape":
        return (-r["total"], k[0].encode("utf-8"), k[1].encode("utf-8"))
    if level == "dims":
        return (-r["total"], k[0].encode("utf-8"), k[1])
    return (-r["total"], k.encode("utf-8"))


def runs_holding(run_of, sel):
    """The per-run divisor: the selected runs that hold an event of the level's
    kind (run_of: the run of each such event, unfiltered), at least 1."""
    return len({r for r in run_of if r is not None and r in sel}) or 1


def compute_rows(groups, level="op", nr_runs=1):
    rows = []
    for key, durs in groups.items():
        durs.sort()
        n = len(durs)
        total = sum(durs)
        rows.append({
            "key": key, "name": key[0] if isinstance(key, tuple) else key,
            "shape": key[1] if level == "shape" else None,
            "dims": key[1] if level == "dims" else None,
            "count_per_run": n / nr_runs, "total_per_run": total / nr_runs,
            "count": n, "total": total, "mean": total / n,
            "min": durs[0], "max": durs[-1],
            "p50": percentile(durs, 0.50), "p90": percentile(durs, 0.90),
            "p99": percentile(durs, 0.99),
            "stddev": statistics.stdev(durs) if n > 1 else 0.0,
        })
    if level != "run":  # the run rows get their window first (run_us)
        rows.sort(key=lambda r: _sort_key(level, r))
    return rows


def us_exact(ns):
    """Exact µs text with 3 decimals of an integer ns value."""
    sign = "-" if ns < 0 else ""
    ns = abs(ns)
    return "%s%d.%03d" % (sign, ns // 1000, ns % 1000)


def row_csv(r, level="op"):
    stats = [str(r["count"]), us_exact(r["total"]),
             "%.3f" % (r["mean"] / 1000), us_exact(r["min"]), us_exact(r["max"]),
             "%.3f" % (r["p50"] / 1000), "%.3f" % (r["p90"] / 1000),
             "%.3f" % (r["p99"] / 1000), "%.3f" % (r["stddev"] / 1000)]
    per_run = ["%.3f" % r["count_per_run"], "%.3f" % (r["total_per_run"] / 1000)]
    if level == "shape":
        return [r["name"], r["shape"]] + stats + per_run
    if level == "dims":
        return [r["name"], dims_text(r["dims"])] + stats + per_run
    if level == "run":
        return [r["name"], us_exact(r["run_us"]), str(r["count"])]
    return [r["name"]] + stats + per_run


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--by", default="op", choices=sorted(LEVEL_COLUMNS))
    ap.add_argument("--runs")
    ap.add_argument("--filter", action="append", default=[])
    ap.add_argument("--regex")
    ap.add_argument("--info", action="store_true", help="print format and runs")
    ap.add_argument("trace")
    a = ap.parse_args(argv)
    try:
        t = Trace(a.trace)
        if a.info:
            print("format %s, runs %d (%s), ops %d, kernels %d%s" % (
                t.format, t.nr_runs, t.run_source, len(t.ops), len(t.kernels),
                ", truncated" if t.truncated else ""))
            return 0
        rows = t.rows(a.by, a.runs, a.filter, a.regex)
    except RecomputeError as e:
        print("recompute: %s" % e, file=sys.stderr)
        return 2
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(LEVEL_COLUMNS[a.by])
    for r in rows:
        w.writerow(row_csv(r, a.by))
    sys.stdout.write(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
