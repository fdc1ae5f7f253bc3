#!/usr/bin/env python3
"""Tests of `opscope tree` and `opscope kernels`.

Golden outputs (tests/cli/expected/tree-<case>.out, and .err when stderr is
not empty) on the real traces of samples/ and, when present, ../shared/traces:
Kineto with correlation ids, ROCm, a graph replay, the 2021 categories, ORT
and CPU-only traces. `--update` rewrites them, but only for cases whose
numbers agree with the independent tests/tools/recompute_tree.py where it
applies; read the diff before committing.

Besides the goldens: the totals of every merged call path (count, host,
device, launch, kernel count) of the CSV are compared with recompute_tree.py
on several traces and run selections, with and without --calls-of; kernels
--calls-of sums to the calls' device time; JSON agrees with CSV; errors are one
line and exit 2. Kernel names are those of `opscope report --by kernel` in
every name style (demangled by default). Cases on ../shared/traces skip
cleanly when it is absent.
"""
import csv
import io
import re
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testlib  # noqa: E402
import recompute_tree  # noqa: E402

KINETO = "samples/kineto-sampled-rank0.json.gz"
KINETO21 = "samples/kineto-2021-resnet50.json.gz"
ROCM = "samples/rocm-torch-compile-triton.json.gz"
ORT = "samples/ort-cnn-opt.json"
TORCH = "samples/torch-resnet18-infer.json"
GRAPH = "tracelens/sglang_decode/sglang_Qwen3-8B_decode.json.gz"
NVPROF = "samples/nvprof-lstm-pyprof.sql.gz"
CPU_ONLY = "hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"
GPU_ONLY = "tracelens/gpu_only_trace/gpu_only_trace.json.gz"
NS = "hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"
CONTROL = "hta/trace_diff/control.json.gz"
SAMPLED1 = "hta/trace_filter/sampled_rank-1.json.gz"
CATS21 = ["--monitor-cat", "Operator", "--host-cat", "Runtime", "--device-cat", "Kernel"]
CATS = ["--monitor-cat", "cpu_op", "--host-cat", "cuda_runtime", "--device-cat", "kernel"]
MANGLED = "tests/data/kineto-mangled.json"

# (case, args, env, shared trace or None): the trace is the last argument;
# "@" in args stands for the shared trace's path.
CASES = [
    ("help", ["tree", "--help"], {}, None),
    ("kernels-help", ["kernels", "--help"], {}, None),
    ("kineto-text", ["tree", "--max-depth", "2", KINETO], {"COLUMNS": "100"}, None),
    ("kineto-ascii", ["tree", "--max-depth", "1", "--runs", "1", KINETO],
     {"COLUMNS": "80", "LC_ALL": "C"}, None),
    ("kineto-csv", ["tree", "--format", "csv", "--filter", "aten::addmm", "--max-depth", "2"] +
     CATS + [KINETO], {}, None),
    ("kineto-csv-legacy", ["tree", "--format", "csv", "--legacy-columns", "--filter",
                           "aten::addmm", "--max-depth", "2"] + CATS + [KINETO], {}, None),
    ("kineto-kernels-csv-legacy", ["kernels", "--format", "csv", "--legacy-columns",
                                   "--filter", "*gemm*", KINETO], {}, None),
    ("kineto-filter", ["tree", "--filter", "aten::addmm", KINETO], {"COLUMNS": "100"}, None),
    ("kineto-depth", ["tree", "--min-depth", "1", "--max-depth", "2", "--filter", "aten::linear",
                      KINETO], {"COLUMNS": "100"}, None),
    ("kineto-kernels", ["kernels", "--filter", "*gemm*", KINETO], {"COLUMNS": "120"}, None),
    ("kineto-kernels-csv", ["kernels", "--format", "csv", "--filter", "*gemm*", KINETO], {}, None),
    ("rocm-csv", ["tree", "--format", "csv"] + CATS + [ROCM], {}, None),
    ("rocm-kernels", ["kernels", ROCM], {"COLUMNS": "120"}, None),
    ("kineto21-text", ["tree", "--max-depth", "1"] + CATS21 + [KINETO21], {"COLUMNS": "100"},
     None),
    ("ort-text", ["tree", ORT], {"COLUMNS": "100"}, None),
    ("torch-legacy", ["tree", "--max-depth", "1", TORCH], {"COLUMNS": "100"}, None),
    ("graph-replay", ["tree", "--format", "csv", "--monitor-cat", "python_function,cpu_op",
                      "--max-depth", "1", "@"], {}, GRAPH),
    ("graph-replay-kernels", ["kernels", "--monitor-cat", "python_function,cpu_op", "@"],
     {"COLUMNS": "120"}, GRAPH),
    ("cpu-only", ["tree", "--runs", "all", "@"], {"COLUMNS": "100"}, CPU_ONLY),
    ("gpu-only", ["tree", "@"], {"COLUMNS": "100"}, GPU_ONLY),
    ("cpu-only-whole", ["tree", "--whole-trace", "@"], {"COLUMNS": "100"}, CPU_ONLY),
    ("nvprof-run-range", ["kernels", "--run-range", "embedding/0", NVPROF], {"COLUMNS": "120"},
     None),
]

# (trace, shared?, extra args, monitor, host, device) compared with recompute_tree.
RECOMPUTE = [
    (KINETO, False, [], "cpu_op", "cuda_runtime", "kernel"),
    (KINETO, False, ["--runs", "0"], "cpu_op", "cuda_runtime", "kernel"),
    (KINETO, False, [], "cpu_op,user_annotation", "cuda_runtime", "kernel,gpu_memcpy"),
    (ROCM, False, [], "cpu_op", "cuda_runtime", "kernel"),
    (KINETO21, False, [], "Operator", "Runtime", "Kernel,Memcpy,Memset"),
    (GRAPH, True, [], "python_function,cpu_op", "cuda_runtime", "kernel"),
    (NS, True, [], "cpu_op", "cuda_runtime", "kernel,gpu_memcpy,gpu_memset"),
    (CONTROL, True, ["--runs", "1:3"], "cpu_op", "cuda_runtime", "kernel"),
    (SAMPLED1, True, [], "cpu_op", "cuda_runtime", "kernel"),
    (CPU_ONLY, True, [], "cpu_op", "cuda_runtime", "kernel"),
    (CPU_ONLY, True, ["--whole-trace"], "cpu_op", "cuda_runtime", "kernel"),
    (KINETO, False, ["--whole-trace"], "cpu_op", "cuda_runtime", "kernel"),
    # --calls-of: the merged subtrees of an op's calls (ops nested in ops, several patterns)
    (KINETO, False, ["--calls-of", "aten::linear"], "cpu_op", "cuda_runtime", "kernel"),
    (KINETO, False, ["--runs", "0", "--calls-of", "aten::*mm", "--calls-of", "aten::linear"],
     "cpu_op", "cuda_runtime", "kernel"),
    ("samples/ort-resnet18-opt.json", False, ["--calls-of", "Conv"], "Node", "cuda_runtime",
     "kernel"),
    (CONTROL, True, ["--runs", "1:3", "--calls-of", "aten::to"], "cpu_op", "cuda_runtime",
     "kernel"),
]

ERRORS = [
    ("bad-depth", ["tree", "--max-depth", "x", KINETO], "--max-depth"),
    ("depth-order", ["tree", "--min-depth", "3", "--max-depth", "1", KINETO], "--min-depth"),
    ("empty-cat", ["tree", "--monitor-cat", "cpu_op,", KINETO], "--ops"),
    ("bad-format", ["kernels", "--format", "xml", KINETO], "--format"),
    ("bad-runs", ["tree", "--runs", "7", KINETO], "--runs"),
    ("missing", ["kernels", "no/such/trace.json"], "no/such/trace.json"),
    ("two-traces", ["tree", KINETO, ROCM], ROCM),
    ("bad-regex", ["tree", "--regex", "(", KINETO], "--regex"),
    ("bad-run-range", ["kernels", "--run-range", "no-such-range", NVPROF], "--run-range"),
    ("no-calls-of", ["tree", "--calls-of", "aten::linaer", KINETO],
     "--calls-of: no op called in the runs used matches 'aten::linaer' "
     "(did you mean aten::linear?)"),
    ("calls-of-modules", ["tree", "--modules", "--calls-of", "aten::linear", KINETO],
     "--calls-of"),
]


def ns_us(us):
    """ns of a time in us with 3 decimals (exact ns): report's columns, tree's."""
    neg = us.startswith("-")
    whole, frac = us.lstrip("-").split(".")
    v = int(whole) * 1000 + int(frac.ljust(3, "0"))
    return -v if neg else v


def csv_totals(text):
    got = {}
    for r in csv.DictReader(io.StringIO(text)):
        got[r["name"]] = (int(r["count"]), ns_us(r["total_us"]),
                          ns_us(r["device_total_us"]), ns_us(r["launch_total_us"]),
                          int(r["kernels"]))
    return got


def compare(path, extra, mon, host, dev):
    """Problems between opscope's CSV and recompute_tree on one trace."""
    runs = extra[1] if extra[:1] == ["--runs"] else None
    calls_of = [extra[i + 1] for i, a in enumerate(extra) if a == "--calls-of"]
    p = testlib.run(["tree", "--format", "csv", "--monitor-cat", mon, "--host-cat", host,
                     "--device-cat", dev] + extra + [path], timeout=300)
    if p.rc != 0:
        return ["opscope: " + p.describe()]
    got = csv_totals(p.text)
    want = {k: (r["count"], r["host"], r["dev"], r["launch"], r["kernels"])
            for k, r in recompute_tree.build(path, runs, mon, host, dev,
                                     "--whole-trace" in extra, calls_of).items()}
    problems = []
    for k in sorted(set(got) | set(want)):
        if got.get(k) != want.get(k):
            problems.append("%s: opscope %s, recompute %s" % (k, got.get(k), want.get(k)))
    if not got and want:
        problems.append("no rows")
    return problems


def calls_of_kernels(res):
    """kernels --calls-of: the kernels of the calls' subtrees, their stacks from a call down,
    their device time the roots' device_total_us in tree --calls-of."""
    for path, op in ((KINETO, "aten::linear"), (ROCM, "aten::mm")):
        args = ["--calls-of", op, "--format", "csv", path]
        tree, kern = testlib.run(["tree"] + args), testlib.run(["kernels"] + args)
        roots = [r for r in csv.DictReader(io.StringIO(tree.text)) if "$$" not in r["name"]]
        rows = list(csv.DictReader(io.StringIO(kern.text)))
        want = sum(ns_us(r["device_total_us"]) for r in roots)
        got = sum(ns_us(r["total_us"]) for r in rows)
        problems = [] if tree.rc == 0 and kern.rc == 0 and rows and got == want else \
            ["kernels sum to %d ns, the roots' device time %d (%s %s)" %
             (got, want, tree.describe(), kern.describe())]
        problems += ["stack %s" % r["op_stack"] for r in rows
                     if r["op_stack"].split("$$")[0] not in {x["name"] for x in roots}][:3]
        res.check("kernels --calls-of %s %s" % (op, os.path.basename(path)), problems)


def resolve(args, shared):
    if shared is None:
        return args, None
    path = testlib.shared(shared)
    if path is None:
        return None, "../shared/traces is absent"
    return [path if a == "@" else a for a in args], None


def golden(res, update):
    for case, args, env, shared in CASES:
        name = "golden " + case
        args, why = resolve(args, shared)
        if args is None:
            res.skip(name, why)
            continue
        p = testlib.run(args, **env)
        out_path = os.path.join(testlib.EXPECTED, "tree-%s.out" % case)
        err_path = os.path.join(testlib.EXPECTED, "tree-%s.err" % case)
        # shared traces print their absolute path: keep goldens machine-independent
        text = p.out.decode("utf-8", "replace").replace(testlib.SHARED + "/", "SHARED/")
        err = p.err.decode("utf-8", "replace").replace(testlib.SHARED + "/", "SHARED/")
        if p.rc != 0:
            res.fail(name, p.describe())
            continue
        if update:
            with open(out_path, "w", encoding="utf-8") as f:
                f.write(text)
            if err:
                with open(err_path, "w", encoding="utf-8") as f:
                    f.write(err)
            elif os.path.exists(err_path):
                os.remove(err_path)
        problems = []
        try:
            with open(out_path, encoding="utf-8") as f:
                if f.read() != text:
                    problems.append("stdout differs from %s" % os.path.basename(out_path))
        except OSError:
            problems.append("no expected file %s" % out_path)
        want_err = ""
        if os.path.exists(err_path):
            with open(err_path, encoding="utf-8") as f:
                want_err = f.read()
        if want_err != err:
            problems.append("stderr %r, want %r" % (err[:300], want_err[:300]))
        res.check(name, problems)


def recomputed(res):
    for path, shared, extra, mon, host, dev in RECOMPUTE:
        name = "recompute %s %s %s" % (os.path.basename(path), " ".join(extra), mon)
        if shared:
            full = testlib.shared(path)
            if full is None:
                res.skip(name, "../shared/traces is absent")
                continue
            path = full
        else:
            path = os.path.join(testlib.ROOT, path)
        res.check(name, compare(path, extra, mon, host, dev))


def structure(res):
    csv_p = testlib.run(["tree", "--format", "csv", KINETO])
    json_p = testlib.run(["tree", "--format", "json", KINETO])
    problems = []
    if csv_p.rc or json_p.rc:
        problems.append(csv_p.describe() + " / " + json_p.describe())
    else:
        doc = json.loads(json_p.text)
        rows = list(csv.DictReader(io.StringIO(csv_p.text)))
        if len(doc["rows"]) != len(rows):
            problems.append("json %d rows, csv %d" % (len(doc["rows"]), len(rows)))
        for j, c in zip(doc["rows"], rows):
            if j["name"] != c["name"] or ns_us(c["device_total_us"]) != round(
                    j["device_total_us"] * 1e3):
                problems.append("row %s differs" % c["name"])
                break
        if doc["meta"].get("runs") is None:
            problems.append("json meta has no runs")
    res.check("json agrees with csv", problems)

    # -o writes what stdout shows
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "tree.csv")
        p = testlib.run(["tree", "--format", "csv", "-o", out, KINETO])
        problems = [p.describe()] if p.rc else []
        if not problems:
            with open(out, "rb") as f:
                if f.read() != csv_p.out:
                    problems.append("-o differs from stdout")
        res.check("tree -o", problems)

    # the kernels' device time adds up to the tree's roots
    k = testlib.run(["kernels", "--format", "csv", KINETO])
    t = testlib.run(["tree", "--format", "csv", "--max-depth", "0", KINETO])
    problems = []
    if k.rc or t.rc:
        problems.append(k.describe())
    else:
        kt = sum(ns_us(r["total_us"]) for r in csv.DictReader(io.StringIO(k.text)))
        tt = sum(ns_us(r["device_total_us"]) for r in csv.DictReader(io.StringIO(t.text)))
        if kt != tt:
            problems.append("kernels %d ns, tree roots %d ns" % (kt, tt))
    res.check("kernels add up to the tree", problems)

    # --run-range: the kernels of one NVTX range, as report (checked against SQL) sees them
    k = testlib.run(["kernels", "--format", "csv", "--run-range", "embedding/0", NVPROF])
    r = testlib.run(["report", "--format", "csv", "--by", "kernel", "--run-range", "embedding/0",
                     NVPROF])
    a = testlib.run(["kernels", "--format", "csv", NVPROF])
    problems = []
    if k.rc or r.rc or a.rc:
        problems.append(k.describe() + r.describe())
    else:
        kt = sum(ns_us(x["total_us"]) for x in csv.DictReader(io.StringIO(k.text)))
        rt = sum(ns_us(x["total_us"]) for x in csv.DictReader(io.StringIO(r.text)))
        at = sum(ns_us(x["total_us"]) for x in csv.DictReader(io.StringIO(a.text)))
        if kt != rt or kt >= at:
            problems.append("kernels %d ns, report %d ns, every run %d ns" % (kt, rt, at))
    res.check("kernels --run-range agrees with report --run-range", problems)


def names(res):
    """kernels and the tree's kernel lists name kernels as report does, per style."""
    for style in ([], ["--short-names"], ["--no-demangle"]):
        r = testlib.run(["report", "--by", "kernel", "--format", "csv", MANGLED] + style)
        k = testlib.run(["kernels", "--format", "csv", MANGLED] + style)
        t = testlib.run(["tree", "--format", "csv", MANGLED] + style)
        problems = []
        if r.rc or k.rc or t.rc:
            problems.append(r.describe() + k.describe() + t.describe())
        else:
            want, got = {}, {}
            for x in csv.DictReader(io.StringIO(r.text)):
                want[x["name"]] = want.get(x["name"], 0) + ns_us(x["total_us"])
            for x in csv.DictReader(io.StringIO(k.text)):
                got[x["kernel"]] = got.get(x["kernel"], 0) + ns_us(x["total_us"])
            if got != want:
                problems.append("kernels %s, report %s" % (sorted(got.items()),
                                                           sorted(want.items())))
            cells = " ".join(x["kernel_list"] + x["kernel_infos"]
                             for x in csv.DictReader(io.StringIO(t.text)))
            if not all(n in cells for n in want):
                problems.append("tree kernel lists miss report's names: %s" % cells[:500])
        res.check("kernel names %s as report" % (" ".join(style) or "demangled"), problems)
    a = testlib.run(["kernels", "--format", "csv", MANGLED])
    b = testlib.run(["kernels", "--format", "csv", "--no-demangle", MANGLED])
    res.check("kernels demangles by default",
              [] if a.rc == 0 and b"_ZN5aiter" not in a.out and b"_ZN5aiter" in b.out
              else [a.describe()])


def errors(res):
    for case, args, subject in ERRORS:
        p = testlib.run(args)
        lines = p.err_lines
        problems = []
        if p.rc != 2:
            problems.append("exit %s, want 2" % p.rc)
        if len(lines) != 1 or not lines[0].startswith("opscope: ") or subject not in lines[0]:
            problems.append("stderr %r" % lines)
        if p.out:
            problems.append("stdout not empty")
        res.check("error " + case, problems)


def ns_ms(ms):
    """ns of a time in ms with 6 decimals (--legacy-columns)."""
    neg = ms.startswith("-")
    whole, frac = ms.lstrip("-").split(".")
    v = int(whole) * 1000000 + int(frac.ljust(6, "0"))
    return -v if neg else v


def fmt_ms(ns):
    return "%s%d.%06d" % ("-" if ns < 0 else "", abs(ns) // 1000000, abs(ns) % 1000000)


def legacy(res):
    """--legacy-columns: profile_parser_main's titles, the same numbers in ms
    (exactly the us values / 1000), the lists' times too."""
    pairs = {"total_us": "host duration (ms)", "device_total_us": "device duration (ms)",
             "launch_total_us": "cuda launch duration (ms)", "self_us": "self (ms)",
             "device_us": "device self (ms)", "launch_delay_mean_us": "mean launch delay (ms)",
             "queue_mean_us": "mean queue (ms)", "kernels": "kernel count", "count": "count",
             "kernel_list": "kernels", "kernel_infos": "kernel infos"}
    kpairs = {"total_us": "device (ms)", "mean_us": "mean (ms)",
              "launch_delay_mean_us": "mean launch delay (ms)",
              "queue_mean_us": "mean queue (ms)", "count": "count"}
    for cmd, table in (("tree", pairs), ("kernels", kpairs)):
        problems = []
        new = testlib.run([cmd, "--format", "csv", KINETO])
        old = testlib.run([cmd, "--format", "csv", "--legacy-columns", KINETO])
        a = list(csv.DictReader(io.StringIO(new.text)))
        b = list(csv.DictReader(io.StringIO(old.text)))
        if new.rc or old.rc or len(a) != len(b) or not a:
            problems.append(new.describe() + old.describe())
        for x, y in zip(a, b):
            for us, ms in table.items():
                if us not in x or ms not in y:
                    problems.append("no column %s / %s" % (us, ms))
                elif us.endswith("_us"):
                    if ns_us(x[us]) != ns_ms(y[ms]):
                        problems.append("%s %s us vs %s ms" % (us, x[us], y[ms]))
                elif us == "kernel_list":  # "(2950.000 us)" for "(2.950000 ms)"
                    def conv(m):
                        return "(%s ms)" % fmt_ms(ns_us(m.group(1)))
                    if re.sub(r"\((-?[0-9]+\.[0-9]+) us\)", conv, x[us]) != y[ms]:
                        problems.append("lists differ: %r vs %r" % (x[us][:80], y[ms][:80]))
                elif x[us] != y[ms]:
                    problems.append("%s %r vs %r" % (us, x[us][:40], y[ms][:40]))
        res.check("%s --legacy-columns: the seed's titles, the same times in ms" % cmd,
                  problems[:5])


def main():
    update = "--update" in sys.argv[1:]
    res = testlib.Results()
    golden(res, update)
    recomputed(res)
    calls_of_kernels(res)
    structure(res)
    names(res)
    errors(res)
    legacy(res)
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
