#!/usr/bin/env python3
"""Tests of `opscope flame` (folded stacks for flame graph tools).

- goldens: the help and two small outputs (tests/cli/expected/flame-*.out);
  `--update` rewrites them;
- the values add up: host values to `report -F json`'s host_busy_us, device
  values to its device_time_us, over the same runs (within the 0.5 µs of
  rounding the total);
- the folded stacks equal those of the independent
  tests/tools/recompute_flame.py on the samples and a few ../shared/traces
  (skipped cleanly when absent), host and device, with and without --kernels,
  run selections and filters;
- --calls-of: the stacks start at the op's calls and add up to their totals in
  `tree --calls-of`;
- frames never hold ';', a control or a bidi character; errors are one line
  and exit 2.
"""
import csv
import io
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testlib  # noqa: E402
import recompute_flame  # noqa: E402

KINETO = "samples/kineto-sampled-rank0.json.gz"
KINETO21 = "samples/kineto-2021-resnet50.json.gz"
ROCM = "samples/rocm-torch-compile-triton.json.gz"
ORT = "samples/ort-cnn-opt.json"
TORCH = "samples/torch-resnet18-infer.json"
CATS21 = ["--monitor-cat", "Operator", "--host-cat", "Runtime",
          "--device-cat", "Kernel,Memcpy,Memset"]
SHARED = ["hta/trace_filter/sampled_rank-0.json.gz",
          "hta/alexnet/benchmark_result_2869224_1695835535_trace.json.gz",
          "tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz"]
BERT = SHARED[2]

GOLDEN = [
    ("flame-help", ["flame", "--help"]),
    ("flame-ort", ["flame", ORT]),
    ("flame-rocm-kernels", ["flame", "--value", "device", "--kernels", ROCM]),
]


def values(text):
    return sum(int(line.rsplit(" ", 1)[1]) for line in text.splitlines())


def meta(trace, extra):
    p = testlib.run(["report", "-F", "json"] + extra + [trace])
    if p.rc != 0:
        return None
    return json.loads(p.out)["meta"]


def sums(res, trace, extra=()):
    name = "sums %s %s" % (os.path.basename(trace), " ".join(extra))
    m = meta(trace, list(extra))
    probs = []
    if m is None:
        res.fail(name, "report failed")
        return
    for value, key in (("host", "host_busy_us"), ("device", "device_time_us")):
        if key not in m:
            continue
        p = testlib.run(["flame", "--value", value] + list(extra) + [trace])
        if p.rc != 0:
            probs.append("flame --value %s: %s" % (value, p.describe()))
            continue
        got, want = values(p.text), float(m[key])
        if abs(got - want) > 0.5:
            probs.append("%s: flame sums to %d, report %s %s" % (value, got, key, m[key]))
    res.check(name, probs)


def recomputed(res, trace, flame_args, tool_args, label=None):
    name = "recompute %s %s" % (label or os.path.basename(trace), " ".join(flame_args))
    p = testlib.run(["flame"] + flame_args + [trace])
    if p.rc != 0:
        res.fail(name, p.describe())
        return
    want = []
    with tempfile.TemporaryFile("w+") as out:
        old, sys.stdout = sys.stdout, out
        try:
            recompute_flame.main(tool_args + [os.path.join(testlib.ROOT, trace)])
        finally:
            sys.stdout = old
        out.seek(0)
        want = out.read().splitlines()
    got = p.text.splitlines()
    probs = []
    if got != want:
        extra = [s[:200] for s in sorted(set(got) - set(want))[:2]]
        missing = [s[:200] for s in sorted(set(want) - set(got))[:2]]
        probs.append("%d lines, recomputed %d; only in opscope %r, only recomputed %r" %
                     (len(got), len(want), extra, missing))
    res.check(name, probs)


def frames(res):
    trace = {"traceEvents": [
        {"ph": "X", "cat": "cpu_op", "name": "outer;op", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
        {"ph": "X", "cat": "cpu_op", "name": "in\nner", "pid": 1, "tid": 1, "ts": 2, "dur": 3},
        {"ph": "X", "cat": "cpu_op", "name": "", "pid": 1, "tid": 1, "ts": 6, "dur": 2},
        {"ph": "X", "cat": "cpu_op", "name": "esc\x1b]0;x\x07\u202egnp", "pid": 1, "tid": 1,
         "ts": 20, "dur": 4},
    ]}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(trace, f)
    try:
        p = testlib.run(["flame", f.name])
    finally:
        os.unlink(f.name)
    want = "esc ]0:x  gnp 4\nouter:op 5\nouter:op;<unnamed> 2\nouter:op;in ner 3\n"
    res.check("frames rewritten: ';', controls, bidi", [] if p.rc == 0 and p.text == want else
              ["got %r (%s)" % (p.text, p.describe())])


def calls_of(res):
    """--calls-of: every stack starts at a call of the op, and the values add up to
    the roots' totals in `tree --calls-of` (host: their inclusive time, which the
    self times of their subtrees make; device: their subtrees' device time)."""
    for trace, op in ((KINETO, "aten::linear"), ("samples/ort-resnet18-opt.json", "Conv")):
        p = testlib.run(["tree", "--calls-of", op, "--format", "csv", trace])
        roots = [r for r in csv.DictReader(io.StringIO(p.text)) if "$$" not in r["name"]]
        for value, col in (("host", "total_us"), ("device", "device_total_us")):
            name = "calls-of %s %s --value %s" % (os.path.basename(trace), op, value)
            f = testlib.run(["flame", "--value", value, "--calls-of", op, trace])
            want = sum(float(r[col]) for r in roots)
            tops = {line.split(";")[0].rsplit(" ", 1)[0] for line in f.text.splitlines()}
            res.check(name, [] if p.rc == 0 and f.rc == 0 and roots and
                      tops <= {r["name"] for r in roots} and
                      abs(values(f.text) - want) <= 0.5 * len(roots) else
                      ["flame %s, tree roots %s: %s %s" % (values(f.text), want, f.describe(),
                                                           sorted(tops)[:3])])


def errors(res):
    for args in (["flame", "--value", "wall", ORT], ["flame", "--kernels", ORT],
                 ["flame", "--python", "--ops", "cpu_op", ORT], ["flame", "no-such.json"],
                 ["flame", "--runs", "99", ORT], ["flame", "--format", "csv", ORT]):
        p = testlib.run(args)
        res.check("error " + " ".join(args[1:]),
                  [] if p.rc == 2 and len(p.err_lines) == 1 and not p.out else
                  [p.describe()])


def main():
    update = "--update" in sys.argv[1:]
    res = testlib.Results()
    for name, args in GOLDEN:
        testlib.golden_stdout(res, name, args, update)
    for trace in (ORT, TORCH, "samples/ort-resnet18-opt.json", KINETO, KINETO21, ROCM):
        sums(res, trace)
    sums(res, KINETO21, ["--runs", "2"])
    sums(res, "samples/ort-cnn-noopt.json", ["--runs", "1:3"])
    sums(res, KINETO, ["--ops", "cpu_op,user_annotation"])
    for trace in (ORT, TORCH, KINETO, ROCM):
        recomputed(res, trace, [], [])
    recomputed(res, KINETO21, ["--runs", "1:3"], ["--runs", "1:3"])
    recomputed(res, KINETO21, ["--regex", "conv"], ["--regex", "conv"])
    recomputed(res, KINETO21, ["--value", "device", "--kernels", "--filter", "aten::m*"],
               ["--value", "device", "--kernels", "--filter", "aten::m*"] + CATS21)
    recomputed(res, KINETO, ["--value", "device", "--kernels", "--regex", "gemm"],
               ["--value", "device", "--kernels", "--regex", "gemm"])
    for trace in (KINETO, ROCM):
        recomputed(res, trace, ["--value", "device"], ["--value", "device"])
        recomputed(res, trace, ["--value", "device", "--kernels"],
                   ["--value", "device", "--kernels"])
    for path in testlib.shared_traces(res, SHARED):
        rel = os.path.relpath(path, testlib.ROOT)
        label = os.path.relpath(path, testlib.SHARED)
        recomputed(res, rel, [], [], label)
        recomputed(res, rel, ["--value", "device", "--kernels"],
                   ["--value", "device", "--kernels"], label)
        sums(res, rel)
    bert = testlib.shared(BERT)
    if bert:  # Python frames: the values add up to the host busy time of both
        m = meta(bert, ["--ops", "cpu_op,python_function"])
        p = testlib.run(["flame", "--python", bert])
        res.check("python frames add up", [] if m and p.rc == 0 and
                  abs(values(p.text) - float(m["host_busy_us"])) <= 0.5 else
                  [p.describe()])
    frames(res)
    calls_of(res)
    errors(res)
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
