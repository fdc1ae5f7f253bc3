#!/usr/bin/env python3
"""Check `opscope report --histogram` and `--matrix` against tests/tools/recompute_dist.py.

recompute_dist.py reads the trace JSON itself and applies histogram.h's and
matrix.h's rules, so a disagreement means one of the two is wrong; the FAIL
line names the trace, the command and the first cells that differ.

Per JSON trace of samples/ and tests/data/: the op matrix in its default
measure and in self time, the kernel matrix (traces with kernels), and the
histograms of the first op and kernel rows (auto scale; linear and log in 5
bins for the first op). Bin edges, counts and per-run cells must be equal
as exact us strings; medians within 0.001 us and percentages within 0.01.
Also: the cells of a matrix row add up to the row of `report` (self_us or
device_us), and a histogram's counts to the row's count.
"""
import csv
import glob
import io
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testlib  # noqa: E402
import recompute  # noqa: E402
import recompute_dist  # noqa: E402

CLOSE = {"median_us": 0.001, "slow_pct": 0.011, "pct": 0.011, "cum_pct": 0.011}


def rows_of(text):
    return list(csv.reader(io.StringIO(text)))


def compare(got, want):
    """Problems between two CSV texts (header, row count, cells)."""
    g, w = rows_of(got), rows_of(want)
    if not g or not w or g[0] != w[0]:
        return ["header %r, want %r" % (g[:1], w[:1])]
    if len(g) != len(w):
        return ["%d rows, want %d" % (len(g) - 1, len(w) - 1)]
    problems = []
    head = g[0]
    for gr, wr in zip(g[1:], w[1:]):
        for col, a, b in zip(head, gr, wr):
            if a == b:
                continue
            tol = CLOSE.get(col)
            if tol is not None and a and b and abs(float(a) - float(b)) <= tol:
                continue
            if col == "vs_median_pct" or (gr[0] == "vs_median_pct" and a and b and
                                          abs(float(a) - float(b)) <= 0.011):
                continue
            problems.append("row %s col %s: %r, want %r" % (gr[0], col, a, b))
    return problems


def report(args):
    p = testlib.run(["report", "--format", "csv", "--no-demangle"] + args)
    return p


def traces():
    out = []
    for pat in ("samples/*.json", "samples/*.json.gz", "tests/data/*.json"):
        out += sorted(glob.glob(os.path.join(testlib.ROOT, pat)))
    return [os.path.relpath(p, testlib.ROOT) for p in out]


def main():
    res = testlib.Results()
    for path in traces():
        try:
            tr = recompute.Trace(os.path.join(testlib.ROOT, path))
        except Exception as e:  # not a trace recompute reads (a crafted file)
            res.skip(path, str(e)[:80])
            continue
        levels = ["op"] + (["kernel"] if tr.kernels else [])
        for level in levels:
            if level == "op" and not tr.ops:
                continue
            measures = [None, "self"] if level == "op" else [None]
            for measure in measures:
                args = ["--by", level, "--matrix"] + (["--measure", measure] if measure else [])
                name = "%s %s" % (path, " ".join(args))
                p = report(args + [path])
                if p.rc != 0:
                    res.fail(name, p.describe())
                    continue
                want = recompute_dist.matrix_csv(*recompute_dist.matrix(
                    os.path.join(testlib.ROOT, path), level, measure))
                res.check(name, compare(p.text, want))
            # the histograms of the first rows, by the level's default order
            names = recompute_dist.matrix(os.path.join(testlib.ROOT, path), level)[0][:2]
            for i, row in enumerate(names):
                variants = [[]] + ([["--scale", "linear"], ["--scale", "log", "--bins", "5"]]
                                   if i == 0 else [])
                for extra in variants:
                    args = ["--by", level, "--histogram", row] + extra
                    name = "%s %s" % (path, " ".join(args))
                    p = report(args + [path])
                    if p.rc != 0:
                        res.fail(name, p.describe())
                        continue
                    scale = extra[1] if extra else "auto"
                    bins = int(extra[3]) if len(extra) > 2 else 16
                    b, _, _ = recompute_dist.histogram(os.path.join(testlib.ROOT, path), level,
                                                       row, None, bins, scale)
                    res.check(name, compare(p.text, recompute_dist.hist_csv(b)))
    # Bad input: one line on stderr, exit 2.
    for args, what in ((["--histogram", "NoSuchOp"], "no op row named"),
                       (["--by", "run", "--matrix"], "no matrix at the run level"),
                       (["--by", "run", "--histogram", "1: model_run"], "no set of instances"),
                       (["--by", "kernel", "--matrix", "--measure", "self"], "no self time"),
                       (["--bins", "3"], "needs --histogram"),
                       (["--histogram", "Conv", "--bins", "0"], "not a number of bins"),
                       (["--histogram", "Conv", "--scale", "cubic"], "unknown scale"),
                       (["--histogram", "Conv", "--matrix"], "one of --histogram and --matrix")):
        p = testlib.run(["report"] + args + ["samples/ort-cnn-opt.json"])
        lines = [l for l in p.err_lines if l.startswith("opscope: ") and "note:" not in l]
        ok = p.rc == 2 and len(lines) == 1 and what in lines[0]
        (res.ok if ok else lambda n: res.fail(n, p.describe()))("error: " + " ".join(args))
    print("%d passed, %d failed, %d skipped" % (res.passed, res.failed, res.skipped))
    sys.exit(1 if res.failed else 0)


if __name__ == "__main__":
    main()
