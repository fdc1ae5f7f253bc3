#!/usr/bin/env python3
"""The man page passes `mandoc -T lint` with no message at all (errors, warnings
and style: lines over 80 bytes, a bad .TH date...).

Exits 77 (meson's skip) when mandoc is not installed (Debian: apt install mandoc).
Environment: OPSCOPE_SOURCE_ROOT (the repo root).
"""
import os
import shutil
import subprocess
import sys

ROOT = os.environ.get("OPSCOPE_SOURCE_ROOT") or os.path.join(os.path.dirname(__file__), "..", "..")


def main():
    mandoc = shutil.which("mandoc")
    if not mandoc:
        print("skip: mandoc is not installed")
        return 77
    man = os.path.join(ROOT, "man", "opscope.1")
    p = subprocess.run([mandoc, "-T", "lint", man], capture_output=True, text=True)
    msgs = (p.stdout + p.stderr).strip()
    if p.returncode != 0 or msgs:
        print("FAIL mandoc -T lint man/opscope.1 (exit %d):\n%s" % (p.returncode, msgs))
        print("0 passed, 1 failed")
        return 1
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
