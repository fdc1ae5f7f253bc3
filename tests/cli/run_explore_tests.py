#!/usr/bin/env python3
"""`opscope explore` against tests/tools/profile_explorer_ref.py, one case per flag.

profile_explorer_ref.py re-implements ORT's profile_explorer (which needs
pandas and cannot run here) from its source, so the expected numbers are
profile_explorer's, not opscope's. Each case runs `opscope explore ... --csv
PREFIX`, reads the CSV files back and compares every cell:
- keys (name, dimensions, input_type_shape) as sets, since profile_explorer
  orders tied durations arbitrarily (pandas quicksort); a tie cut by -c may
  keep different rows of equal duration;
- duration, count, cumulative_dur exactly (µs; cumulative values do not
  depend on the order of ties); pct, cumulative_pct within 1e-6;
- the mapping CSV: the same rows and every column (kernel_name as in the
  trace, compared with --no-demangle, since profile_explorer leaves them
  mangled there);
- the "Analyzing N model run(s)" line: the number of runs.
Differences by design (documented in man/opscope.1, EXPLORE) are not tested
here: on the traces used, position-split and time-window runs hold the same
events (ORT writes model_run after its nodes). One is: on a trace whose ops
nest, a CPU row's duration is its self time (recompute_measures.py's).

A trace with a single run (one model_run, one ProfilerStep): profile_explorer
fails there ("Invalid start index 1": its default --start 1 skips a warm-up
run); opscope analyzes run 0 with one note on stderr, as `--start 0` does.

Errors: an invalid --start/--end, an empty range or a --gather that is not
a list must exit 2 with one "opscope: " line.
"""
import csv
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testlib  # noqa: E402
import profile_explorer_ref as ref  # noqa: E402

ORT = "samples/ort-cnn-opt.json"
CUDA = "tests/data/ort-cuda-synthetic.json"
HAVE_CXXFILT = shutil.which("c++filt") is not None

# (case, trace, explore args, ref kwargs)
CASES = [
    ("default", ORT, [], {}),
    ("shape-sensitive", ORT, ["--shape-sensitive"], {"shape_sensitive": True}),
    ("filter-nargs", ORT, ["--filter", "Conv", "Gemm"], {"filters": ["Conv", "Gemm"]}),
    ("filter-wildcard", ORT, ["--filter", "*Pool", "Fused*"], {"filters": ["*Pool", "Fused*"]}),
    ("count", ORT, ["-c", "3"], {"count": 3}),
    ("count-long", ORT, ["--count", "2", "--shape-sensitive"],
     {"count": 2, "shape_sensitive": True}),
    ("start", ORT, ["-s", "4"], {"start": 4}),
    ("start-neg", ORT, ["--start", "-3"], {"start": -3}),
    ("start-0-warmup", ORT, ["-s", "0"], {"start": 0}),
    ("end", ORT, ["-s", "2", "-e", "5"], {"start": 2, "end": 5}),
    ("end-neg", ORT, ["--end=-2"], {"end": -2}),
    ("gather-list", ORT, ["-g", "[1, 3, 5]"], {"gather": "[1, 3, 5]"}),
    ("gather-range", ORT, ["--gather", "range(2,6)"], {"gather": "range(2,6)"}),
    ("cuda-default", CUDA, ["--no-demangle"], {}),
    ("cuda-dimension", CUDA, ["--no-demangle", "--dimension-sensitive"],
     {"dimension_sensitive": True}),
    ("cuda-shape-dimension", CUDA, ["--no-demangle", "--shape-sensitive",
                                    "--dimension-sensitive"],
     {"shape_sensitive": True, "dimension_sensitive": True}),
    ("cuda-filter", CUDA, ["--no-demangle", "--filter", "Conv"], {"filters": ["Conv"]}),
    ("cuda-mapping", CUDA, ["--no-demangle", "-m"], {}),
    ("cuda-mapping-start", CUDA, ["--no-demangle", "-m", "-s", "2"], {"start": 2}),
    ("cuda-mapping-filter", CUDA, ["--no-demangle", "-m", "--filter", "Relu"],
     {"filters": ["Relu"]}),
]
if HAVE_CXXFILT:
    CASES += [
        ("cuda-demangler", CUDA, ["--demangler", "c++filt"], {"demangler": "c++filt"}),
        # libiberty (the default) prints what c++filt prints.
        ("cuda-libiberty", CUDA, [], {"demangler": "c++filt"}),
    ]

SHARED = [
    ("generated/ort-bert-mini-dyn-opt.json", ["--shape-sensitive"], {"shape_sensitive": True}),
    ("generated/ort-resnet18-noopt.json", ["-s", "3", "-e", "-1"], {"start": 3, "end": -1}),
    # profile_explorer fails here (KeyError: its nodes have no input_type_shape);
    # opscope must still answer.
    ("ort-riscv/resnet_inference_gemmini.json", ["-s", "0"], None),
]

ERRORS = [
    ("start-out-of-range", ORT, ["-s", "11"]),
    ("end-out-of-range", ORT, ["-e", "11"]),
    ("empty-range", ORT, ["-s", "5", "-e", "5"]),
    ("gather-code", ORT, ["-g", "__import__('os').system('true')"]),
    ("gather-out-of-range", ORT, ["-g", "[1, 99]"]),
    ("count-negative", ORT, ["-c", "-1"]),
    ("no-trace", None, ["-m"]),
    ("bad-run-range", ORT, ["--run-range", "("]),
    # an explicit --start 1 is still checked, one run or not
    ("start-1-one-run", "samples/ort-riscv-resnet50-gemmini.json", ["-s", "1"]),
]
ONE_RUN_NOTE = "opscope: note: one run only (%s): analyzing it, not skipping it as warm-up"


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], [dict(zip(rows[0], r)) for r in rows[1:]]


def compare_top(label, path, want, problems):
    if want is None:
        if os.path.exists(path):
            problems.append("%s: wrote %s, profile_explorer has no entries" % (label, path))
        return
    if not os.path.exists(path):
        problems.append("%s: %s missing" % (label, path))
        return
    header, got = read_csv(path)
    keys = [k for k in ("name", "dimensions", "input_type_shape") if k in want[0]]
    expect_header = keys + ["duration", "pct", "count", "cumulative_pct", "cumulative_dur"]
    if header != expect_header:
        problems.append("%s: header %r, expected %r" % (label, header, expect_header))
        return
    if len(got) != len(want):
        problems.append("%s: %d rows, expected %d" % (label, len(got), len(want)))
        return
    cut = want[-1]["duration"]
    gk = {tuple(r[k] for k in keys): r for r in got}
    wk = {tuple(str(r[k]) for k in keys): r for r in want}
    for k in set(gk) ^ set(wk):
        r = gk.get(k) or wk[k]
        if float(r["duration"]) != cut:  # rows tied at the cut may differ
            problems.append("%s: row %r only in %s" % (label, k, "opscope" if k in gk
                                                       else "profile_explorer"))
    for k in set(gk) & set(wk):
        g, w = gk[k], wk[k]
        if float(g["duration"]) != w["duration"] or int(g["count"]) != w["count"]:
            problems.append("%s: %r duration/count %s/%s, expected %s/%s" % (
                label, k, g["duration"], g["count"], w["duration"], w["count"]))
        if abs(float(g["pct"]) - w["pct"]) > 1e-6:
            problems.append("%s: %r pct %s, expected %r" % (label, k, g["pct"], w["pct"]))
    for i, (g, w) in enumerate(zip(got, want)):
        if float(g["duration"]) != w["duration"]:
            problems.append("%s: row %d duration %s, expected %s (order)" % (
                label, i, g["duration"], w["duration"]))
        if float(g["cumulative_dur"]) != w["cumulative_dur"] or \
                abs(float(g["cumulative_pct"]) - w["cumulative_pct"]) > 1e-6:
            problems.append("%s: row %d cumulative %s/%s, expected %s/%r" % (
                label, i, g["cumulative_dur"], g["cumulative_pct"], w["cumulative_dur"],
                w["cumulative_pct"]))


MAP_NUM = ["op_count", "kernel_count", "kernel_avg_dur (us)", "kernel_total_dur (us)",
           "op_dur (us)", "op_avg_dur (us)", "kernel_pct (%)", "op_pct (%)"]
MAP_COLS = ["op_name", "input_type_shape", "op_count", "kernel_dimensions", "kernel_count",
            "kernel_avg_dur (us)", "kernel_total_dur (us)", "op_dur (us)", "op_avg_dur (us)",
            "kernel_pct (%)", "op_pct (%)", "kernel_name"]


def compare_mapping(path, want, problems):
    if not os.path.exists(path):
        problems.append("mapping: %s missing" % path)
        return
    header, got = read_csv(path)
    if header != MAP_COLS:
        problems.append("mapping: header %r" % (header,))
        return
    ident = ("op_name", "input_type_shape", "kernel_name", "kernel_dimensions")
    if [tuple(r[k] for k in ident) for r in got] != [tuple(r[k] for k in ident) for r in want]:
        problems.append("mapping: rows %r, expected %r" % (
            [tuple(r[k] for k in ident) for r in got][:6],
            [tuple(r[k] for k in ident) for r in want][:6]))
        return
    for g, w in zip(got, want):
        for c in MAP_NUM:
            # opscope prints 3 decimals (µs) / 2 (percent): within half a last digit.
            tol = 0.005 if "pct" in c else 0.0005
            if abs(float(g[c]) - w[c]) > tol + 1e-9:
                problems.append("mapping: %r %s %s, expected %r" % (
                    g["kernel_name"][:30], c, g[c], w[c]))


def check(label, trace, args, kw, tmp):
    problems = []
    prefix = os.path.join(tmp, label)
    mapping = "-m" in args
    try:
        want = ref.compute(trace, **kw)
    except ref.RefError as e:
        return ["profile_explorer_ref rejects it: %s" % e]
    p = testlib.run(["explore"] + args + ["--csv", prefix, trace], timeout=300)
    if p.rc != 0:
        return ["opscope " + p.describe()]
    if "Analyzing %d model run(s)" % want["num_runs"] not in p.text:
        problems.append("no 'Analyzing %d model run(s)' line in %r" % (want["num_runs"],
                                                                     p.text[:200]))
    compare_top("cpu", prefix + "_cpu_kernel_times.csv", want["cpu"], problems)
    compare_top("gpu", prefix + "_gpu_kernel_times.csv", want["gpu"], problems)
    if mapping:
        compare_mapping(prefix + "_op_kernel_mapping.csv", want["mapping"] or [], problems)
    return problems


def check_whole(tmp):
    """--whole-trace: every event, as profile_explorer reads a trace without
    model_run (it then uses the entire trace): the reference runs on a copy
    with the markers taken out, opscope on the trace itself."""
    import json
    src = os.path.join(testlib.ROOT, CUDA)
    stripped = os.path.join(tmp, "no-model-run.json")
    with open(stripped, "w") as f:
        json.dump([e for e in ref.load(src) if e.get("name") != "model_run"], f)
    want = ref.compute(stripped)
    prefix = os.path.join(tmp, "whole")
    p = testlib.run(["explore", "--whole-trace", "--no-demangle", "-m", "--csv", prefix, src])
    if p.rc != 0:
        return ["opscope " + p.describe()]
    problems = [] if "Using entire traces (--whole-trace)." in p.text else ["no notice"]
    compare_top("cpu", prefix + "_cpu_kernel_times.csv", want["cpu"], problems)
    compare_top("gpu", prefix + "_gpu_kernel_times.csv", want["gpu"], problems)
    compare_mapping(prefix + "_op_kernel_mapping.csv", want["mapping"] or [], problems)
    default = ref.compute(src)
    if default["cpu"] == want["cpu"]:
        problems.append("the whole trace gives the default runs' rows: the test cannot fail")
    return problems


def check_nested(tmp):
    """On a trace whose ops nest (PyTorch), a CPU row's duration is its self
    time, so the durations add up to the runs' host busy time (recomputed by
    recompute_measures.py) and cumulative_pct ends at 100: profile_explorer's
    sum of inclusive times would count aten::conv2d > aten::convolution >
    ... > aten::mkldnn_convolution four times."""
    sys.path.insert(0, os.path.join(testlib.ROOT, "tests", "tools"))
    import recompute_measures
    trace = os.path.join(testlib.ROOT, "samples/torch-resnet18-infer.json")
    prefix = os.path.join(tmp, "nested")
    p = testlib.run(["explore", "-c", "100000", "--csv", prefix, trace])
    if p.rc != 0:
        return ["opscope " + p.describe()]
    _, rows = read_csv(prefix + "_cpu_kernel_times.csv")
    m = recompute_measures.Measures(trace)
    runs = "1:"  # explore skips the warm-up run 0
    want_busy = m.bases(runs)[0]
    self_of = {r["name"]: recompute_measures.cell(r, "self_us") for r in m.rows("op", runs)}
    got = sum(int(round(float(r["duration"]) * 1000)) for r in rows)
    problems = []
    if got != want_busy:
        problems.append("durations add up to %d ns, host busy is %d" % (got, want_busy))
    for r in rows:
        if "%.3f" % float(r["duration"]) != self_of.get(r["name"]):
            problems.append("%s: duration %s, self time %s" % (
                r["name"], r["duration"], self_of.get(r["name"])))
    if rows and abs(float(rows[-1]["cumulative_pct"]) - 100) > 1e-6:
        problems.append("last cumulative_pct %s" % rows[-1]["cumulative_pct"])
    return problems


def check_run_range():
    """--run-range picks the runs explore analyses (NVTX ranges of nvprof)."""
    nv = os.path.join(testlib.ROOT, "samples", "nvprof-lstm-pyprof.sql.gz")
    p = testlib.run(["explore", "-s", "0", "--run-range", "embedding", nv])
    q = testlib.run(["explore", "-s", "0", "--run-range", "embedding/0", nv])
    r = testlib.run(["report", "--by", "kernel", "--format", "csv", "--run-range", "embedding/0",
                     "--no-demangle", nv])
    problems = []
    if p.rc or q.rc or r.rc:
        return [p.describe(), q.describe(), r.describe()]
    if "Found 10 NVTX range events" not in p.text or "Analyzing 1 model run(s): 0-0." not in q.text:
        problems.append("runs: %r / %r" % (p.text[:120], q.text[:120]))
    total = sum(float(row[2]) for row in list(csv.reader(r.text.splitlines()))[1:])
    gpu = q.text.split("Top GPU Kernel Times")[-1]
    if "%.3f" % total not in gpu:
        problems.append("GPU table of run 0 does not reach report's total %.3f" % total)
    return problems


def one_run_trace(tmp, src, keep, name):
    """A copy of src (JSON array or object, gzip or not) with the events keep() takes."""
    import json
    data = ref.load(os.path.join(testlib.ROOT, src))
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        json.dump([e for i, e in enumerate(data) if keep(i, e)], f)
    return path


def check_one_run_ort(tmp):
    """One model_run: the ORT sample cut after its first model_run (file order, as
    profile_explorer splits), checked against the reference with --start 0."""
    data = ref.load(os.path.join(testlib.ROOT, ORT))
    first = next(i for i, e in enumerate(data) if e.get("name") == "model_run")
    path = one_run_trace(tmp, ORT, lambda i, e: i <= first, "ort-one-run.json")
    problems = []
    try:
        ref.compute(path)
        problems.append("profile_explorer_ref takes the default --start 1 on one run")
    except ref.RefError as e:
        if "Invalid start index 1" not in str(e):
            problems.append("profile_explorer_ref: %s" % e)
    problems += check("ort-one-run", path, [], {"start": 0}, tmp)
    p = testlib.run(["explore", path])
    if p.err_lines != [ONE_RUN_NOTE % "model_run"]:
        problems.append("stderr %r" % p.err_lines)
    return problems


def check_one_run_same_as_start0(path, source):
    """explore on a one-run trace prints what `explore -s 0` prints, plus one note."""
    p = testlib.run(["explore", "-m", path])
    q = testlib.run(["explore", "-m", "-s", "0", path])
    if p.rc != 0 or q.rc != 0:
        return ["opscope " + p.describe(), q.describe()]
    problems = []
    if "Analyzing 1 model run(s): 0-0." not in p.text:
        problems.append("no 'Analyzing 1 model run(s): 0-0.' in %r" % p.text[:200])
    if p.text != q.text:
        problems.append("stdout differs from explore -s 0")
    if p.err_lines != [ONE_RUN_NOTE % source] or q.err_lines:
        problems.append("stderr %r / with -s 0: %r" % (p.err_lines, q.err_lines))
    return problems


def main():
    res = testlib.Results()
    tmp = tempfile.mkdtemp(prefix="opscope-explore-")
    try:
        for label, trace, args, kw in CASES:
            res.check("explore " + label, check(label, os.path.join(testlib.ROOT, trace), args,
                                                kw, tmp))
        for rel, args, kw in SHARED:
            path = testlib.shared(rel)
            if not path:
                res.skip("explore shared/" + rel, "not in the collection")
                continue
            if kw is None:
                p = testlib.run(["explore"] + args + [path])
                ok = p.rc == 0 and "Top CPU Kernel Times" in p.text
                res.check("explore shared/" + rel + " (profile_explorer fails)",
                          [] if ok else ["opscope " + p.describe()])
                continue
            res.check("explore shared/" + rel, check(os.path.basename(rel), path, args, kw, tmp))
        res.check("explore --whole-trace equals profile_explorer without model_run",
                  check_whole(tmp))
        res.check("explore --run-range", check_run_range())
        res.check("explore on nested ops: durations are self times adding up to host busy",
                  check_nested(tmp))
        res.check("explore one model_run: run 0 with a note, as profile_explorer -s 0",
                  check_one_run_ort(tmp))
        kineto = one_run_trace(tmp, "samples/kineto-sampled-rank0.json.gz",
                               lambda i, e: e.get("name") != "ProfilerStep#552",
                               "kineto-one-step.json")
        res.check("explore one ProfilerStep (sample less its second step) as -s 0",
                  check_one_run_same_as_start0(kineto, "ProfilerStep"))
        bert = testlib.shared("tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz")
        if bert:
            res.check("explore one ProfilerStep (shared tracelens bert) as -s 0",
                      check_one_run_same_as_start0(bert, "ProfilerStep"))
        else:
            res.skip("explore one ProfilerStep (shared tracelens bert)", "not in the collection")
        for label, trace, args in ERRORS:
            argv = ["explore"] + args + ([os.path.join(testlib.ROOT, trace)] if trace else [])
            p = testlib.run(argv)
            lines = [ln for ln in p.err_lines if ln.startswith("opscope: ")]
            ok = p.rc == 2 and len(p.err_lines) == 1 and len(lines) == 1
            res.check("explore error " + label, [] if ok else ["got " + p.describe()])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
