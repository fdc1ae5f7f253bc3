#!/usr/bin/env python3
"""Tests of `opscope timeline` (the explorer's timeline, printed).

- goldens: the help, a drawing in UTF-8 and in the C locale, the lanes CSV
  (tests/cli/expected/timeline-*.out); `--update` rewrites them;
- the lanes table equals the independent tests/tools/recompute_timeline.py
  on the samples and a few ../shared/traces (skipped cleanly when absent),
  over the whole trace and windows inside it;
- the drawing agrees with the table: a lane busy over the whole window is
  all full cells, an idle one has no mark;
- bad options are one line and exit 2.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import testlib  # noqa: E402
import recompute_timeline  # noqa: E402

KINETO = "samples/kineto-sampled-rank0.json.gz"
SAMPLES = [KINETO, "samples/kineto-2021-resnet50.json.gz",
           "samples/rocm-torch-compile-triton.json.gz", "samples/ort-cnn-opt.json",
           "samples/torch-resnet18-infer.json", "samples/ne-bert-mini-int8.json"]
SHARED = ["hta/trace_filter/sampled_rank-0.json.gz",
          "tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz"]

GOLDEN = [
    ("timeline-help", ["timeline", "--help"], {}),
    ("timeline-kineto", ["timeline", "--runs", "1", "--width", "90", KINETO], {}),
    ("timeline-ort-ascii", ["timeline", "--width", "70", "samples/ort-cnn-opt.json"],
     {"LC_ALL": "C"}),
    ("timeline-kineto-csv", ["timeline", "--runs", "0", "-F", "csv", KINETO], {}),
]


def table(trace, lo, hi):
    p = testlib.run(["timeline", "-F", "csv", "--from", str(lo), "--to", str(hi), trace])
    if p.rc != 0:
        return None, p.describe()
    return sorted(p.text.splitlines()[1:]), None


def recomputed(res, trace, label):
    """The whole trace and three windows inside it, in whole µs from the start."""
    lanes, origin = recompute_timeline.lanes(os.path.join(testlib.ROOT, trace))
    end = max((e for ivs in lanes.values() for _, e in ivs), default=origin)
    span_us = max(1, (end - origin) // 1000 + 1)
    for lo, hi in ((0, span_us), (span_us // 7, 2 * span_us // 7),
                   (span_us // 2, span_us // 2 + max(1, span_us // 100)), (span_us - 3, span_us + 5)):
        name = "recompute %s [%d, %d) us" % (label, lo, hi)
        got, err = table(trace, lo, hi)
        if err:
            res.fail(name, err)
            continue
        want = recompute_timeline.rows(os.path.join(testlib.ROOT, trace), lo, hi)
        probs = []
        if got != want:
            probs.append("%d rows, recomputed %d; only in opscope %r, only recomputed %r" % (
                len(got), len(want), sorted(set(got) - set(want))[:2],
                sorted(set(want) - set(got))[:2]))
        if lo == 0 and not any(float(r.split(",")[4]) > 0 for r in got):
            probs.append("no lane busy over the whole trace")
        res.check(name, probs)


def drawing_agrees(res):
    """Over one window, a lane's strip is blank (dots: the GPU idle) exactly when
    the table says it is not busy, and a process line busy all along is all '#'."""
    for lo, hi in ((0, 3000000), (900000, 910000)):
        window = ["--from", str(lo), "--to", str(hi)]
        p = testlib.run(["timeline", "--width", "60"] + window + [KINETO], LC_ALL="C")
        q = testlib.run(["timeline", "-F", "csv"] + window + [KINETO])
        lines = p.text.splitlines()[2:]
        rows = q.text.splitlines()[1:]
        probs = [] if p.rc == 0 and q.rc == 0 else [p.describe(), q.describe()]
        if len(lines) != len(rows):
            probs.append("%d lanes drawn, %d in the table" % (len(lines), len(rows)))
        for line, row in zip(lines, rows):
            f = row.split(",")
            strip = line[24:]
            if (float(f[4]) > 0) == (set(strip) <= {" ", "."}):
                probs.append("busy %s but drawn %r" % (f[4], line))
            if f[1] == "all" and float(f[5]) == 100.0 and strip != "#" * 60:
                probs.append("busy all along but drawn %r" % line)
        res.check("drawing agrees with busy time [%d, %d) us" % (lo, hi), probs)


def errors(res):
    for args, what in ((["--width", "0"], "--width"), (["--width", "x"], "--width"),
                       (["--from", "abc"], "--from"), (["--from", "10", "--to", "5"], "--to"),
                       (["--format", "xml"], "format")):
        p = testlib.run(["timeline"] + args + [KINETO])
        lines = p.err_lines
        res.check("error %s" % " ".join(args),
                  [] if p.rc == 2 and len(lines) == 1 and what in lines[0] else
                  [p.describe()])


def main():
    update = "--update" in sys.argv
    res = testlib.Results()
    for name, args, env in GOLDEN:
        testlib.golden_stdout(res, name, args, update, **env)
    for trace in SAMPLES:
        recomputed(res, trace, os.path.basename(trace))
    for path in testlib.shared_traces(res, SHARED):
        recomputed(res, os.path.relpath(path, testlib.ROOT), os.path.relpath(path, testlib.SHARED))
    drawing_agrees(res)
    errors(res)
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
