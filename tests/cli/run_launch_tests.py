#!/usr/bin/env python3
"""Compare `opscope gpu --launches --format csv` with tests/tools/recompute_launches.py.

recompute_launches.py implements the launch statistics of
include/opscope/analysis/gpu.h independently (from the trace format), so a
disagreement means one of the two is wrong: each FAIL line names the trace,
the arguments and the first rows that differ.

Per trace (the GPU samples and, when ../shared/traces is present, the GPU
traces run_gpu_tests.py uses: NCCL, ROCm, graph replay, 6 streams ...), per
kernel and --per-op, with the default runs and with --short 5000 --runs 0,
and --short-only: every cell, the rows in order. Invariants on opscope's rows: short <= count,
short_us <= total_us, and the per-op rows hold as many kernels, and as much
time, as the per-kernel rows.

Name styles (--short-names, --no-demangle, demangled by default): the launch
table per kernel names its rows as `report --by kernel` does, and the gap
table's next kernels are among those names, on a trace of mangled names.
"""
import concurrent.futures
import csv
import io
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testlib  # noqa: E402
import recompute  # noqa: E402  (path set up by testlib)
import recompute_launches as rl  # noqa: E402
import run_gpu_tests  # noqa: E402

ARGS = [[], ["--per-op"], ["--short", "5000", "--runs", "0"],
        ["--per-op", "--short", "5000", "--runs", "0"], ["--short-only"],
        ["--per-op", "--short-only", "--short", "5000"]]


def table(text):
    return list(csv.reader(io.StringIO(text)))


def totals(rows):
    """(kernels, total ns) of a table's rows (header skipped)."""
    return (sum(int(r[1]) for r in rows[1:]),
            sum(run_gpu_tests.us_ns(r[2]) or 0 for r in rows[1:]))


def invariants(rows):
    problems = []
    for r in rows[1:]:
        if int(r[3]) > int(r[1]):
            problems.append("row %r: short %s > count %s" % (r[0], r[3], r[1]))
        if (run_gpu_tests.us_ns(r[5]) or 0) > (run_gpu_tests.us_ns(r[2]) or 0):
            problems.append("row %r: short_us %s > total_us %s" % (r[0], r[5], r[2]))
    return problems[:3]


def run_case(path, rel, args, want):
    name = "%s %s" % (rel, " ".join(args) or "(default)")
    # the names as the trace has them, as recompute reads them (check_name_styles: the others)
    p = testlib.run(["gpu", "--launches", "--format", "csv", "--no-demangle"] + args + [path],
                    timeout=300)
    if p.rc != 0:
        return name, ["opscope " + p.describe()], None
    got = table(p.text)
    problems = []
    if got[:1] != want[:1]:
        problems.append("header %r, recompute %r" % (got[:1], want[:1]))
    if len(got) != len(want):
        problems.append("%d rows, recompute %d" % (len(got) - 1, len(want) - 1))
    for g, w in zip(got[1:], want[1:]):
        if g != w:
            problems.append("opscope %s | recompute %s" % (",".join(g), ",".join(w)))
            if len(problems) > 3:
                break
    return name, problems + invariants(got), got


NAMES_TRACE = "tests/data/kineto-mangled.json"


def csv_column(text, col):
    """Column col of a CSV export's rows (the comment lines skipped)."""
    lines = [l for l in text.splitlines() if not l.startswith("#")]
    return [r[col] for r in list(csv.reader(lines))[1:]]


def check_name_styles(res):
    """gpu's kernel names in each style are the kernel level's names."""
    for style in ([], ["--short-names"], ["--no-demangle"]):
        common = ["--format", "csv", "--whole-trace"] + style + [NAMES_TRACE]
        want = testlib.run(["report", "--by", "kernel"] + common)
        got = testlib.run(["gpu", "--launches"] + common)
        gaps = testlib.run(["gpu", "--gaps", "50"] + common)
        name = "%s: gpu's kernel names %s" % (NAMES_TRACE, " ".join(style) or "demangled")
        if want.rc or got.rc or gaps.rc:
            res.fail(name, "; ".join(p.describe() for p in (want, got, gaps) if p.rc))
            continue
        names = sorted(csv_column(want.text, 0))
        launched = sorted(csv_column(got.text, 0))
        after = csv_column(gaps.text, 5)
        res.check(name, ([] if launched == names else
                         ["launch rows %r\nkernel rows %r" % (launched, names)]) +
                  ["a gap's next kernel %r is no kernel row's name" % n
                   for n in after if n not in names][:3] +
                  ([] if after else ["no gap"]))


def main():
    res = testlib.Results()
    check_name_styles(res)
    traces = []
    for f in run_gpu_tests.SAMPLE_TRACES:
        traces.append(("samples/" + f, testlib.sample(f)))
    rels = [rel for rel, _ in run_gpu_tests.SHARED_TRACES]
    for p in testlib.shared_traces(res, testlib.share(rels, 1)):
        traces.append(("shared/" + os.path.relpath(p, testlib.SHARED), p))
    jobs = int(os.environ.get("OPSCOPE_TEST_JOBS", "0")) or min(4, os.cpu_count() or 2)
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        pending = []
        for rel, path in traces:
            try:
                lc = rl.Launches(path)
            except recompute.RecomputeError as e:
                res.fail(rel, "recompute: %s" % e)
                continue
            for args in ARGS:
                runs = args[args.index("--runs") + 1] if "--runs" in args else None
                short = int(args[args.index("--short") + 1]) if "--short" in args \
                    else rl.DEFAULT_SHORT
                want, _ = lc.rows(runs, short, "--per-op" in args, "--short-only" in args)
                pending.append((rel, args, pool.submit(run_case, path, rel, args, want)))
        got_by = {}
        for rel, args, fut in pending:
            name, problems, got = fut.result()
            res.check(name, problems)
            got_by[(rel, tuple(args))] = got
        for rel, _ in traces:
            for runs_args in ([], ["--short", "5000", "--runs", "0"]):
                k = got_by.get((rel, tuple(runs_args)))
                o = got_by.get((rel, tuple(["--per-op"] + runs_args)))
                if k and o:
                    res.check("%s per-op rows hold every kernel %s" % (rel, " ".join(runs_args)),
                              [] if totals(k) == totals(o) else
                              ["per kernel %r, per op %r" % (totals(k), totals(o))])
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
