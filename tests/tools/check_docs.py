#!/usr/bin/env python3
"""README, man page, --help and scripts/dev.sh agree with the binary.

- every command that `opscope --help` lists is in the README and has a man page entry;
- every long option that `opscope COMMAND --help` prints is in the man page;
- scripts/dev.sh runs the binary meson builds (its path under the build dir);
- the man page's SYNOPSIS shows every command, and its ENVIRONMENT section every
  variable the code reads (getenv in src/);
- LICENSE is there and names the licence meson.build declares.

Environment: OPSCOPE (the binary), OPSCOPE_SOURCE_ROOT (the repo root).
Prints "N passed, M failed" last; exits 1 on any failure.
"""
import os
import re
import subprocess
import sys

ROOT = os.environ.get("OPSCOPE_SOURCE_ROOT") or os.path.join(os.path.dirname(__file__), "..", "..")
OPSCOPE = os.environ["OPSCOPE"]

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL " + what)


def helptext(*args):
    return subprocess.run([OPSCOPE] + list(args) + ["--help"], capture_output=True,
                          text=True, check=True).stdout


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def main():
    top = helptext()
    block = top.split("commands:", 1)[1].split("\n\n", 1)[0]
    commands = re.findall(r"^  (\w+) ", block, re.M)
    check(len(commands) >= 2, "--help lists commands: %r" % commands)
    readme = read("README.md")
    # roff escapes hyphens: compare on unescaped text
    man = read("man/opscope.1").replace("\\-", "-").replace("\\fB", "").replace("\\fR", "")
    for c in commands:
        check(re.search(r"opscope %s\b" % c, readme), "README shows 'opscope %s'" % c)
        check(re.search(r"^\.TP\n(\.B[RI]? )?%s\b" % c, man, re.M) or
              re.search(r"^\.SS %s\b" % c, man, re.M) or
              re.search(r"\b%s\b" % c, man.split(".SH OPTIONS")[0]),
              "man page documents the command %s" % c)
    for cmd in [None] + commands:
        text = helptext(cmd) if cmd else top
        for opt in sorted(set(re.findall(r"(--[a-z][a-z-]+)", text))):
            check(opt in man, "man page documents %s (from %s --help)" %
                  (opt, "opscope " + cmd if cmd else "opscope"))
    synopsis = man.split(".SH SYNOPSIS", 1)[1].split(".SH ", 1)[0]
    for c in commands:
        check(re.search(r"^\.B opscope %s$" % c, synopsis, re.M),
              "man SYNOPSIS shows 'opscope %s'" % c)
    environment = man.split(".SH ENVIRONMENT", 1)[1].split(".SH ", 1)[0]
    names = set()
    for d, _, files in os.walk(os.path.join(ROOT, "src")):
        for f in files:
            if f.endswith((".c", ".h")):
                with open(os.path.join(d, f), encoding="utf-8") as fh:
                    names.update(re.findall(r'getenv\("(\w+)"\)', fh.read()))
    check(len(names) >= 3, "getenv calls found in src/: %r" % sorted(names))
    for n in sorted(names):
        check(re.search(r"^\.(B|BR) .*\b%s\b" % n, environment, re.M),
              "man ENVIRONMENT documents %s (read by the code)" % n)
    lic = re.search(r"license\s*:\s*'([^']+)'", read("meson.build"))
    text = read("LICENSE") if os.path.exists(os.path.join(ROOT, "LICENSE")) else ""
    check(lic and lic.group(1) == "MIT" and text.startswith("MIT License") and
          "Copyright (c)" in text and "opscope authors" in text,
          "LICENSE is the MIT licence meson.build declares (%s)" % (lic and lic.group(1)))
    # dev.sh must exec the binary meson builds: OPSCOPE is BUILD/<path>.
    m = re.search(r"exec \./build/(\S+)", read("scripts/dev.sh"))
    check(m and OPSCOPE.endswith("/" + m.group(1)),
          "scripts/dev.sh runs ./build/%s, the binary is %s" % (m.group(1) if m else "?", OPSCOPE))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
