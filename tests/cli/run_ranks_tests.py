#!/usr/bin/env python3
"""Tests of `opscope report` on a distributed job (issue 18: input, rank level,
rank key, stragglers).

- every cell of the rank table (--by rank), of the op and kernel rows across
  ranks and of --split rank equals tests/tools/recompute_ranks.py (written
  from the trace format and ranks.h's definitions) on the two real ranks in
  tests/data/ranks and on a 4-rank job grown from them
  (tests/tools/make_ranks.py: ranks said by distributedInfo or the file
  name, a directory with a file that is not a trace, a straggler);
- `opscope info` of a job: the world line (missing ranks, differing world
  sizes) and each rank's world size, rank source, runs and runs' windows
  equal the recomputation; events as `info TRACE` says;
- the straggler rank is flagged, and nothing with --straggler 3;
- ranks by input order when nothing says them; a progress line per input;
- summary files: the same tables from them as from the traces (report's
  levels, and gpu --collectives with and without --per-call, NCCL's
  algorithm and protocol included);
- `opscope A B` stays a compare; --top and --filter on the job's rows;
- bad input: the same rank twice, an empty directory, a directory holding
  a file that is not a trace, a job option without a job, a bad --split or
  --straggler, --runs beyond a rank's runs, an option a job has no use
  for: exit 2 with one line naming the file or the option.

Prints "N passed, M failed" last; exits 1 on any failure.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testlib  # noqa: E402

TOOLS = os.path.join(testlib.ROOT, "tests", "tools")
PAIR = [os.path.join(testlib.ROOT, "tests", "data", "ranks", "sampled_rank-%d.json.gz" % i)
        for i in (0, 1)]
# real traces of template kernels: Kineto's demangled names, nsys's mangled ones
NAMED = ["hta/trace_diff/control.json.gz", "hta/negative_queue_length_values_check/rank0.json.gz",
         "tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
         "pipit/perlmutter-cloverleaf-cuda.sqlite"]
JOB4 = ["rank0.json", "worker_1.json", "trace-rank-2.json.gz", "rank3.json"]
TABLES = [(["--by", "rank"], ["--by", "rank"]), (["--by", "op"], ["--by", "op"]),
          (["--by", "kernel"], ["--by", "kernel"]), (["--split", "rank"], ["--split-op"]),
          (["--by", "rank", "--runs", "1"], ["--by", "rank", "--runs", "1"]),
          (["--by", "op", "--runs", "0"], ["--by", "op", "--runs", "0"])]


def recompute(args, traces):
    p = subprocess.run([sys.executable, os.path.join(TOOLS, "recompute_ranks.py")] + args +
                       traces, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode().splitlines()


def csv_lines(args, inputs):
    p = testlib.run(["report", "-F", "csv"] + args + inputs)
    return p, p.text.splitlines() if p.rc == 0 else []


def check_recomputed(res, name, inputs, traces):
    for ours, theirs in TABLES:
        rc, want = recompute(theirs, traces)
        p, got = csv_lines(ours, inputs)
        probs = [] if rc == 0 and got == want and len(got) > 1 else [
            "%s\nwant %s\ngot  %s" % (p.describe(), want[:3], got[:3])]
        res.check("recomputed %s: %s" % (name, " ".join(ours)), probs)


def check_info(res, name, inputs, traces):
    """`opscope info` of a job: the world line and the recomputed columns of each rank."""
    rc, want = recompute(["--info"], traces)
    p = testlib.run(["info"] + inputs)
    q, got = testlib.run(["info", "-F", "csv"] + inputs), []
    if q.rc == 0:
        rows = list(csv.reader(q.text.splitlines()))
        idx = [rows[0].index(c) for c in want[1].split(",")] if rows else []
        got = [",".join(r[i] for i in idx) for r in rows[1:]]
    probs = [] if rc == 0 and p.rc == 0 and p.text.splitlines()[:1] == want[:1] and \
        got == want[2:] and got else ["want %s\ngot %s %s\n%s" % (want, p.text.splitlines()[:1],
                                                                 got, q.describe())]
    res.check("info of %s: the world line and each rank" % name, probs)


def one_error_line(p, *words):
    """Exit 2 and one error line (besides the inputs' progress lines) holding words."""
    lines = [l for l in p.err_lines if not l.startswith("opscope: [")]
    if p.rc != 2 or len(lines) != 1 or not all(w in lines[0] for w in words):
        return ["want exit 2 and one line with %s; %s" % (words, p.describe())]
    return []


def check_name_styles(res, tmp):
    """A job's kernel rows name kernels in the style asked (demangled, --short-names,
    --no-demangle): rank 0's names are those of the single trace's report in that style
    (whose rows are the kernels as named in the trace: two may show the same short name,
    where a job's rows, as a compare's, pair on the name shown)."""
    mangled = os.path.join(testlib.ROOT, "tests", "data", "kineto-mangled.json")
    job = os.path.join(tmp, "mangled-job")
    os.makedirs(job)
    for r in (0, 1):
        shutil.copy(mangled, os.path.join(job, "rank%d.json" % r))
    seen = []
    for style in ([], ["--short-names"], ["--no-demangle"]):
        p = testlib.run(["report", "--by", "kernel", "--split", "rank", "-F", "csv", "--top",
                         "0"] + style + [job])
        q = testlib.run(["report", "--by", "kernel", "-F", "csv", "--top", "0", "--whole-trace"] +
                        style + [mangled])
        got = sorted(set(r["name"] for r in csv.DictReader(p.text.splitlines())
                         if r["rank"] == "0"))
        want = sorted(set(r["name"] for r in csv.DictReader(
            l for l in q.text.splitlines() if not l.startswith("#"))))
        seen.append(want)
        res.check("a job's kernel names %s: the trace's" % (" ".join(style) or "demangled"),
                  [] if p.rc == 0 and q.rc == 0 and got == want
                  else ["job %s\ntrace %s\n%s" % (got[:3], want[:3], p.describe())])
    res.check("the three name styles differ on kineto-mangled.json",
              [] if len(set(map(tuple, seen))) == 3 else ["%s" % [x[:2] for x in seen]])


def main():
    res = testlib.Results()
    tmp = tempfile.mkdtemp(prefix="opscope-ranks-")
    try:
        check_name_styles(res, tmp)
        job = os.path.join(tmp, "job")
        subprocess.run([sys.executable, os.path.join(TOOLS, "make_ranks.py"), job] + PAIR,
                       check=True)
        check_recomputed(res, "two real ranks", PAIR, PAIR)
        check_recomputed(res, "a directory of 4 ranks", [job],
                         [os.path.join(job, f) for f in JOB4])
        check_info(res, "two real ranks", PAIR, PAIR)
        check_info(res, "a directory of 4 ranks", [job], [os.path.join(job, f) for f in JOB4])
        wide = os.path.join(tmp, "wide-rank-5.json")
        subprocess.run([sys.executable, "-c",
                        "import gzip,json,sys; d=json.loads(gzip.open(sys.argv[1]).read());"
                        "d['distributedInfo'].update(rank=5, world_size=16);"
                        "open(sys.argv[2],'w').write(json.dumps(d))", PAIR[1], wide], check=True)
        check_info(res, "ranks of two world sizes", [PAIR[0], wide], [PAIR[0], wide])
        p, got = testlib.run(["info", "-F", "csv", "--ranks", "1", job]), []
        res.check("info --ranks 1 of a job: rank 1 alone",
                  [] if p.rc == 0 and [l.split(",")[0] for l in p.text.splitlines()[1:]] == ["1"]
                  else [p.describe()])
        p = testlib.run(["info", "--ranks", "1", PAIR[0]])
        res.check("info --ranks of one trace", one_error_line(p, "--ranks", "needs a job"))
        p = testlib.run(["info"] + PAIR)
        one = testlib.run(["info", PAIR[0]])
        events = [l.split()[1] for l in one.text.splitlines() if l.startswith("events:")]
        got = [l.split() for l in p.text.splitlines()[3:]]
        res.check("info of a job: a rank's events as info of its trace says",
                  [] if events and got and events[0] in got[0] else [p.describe(), one.describe()])

        p, got = csv_lines(["--by", "rank"], [job])
        flags = {line.split(",")[0]: "straggler" in line for line in got[1:]}
        res.check("the straggler (rank 2) flagged, no other",
                  [] if flags == {"0": False, "1": False, "2": True, "3": False}
                  else ["flags %s; %s" % (flags, p.describe())])
        res.check("a note says how many ranks are flagged",
                  [] if any("1 of 4 ranks flagged" in l for l in p.err_lines) else [p.describe()])
        p, got = csv_lines(["--by", "rank", "--straggler", "3"], [job])
        res.check("--straggler 3: nothing flagged",
                  [] if p.rc == 0 and not any("straggler" in l for l in got[1:])
                  else [p.describe()])
        p = testlib.run(["report", "--by", "rank", job])
        lines = [l for l in p.err_lines if l.startswith("opscope: [")]
        res.check("a progress line per input, saying where each rank came from",
                  [] if len(lines) == 4 and any("rank 1 (file name)" in l for l in lines) and
                  any("rank 2 (distributedInfo)" in l for l in lines) else [p.describe()])

        # ranks by input order: nothing in the trace or its name says them
        plain = []
        for i, src in enumerate(reversed(PAIR)):
            dst = os.path.join(tmp, "t%s.json.gz" % "ab"[i])
            shutil.copy(src, dst)
            plain.append(dst)
        orderless = os.path.join(tmp, "orderless")
        os.mkdir(orderless)
        for i, name in enumerate(["first.json", "second.json"]):
            subprocess.run([sys.executable, "-c",
                            "import gzip,json,sys; d=json.loads(gzip.open(sys.argv[1]).read());"
                            "d.pop('distributedInfo',None); open(sys.argv[2],'w').write(json.dumps(d))",
                            PAIR[1 - i], os.path.join(orderless, name)], check=True)
        p, got = csv_lines(["--by", "rank"], [os.path.join(orderless, "second.json"),
                                              os.path.join(orderless, "first.json")])
        res.check("ranks by input order when nothing says them",
                  [] if len(got) == 3 and got[1].startswith("0,") and
                  got[1].endswith("second.json") and got[2].endswith("first.json")
                  else [str(got[:3]), p.describe()])
        p = testlib.run(["report", "--by", "rank", os.path.join(orderless, "first.json"),
                         os.path.join(orderless, "second.json")])
        res.check("the progress line says input order",
                  [] if any("input order" in l for l in p.err_lines) else [p.describe()])

        # --ranks keeps some ranks: the tables of those ranks' files alone
        sub = [os.path.join(job, f) for f in ("worker_1.json", "trace-rank-2.json.gz")]
        for ours, theirs in TABLES[:3]:
            rc, want = recompute(theirs, sub)
            p, got = csv_lines(ours + ["--ranks", "1-2"], [job])
            res.check("--ranks 1-2: %s as of those two ranks alone" % " ".join(ours),
                      [] if rc == 0 and got == want and len(got) > 1 else
                      ["%s\nwant %s\ngot  %s" % (p.describe(), want[:2], got[:2])])
        p = testlib.run(["report", "--ranks", "0,9", job])
        res.check("--ranks with a rank the job lacks", one_error_line(p, "--ranks", "rank 9"))
        p = testlib.run(["report", "--ranks", "1-", job])
        res.check("--ranks not a list", one_error_line(p, "--ranks", "not a list"))
        p = testlib.run(["report", "--ranks", "1", PAIR[0]])
        res.check("--ranks without a job", one_error_line(p, "--ranks", "needs a job"))

        # a compare stays a compare
        p = testlib.run(["-F", "csv"] + PAIR)
        res.check("`opscope A B` compares two traces",
                  [] if p.rc == 0 and "delta" in p.text.splitlines()[0] else [p.describe()])
        # --top and --filter keep the job's rows
        p, got = csv_lines(["--by", "kernel", "--top", "3"], PAIR)
        res.check("--top 3 keeps three rows", [] if len(got) == 4 else [p.describe()])
        p, got = csv_lines(["--by", "op", "--filter", "c10d::*"], PAIR)
        res.check("--filter keeps the rows whose name matches",
                  [] if len(got) > 1 and all(l.startswith("c10d::") for l in got[1:])
                  else [str(got[:3]), p.describe()])
        p, got = csv_lines(["--split", "rank", "--top", "2"], PAIR)
        res.check("--split rank --top 2: two rows per rank",
                  [] if [l.split(",")[1] for l in got[1:]] == ["0", "0", "1", "1"]
                  else [str(got), p.describe()])
        p = testlib.run(["report", "-F", "json", "--by", "rank"] + PAIR)
        probs = [p.describe()] if p.rc else []
        if not probs:
            rows = json.loads(p.text)["rows"]
            if not (rows[0]["rank"] == 0 and isinstance(rows[1]["step_us"], float)):
                probs.append("json rows %s" % rows[:2])
        res.check("json: numbers as numbers", probs)

        # summaries: the same tables from the summary files as from the traces
        sums = os.path.join(tmp, "sums")
        p = testlib.run(["summary", "-o", sums, job])
        made = sorted(os.listdir(sums)) if os.path.isdir(sums) else []
        res.check("opscope summary -o DIR: one NAME.csv per trace",
                  [] if p.rc == 0 and made == ["rank0.csv", "rank3.csv", "trace-rank-2.csv",
                                               "worker_1.csv"] else [str(made), p.describe()])
        for args in (["--by", "rank"], ["--by", "op"], ["--by", "kernel"], ["--by", "mapping"],
                     ["--split", "rank", "--by", "shape"], ["--by", "path", "--runs", "1"]):
            pa, a_lines = csv_lines(args, [job])
            pb, b_lines = csv_lines(args, [sums])
            if args[1] == "rank":  # the trace column names the input as given
                a_lines = [l.rsplit(",", 1)[0] for l in a_lines]
                b_lines = [l.rsplit(",", 1)[0] for l in b_lines]
            res.check("from summaries as from traces: " + " ".join(args),
                      [] if a_lines == b_lines and len(a_lines) > 1 else
                      [pa.describe(), pb.describe(), str(a_lines[:2]), str(b_lines[:2])])
        # the collectives of the job (calls with NCCL's algorithm and protocol) likewise
        for args in (["--collectives"], ["--collectives", "--per-call"]):
            pa = testlib.run(["gpu", "-F", "csv"] + args + [job])
            pb = testlib.run(["gpu", "-F", "csv"] + args + [sums])
            a_lines, b_lines = pa.text.splitlines(), pb.text.splitlines()
            res.check("from summaries as from traces: gpu " + " ".join(args),
                      [] if pa.rc == 0 and a_lines == b_lines and len(a_lines) > 1 and
                      "algorithm,protocol" in a_lines[0] and ",RING,SIMPLE," in pa.text else
                      [pa.describe(), pb.describe(), str(a_lines[:2]), str(b_lines[:2])])
        # summary files record their kernels' names: a job in any name style shows the
        # same rows from them as from the traces (rows merge where short names agree:
        # the sampled ranks' 194 kernels are 61 short names)
        pair_sums = os.path.join(tmp, "pair_sums")
        p = testlib.run(["summary", "-o", pair_sums] + PAIR)
        probs = [] if p.rc == 0 else [p.describe()]
        for args in (["--by", "kernel", "--short-names"], ["--by", "dims", "--short-names"],
                     ["--by", "mapping", "--short-names"], ["--by", "kernel", "--no-demangle"],
                     ["--split", "rank", "--by", "kernel", "--short-names"],
                     ["--by", "rank", "--short-names"]):
            pa, a_lines = csv_lines(args, PAIR)
            pb, b_lines = csv_lines(args, [pair_sums])
            if args[1] == "rank":  # the trace column names the input as given
                a_lines = [l.rsplit(",", 1)[0] for l in a_lines]
                b_lines = [l.rsplit(",", 1)[0] for l in b_lines]
            if a_lines != b_lines or len(a_lines) < 2 or \
                    any("stay demangled" in l for l in pb.err_lines):
                probs.append("%s: %s %s %s" % (" ".join(args), a_lines[:2], b_lines[:2],
                                               pb.describe()))
        pa, short = csv_lines(["--by", "kernel", "--short-names"], [pair_sums])
        pb, full = csv_lines(["--by", "kernel"], [pair_sums])
        if not 1 < len(short) < len(full):
            probs.append("short names merge no row: %d rows, %d demangled" %
                         (len(short), len(full)))
        res.check("summary files in another name style: the traces' rows", probs)
        # and on real traces of many template kernels, Kineto's and nsys's (mangled)
        for path in testlib.shared_traces(res, NAMED):
            one = os.path.join(tmp, "one-" + os.path.basename(path))
            os.makedirs(os.path.join(one, "trace"))
            os.makedirs(os.path.join(one, "sums"))
            os.symlink(path, os.path.join(one, "trace", os.path.basename(path)))
            p = testlib.run(["summary", "-o", os.path.join(one, "sums", "s.csv"), path])
            probs = [] if p.rc == 0 else [p.describe()]
            for args in (["--by", "kernel", "--short-names"], ["--by", "mapping", "--short-names"],
                         ["--by", "kernel", "--no-demangle"], ["--by", "dims", "--no-demangle"]):
                pa, a_lines = csv_lines(args, [os.path.join(one, "trace")])
                pb, b_lines = csv_lines(args, [os.path.join(one, "sums")])
                # an nsys trace has no op to map a kernel to: no mapping row
                if a_lines != b_lines or len(a_lines) < 2 and args[1] != "mapping":
                    probs.append("%s: %s %s" % (" ".join(args), pa.describe(), pb.describe()))
            res.check("a summary in another name style: the trace's rows, " +
                      os.path.basename(path), probs)
        # a summary file written without them keeps its demangled names, which another
        # style says, once, where kernel rows are read
        mixed = os.path.join(tmp, "mixed")
        os.makedirs(mixed)
        with open(os.path.join(sums, "rank0.csv"), newline="") as f:
            lines = list(csv.reader(f))
        text, table = lines[0].index("text"), lines[0].index("table")
        for line in lines[1:]:
            if line[table] == "row":
                line[text] = ""
        with open(os.path.join(mixed, "rank0.csv"), "w", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows(lines)
        shutil.copy(os.path.join(job, "rank3.json"), mixed)
        for args, want in ((["--by", "kernel", "--short-names"], 1),
                           (["--by", "rank", "--no-demangle"], 1),
                           (["--by", "op", "--short-names"], 0), (["--by", "kernel"], 0)):
            p = testlib.run(["report", "-F", "csv"] + args + [mixed])
            notes = [l for l in p.err_lines if "their kernel rows stay demangled" in l]
            res.check("an older summary file in a job, %s: %d note" % (" ".join(args), want),
                      [] if p.rc == 0 and len(notes) == want and
                      (not want or "1 of 2 inputs" in notes[0]) else [p.describe()])
        one = os.path.join(tmp, "one.csv")
        p = testlib.run(["summary", "-o", one, PAIR[0]])
        p2 = testlib.run(["summary", PAIR[0]])
        res.check("one trace: -o FILE, or standard output",
                  [] if p.rc == 0 and p2.rc == 0 and open(one, "rb").read() == p2.out
                  else [p.describe(), p2.describe()])
        p = testlib.run(["report", "--by", "rank", one, os.path.join(sums, "rank3.csv")])
        res.check("summary files given one by one are a job",
                  [] if p.rc == 0 and len(p.text.splitlines()) > 4 else [p.describe()])
        p = testlib.run(["summary"] + PAIR)
        res.check("summary: several traces need -o DIR", one_error_line(p, "-o", "directory"))
        # summary --runs keeps those runs only: the job's tables as with --runs on the traces
        kept = os.path.join(tmp, "kept")
        p = testlib.run(["summary", "--runs", "1", "-o", kept] + PAIR)
        probs = [] if p.rc == 0 else [p.describe()]
        for args in (["--by", "op"], ["--by", "kernel"], ["--split", "rank", "--by", "path"]):
            pa, want = csv_lines(args + ["--runs", "1"], PAIR)
            pb, got = csv_lines(args, [kept])
            if not (want == got and len(got) > 1):
                probs.append("%s: %s %s" % (" ".join(args), want[:2], got[:2]))
        rows = [l for l in open(os.path.join(kept, "sampled_rank-0.csv")) if l.startswith("opscope-summary-1,run,")]
        if len(rows) != 1:
            probs.append("%d run lines, want 1" % len(rows))
        res.check("summary --runs 1 keeps run 1 alone", probs)
        p = testlib.run(["summary", "--runs", "7", PAIR[0]])
        res.check("summary: --runs beyond the runs", one_error_line(p, "--runs", "sampled_rank-0"))
        p = testlib.run(["summary", "-o", one, PAIR[0]])
        res.check("summary: an existing file is kept without --force",
                  [] if p.rc == 2 else [p.describe()])

        # bad input
        p = testlib.run(["report", "--by", "rank", PAIR[0], PAIR[0]])
        res.check("the same file twice", one_error_line(p, "given twice", "one trace per rank"))
        twin = os.path.join(tmp, "twin_rank0.json.gz")
        shutil.copy(PAIR[0], twin)
        p = testlib.run(["report", "--by", "rank", PAIR[0], twin])
        res.check("the same rank twice", one_error_line(p, "rank 0", "one trace per rank"))
        empty = os.path.join(tmp, "empty")
        os.mkdir(empty)
        p = testlib.run(["report", empty])
        res.check("an empty directory", one_error_line(p, empty, "no trace or summary"))
        bad = os.path.join(tmp, "bad")
        os.mkdir(bad)
        shutil.copy(PAIR[0], bad)
        with open(os.path.join(bad, "broken.json"), "w") as f:
            f.write("this is not json\n")
        p = testlib.run(["report", bad])
        res.check("a directory holding a file that is not a trace",
                  one_error_line(p, "broken.json"))
        p = testlib.run(["report", "--by", "rank", PAIR[0]])
        res.check("--by rank on one trace", one_error_line(p, "--by", "needs a job"))
        p = testlib.run(["report", "--split", "thread"] + PAIR)
        res.check("--split with another key", one_error_line(p, "--split", "thread"))
        p = testlib.run(["report", "--by", "rank", "--straggler", "0.5"] + PAIR)
        res.check("--straggler below 1", one_error_line(p, "--straggler"))
        p = testlib.run(["report", "--by", "run", job])
        res.check("--by run on a job", one_error_line(p, "--by", "run", "--by rank"))
        p = testlib.run(["report", "--by", "rank", "--runs", "5"] + PAIR)
        res.check("--runs beyond a rank's runs", one_error_line(p, "sampled_rank-", "--runs"))
        # runs that overlap without nesting: a summary cannot split their shared time
        nested = os.path.join(testlib.ROOT, "tests", "data", "gpu-nested.json")
        overlap = [os.path.join(tmp, "rank%d.json" % r) for r in (0, 1)]
        for path in overlap:
            shutil.copy(nested, path)
        p = testlib.run(["report", "--by", "rank"] + overlap)
        res.check("--by rank over runs that overlap",
                  one_error_line(p, "rank0.json", "--runs", "runs 2 (ProfilerStep#3) and 3"))
        p = testlib.run(["report", "--by", "rank", "--runs", "0:3", "-F", "csv"] + overlap)
        res.check("--by rank over nested runs", [] if p.rc == 0 and "\n0,75.000," in p.text
                  else ["want rank 0's step 75.000 (wall 150 over 2 spans); " + p.describe()])
        p = testlib.run(["report", "--sort", "count"] + PAIR)
        res.check("an option a job has no use for", one_error_line(p, "--sort", "job"))
        p = testlib.run(["diff", PAIR[0], PAIR[1], PAIR[0]])
        res.check("diff takes two traces at most", one_error_line(p, "two traces at most"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
