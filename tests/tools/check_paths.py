#!/usr/bin/env python3
"""Fail when a tracked text file names a directory of the build machine: the
trace collection is ../shared next to the checkout (or $OPSCOPE_SHARED in the
bench scripts), never an absolute path that exists on one machine only.

Files: `git ls-files` when the source is a git checkout, else every file but
build directories. Binary files (a NUL byte) are skipped.
Environment: OPSCOPE_SOURCE_ROOT (the repo root).
Prints "N passed, M failed" last; exits 1 on any failure.
"""
import os
import re
import subprocess
import sys

ROOT = os.environ.get("OPSCOPE_SOURCE_ROOT") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..")
# written in two pieces so that this file does not match itself
BAD = re.compile("/" + "work/|/" + "tmp/shared")


def tracked():
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], capture_output=True,
                             check=True).stdout
        return [f for f in out.decode("utf-8", "replace").split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, dirs, names in os.walk(ROOT):
            dirs[:] = [x for x in dirs if not x.startswith(("build", ".git", "subprojects"))]
            files += [os.path.relpath(os.path.join(d, n), ROOT) for n in names]
        return files


def main():
    files = tracked()
    hits = []
    for rel in files:
        path = os.path.join(ROOT, rel)
        if not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            data = f.read()
        if b"\0" in data:
            continue
        for n, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            if BAD.search(line):
                hits.append("%s:%d: %s" % (rel, n, line.strip()[:100]))
    for h in hits:
        print("FAIL a path of the build machine: " + h)
    ok = len(files) > 10 and not hits
    if len(files) <= 10:
        print("FAIL only %d files found under %s" % (len(files), ROOT))
    print("%d passed, %d failed" % (1 if ok else 0, 0 if ok else 1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
