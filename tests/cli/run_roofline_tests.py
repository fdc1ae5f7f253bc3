#!/usr/bin/env python3
"""Check the roofline columns of `opscope report` against
tests/tools/recompute_roofline.py, which reads each op's tensors from the
trace's JSON args (Input Dims + Input type, and Concrete Inputs for
convolution and attention) and applies the formulas of
man/opscope.1 (AGGREGATION, Roofline) independently of the C code.

Per trace (a bundled GPU sample, and when ../shared/traces is present the
TraceLens H100, B200 and MI300X traces): every row of --by shape, cell by
cell (gflop, mbyte, flop_per_byte, tflop_s, tb_s, peak_flops_pct,
peak_bw_pct; a last-digit difference from rounding is allowed, an empty cell
must be empty in both); the same rows in JSON (null where CSV is empty); the
op level (a row is known only when every instance is); on the MI300X
ResNet and the H100 Qwen traces, every convolution and attention row is
known from its calls' Concrete Inputs (Qwen's causal attention is half the
dense count). Also: --peak-tflops /
--peak-tbs replace the table's peaks and the header says so; a bad peak is
one error line, exit 2; a trace without device events divides by host time
(a small trace written here, its numbers worked out by hand); a golden
table on the bundled ROCm sample.
"""
import csv
import io
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testlib  # noqa: E402
sys.path.insert(0, os.path.join(testlib.ROOT, "tests", "tools"))
import recompute_roofline as rr  # noqa: E402

COLS = ["gflop", "mbyte", "flop_per_byte", "tflop_s", "tb_s", "peak_flops_pct", "peak_bw_pct"]
LIST = "name,input_type_shape,count," + ",".join(COLS)
SAMPLES = ["rocm-torch-compile-triton.json.gz", "kineto-sampled-rank0.json.gz"]
SHARED = ["tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz",
          "tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
          "tracelens/b200/eager_trace.json.gz",
          "tracelens/mi300/resnet_act_checkpoint.json.gz"]


def body(text):
    return "\n".join(l for l in text.splitlines() if not l.startswith("#"))


def header(text, key):
    for line in text.splitlines():
        if line.startswith("# %s: " % key):
            return line.split(": ", 1)[1]
    return None


def close(got, want):
    """Equal, or numbers one unit of the last decimal apart (rounding)."""
    if got == want:
        return True
    if not got or not want:
        return False
    dec = len(want.split(".")[1]) if "." in want else 0
    return abs(float(got) - float(want)) <= 1.000001 * 10 ** -dec


def compare(got_rows, want, problems, what):
    got = {(r["name"], r["input_type_shape"]): r for r in got_rows}
    if set(got) != set(want):
        problems.append("%s rows: %d opscope, %d recomputed, e.g. %s" % (
            what, len(got), len(want), sorted(set(got) ^ set(want))[:2]))
    known = 0
    for k in sorted(set(got) & set(want)):
        w = want[k]["cells"]
        known += bool(w["gflop"])
        if got[k]["count"] != str(want[k]["count"]):
            problems.append("%s %s count: %s vs %d" % (what, k, got[k]["count"],
                                                       want[k]["count"]))
        for c in COLS:
            if not close(got[k][c], w[c]):
                problems.append("%s %s %s: opscope %r, recomputed %r" % (
                    what, k[0], c, got[k][c], w[c]))
    return known


def check_trace(path, peak=None):
    problems = []
    extra = ["--peak-tflops", str(peak[0]), "--peak-tbs", str(peak[1])] if peak else []
    p = testlib.run(["report", "--by", "shape", "--format", "csv", "--top", "0", "--columns",
                     LIST] + extra + [path], timeout=300)
    if p.rc != 0:
        return ["opscope: %s" % p.describe()]
    full = os.path.join(testlib.ROOT, path)
    want = rr.rows(full, *(peak or (None, None)), peaks=rr.device_peaks(full))
    known = compare(list(csv.DictReader(io.StringIO(body(p.text)))), want, problems, "csv")
    if not known:
        problems.append("no row with known work: the check checks nothing")
    j = testlib.run(["report", "--by", "shape", "--format", "json", "--top", "0", "--columns",
                     LIST] + extra + [path], timeout=300)
    if j.rc != 0:
        return problems + ["opscope json: %s" % j.describe()]
    doc = json.loads(j.text)
    rows = []
    for r in doc["rows"]:
        row = {"name": r["name"], "input_type_shape": r["input_type_shape"],
               "count": str(r["count"])}
        for c in COLS:
            if r[c] is not None and not isinstance(r[c], (int, float)):
                problems.append("json %s: %r is not a number or null" % (c, r[c]))
            row[c] = "" if r[c] is None else json.dumps(r[c])
        rows.append(row)
    compare(rows, want, problems, "json")
    if "peak" not in doc["meta"] or "roofline_time" not in doc["meta"]:
        problems.append("json meta lacks peak / roofline_time")
    if peak and "--peak-tflops" not in doc["meta"].get("peak", ""):
        problems.append("meta peak %r does not name --peak-tflops" % doc["meta"].get("peak"))
    return problems


def check_op_level(path):
    """An op row: the sum over its shapes, empty when one shape is unknown."""
    problems = []
    p = testlib.run(["report", "--by", "op", "--format", "csv", "--top", "0", "--columns",
                     "name,count,gflop,mbyte,tflop_s", path], timeout=300)
    if p.rc != 0:
        return ["opscope: %s" % p.describe()]
    shapes = rr.rows(os.path.join(testlib.ROOT, path))
    ops = {}
    for (k, _), r in shapes.items():
        o = ops.setdefault(k, {"count": 0, "flops": 0, "bytes": 0, "cls": set(),
                               "dev_total": 0, "total": 0})
        o["count"] += r["count"]
        o["dev_total"] += r["dev_total"]
        o["total"] += r["total"]
        if r["flops"] is None or o["flops"] is None:
            o["flops"] = o["bytes"] = None
        else:
            o["flops"] += r["flops"]
            o["bytes"] += r["bytes"]
    for r in csv.DictReader(io.StringIO(body(p.text))):
        w = ops.get(r["name"])
        if w is None:
            problems.append("op %s not recomputed" % r["name"])
            continue
        c = rr.cells(w, True, {}, 0)
        for col in ("gflop", "mbyte", "tflop_s"):
            if not close(r[col], c[col]):
                problems.append("op %s %s: opscope %r, recomputed %r" % (r["name"], col,
                                                                        r[col], c[col]))
    return problems


def ev(name, ts, dur, dims, types):
    return {"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur,
            "args": {"Input Dims": dims, "Input type": types}}


def check_host_time():
    """No device events: the rates divide by the ops' inclusive host time.
    aten::mm 64x32 by 32x16 in 2 µs: 2*64*16*32 = 65536 FLOP, 4*(2048 + 512
    + 1024) = 14336 bytes; 65536 / 2000 ns / 1e3 = 0.032768 TFLOP/s; with
    --peak-tflops 0.1 that is 32.77 %. aten::conv2d is unknown: empty."""
    events = [ev("aten::mm", 10, 2, [[64, 32], [32, 16]], ["float", "float"]),
              ev("aten::conv2d", 20, 5, [[1, 3, 8, 8], [4, 3, 3, 3], [], [], [], [], []],
                 ["float", "float", "", "ScalarList", "ScalarList", "ScalarList", "Scalar"])]
    problems = []
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "cpu.json")
        with open(path, "w") as f:
            json.dump({"traceEvents": events}, f)
        p = testlib.run(["report", "--by", "shape", "--format", "csv", "--columns", LIST,
                         "--peak-tflops", "0.1", "--sort", "name", "--asc", path])
        if p.rc != 0:
            return ["opscope: %s" % p.describe()]
        want = ("name,input_type_shape,count,gflop,mbyte,flop_per_byte,tflop_s,tb_s,"
                "peak_flops_pct,peak_bw_pct\n"
                'aten::conv2d,"float(1x3x8x8),float(4x3x3x3),(),ScalarList(),ScalarList(),'
                'ScalarList(),Scalar()",1,,,,,,,\n'
                'aten::mm,"float(64x32),float(32x16)",1,0.000066,0.014336,4.571,0.033,0.0072,'
                "32.77,\n")
        if p.text.replace("\r\n", "\n") != want:
            problems.append("got %r, want %r" % (p.text, want))
        t = testlib.run(["report", "--by", "shape", "--columns", "name,tflop_s", path])
        if "host" not in (header(t.text, "roofline_time") or ""):
            problems.append("roofline_time %r does not say host" %
                            header(t.text, "roofline_time"))
        if header(t.text, "peak") != "none":
            problems.append("peak %r, want none" % header(t.text, "peak"))
        # op level: a second aten::mm, bf16, 4 µs: 131072 FLOP and 14336 + 7168 bytes
        # in 6 µs: 0.022 TFLOP/s, 0.0036 TB/s; two dtype classes: no peak applies
        # (even --peak-tflops), so peak_flops_pct is empty; the conv2d row is empty.
        with open(path, "w") as f:
            json.dump({"traceEvents": events + [
                ev("aten::mm", 40, 4, [[64, 32], [32, 16]], ["c10::BFloat16"] * 2)]}, f)
        o = testlib.run(["report", "--by", "op", "--format", "csv", "--columns",
                         "name,count,gflop,mbyte,tflop_s,tb_s,peak_flops_pct,peak_bw_pct",
                         "--peak-tflops", "0.1", "--peak-tbs", "0.01", "--sort", "name",
                         "--asc", path])
        want = ("name,count,gflop,mbyte,tflop_s,tb_s,peak_flops_pct,peak_bw_pct\n"
                "aten::conv2d,1,,,,,,\n"
                "aten::mm,2,0.000066,0.010752,0.022,0.0036,,35.84\n")
        if o.rc != 0 or o.text.replace("\r\n", "\n") != want:
            problems.append("op level: got %r, want %r" % (o.text, want))
    return problems


def check_bad_peak():
    problems = []
    for opt, val in (("--peak-tflops", "0"), ("--peak-tbs", "-1"), ("--peak-tflops", "fast")):
        p = testlib.run(["report", opt, val, testlib.sample(SAMPLES[0])])
        lines = p.err_lines
        if p.rc != 2 or len(lines) != 1 or opt not in lines[0]:
            problems.append("%s %s: %s" % (opt, val, p.describe()))
    return problems


def check_golden(res, update):
    name = "report-roofline-rocm"
    args = ["report", "--by", "shape", "--columns",
            "name,count,gflop,mbyte,flop_per_byte,tflop_s,tb_s,peak_flops_pct",
            "--sort", "tflop_s", "-n", "6", "samples/" + SAMPLES[0]]
    p = testlib.run(args, COLUMNS="120")
    path = os.path.join(testlib.EXPECTED, name + ".out")
    if update:
        with open(path, "w") as f:
            f.write(p.text)
    try:
        with open(path) as f:
            want = f.read()
    except OSError:
        want = None
    res.check("golden " + name, [] if p.rc == 0 and p.text == want else
              ["%s; stdout differs from %s" % (p.describe(), path)])


# Traces whose Concrete Inputs settle every row of these ops (the comparison
# above also passes when both sides leave a row empty: this says they do not).
CONCRETE = {
    "tracelens/mi300/resnet_act_checkpoint.json.gz":
        ["aten::conv2d", "aten::convolution", "aten::_convolution", "aten::miopen_convolution"],
    "tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz":
        ["aten::scaled_dot_product_attention", "aten::_scaled_dot_product_flash_attention",
         "aten::_flash_attention_forward"],
}
# Qwen's causal attention, B=16 H=16 L=559 D=Dv=64: 2*2*16*16*559*559*64 / 2
QWEN_CAUSAL_GFLOP = "%.6f" % (2 * 2 * 16 * 16 * 559 * 559 * 64 / 2 / 1e9)


def check_concrete(path, ops):
    """Every shape row of ops has its work, from the calls' Concrete Inputs."""
    p = testlib.run(["report", "--by", "shape", "--format", "csv", "--top", "0", "--columns",
                     "name,input_type_shape,gflop"] + [path], timeout=300)
    if p.rc != 0:
        return ["opscope: %s" % p.describe()]
    rows = [r for r in csv.DictReader(io.StringIO(body(p.text))) if r["name"] in ops]
    problems = ["%s %s: no work" % (r["name"], r["input_type_shape"][:60])
                for r in rows if not r["gflop"]]
    if {r["name"] for r in rows} != set(ops):
        problems.append("rows of %s missing" % sorted(set(ops) - {r["name"] for r in rows}))
    if "Qwen" in path:
        problems += ["%s: %s GFLOP a call, causal wants %s" % (r["name"], r["gflop"],
                                                               QWEN_CAUSAL_GFLOP)
                     for r in rows if r["gflop"] != QWEN_CAUSAL_GFLOP]
    return problems


def main():
    res = testlib.Results()
    update = "--update" in sys.argv
    traces = ["samples/" + f for f in SAMPLES]
    traces += testlib.shared_traces(res, SHARED)
    for t in traces:
        name = os.path.relpath(t, testlib.ROOT)
        res.check("roofline " + name, check_trace(t))
        res.check("roofline op level " + name, check_op_level(t))
        for rel, ops in CONCRETE.items():
            if t.endswith(rel):
                res.check("roofline Concrete Inputs " + rel, check_concrete(t, ops))
    res.check("roofline --peak-tflops/--peak-tbs " + traces[-1],
              check_trace(traces[-1], (123.5, 2.25)))
    res.check("roofline host time without device events", check_host_time())
    res.check("roofline bad peak", check_bad_peak())
    check_golden(res, update)
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
