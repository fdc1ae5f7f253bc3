#!/usr/bin/env python3
"""One row per kernel name shown: --short-names merges rows, and nothing is lost.

With --short-names every table keyed by kernel name has one row per short
name, as nsys stats' :base sums over the base name (man opscope, --short-names).
Here the short names are worked out again in Python from the rule the man
page gives (no return type, template arguments or parameter lists; a name
without a scope, template arguments or parameter list, and a memcpy's or
memset's, stays as it is), from
the demangled names of the same table without --short-names; those rows,
grouped by their short name, must be the --short-names rows: the same keys,
counts and total times (summed in whole ns). Tables: report's kernel, dims and
mapping levels, gpu --launches and kernels, on a sample with many template
kernels and on a trace of mangled names.
"""
import collections
import csv
import io
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testlib  # noqa: E402

TRACES = [testlib.sample("kineto-sampled-rank0.json.gz"),
          os.path.join(testlib.ROOT, "tests", "data", "kineto-mangled.json")]

# command, the columns that key a row (the first is the kernel name), count, total
TABLES = [(["report", "--by", "kernel"], ["name"], "count", "total_us"),
          (["report", "--by", "dims"], ["name", "kernel_dimensions"], "count", "total_us"),
          (["report", "--by", "mapping"],
           ["kernel_name", "op_name", "input_type_shape", "kernel_dimensions"], "count",
           "total_us"),
          (["gpu", "--launches"], ["kernel"], "count", "total_us"),
          (["kernels"], ["kernel", "op_stack"], "count", "total_us")]

ANON = "(anonymous namespace)"


def skip_group(s, i):
    """Index just past the bracket group that opens at s[i]."""
    depth = 0
    while i < len(s):
        if s[i] in "<([{":
            depth += 1
        elif s[i] in ">)]}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def short_name(name):
    """The short form of a demangled kernel name (see the module's docstring);
    memcpy and memset keep theirs ("Memcpy DtoH (Device -> Pinned)")."""
    if "::" not in name and "<" not in name and "(" not in name or \
            name.startswith(("Memcpy ", "Memset ")):
        return name
    out, i = "", 0
    while i < len(name):
        c = name[i]
        if name.startswith(ANON, i):
            out += ANON
            i += len(ANON)
        elif c == "<" and not out.rstrip("<").endswith("operator"):
            i = skip_group(name, i)  # template arguments
        elif c == "(" and out:
            break  # the parameter list
        elif c == "{":  # {lambda(int)#1}: part of the name
            end = skip_group(name, i)
            out += name[i:end]
            i = end
        else:
            out += c
            i += 1
    out = out.rstrip(" ")
    # the return type: everything up to the last space outside brackets
    depth, start = 0, 0
    for k, c in enumerate(out):
        if c in "({":
            depth += 1
        elif c in ")}" and depth:
            depth -= 1
        elif c == " " and not depth and k + 1 < len(out):
            start = k + 1
    return out[start:]


def us_ns(text):
    """A time cell in us with 3 decimals as whole ns."""
    whole, _, frac = text.partition(".")
    return int(whole) * 1000 + int((frac + "000")[:3])


def grouped(text, keys, count, total, shorten):
    """{key: [count, total ns]} of a CSV table's rows, the name shortened when asked."""
    rows = list(csv.reader(io.StringIO(text)))
    head, out = rows[0], collections.OrderedDict()
    at = [head.index(k) for k in keys]
    dups = 0
    for r in rows[1:]:
        key = tuple(r[i] for i in at)
        if shorten:
            key = (short_name(key[0]),) + key[1:]
        dups += key in out and not shorten
        acc = out.setdefault(key, [0, 0])
        acc[0] += int(float(r[head.index(count)]))
        acc[1] += us_ns(r[head.index(total)])
    return out, dups


def check(res, trace, cmd, keys, count, total):
    name = "%s %s" % (os.path.basename(trace), " ".join(cmd))
    common = cmd + ["--whole-trace", "--format", "csv", trace]
    full = testlib.run(common)
    short = testlib.run(common + ["--short-names"])
    if full.rc or short.rc:
        res.fail(name, "; ".join(p.describe() for p in (full, short) if p.rc))
        return
    want, _ = grouped(full.text, keys, count, total, True)
    got, dups = grouped(short.text, keys, count, total, False)
    problems = ["%d rows share a key" % dups] if dups else []
    for k in sorted(set(want) | set(got)):
        if want.get(k) != got.get(k):
            problems.append("%r: --short-names %r, demangled rows grouped %r" %
                            (k, got.get(k), want.get(k)))
    merged = sum(1 for _ in csv.reader(io.StringIO(full.text))) - \
        sum(1 for _ in csv.reader(io.StringIO(short.text)))
    res.check(name + " (%d rows merged)" % merged, problems)
    return merged


def main():
    res = testlib.Results()
    merged = 0
    for trace in TRACES:
        for cmd, keys, count, total in TABLES:
            merged += check(res, trace, cmd, keys, count, total) or 0
    # the check must see merges to mean anything
    res.check("rows merged somewhere", [] if merged > 100 else ["only %d" % merged])
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
