#!/usr/bin/env python3
"""Independent re-implementation of ORT's profile_explorer computations.

Follows onnxruntime/python/tools/profile_explorer/profile_explorer.py
(microsoft/onnxruntime, the version with --start/--end exclusive and
"float(1x3)" shapes) step by step, with the standard library instead of
pandas, so the tests can get profile_explorer's numbers without pandas or
network. Never derived from opscope's C code.

    profile_explorer_ref.py [profile_explorer options] [--json] TRACE

prints the computed tables as JSON ({"num_runs", "cpu", "gpu", "mapping"}).

Faithful on purpose, including what opscope does differently:
- runs are split by FILE POSITION of the "model_run" events
  (_split_data_across_runs): run k is data[split[k]:split[k+1]] with
  split = [0, positions of model_run...];
- --gather (described in profile_explorer's help, not in that source): the
  concatenation of the runs it lists, num_runs = len(list); the expression is
  parsed as a list literal or range(...), never evaluated;
- the filter keeps an event when its name matches, or it has no op_name, or
  its op_name matches (fnmatch for patterns with * ? [ ]);
- a GPU kernel's input_type_shape is that of the most recent *kernel_time
  event before it in the file, "unknown" before the first;
- pandas details: the percentage of a group is the sum of its events'
  percentages; rows are sorted by duration descending. pandas' default
  quicksort leaves ties in no defined order: here ties are ordered by the
  group key (what opscope does), and tests compare tied rows as sets.
Durations stay in the trace's µs, as profile_explorer keeps them.
"""
import argparse
import ast
import fnmatch
import gzip
import json
import subprocess
import sys
from collections import defaultdict


class RefError(Exception):
    pass


def demangle(name, demangler="c++filt"):
    try:
        with subprocess.Popen([demangler, name], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE) as proc:
            out, _ = proc.communicate()
            return out.decode("utf-8").strip()
    except Exception:
        return name


def shape_to_string(shape):
    res = ""
    for dict_obj in shape:
        if len(dict_obj) > 1:
            raise RefError("Unhandled type in _shape_to_string()")
        key = next(iter(dict_obj.keys()))
        value = next(iter(dict_obj.values()))
        if len(res) != 0:
            res += ","
        res += "%s(%s)" % (key, "x".join(str(v) for v in value))
    return res


def json_to_entries(data, filter_matcher):
    cpu, gpu = [], []
    last_launch = None
    for item in data:
        cat = item.get("cat")
        if cat is None:
            continue
        dur = item.get("dur")
        if dur is None:
            continue
        arg = item.get("args")
        if arg is None:
            continue
        op_name = arg.get("op_name")
        name = item["name"]
        if not filter_matcher(name) and op_name is not None and not filter_matcher(op_name):
            continue
        if cat != "Kernel" and not name.endswith("kernel_time"):
            continue
        if name.endswith("kernel_time"):
            last_launch = item
        dims = "b%sx%sx%s,g%sx%sx%s" % tuple(arg.get(k, -1) for k in (
            "block_x", "block_y", "block_z", "grid_x", "grid_y", "grid_z"))
        if cat == "Kernel":
            gpu.append({"name": name, "duration": dur, "dimensions": dims, "op_name": op_name,
                        "input_type_shape": shape_to_string(last_launch["args"]["input_type_shape"])
                        if last_launch is not None else "unknown"})
        else:
            cpu.append({"name": arg["op_name"], "duration": dur,
                        "input_type_shape": shape_to_string(arg["input_type_shape"]),
                        "output_type_shape": shape_to_string(arg["output_type_shape"])})
    return cpu, gpu


def top_hitters(entries, count, shape_sensitive, dimension_sensitive, gpu):
    """Rows {key..., duration, pct, count, cumulative_pct, cumulative_dur} or None (no entries)."""
    if not entries:
        return None
    group_key = ["name"]
    if gpu and dimension_sensitive:
        group_key.append("dimensions")
    if shape_sensitive:
        group_key.append("input_type_shape")
    total = sum(e["duration"] for e in entries)
    groups = {}
    for e in entries:
        k = tuple(e[g] for g in group_key)
        row = groups.setdefault(k, {"duration": 0, "pct": 0.0, "count": 0})
        row["duration"] += e["duration"]
        row["pct"] += 100 * (e["duration"] / total)
        row["count"] += 1
    keys = sorted(groups, key=lambda k: (-groups[k]["duration"], k))[:count]
    rows, cum_pct, cum_dur = [], 0.0, 0
    for k in keys:
        r = dict(zip(group_key, k))
        r.update(groups[k])
        cum_pct += r["pct"]
        cum_dur += r["duration"]
        r["cumulative_pct"] = cum_pct
        r["cumulative_dur"] = cum_dur
        rows.append(r)
    return rows


def op_kernel_mapping(cpu, gpu, num_runs):
    op_counts = defaultdict(int)
    for op in cpu:
        op_counts[(op["name"], op["input_type_shape"])] += 1
    stat = defaultdict(lambda: {"count": 0, "duration": 0.0})
    for k in gpu:
        if k["op_name"] is None:
            continue
        ident = (k["op_name"], k["input_type_shape"], k["name"], k["dimensions"])
        stat[ident]["count"] += 1
        stat[ident]["duration"] += k["duration"]
    rows = []
    for (op_name, shape, kernel, dims), s in stat.items():
        op_count = op_counts.get((op_name, shape))
        if op_count is None:
            continue
        rows.append({"op_name": op_name, "input_type_shape": shape,
                     "op_count": op_count / num_runs, "kernel_name": kernel,
                     "kernel_dimensions": dims, "kernel_count": s["count"] / num_runs,
                     "kernel_avg_dur (us)": s["duration"] / s["count"],
                     "kernel_total_dur (us)": s["duration"] / num_runs})
    op_dur = defaultdict(float)
    for r in rows:
        op_dur[(r["op_name"], r["input_type_shape"])] += r["kernel_total_dur (us)"]
    all_kernels = sum(r["kernel_total_dur (us)"] for r in rows)
    for r in rows:
        r["op_dur (us)"] = op_dur[(r["op_name"], r["input_type_shape"])]
        r["op_avg_dur (us)"] = r["op_dur (us)"] / r["op_count"]
    rows.sort(key=lambda r: (r["op_dur (us)"], r["op_name"], r["input_type_shape"],
                             r["kernel_total_dur (us)"]), reverse=True)
    for r in rows:
        r["kernel_pct (%)"] = r["kernel_total_dur (us)"] / r["op_dur (us)"] * 100
        r["op_pct (%)"] = r["op_dur (us)"] / all_kernels * 100
    return rows


def filter_matcher(patterns):
    if not patterns:
        return lambda x: True
    concrete, wild = set(), set()
    for p in patterns:
        (wild if any(c in p for c in "*?[]") else concrete).add(p)

    def match(item):
        return item in concrete or any(fnmatch.fnmatch(item, p) for p in wild)
    return match


def parse_gather(expr):
    """A list literal or range(...): the safe subset of what --gather evaluates."""
    expr = expr.strip()
    if expr.startswith("range(") and expr.endswith(")"):
        return list(range(*[int(x) for x in expr[6:-1].split(",")]))
    val = ast.literal_eval(expr)
    if isinstance(val, int):
        return [val]
    return [int(v) for v in val]


def split_runs(data, start=1, end=None, gather=None):
    splits = [i for i, item in enumerate(data) if item.get("name") == "model_run"]
    if not splits:
        return data, 1  # profile_explorer returns data alone here and then fails to unpack it
    n = len(splits)
    bounds = [0] + splits
    if gather is not None:
        runs = [i + n if i < 0 else i for i in parse_gather(gather)]
        if not runs or any(not 0 <= i < n for i in runs):
            raise RefError("invalid gather list")
        out = []
        for i in runs:
            out += data[bounds[i]:bounds[i + 1]]
        return out, len(runs)
    if not -n <= start < n:
        raise RefError("Invalid start index %d." % start)
    if start < 0:
        start += n
    if end is None:
        end = n
    else:
        if not -n <= end < n:
            raise RefError("Invalid end index %d." % end)
        if end < 0:
            end += n
    num_runs = end - start
    if num_runs <= 0:
        raise RefError("No valid model runs are included in the split.")
    return data[bounds[start]:bounds[end]], num_runs


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    data = json.loads(raw.decode("utf-8"))
    if isinstance(data, dict):
        data = data["traceEvents"]
    return data


def compute(path, start=1, end=None, gather=None, filters=None, count=40,
            shape_sensitive=False, dimension_sensitive=False, demangler=None):
    data, num_runs = split_runs(load(path), start, end, gather)
    try:
        cpu, gpu = json_to_entries(data, filter_matcher(filters))
    except KeyError as e:  # e.g. old ORT nodes without input_type_shape
        raise RefError("profile_explorer fails: KeyError %s" % e)
    out = {"num_runs": num_runs,
           "cpu": top_hitters(cpu, count, shape_sensitive, dimension_sensitive, False),
           "gpu": top_hitters(gpu, count, shape_sensitive, dimension_sensitive, True),
           "mapping": op_kernel_mapping(cpu, gpu, num_runs) if gpu else None}
    if demangler and out["gpu"]:
        for r in out["gpu"]:
            r["name"] = demangle(r["name"], demangler)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("input")
    ap.add_argument("--demangler", default=None)
    ap.add_argument("--shape-sensitive", action="store_true")
    ap.add_argument("--dimension-sensitive", action="store_true")
    ap.add_argument("--filter", nargs="+", action="extend")
    ap.add_argument("-c", "--count", type=int, default=40)
    ap.add_argument("--start", "-s", type=int, default=1)
    ap.add_argument("--end", "-e", type=int, default=None)
    ap.add_argument("--gather", "-g", default=None)
    a = ap.parse_args(argv)
    try:
        out = compute(a.input, a.start, a.end, a.gather, a.filter, a.count,
                      a.shape_sensitive, a.dimension_sensitive, a.demangler)
    except RefError as e:
        print("profile_explorer_ref: %s" % e, file=sys.stderr)
        return 2
    json.dump(out, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
