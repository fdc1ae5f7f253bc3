#!/usr/bin/env python3
"""Run a command, print `<wall seconds> <peak RSS MB>` of it on stderr's last line.

    measure.py [-r REPEATS] -- CMD ARGS...

stdout of the command goes to /dev/null unless --keep-stdout. Peak RSS is
the child's ru_maxrss (KiB on Linux), so it needs no /usr/bin/time. With
repeats the best wall time and the largest RSS are reported.
"""
import os
import resource
import subprocess
import sys
import time


def once(cmd, keep):
    out = None if keep else subprocess.DEVNULL
    pid_start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=out)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - pid_start
    rc = os.waitstatus_to_exitcode(status)
    return rc, wall, ru.ru_maxrss / 1024.0


def main():
    args = sys.argv[1:]
    repeats, keep = 1, False
    while args and args[0] != "--":
        if args[0] == "-r":
            repeats = int(args[1])
            args = args[2:]
        elif args[0] == "--keep-stdout":
            keep = True
            args = args[1:]
        else:
            sys.exit("usage: measure.py [-r N] [--keep-stdout] -- CMD...")
    cmd = args[1:]
    best, rss = None, 0.0
    for _ in range(repeats):
        rc, wall, r = once(cmd, keep)
        if rc != 0:
            sys.stderr.write("measure: %s exited %d\n" % (cmd[0], rc))
            sys.exit(1)
        best = wall if best is None else min(best, wall)
        rss = max(rss, r)
    sys.stderr.write("%.3f %.1f\n" % (best, rss))


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    main()
