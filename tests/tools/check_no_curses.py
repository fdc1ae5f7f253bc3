#!/usr/bin/env python3
"""Fail if the core (src/core, include/opscope) includes curses.

The core library must stay usable without a terminal (STYLE.md): only
src/tui may include <curses.h>. Prints `1 passed, 0 failed` or
`0 passed, 1 failed`.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"][^>"]*curses[^>"]*[>"]', re.M)


def main():
    root = os.environ.get("OPSCOPE_SOURCE_ROOT") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..")
    offenders = []
    for sub in ("src/core", "include/opscope"):
        top = os.path.join(root, sub)
        for dirpath, _, files in os.walk(top):
            for f in sorted(files):
                path = os.path.join(dirpath, f)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                for m in INCLUDE.finditer(text):
                    line = text.count("\n", 0, m.start()) + 1
                    offenders.append("%s:%d: %s" % (os.path.relpath(path, root), line,
                                                    m.group(0).strip()))
    if offenders:
        for o in offenders:
            print("FAIL core includes curses: " + o)
        print("0 passed, 1 failed")
        return 1
    print("PASS no curses include in src/core or include/opscope")
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
