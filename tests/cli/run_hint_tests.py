#!/usr/bin/env python3
"""Errors with a likely fix name it: one line, exit 2, and the fix.

Typos of commands, options, levels, columns (--columns, --sort) and formats
get "did you mean" or the valid values; a missing file gets the file of its
directory it likely meant (the name without .gz or .json, or a typo); a
directory gets "opscope takes one trace file" and a trace in it; --runs out
of range gets the valid range.
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testlib  # noqa: E402

ORT = "samples/ort-cnn-opt.json"


def main():
    res = testlib.Results()
    d = tempfile.mkdtemp(prefix="opscope-hints-")
    open(os.path.join(d, "step.json.gz"), "wb").close()
    open(os.path.join(d, "notes.txt"), "wb").close()
    empty = os.path.join(d, "empty")
    os.mkdir(empty)
    cases = [
        (["reprot", ORT], "reprot: unknown command, and no such file (did you mean report? "
         "commands: info, report,"),
        (["report", "--frmat", "csv", ORT], "--frmat: unknown option (did you mean --format? "
         "see --help)"),
        (["tree", "--max-dpeth", "2", ORT], "--max-dpeth: unknown option (did you mean "
         "--max-depth? see --help)"),
        (["report", "--zzzzzz", ORT], "--zzzzzz: unknown option (see --help)"),
        (["report", "--by", "kernal", ORT], "--by: unknown level 'kernal' (did you mean kernel? "
         "valid: op, shape, kernel, dims, mapping, run, path, category, module)"),
        (["report", "--columns", "name,slef_us", ORT], "--columns: level op has no column "
         "'slef_us', did you mean 'self_us'? (see `opscope report --help`)"),
        (["report", "--columns", "name,total", "--by", "kernel", ORT], None),
        (["report", "--sort", "devcie", ORT], "--sort: unknown column 'devcie' for --by op, "
         "did you mean 'device_us'? (valid: name, count, device,"),
        (["report", "--sort", "qqqq", ORT], "--sort: unknown column 'qqqq' for --by op "
         "(valid: name, count,"),
        (["report", "-F", "cvs", ORT], "--format: unknown format 'cvs' (valid: table, csv, "
         "tsv, json, markdown)"),
        (["report", "samples/ort-cnn-opt"], "samples/ort-cnn-opt: no such file (did you mean "
         "samples/ort-cnn-opt.json?)"),
        (["report", "samples/kineto-sampled-rank0.json"], "samples/kineto-sampled-rank0.json: "
         "no such file (did you mean samples/kineto-sampled-rank0.json.gz?)"),
        (["report", os.path.join(d, "setp.json.gz")], "%s/setp.json.gz: no such file (did you "
         "mean %s/step.json.gz?)" % (d, d)),
        (["report", os.path.join(d, "zzz.json")], "%s/zzz.json: no such file" % d),
        # a directory is a job's ranks: its traces load, the empty one is the error
        (["report", d], "%s/step.json.gz: byte 0: empty file" % d),
        (["tree", empty], "%s: is a directory: opscope takes one trace file" % empty),
        (["info", empty], "%s: no trace or summary file in the directory" % empty),
        (["report", "--runs", "50", ORT], "--runs: run 50 out of range: the trace has 11 runs "
         "(0-10)"),
    ]
    for args, want in cases:
        p = testlib.run(args)
        if want is None:
            res.check("no error: %s" % " ".join(args), [] if p.rc == 0 else [p.describe()])
            continue
        line = p.err_lines[0] if p.err_lines else ""
        ok = p.rc == 2 and len(p.err_lines) == 1 and line.startswith("opscope: " + want)
        if want.endswith(")") or want.endswith("?)"):
            ok = ok and line == "opscope: " + want
        res.check(" ".join(args), [] if ok else ["%s, want %r" % (p.describe(), want)])
    shutil.rmtree(d, ignore_errors=True)
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
