#!/usr/bin/env python3
"""The TUI on a real terminal: a pseudo-terminal is the controlling tty of
opscope, keys are typed into it and the screen is read back with the
':dump FILE' command typed like any other.

- `cmd | opscope -` loads the piped trace and reads keys from the terminal;
- a factor typed at '=' replaces the offered one;
- Ctrl-S does not freeze the screen (flow control is off while the TUI runs);
- a TERM without a terminfo entry falls back to xterm-256color with a note;
- TERM=dumb, or no TERM, prints the report instead of a blank screen.

Environment: OPSCOPE (the binary), OPSCOPE_SOURCE_ROOT (the repo root).
Prints "N passed, M failed" last; exits 1 on any failure.
"""
import fcntl
import os
import pty
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time

ROOT = os.path.abspath(os.environ.get("OPSCOPE_SOURCE_ROOT") or
                       os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SAMPLES = os.path.join(ROOT, "samples")
TRACE = os.path.join(SAMPLES, "ort-cnn-opt.json")
OPSCOPE = os.environ.get("OPSCOPE", "")

passed = failed = 0


def report(ok, name, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL %s%s" % (name, "\n" + detail if detail else ""))


class Tty:
    """opscope on a pseudo-terminal of cols x lines that is its controlling tty."""

    def __init__(self, args, term="xterm-256color", stdin_bytes=None, cols=80, lines=24,
                 cwd=None):
        self.master, self.slave = pty.openpty()
        fcntl.ioctl(self.slave, termios.TIOCSWINSZ, struct.pack("HHHH", lines, cols, 0, 0))
        env = dict(os.environ)
        for k in ("LINES", "COLUMNS", "NO_COLOR", "TERM"):
            env.pop(k, None)
        env.update({"LC_ALL": "C.UTF-8", "TZ": "UTC"})
        if term is not None:
            env["TERM"] = term

        def become_tty_owner():
            os.setsid()
            fcntl.ioctl(1, termios.TIOCSCTTY, 0)

        self.out = b""
        self.lock = threading.Lock()
        self.proc = subprocess.Popen(
            [OPSCOPE] + args, cwd=cwd, env=env, preexec_fn=become_tty_owner,
            stdin=subprocess.PIPE if stdin_bytes is not None else self.slave,
            stdout=self.slave, stderr=self.slave)
        if stdin_bytes is not None:
            threading.Thread(target=self._feed, args=(stdin_bytes,), daemon=True).start()
        self.drain = threading.Thread(target=self._drain, daemon=True)
        self.drain.start()

    def _feed(self, data):
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.close()
        except OSError:
            pass

    def _drain(self):
        while True:
            try:
                r, _, _ = select.select([self.master], [], [], 0.2)
                if r:
                    data = os.read(self.master, 65536)
                    if not data:
                        return
                    with self.lock:
                        self.out += data
                elif self.proc.poll() is not None:
                    return
            except OSError:
                return

    def output(self):
        with self.lock:
            return self.out

    def wait_for(self, what, timeout=20):
        end = time.time() + timeout
        while time.time() < end:
            if what in self.output():
                return True
            if self.proc.poll() is not None:
                time.sleep(0.2)
                return what in self.output()
            time.sleep(0.05)
        return False

    def type(self, keys):
        os.write(self.master, keys)

    def dump(self, path, timeout=10):
        """Type ':dump PATH' and return the screen text, or None."""
        self.type(b":dump " + path.encode() + b"\r")
        end = time.time() + timeout
        while time.time() < end:
            if os.path.exists(path) and os.path.getsize(path) > 0:
                time.sleep(0.1)
                return open(path, encoding="utf-8").read()
            time.sleep(0.05)
        return None

    def finish(self, timeout=10):
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None
        finally:
            os.close(self.slave)  # the master reads EOF once the child's copies are gone
            self.drain.join(5)
            for fd in (self.master,):
                try:
                    os.close(fd)
                except OSError:
                    pass


def check_piped_trace(d):
    """`cat trace | opscope -`: keys come from the terminal, not the pipe."""
    data = open(TRACE, "rb").read()
    t = Tty(["-"], stdin_bytes=data, cwd=d)
    shown = t.wait_for(b"op table")
    screen = t.dump(os.path.join(d, "piped.txt")) if shown else None
    t.type(b"q")
    rc = t.finish()
    report(screen is not None and "op table" in screen and "Conv" in screen,
           "a piped trace (opscope -) loads and reads keys from the terminal",
           repr(t.output()[-600:]))
    report(rc == 0, "a piped trace: q quits with status 0", "rc=%r" % rc)


def check_flow_control(d):
    """Ctrl-S reaches the TUI: IXON is off while it runs, back on after."""
    t = Tty([TRACE], cwd=d)
    shown = t.wait_for(b"op table")
    before = t.dump(os.path.join(d, "before.txt")) if shown else None
    iflag = termios.tcgetattr(t.slave)[0]
    report(before is not None and not iflag & termios.IXON,
           "flow control (IXON) is off while the TUI runs", "iflag=%#x" % iflag)
    t.type(b"\x13")  # Ctrl-S: with IXON the tty would stop all output here
    after = t.dump(os.path.join(d, "after.txt"))
    t.type(b"q")
    rc = t.finish(timeout=5)
    report(after is not None and rc == 0,
           "Ctrl-S does not freeze the screen: the TUI draws on and quits",
           "rc=%r screen=%r" % (rc, after))


def check_typed_factor(d):
    """Typing a factor at '=' replaces the offered "1": 2 is 2, not 12."""
    t = Tty([TRACE], cwd=d)
    shown = t.wait_for(b"op table")
    t.type(b"W")
    t.wait_for(b"what-if")
    t.type(b"=2\r")
    screen = t.dump(os.path.join(d, "factor.txt")) if shown else None
    t.type(b"q")
    t.finish()
    conv = [l for l in (screen or "").splitlines() if l.startswith("Conv ")]
    report(conv and " 2.000 " in conv[0] and "(1 rules)" in screen,
           "a typed factor replaces the offered one", screen or repr(t.output()[-300:]))


def check_unknown_term(d):
    """A TERM with no terminfo entry here draws as xterm-256color and says so."""
    t = Tty([TRACE], term="xterm-opscope-unknown", cwd=d)
    shown = t.wait_for(b"op table")
    screen = t.dump(os.path.join(d, "unknown.txt")) if shown else None
    t.type(b"q")
    rc = t.finish()
    report(screen is not None and "op table" in screen and
           b"TERM 'xterm-opscope-unknown' has no terminfo here" in t.output() and rc == 0,
           "an unknown TERM falls back to xterm-256color with a note",
           "rc=%r %r" % (rc, screen or t.output()[-400:]))


def check_no_screen(d):
    """TERM=dumb or unset: the report, exit 0, one line on stderr saying why."""
    for term in ("dumb", None):
        t = Tty([TRACE], term=term, cwd=d)
        rc = t.finish(timeout=30)
        out = t.output().replace(b"\r\n", b"\n")
        report(rc == 0 and b"\n# rows: 6 of 6\n" in out and b"\nConv " in out and
               out.count(b"here is the report") == 1 and b"\x1b" not in out,
               "TERM=%s prints the report instead of a screen" % term,
               "rc=%r %r" % (rc, out[:400]))


def main():
    if not OPSCOPE or not os.access(OPSCOPE, os.X_OK):
        print("OPSCOPE is not set to an executable opscope binary\n0 passed, 1 failed")
        return 1
    d = tempfile.mkdtemp(prefix="opscope-tty-")
    try:
        check_piped_trace(d)
        check_flow_control(d)
        check_typed_factor(d)
        check_unknown_term(d)
        check_no_screen(d)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
