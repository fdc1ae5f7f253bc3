#!/usr/bin/env python3
"""Fail if a layer of the core includes a higher one.

The core is one folder per layer, in src/core/LAYER and include/opscope/LAYER
(STYLE.md, README's layout): base < model < load < analysis < export. A file
may include its own layer and the ones before it, never one after it (the
trace model never reaches into the analyses built on it; an analysis never
into the writers of its results). A file outside every layer folder fails too.

Checks "opscope/LAYER/x.h" (public) and "LAYER/x.h" (private) includes.
"""
import os
import re
import sys

ROOT = os.path.abspath(os.environ.get("OPSCOPE_SOURCE_ROOT") or
                       os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
LAYERS = ["base", "model", "load", "analysis", "export"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"(?:opscope/)?(' + "|".join(LAYERS) + r')/[^"]+"', re.M)


def check(top, problems):
    for dirpath, _, files in os.walk(top):
        rel = os.path.relpath(dirpath, top)
        layer = rel.split(os.sep)[0]
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.relpath(os.path.join(dirpath, f), ROOT)
            if layer not in LAYERS:
                problems.append("%s is in no layer folder (%s)" % (path, ", ".join(LAYERS)))
                continue
            text = open(os.path.join(dirpath, f), encoding="utf-8").read()
            for m in INCLUDE.finditer(text):
                if LAYERS.index(m.group(1)) > LAYERS.index(layer):
                    line = text.count("\n", 0, m.start()) + 1
                    problems.append("%s:%d: %s includes the higher layer %s" % (
                        path, line, layer, m.group(1)))


def main():
    problems = []
    for sub in ("src/core", "include/opscope"):
        check(os.path.join(ROOT, sub), problems)
    for p in problems:
        print("FAIL " + p)
    if not problems:
        print("PASS every core file includes only its layer and the ones below it")
    print("%d passed, %d failed" % (0 if problems else 1, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
