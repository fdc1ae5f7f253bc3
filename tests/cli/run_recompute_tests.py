#!/usr/bin/env python3
"""Compare every cell of `opscope report --format csv` with tests/tools/recompute.py.

recompute.py is an independent implementation of the statistics rules
(aggregate.h, runs.h), so a disagreement means one of the two is wrong: the
FAIL line names the trace, level, run spec, row and column with both values.

Checks per case (opscope asked for recompute.py's columns, by total): same
header, same rows in the same order, count / total / min / max equal as
exact µs strings (times are integer ns), mean / p50 / p90 / p99 / stddev
within 0.001 µs. A run spec that
recompute rejects must make opscope exit 2 with one `opscope: ` line.

Runs every sample in samples/ and, when ../shared/traces is present, more
real traces from the collection.
"""
import concurrent.futures
import csv
import io
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testlib  # noqa: E402
import recompute  # noqa: E402  (path set up by testlib)
import recompute_tree  # noqa: E402

EXACT = {"total_us", "min_us", "max_us", "wall_us", "ops"}
CLOSE_US = {"mean_us", "p50_us", "p90_us", "p99_us", "stddev_us", "count_per_run",
            "total_per_run_us"}
# Columns that identify a row, per level (the rest are numbers).
KEY_COLS = {"op": 1, "kernel": 1, "shape": 2, "dims": 2, "run": 1, "path": 1}

# (path relative to ../shared/traces, thorough?) - thorough ones get every run spec.
SHARED_TRACES = [
    ("generated/ort-bert-mini-dyn-opt.json", False),
    ("generated/ort-bert-mini-dyn-noopt.json.gz", False),
    ("generated/ort-resnet18-noopt.json", True),
    ("generated/ort-cnn-opt-t1.json", True),
    ("generated/torch-resnet18-train-stack.json", True),
    ("hta/trace_filter/sampled_rank-1.json.gz", True),
    ("hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", False),
    ("hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", True),
    ("hta/rank_non_gpu/rank_non_gpu.json.gz", True),
    ("hta/triton_example/triton_example.json.gz", True),
    ("hta/large_integer_trace/rank-70.Mar_25_20_48_12.2861.pt.trace.json.gz", True),
    ("hta/cuda_event_sync_multi_stream/event_sync_trace.json.gz", True),
    ("hta/alexnet/benchmark_result_2869224_1695835535_trace.json.gz", True),
    ("hta/with_gpu_user_annotation/step_based_trace_2543932.json.gz", True),
    ("kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz", False),
    ("tracelens/mi300/resnet_act_checkpoint.json.gz", True),
    ("tracelens/sglang_decode/sglang_Qwen3-8B_decode.json.gz", True),
    ("tracelens/b200/eager_trace.json.gz", False),
    ("tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz", True),
    ("tracelens/gpu_only_trace/gpu_only_trace.json.gz", True),
    ("speedscope/simple.json", True),
    ("speedscope/not-enough-end-events.json", True),
    ("speedscope/multiprocess.json", True),
]


def run_specs(n, sweep):
    """Run specs to try on a trace with n runs, for a sweep of testlib.sweep()."""
    if sweep == "light":
        return [None]
    specs = [None, "all", "-1"]
    if sweep == "thorough":
        specs += ["0", str(-n), "[0]"]
        if n >= 2:
            specs += ["1:", ":-1", "::2", "[0, -1]", "range(1,%d)" % n, "-2"]
        if n >= 3:
            specs += ["1:3", "range(0,%d,2)" % n, "[2,0]", "-2:"]
        specs += [str(n), "[0,%d]" % n, "%d:" % n]   # out of range / empty
    else:
        specs += ["::2"]
    return list(dict.fromkeys(specs))  # drop duplicates, keep the order


def parse_csv(text):
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return None, []
    return rows[0], rows[1:]


def compare(got_text, want_rows, level="op"):
    problems = []
    columns = recompute.LEVEL_COLUMNS[level]
    nkey = KEY_COLS[level]
    header, rows = parse_csv(got_text)
    if header != columns:
        return ["header %r" % (header,)]
    want = [recompute.row_csv(r, level) for r in want_rows]
    got_names = [tuple(r[:nkey]) for r in rows]
    want_names = [tuple(r[:nkey]) for r in want]
    if sorted(got_names) != sorted(want_names):
        missing = [n for n in want_names if n not in set(got_names)]
        extra = [n for n in got_names if n not in set(want_names)]
        problems.append("%d rows vs %d expected; missing %r; extra %r" % (
            len(got_names), len(want_names), [m[0][:60] for m in missing[:4]],
            [e[0][:60] for e in extra[:4]]))
    elif got_names != want_names:
        i = next(i for i, (a, b) in enumerate(zip(got_names, want_names)) if a != b)
        problems.append("row order differs at row %d: %r vs expected %r" % (
            i, got_names[i][0][:60], want_names[i][0][:60]))
    by_name = {tuple(r[:nkey]): r for r in rows}
    for w in want:
        g = by_name.get(tuple(w[:nkey]))
        if g is None:
            continue
        if len(g) != len(columns):
            problems.append("row %r has %d cells" % (w[0][:60], len(g)))
            continue
        for col, gv, wv in list(zip(columns, g, w))[nkey:]:
            bad = False
            if col == "count" or col in EXACT:
                bad = gv != wv
            else:
                tol = 0.001 if col in CLOSE_US else 0.01
                try:
                    bad = abs(float(gv) - float(wv)) > tol + 1e-9
                except ValueError:
                    bad = True
            if bad:
                problems.append("row %r %s: opscope %s, recompute %s" % (w[0][:60], col, gv, wv))
    return problems


def cases_for(label, path, sweep, res):
    """Load the trace once in recompute and build the list of cases."""
    try:
        t = recompute.Trace(path)
    except recompute.RecomputeError as e:
        res.fail("%s: recompute cannot read it: %s" % (label, e))
        return []
    out = []
    for level in ("op", "kernel", "shape", "dims", "run"):
        if level in ("kernel", "dims") and not t.kernels:
            specs = [None]
        elif level in ("shape", "dims", "run"):
            # the run grammar is tested on op and kernel
            specs = [None] if sweep == "light" else [None, "all", "-1"]
        else:
            specs = run_specs(t.nr_runs, sweep)
        for spec in specs:
            try:
                want = t.rows(level, spec)
                err = None
            except recompute.RecomputeError as e:
                want, err = None, str(e)
            args = ["report", "--format", "csv", "--by", level]
            if level in ("kernel", "dims"):
                args.append("--no-demangle")  # recompute has the names as recorded
            if spec is not None:
                args += ["--runs", spec]
            name = "%s --by %s --runs %s" % (label, level, "default" if spec is None else spec)
            out.append((name, args + [path], want, err, level))
    # The path level: recompute_tree.py nests the op-level events itself.
    if t.ops:
        path_cases = ((None, ()), ("all", ()), ("-1", ()), (None, ("aten::*", "*Conv*")))
        for spec, pats in path_cases[::3] if sweep == "light" else path_cases:
            try:
                want, err = recompute_tree.path_rows(t, spec, pats), None
            except recompute.RecomputeError as e:
                want, err = None, str(e)
            args = ["report", "--format", "csv", "--by", "path"]
            if spec is not None:
                args += ["--runs", spec]
            for p in pats:
                args += ["--filter", p]
            name = "%s --by path --runs %s%s" % (label, "default" if spec is None else spec,
                                                " --filter %r" % (pats,) if pats else "")
            out.append((name, args + [path], want, err, "path"))
    # One filtered case: filters change the rows and the pct denominator.
    if t.ops:
        top = t.rows("op", None)
        if len(top) >= 2:
            pats = [top[1]["name"], top[0]["name"][:3] + "*"]
            args = ["report", "--format", "csv"]
            for p in pats:
                args += ["--filter", p]
            out.append(("%s --filter %r" % (label, pats), args + [path],
                        t.rows("op", None, pats), None, "op"))
    # --whole-trace: every event counts, in a run or not (last: it changes t).
    t.ignore_runs()
    for level in ("op", "kernel") if t.kernels else ("op",):
        out.append(("%s --by %s --whole-trace" % (label, level),
                    ["report", "--format", "csv", "--by", level, "--whole-trace",
                     "--no-demangle", path],
                    t.rows(level, None), None, level))
    if t.ops:
        out.append(("%s --by path --whole-trace" % label,
                    ["report", "--format", "csv", "--by", "path", "--whole-trace", path],
                    recompute_tree.path_rows(t), None, "path"))
    return out


def check_case(case):
    name, args, want, err, level = case
    # the columns and order recompute.py knows (percentages: run_measures_tests.py)
    args = args[:-1] + ["--sort", "wall" if level == "run" else "total",
                        "--columns", ",".join(recompute.LEVEL_COLUMNS[level]), args[-1]]
    p = testlib.run(args, timeout=300, **testlib.sweep_env())
    if err is not None:
        # Load warnings (truncation, unmatched B/E) may precede the error line.
        lines = [ln for ln in p.err_lines if not ln.startswith("opscope: warning: ")]
        if p.rc == 2 and len(lines) == 1 and lines[0].startswith("opscope: "):
            return name, []
        return name, ["recompute rejects the spec (%s) but opscope gave %s" % (err, p.describe())]
    if p.rc != 0:
        return name, ["opscope " + p.describe()]
    return name, compare(p.text, want, level)


def main():
    res = testlib.Results()
    traces = []
    for f in sorted(os.listdir(testlib.SAMPLES)):
        if f.endswith(".json") or f.endswith(".json.gz"):
            traces.append(("samples/" + f, testlib.sample(f), testlib.sweep(True, bundled=True)))
    thorough = dict(SHARED_TRACES)
    for p in testlib.shared_traces(res, testlib.share([rel for rel, _ in SHARED_TRACES], 0)):
        rel = os.path.relpath(p, testlib.SHARED)
        traces.append(("shared/" + rel, p, testlib.sweep(thorough[rel])))
    jobs = int(os.environ.get("OPSCOPE_TEST_JOBS", "0")) or min(4, os.cpu_count() or 2)
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for label, path, sweep in traces:
            cases = cases_for(label, path, sweep, res)
            for name, problems in pool.map(check_case, cases):
                res.check(name, problems)
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
