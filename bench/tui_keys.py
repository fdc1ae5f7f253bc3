#!/usr/bin/env python3
"""Time the explorer's answers to keys as a user meets them, under tmux.

    tui_keys.py [-w SECONDS] [-g SECONDS] [-b OPSCOPE] [-s COLSxLINES] [-c OTHER] TRACE [KEY...]

Opens the explorer on TRACE in a detached tmux session, waits for its first
table, then -w seconds more (default 10: the warm-up after loading and the
levels computed ahead), and sends each KEY (tmux key names: 2, Tab, Enter;
"text:" sends text as typed) -g seconds apart (default 1.5). The explorer
logs each key's latency (OPSCOPE_TUI_TIMING): from reading the key to the end
of the frame that answers it, and for a table computed in the background, to
the frame that shows its rows ("shown"). Each line is flagged SLOW above the
50 ms budget; the last line holds the explorer's resident and peak memory.
Without keys it visits the levels 2 to 9 and comes back to 1. -c OTHER opens
the compare view of TRACE with OTHER (whose levels stop at 8). -b names the
opscope to run (default: the release build in build-bench/, as bench.sh's).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

BUDGET_MS = 50.0
HERE = os.path.dirname(os.path.abspath(__file__))


def tmux(*args):
    return subprocess.run(["tmux", "-L", "opscope-bench"] + list(args), capture_output=True,
                          text=True).stdout


def wait_for_table(timeout):
    """Wait until the screen's header counts a table's rows; False on timeout."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if re.search(r"\(\d+ rows", tmux("capture-pane", "-p", "-t", "bench")):
            return True
        time.sleep(0.1)
    return False


def memory(pid):
    """The explorer's VmRSS and VmHWM in MiB, from /proc."""
    got = {}
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    got[key] = int(value.split()[0]) / 1024.0
    except OSError:
        pass
    return got.get("VmRSS", 0.0), got.get("VmHWM", 0.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-w", type=float, default=10.0, help="seconds to wait after the first table")
    ap.add_argument("-g", type=float, default=1.5, help="seconds between keys")
    ap.add_argument("-b", default=None, help="the opscope to run")
    ap.add_argument("-s", default="160x45", help="the terminal's size")
    ap.add_argument("-c", default=None, help="compare with this trace")
    ap.add_argument("trace")
    ap.add_argument("keys", nargs="*")
    a = ap.parse_args()
    if not shutil.which("tmux"):
        sys.exit("tui_keys.py: needs tmux (apt-get install tmux)")
    opscope = a.b or os.path.join(HERE, "..", "build-bench", "src", "cli", "opscope")
    if not os.access(opscope, os.X_OK):
        sys.exit("tui_keys.py: no %s (meson setup build-bench --buildtype=release "
                 "-Dbench=true && ninja -C build-bench)" % opscope)
    keys = a.keys or list("2345678" if a.c else "23456789") + ["1"]
    cols, lines = a.s.split("x")
    d = tempfile.mkdtemp(prefix="opscope-keys-")
    log = os.path.join(d, "timing.log")
    tmux("kill-session", "-t", "bench")
    tmux("new-session", "-d", "-s", "bench", "-x", cols, "-y", lines,
         "OPSCOPE_TUI_TIMING=%s exec %s %s %s" % (log, opscope, a.trace, a.c or ""))
    pid = int(tmux("display-message", "-p", "-t", "bench", "#{pane_pid}").strip() or 0)
    start = time.monotonic()
    if not wait_for_table(600):
        tmux("kill-session", "-t", "bench")
        sys.exit("tui_keys.py: no table on screen after 600 s:\n" +
                 tmux("capture-pane", "-p", "-t", "bench"))
    print("# first table after %.1f s; waiting %.1f s more" % (time.monotonic() - start, a.w))
    time.sleep(a.w)
    for k in keys:
        if k.startswith("text:"):
            tmux("send-keys", "-t", "bench", "-l", k[5:])
        else:
            tmux("send-keys", "-t", "bench", k)
        time.sleep(a.g)
    rss, hwm = memory(pid)
    tmux("kill-session", "-t", "bench")
    slow = 0
    with open(log) as f:
        for line in f:
            ms = float(line.split()[0])
            slow += ms > BUDGET_MS
            print("%s%s" % (line.rstrip("\n"), "  SLOW" if ms > BUDGET_MS else ""))
    print("# %d of the answers over %.0f ms; RSS %.0f MiB, peak %.0f MiB" %
          (slow, BUDGET_MS, rss, hwm))
    shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
