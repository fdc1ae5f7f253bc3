#!/usr/bin/env python3
"""Scripted screen tests of the opscope TUI (tig's libtest style).

Each tests/tui/scripts/NAME.script names its trace in a "# trace: FILE"
line (a file of samples/), with "# other: FILE" a second one and "# options:"
command-line options, and drives the TUI with keys and :commands; every
":dump X" writes the screen's text, which is compared with
tests/tui/expected/NAME.COLSxLINES[.ascii].X.txt. Scripts run at 80x24 and
132x40 in a UTF-8 locale with colours, and some again with LC_ALL=C and
NO_COLOR (ASCII). Besides the screens it checks that `x` writes exactly the
CSV of the equivalent `opscope report` command, that a file is never
overwritten without a "y", that the screen does not depend on the terminal
type, and that the man page's key table is the generated one.

OPSCOPE_UPDATE_EXPECTED=1 rewrites the expected screens instead of comparing.
Prints "N passed, M failed" last; exits 1 on any failure.
"""
import csv
import difflib
import glob
import io
import json
import os
import random
import re
import resource
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import termios
import time

ROOT = os.path.abspath(os.environ.get("OPSCOPE_SOURCE_ROOT") or
                       os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
HERE = os.path.join(ROOT, "tests", "tui")
SCRIPTS = os.path.join(HERE, "scripts")
EXPECTED = os.path.join(HERE, "expected")
SAMPLES = os.path.join(ROOT, "samples")
UPDATE = os.environ.get("OPSCOPE_UPDATE_EXPECTED") == "1"

SIZES = [(80, 24), (132, 40)]
ASCII_SCRIPTS = ["basic", "kineto", "filter", "tree", "timeline", "histogram", "matrix"]
# Scripts drawn at a third, wide size too (UTF-8 and, if in ASCII_SCRIPTS, C).
WIDE_SCRIPTS = {"timeline": (200, 50)}
TERMS = ["screen", "tmux-256color", "linux", "vt100"]

passed = 0
failed = 0


def report(ok, name, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL %s%s" % (name, "\n" + detail if detail else ""))


def opscope():
    path = os.environ.get("OPSCOPE")
    if not path or not os.access(path, os.X_OK):
        sys.stderr.write("OPSCOPE is not set to an executable opscope binary\n")
        print("0 passed, 1 failed")
        sys.exit(1)
    return path


def env_for(cols, lines, ascii_mode, term="xterm-256color"):
    env = dict(os.environ)
    for k in ("NO_COLOR", "LANG", "LANGUAGE", "LC_CTYPE"):
        env.pop(k, None)
    env.update({"TERM": term, "COLUMNS": str(cols), "LINES": str(lines), "TZ": "UTC",
                "LC_ALL": "C" if ascii_mode else "C.UTF-8"})
    if ascii_mode:
        env["NO_COLOR"] = "1"
    return env


def script_trace(script):
    """The script's input: "# trace: FILE" (of samples/), or "# job: DIR" (of tests/data/)."""
    with open(script, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"#\s*(trace|job):\s*(\S+)", line)
            if m:
                return os.path.join("samples" if m.group(1) == "trace" else "data", m.group(2))
    raise SystemExit("%s: no '# trace:' or '# job:' line" % script)


def script_others(script):
    """Traces of "# other: FILE" lines (samples/): the compare view's second
    trace; and the options of "# options: ..." lines."""
    out = []
    with open(script, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"#\s*other:\s*(\S+)", line)
            if m:
                out.append(os.path.join("samples", m.group(1)))
            m = re.match(r"#\s*options:\s*(.*)", line)
            if m:
                out += shlex.split(m.group(1))
    return out


def run_script(script, cols, lines, ascii_mode=False, term="xterm-256color", cwd=None):
    """Run one script in a fresh directory; returns (rc, stderr, dir, dumps)."""
    d = cwd or tempfile.mkdtemp(prefix="opscope-tui-")
    # Traces are named samples/NAME through a link, so screens that show the
    # path (the export message) do not depend on where the checkout is.
    if not os.path.exists(os.path.join(d, "samples")):
        os.symlink(SAMPLES, os.path.join(d, "samples"))
        os.symlink(os.path.join(ROOT, "tests", "data"), os.path.join(d, "data"))
    p = subprocess.run([opscope(), "--script", script, script_trace(script)] +
                       script_others(script), cwd=d,
                       env=env_for(cols, lines, ascii_mode, term), capture_output=True,
                       timeout=120)
    dumps = {}
    with open(script, encoding="utf-8") as f:
        for line in f:
            m = re.match(r":dump\s+(\S+)", line.strip())
            if m:
                path = os.path.join(d, m.group(1))
                dumps[m.group(1)] = open(path, encoding="utf-8").read() \
                    if os.path.exists(path) else None
    # a job's inputs each print a progress line before the screen opens
    err = "".join(l for l in p.stderr.decode("utf-8", "replace").splitlines(True)
                  if not re.match(r"opscope: \[\d+/\d+\] ", l))
    return p.returncode, err, d, dumps


def normalise(text):
    # Only the elapsed time of a load can vary between runs.
    return re.sub(r"\d+\.\d s\b", "N.N s", text)


def check_screens():
    for script in sorted(glob.glob(os.path.join(SCRIPTS, "*.script"))):
        name = os.path.basename(script)[:-len(".script")]
        modes = [(c, l, False) for c, l in SIZES]
        if name in ASCII_SCRIPTS:
            modes.append((80, 24, True))
        if name in WIDE_SCRIPTS:
            wide = WIDE_SCRIPTS[name]
            modes += [(wide[0], wide[1], False)] + ([(wide[0], wide[1], True)]
                                                   if name in ASCII_SCRIPTS else [])
        for cols, lines, ascii_mode in modes:
            tag = "%s.%dx%d%s" % (name, cols, lines, ".ascii" if ascii_mode else "")
            rc, err, d, dumps = run_script(script, cols, lines, ascii_mode)
            report(rc == 0 and not err, tag + " exit", "rc=%d stderr=%s" % (rc, err))
            for dump, text in dumps.items():
                exp_path = os.path.join(EXPECTED, "%s.%s.txt" % (tag, dump))
                if text is None:
                    report(False, "%s %s" % (tag, dump), "no dump written")
                    continue
                text = normalise(text)
                if UPDATE:
                    with open(exp_path, "w", encoding="utf-8") as f:
                        f.write(text)
                exp = open(exp_path, encoding="utf-8").read() \
                    if os.path.exists(exp_path) else ""
                diff = "".join(difflib.unified_diff(exp.splitlines(True), text.splitlines(True),
                                                    exp_path, "screen"))
                report(text == exp, "%s %s" % (tag, dump), diff)
            shutil.rmtree(d, ignore_errors=True)


def report_csv(trace, *args):
    p = subprocess.run([opscope(), "report", trace] + list(args) + ["--format", "csv"],
                       capture_output=True, env=env_for(80, 24, False), cwd=ROOT)
    return p.stdout


def check_export():
    script = os.path.join(SCRIPTS, "export.script")
    trace = script_trace(script)
    rc, err, d, dumps = run_script(script, 80, 24)
    report(rc == 0, "export exit", err)
    op = os.path.join(d, "opscope-ort-resnet18-opt-op.csv")
    got = open(op, "rb").read() if os.path.exists(op) else b""
    report(got == report_csv(trace, "--by", "op"), "export: x equals report --by op csv")
    # Only the exports, the dumps and the input links: no temporary file left.
    dumped = set(dumps)
    left = [f for f in os.listdir(d) if f not in dumped and f not in ("samples", "data") and
            not f.endswith(".csv")]
    report(os.listdir(d) and not left and
           not [f for f in os.listdir(d) if re.match(r".*\.csv\..", f)],
           "export: no temporary file left", str(os.listdir(d)))
    kept = dumps.get("kept") or ""
    report("kept" in kept, "export: 'n' keeps the existing file", kept)
    filt = os.path.join(d, "filtered.csv")
    got = open(filt, "rb").read() if os.path.exists(filt) else b""
    want = report_csv(trace, "--by", "op", "--regex", "^(Conv|Gemm|MaxPool)$", "--sort", "count",
                      "--asc", "--top", "2")
    report(got == want and got.count(b"\n") == 3, "export: filtered/sorted/top view equals report",
           "got %r\nwant %r" % (got, want))
    shown = view_command(dumps.get("filtered-command"))
    report("--regex '^(Conv|Gemm|MaxPool)$' --sort count_us" not in shown and
           "--sort count --asc --top 2 --format csv" in shown,
           "export: y shows the report command", dumps.get("filtered-command") or "")
    report("wrote filtered.csv (2 rows) = opscope report" in (dumps.get("filtered") or ""),
           "export: the status line says it on one line", dumps.get("filtered") or "")
    kern = os.path.join(d, "opscope-ort-resnet18-opt-kernel.csv")
    got = open(kern, "rb").read() if os.path.exists(kern) else b""
    report(got == report_csv(trace, "--by", "kernel", "--regex", "^(Conv|Gemm|MaxPool)$",
                             "--sort", "count", "--asc", "--top", "2")
           or got == report_csv(trace, "--by", "kernel"),
           "export: kernel level equals report --by kernel")
    shutil.rmtree(d, ignore_errors=True)

    # The name's extension picks the format: the same bytes as report --format
    # (JSON: its columns and rows; the meta is the report's own), and y shows
    # the command of the last export's format.
    d = tempfile.mkdtemp(prefix="opscope-tui-")
    s = os.path.join(d, "x.script")
    with open(s, "w") as f:
        f.write("# trace: ort-resnet18-opt.json\nx\nops.tsv\nx\nops.MD\nx\nops.json\n"
                ":dump json-msg\ny\n:dump json-command\nq\nx\nops.txt\n")
    rc, err, _, dumps = run_script(s, 80, 24, cwd=d)
    report(rc == 0, "export by name: exit", err)
    for name, fmt in (("ops.tsv", "tsv"), ("ops.MD", "markdown"), ("ops.txt", "csv")):
        path = os.path.join(d, name)
        got = open(path, "rb").read() if os.path.exists(path) else b""
        want = subprocess.run([opscope(), "report", trace, "--by", "op", "--format", fmt],
                              capture_output=True, env=env_for(80, 24, False), cwd=ROOT).stdout
        report(got and got == want, "export: x to %s equals report --format %s" % (name, fmt),
               "got %r" % got[:200])
    path = os.path.join(d, "ops.json")
    try:
        got = json.load(open(path))
    except (OSError, ValueError):  # missing, or not JSON
        got = {}
    want = json.loads(subprocess.run([opscope(), "report", trace, "--by", "op", "--format",
                                      "json"], capture_output=True, env=env_for(80, 24, False),
                                     cwd=ROOT).stdout)
    report(got.get("columns") == want["columns"] and got.get("rows") == want["rows"] and
           got.get("meta") == {"schema": want["meta"]["schema"]},
           "export: x to ops.json holds report --format json's columns and rows",
           "got %r" % str(got)[:300])
    report("wrote ops.json (" in (dumps.get("json-msg") or "") and
           ", no meta) ~ opscope report" in (dumps.get("json-msg") or ""),
           "export: the JSON's status line says it has no meta", dumps.get("json-msg") or "")
    report(view_command(dumps.get("json-command")).endswith("--format json") and
           "JSON of this view" in (dumps.get("json-command") or ""),
           "export: y shows the JSON command after a JSON export",
           dumps.get("json-command") or "")
    shutil.rmtree(d, ignore_errors=True)

    # The Kineto sample through the default op view and the kernel level.
    trace = os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")
    d = tempfile.mkdtemp(prefix="opscope-tui-")
    s = os.path.join(d, "x.script")
    with open(s, "w") as f:
        f.write("# trace: kineto-sampled-rank0.json.gz\nx\nop.csv\n3\nx\nkernel.csv\n")
    rc, err, _, _ = run_script(s, 80, 24, cwd=d)
    for level in ("op", "kernel"):
        path = os.path.join(d, level + ".csv")
        got = open(path, "rb").read() if os.path.exists(path) else b""
        report(got and got == report_csv(trace, "--by", level),
               "export: kineto %s view equals report --by %s csv" % (level, level))
    shutil.rmtree(d, ignore_errors=True)


def run_keys(trace, keys, options=(), cols=200, lines=24, env=None):
    """Run the TUI on trace with keys (one per line) and options in a fresh
    directory (env: variables to add); returns (rc, stderr, dir, {dump name: text})."""
    d = tempfile.mkdtemp(prefix="opscope-tui-")
    s = os.path.join(d, "keys.script")
    with open(s, "w") as f:
        f.write("\n".join(keys) + "\n")
    e = env_for(cols, lines, False)
    e.update(env or {})
    p = subprocess.run([opscope(), "--script", s] + list(options) + [trace], cwd=d,
                       env=e, capture_output=True, timeout=120)
    dumps = {}
    for k in keys:
        m = re.match(r":dump\s+(\S+)", k)
        if m and os.path.exists(os.path.join(d, m.group(1))):
            dumps[m.group(1)] = open(os.path.join(d, m.group(1)), encoding="utf-8").read()
    # a job's inputs each print a progress line before the screen opens
    err = "".join(l for l in p.stderr.decode("utf-8", "replace").splitlines(True)
                  if not re.match(r"opscope: \[\d+/\d+\] ", l))
    return p.returncode, err, d, dumps


def read(d, name):
    path = os.path.join(d, name)
    return open(path, "rb").read() if os.path.exists(path) else b""


def check_export_ranks():
    """x on a job's ranks view writes what `opscope report --by rank` prints for the job."""
    script = os.path.join(SCRIPTS, "ranks.script")
    rc, err, d, dumps = run_script(script, 80, 24)
    out = os.path.join(d, "opscope-ranks-ranks.csv")
    got = open(out, "rb").read() if os.path.exists(out) else b""
    p = subprocess.run([opscope(), "report", "--by", "rank", "data/ranks", "--format", "csv"],
                       capture_output=True, env=env_for(80, 24, False), cwd=d)
    report(rc == 0 and got and got == p.stdout, "ranks: x equals report --by rank csv",
           "rc=%d %r vs %r" % (rc, got[:200], p.stdout[:200]))
    shutil.rmtree(d, ignore_errors=True)


def check_export_rank_rows():
    """x on a job's level views (the spread across rank 0, marked, and every rank's
    rows) writes what `opscope report --by kernel [--split rank] --ranks 0` prints."""
    d = tempfile.mkdtemp(prefix="opscope-tui-")
    s = os.path.join(d, "x.script")
    with open(s, "w") as f:
        f.write("# job: ranks\n<Space>\n3\nx\nlevel.csv\n|\nx\nsplit.csv\n")
    rc, err, _, _ = run_script(s, 80, 24, cwd=d)
    for name, args in (("level.csv", ["--by", "kernel"]),
                       ("split.csv", ["--split", "rank", "--by", "kernel"])):
        p = subprocess.run([opscope(), "report"] + args + ["--ranks", "0", "data/ranks",
                                                           "-F", "csv"],
                           capture_output=True, env=env_for(80, 24, False), cwd=d)
        got = read(d, name)
        report(rc == 0 and p.returncode == 0 and got and got == p.stdout,
               "ranks: x on %s equals report %s --ranks 0" % (name, " ".join(args)),
               "rc=%d %r vs %r" % (rc, got[:200], p.stdout[:200]))
    shutil.rmtree(d, ignore_errors=True)


def check_export_names():
    """x on a trace with mangled kernel names (tests/data/kineto-mangled.json, made
    from real events: tests/tools/make_kineto_mangled.py) in each name style of m:
    the CSV equals the report command the status line shows, which carries the
    style's flag."""
    trace = os.path.join(ROOT, "tests", "data", "kineto-mangled.json")
    cases = [("demangled", []), ("short", ["--short-names"]), ("mangled", ["--no-demangle"])]
    for level, key in (("kernel", "3"), ("dims", "4"), ("mapping", "5")):
        keys = [key]
        for style, _ in cases:
            keys += ["x", style + ".csv", "y", ":dump " + style, "q", "m"]
        rc, err, d, dumps = run_keys(trace, keys)
        report(rc == 0, "export names %s: exit" % level, err)
        got = {style: read(d, style + ".csv") for style, _ in cases}
        report(got["demangled"] != got["mangled"] and got["short"] != got["demangled"],
               "export names %s: the styles differ" % level)
        for style, flags in cases:
            want = report_csv(trace, "--by", level, *flags)
            report(got[style] and got[style] == want,
                   "export names %s %s: x equals report %s" % (level, style, " ".join(flags)))
            line = view_command(dumps.get(style))
            report(all(f in line for f in flags) and
                   (flags or ("--no-demangle" not in line and "--short-names" not in line)),
                   "export names %s %s: the status line shows %s" % (level, style, flags or
                                                                     "no name flag"), line)
        shutil.rmtree(d, ignore_errors=True)
    # --no-demangle and --short-names on the command line set the first style.
    for flag, want_flag in (("--no-demangle", "--no-demangle"), ("--short-names", "--short-names")):
        rc, err, d, dumps = run_keys(trace, ["3", "x", "k.csv", "y", ":dump k"], [flag])
        report(read(d, "k.csv") == report_csv(trace, "--by", "kernel", want_flag) and
               want_flag in view_command(dumps.get("k")),
               "export names: %s on the command line" % flag, err)
        shutil.rmtree(d, ignore_errors=True)


def check_instances_restyle():
    """m in the instances of a kernel row (Enter) or its histogram (D): with
    short names the row holds every kernel of its short name (4 -> 7 on
    kineto-mangled's aiter::add_rmsnorm_quant_kernel), and two more m show
    the row opened again, as it was."""
    trace = os.path.join(ROOT, "tests", "data", "kineto-mangled.json")
    for level, key in (("kernel", "3"), ("dims", "4")):
        for view in ("<Enter>", "D"):
            rc, err, d, dumps = run_keys(trace, [key, ":filter *aiter*", view,
                                                 ":dump a", "m", ":dump b", "m", "m",
                                                 ":dump c"])
            # the screens less their status line (m says the style there)
            a, b, c = ("\n".join((dumps.get(k) or "").split("\n")[:-2]) for k in "abc")
            name = "instances restyle %s %s" % (level, view)
            report(rc == 0 and a and a == c, name + ": back to the row opened", err + a + c)
            want = "instances of aiter::add_rmsnorm_quant_kernel (7)" if view == "<Enter>" \
                else "histogram of aiter::add_rmsnorm_quant_kernel: 7 from"
            report(want in b, name + ": short names hold the kernels of the name", b)
            shutil.rmtree(d, ignore_errors=True)


def check_export_runs():
    """--whole-trace and --run-range reach the TUI: its export equals the report
    with them, and the status line's command carries them."""
    torch = os.path.join(SAMPLES, "torch-resnet18-infer.json")
    nvprof = os.path.join(SAMPLES, "nvprof-lstm-pyprof.sql.gz")
    for trace, opts, level in ((torch, ["--whole-trace"], "op"),
                               (nvprof, ["--run-range", "embedding"], "kernel"),
                               (nvprof, ["--run-range", "embedding/0"], "op")):
        key = "3" if level == "kernel" else "1"
        rc, err, d, dumps = run_keys(trace, [key, "x", "v.csv", "y", ":dump v"], opts)
        want = report_csv(trace, "--by", level, *opts)
        plain = report_csv(trace, "--by", level)
        line = view_command(dumps.get("v"))
        report(rc == 0 and read(d, "v.csv") == want and want != plain,
               "export runs %s %s: x equals report with them" % (os.path.basename(trace), opts),
               err)
        report(" ".join(opts) in line, "export runs %s: the status line shows them" % opts, line)
        shutil.rmtree(d, ignore_errors=True)
    # A bad --run-range: one message, the runs as without it.
    rc, err, d, dumps = run_keys(nvprof, [":dump v"], ["--run-range", "no-such-range"])
    report(rc == 0 and "--run-range" in (dumps.get("v") or ""),
           "a bad --run-range is reported on the status line", (dumps.get("v") or "") + err)
    shutil.rmtree(d, ignore_errors=True)


def cli_csv(*args):
    p = subprocess.run([opscope()] + list(args) + ["--format", "csv"], capture_output=True,
                       env=env_for(80, 24, False))
    return p.stdout


def view_command(screen):
    """The command line the y view shows (its ' \\'-continued lines joined), "" if none."""
    out, on = [], False
    for line in (screen or "").splitlines():
        if line.startswith("# the command"):
            on = True
            continue
        if on:
            if line.startswith("#") or not line.strip():
                break
            line = line.strip()
            out.append(line[:-1].strip() if line.endswith("\\") else line)
    return " ".join(out)


def shown_command(screen):
    """The command of the y view, split as a shell would; None if none."""
    cmd = view_command(screen)
    return shlex.split(cmd) if cmd else None


def command_csv(argv, cwd):
    """stdout of an opscope command line as shown (argv[0] "opscope")."""
    p = subprocess.run([opscope()] + argv[1:], cwd=cwd, capture_output=True,
                       env=env_for(80, 24, False))
    return p.stdout if p.returncode == 0 else b"exit %d: %s" % (p.returncode, p.stderr)


def check_export_compare():
    """x in the compare view writes the CSV of `opscope diff` with the same
    options: kernel names in each style of m (the rows pair on them), the
    command line's name style, --whole-trace and --run-range for both traces.
    The what-if view's export equals `opscope whatif` (with a rule that
    matches nothing) in the same way."""
    mangled = os.path.join(ROOT, "tests", "data", "kineto-mangled.json")
    nvprof = os.path.join(SAMPLES, "nvprof-lstm-pyprof.sql.gz")
    noopt, opt = os.path.join(SAMPLES, "ort-cnn-noopt.json"), os.path.join(SAMPLES,
                                                                          "ort-cnn-opt.json")
    styles = [[], ["--short-names"], ["--no-demangle"]]
    keys = []
    for i in range(3):
        keys += ["x", "c%d.csv" % i, "m"]
    rc, err, d, _ = run_keys(mangled, keys, ["--by", "kernel", mangled])
    got = [read(d, "c%d.csv" % i) for i in range(3)]
    report(rc == 0 and len(set(got)) == 3, "compare export: the name styles differ", err)
    for i, flags in enumerate(styles):
        want = cli_csv("diff", "--by", "kernel", mangled, mangled, *flags)
        report(got[i] and got[i] == want,
               "compare export %s: x equals diff --by kernel %s" % (i, " ".join(flags)),
               "got %r\nwant %r" % (got[i][:300], want[:300]))
    shutil.rmtree(d, ignore_errors=True)
    for base, other, opts in ((mangled, mangled, ["--by", "kernel", "--no-demangle"]),
                              (mangled, mangled, ["--by", "dims", "--short-names"]),
                              (noopt, opt, ["--whole-trace"]),
                              (nvprof, nvprof, ["--by", "kernel", "--run-range", "embedding/0"])):
        rc, err, d, dumps = run_keys(other, ["x", "c.csv", "y", ":dump shown"], opts + [base])
        want = cli_csv("diff", base, other, *opts)
        plain = cli_csv("diff", base, other, *[o for o in opts if o.startswith("--by") or
                                               o in ("kernel", "dims")])
        report(rc == 0 and read(d, "c.csv") == want and want != plain,
               "compare export %s: x equals diff with them" % " ".join(opts), err)
        shown = shown_command(dumps.get("shown") or "")
        report(shown is not None and shown[:2] == ["opscope", "diff"] and
               command_csv(shown, d) == read(d, "c.csv"),
               "compare export %s: the status line's command prints the same CSV" %
               " ".join(opts), dumps.get("shown") or "")
        shutil.rmtree(d, ignore_errors=True)
    # what-if: no rule set, as a rule that matches nothing
    rc, err, d, _ = run_keys(mangled, ["3", "W", "x", "w0.csv", "m", "x", "w1.csv"])
    for i, flags in enumerate(styles[:2]):
        want = cli_csv("whatif", "--by", "kernel", "-x", "nothing=2", mangled, *flags)
        report(rc == 0 and read(d, "w%d.csv" % i) == want,
               "what-if export %s: x equals whatif %s" % (i, " ".join(flags)), err)
    shutil.rmtree(d, ignore_errors=True)
    # with rules ('=' and :speedups): the status line's whatif command prints the same CSV
    ne = os.path.join(SAMPLES, "ne-bert-mini-int8.json")
    rules = os.path.join(ROOT, "tests", "data", "ne-speedups.csv")
    for keys in (["W", "=", "2.5", "x", "r.csv", "y", ":dump shown"],
                 ["W", ":speedups " + rules, "j", "=", "1.1", "x", "r.csv", "y",
                  ":dump shown"]):
        rc, err, d, dumps = run_keys(ne, keys, ["--runs", "1:3"])
        shown = shown_command(dumps.get("shown") or "")
        report(rc == 0 and shown is not None and shown[:2] == ["opscope", "whatif"] and
               "-x" in shown and command_csv(shown, d) == read(d, "r.csv"),
               "what-if export %s: the status line's command prints the same CSV" %
               " ".join(keys[1:3]), dumps.get("shown") or "")
        shutil.rmtree(d, ignore_errors=True)
    rc, err, d, _ = run_keys(opt, ["W", "x", "w.csv"], ["--whole-trace"])
    report(rc == 0 and read(d, "w.csv") == cli_csv("whatif", "-x", "nothing=2", "--whole-trace",
                                                   opt),
           "what-if export --whole-trace: x equals whatif with it", err)
    shutil.rmtree(d, ignore_errors=True)


def check_export_gpu():
    """The GPU view's x writes what the status line's `opscope gpu` command prints;
    after m, the launches per kernel in the new name style."""
    kineto = os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")
    mangled = os.path.join(ROOT, "tests", "data", "kineto-mangled.json")
    for options in ((), ("--runs", "1")):
        rc, err, d, dumps = run_keys(kineto, ["G", "x", "g.csv", "y", ":dump shown"], list(options))
        shown = shown_command(dumps.get("shown") or "")
        report(rc == 0 and shown is not None and shown[:2] == ["opscope", "gpu"] and
               command_csv(shown, d) == read(d, "g.csv") and read(d, "g.csv"),
               "gpu export %s: the status line's command prints the same CSV" %
               " ".join(options), dumps.get("shown") or err)
        shutil.rmtree(d, ignore_errors=True)
    # Tab cycles the tables: idle gaps, launches per kernel, per op, back to the breakdown
    for tabs, args in ((1, ["--gaps", "100"]), (2, ["--launches"]), (3, ["--launches", "--per-op"]),
                       (4, [])):
        rc, err, d, dumps = run_keys(kineto, ["G"] + ["<Tab>"] * tabs + ["x", "t.csv", ":dump t"])
        want = cli_csv("gpu", kineto, *args)
        title = (dumps.get("t") or "").split("\n")[0]
        report(rc == 0 and read(d, "t.csv") == want and want.count(b"\n") > 2,
               "gpu view after %d Tab: x equals gpu %s" % (tabs, " ".join(args)), title + err)
        shutil.rmtree(d, ignore_errors=True)
    # m makes the launches per kernel again, a row per name shown (14 -> 12 names short)
    keys = ["G", "<Tab>", "<Tab>"]
    for i in range(3):
        keys += ["x", "m%d.csv" % i, "m"]
    rc, err, d, _ = run_keys(mangled, keys)
    for i, flags in enumerate(([], ["--short-names"], ["--no-demangle"])):
        want = cli_csv("gpu", "--launches", mangled, *flags)
        report(rc == 0 and read(d, "m%d.csv" % i) == want and want.count(b"\n") > 2,
               "gpu launches after %d m: x equals gpu --launches %s" % (i, " ".join(flags)),
               err)
    report(len({read(d, "m%d.csv" % i) for i in range(3)}) == 3,
           "gpu launches: the name styles differ")
    shutil.rmtree(d, ignore_errors=True)


def check_export_timeline():
    """The timeline's x writes what the status line's `opscope timeline` command prints,
    after zooming and moving; folded lanes have no command."""
    kineto = os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")
    for keys in (["V"], ["V", "+", "+", "L", "l"], ["3", "V", "-"]):
        rc, err, d, dumps = run_keys(kineto, keys + ["x", "t.csv", "y", ":dump shown"])
        shown = shown_command(dumps.get("shown") or "")
        got = read(d, "t.csv")
        report(rc == 0 and shown is not None and shown[:2] == ["opscope", "timeline"] and
               command_csv(shown, d) == got and got.count(b"\n") > 20,
               "timeline export %s: the status line's command prints the same CSV" % " ".join(keys),
               (dumps.get("shown") or "") + err)
        shutil.rmtree(d, ignore_errors=True)
    rc, err, d, dumps = run_keys(kineto, ["V", "c", "x", "t.csv", "y", ":dump shown"])
    got = read(d, "t.csv")
    report(rc == 0 and shown_command(dumps.get("shown") or "") is None and
           got.count(b"\n") == 10,
           "timeline export with a process folded: its lanes left out, no command",
           (dumps.get("shown") or "") + err + repr(got[:200]))
    shutil.rmtree(d, ignore_errors=True)
def check_export_dist():
    """x in the histogram and matrix views writes report --histogram's and --matrix's CSV."""
    cases = [
        ("ort-resnet18-opt.json", "D\nx\nhist.csv\ny\n:dump hist-command\nq\nq\nP\nx\nmatrix.csv\n"
         "y\n:dump matrix-command\n",
         [("hist.csv", ["--by", "op", "--histogram", "Conv"]),
          ("matrix.csv", ["--by", "op", "--matrix", "--top", "10"])]),
        # a GPU trace: device time; the kernel level, sorted by count, top 3
        ("kineto-sampled-rank0.json.gz", "3\n:sort count\n:top 3\nD\nx\nhist.csv\nq\nP\nx\n"
         "matrix.csv\ny\n:dump matrix-command\n",
         [("matrix.csv", ["--by", "kernel", "--matrix", "--sort", "count", "--top", "3"])]),
        # m in the matrix of the kernel level: rows merged on short names (194 -> 61)
        ("kineto-sampled-rank0.json.gz", "3\nP\nm\nx\nmatrix.csv\n",
         [("matrix.csv", ["--by", "kernel", "--matrix", "--top", "10", "--short-names"])]),
        # sorted by self time: the matrix adds self time too
        ("kineto-sampled-rank0.json.gz", ":sort self\nP\nx\nmatrix.csv\ny\n:dump matrix-command\n",
         [("matrix.csv", ["--by", "op", "--matrix", "--measure", "self", "--sort", "self",
                          "--top", "10"])]),
        # sorted by a roofline percentage (the trace's peaks): the table's rows
        # and order, when it opens and when t builds it again
        ("rocm-torch-compile-triton.json.gz", "2\n:sort peak_flops_pct\nP\nx\nmatrix.csv\n"
         "t\n4\nx\nmatrix4.csv\n",
         [("matrix.csv", ["--by", "shape", "--matrix", "--sort", "peak_flops_pct", "--top",
                          "10"]),
          ("matrix4.csv", ["--by", "shape", "--matrix", "--sort", "peak_flops_pct", "--top",
                           "4"])]),
    ]
    for trace, keys, files in cases:
        d = tempfile.mkdtemp(prefix="opscope-tui-")
        s = os.path.join(d, "x.script")
        with open(s, "w") as f:
            f.write("# trace: %s\n%s" % (trace, keys))
        rc, err, _, dumps = run_script(s, 80, 24, cwd=d)
        report(rc == 0, "export dist %s exit" % trace, err)
        for name, args in files:
            path = os.path.join(d, name)
            got = open(path, "rb").read() if os.path.exists(path) else b""
            want = report_csv(os.path.join(SAMPLES, trace), *args)
            report(got and got == want, "export dist %s: x in %s equals report %s" %
                   (trace, name, " ".join(args)), "got %r\nwant %r" % (got[:300], want[:300]))
        for dump, want in (("hist-command", "--histogram Conv --format csv"),
                           ("matrix-command", "--matrix --measure self" if "self" in keys
                            else "--matrix")):
            if dump in dumps:
                shown = view_command(dumps.get(dump))
                report(want in shown, "export dist %s: y shows %s" % (trace, want), shown)
        shutil.rmtree(d, ignore_errors=True)


def check_name_style_kept():
    """The name style (m) is the TUI's: :level keeps it, and the call tree's
    kernel pane names kernels in it."""
    mangled = os.path.join(ROOT, "tests", "data", "kineto-mangled.json")
    rc, err, d, dumps = run_keys(mangled, ["m", ":level kernel", "x", "l.csv", "y", ":dump l"])
    report(rc == 0 and read(d, "l.csv") == report_csv(mangled, "--by", "kernel",
                                                      "--short-names") and
           "--short-names" in view_command(dumps.get("l")),
           ":level keeps the name style", err)
    shutil.rmtree(d, ignore_errors=True)
    # A wide screen: the pane's name column holds the longest kernel name.
    rc, err, d, dumps = run_keys(mangled, ["T", "d", ":dump a", "m", ":dump b", "m", ":dump c"],
                                 cols=1000, lines=60)
    a, b, c = (dumps.get(k) or "" for k in "abc")
    report(rc == 0 and "aiter::add_rmsnorm_quant_kernel<std::bfloat16_t" in a and
           "_ZN5aiter" not in a + b and "add_rmsnorm_quant_kernel<" not in b and
           "aiter::add_rmsnorm_quant_kernel" in b and "_ZN5aiter24add_rmsnorm" in c,
           "the tree's kernel pane names kernels in the style of m", err + a[:2000])
    shutil.rmtree(d, ignore_errors=True)


def position(screen):
    """The cursor's "N/M" at the end of the hint line, or None."""
    lines = (screen or "").rstrip("\n").split("\n")
    m = re.search(r"(\d+)/\d+\s*$", lines[-1]) if lines else None
    return int(m.group(1)) if m else None


def check_sample_hint():
    """`opscope` with no trace opens the bundled sample with a hint on the
    status line; a trace of one's own gets none."""
    d = tempfile.mkdtemp(prefix="opscope-sample-")
    s = os.path.join(d, "keys.script")
    with open(s, "w") as f:
        f.write(":dump a\n")
    for args, want in (([], True), ([os.path.join(SAMPLES, "ort-cnn-opt.json")], False)):
        p = subprocess.run([opscope(), "--script", s] + args, cwd=d,
                           env=env_for(120, 24, False), capture_output=True, timeout=120)
        path = os.path.join(d, "a")
        screen = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
        last = screen.rstrip("\n").split("\n")[-1]
        hint = "bundled sample: opscope TRACE opens yours; ? for keys" in last
        report(p.returncode == 0 and hint == want,
               "sample hint %s with %r" % ("shown" if want else "absent", args),
               p.stderr.decode("utf-8", "replace") + last)
        if os.path.exists(path):
            os.unlink(path)
    shutil.rmtree(d, ignore_errors=True)


def check_config():
    """The configuration file (OPSCOPE_CONFIG) in the explorer: key bindings
    by action name (a new key works, 'none' unbinds, the help shows the new
    key), mouse = off ignores the wheel, level and sort open the first table,
    names picks the kernel name style; --no-config ignores it all."""
    trace = os.path.join(SAMPLES, "ort-resnet18-opt.json")
    d = tempfile.mkdtemp(prefix="opscope-config-")
    cfg = os.path.join(d, "config")

    def run(text, keys, options=(), t=trace):
        with open(cfg, "w") as f:
            f.write(text)
        return run_keys(t, keys, options, cols=120, env={"OPSCOPE_CONFIG": cfg})

    rc, err, d2, dumps = run("# keys\nbind z move-down\nbind j none\n",
                             ["z", ":dump a", "j", ":dump b", "?", ":dump h"])
    help_line = [x for x in (dumps.get("h") or "").split("\n") if "move-down" in x]
    report(rc == 0 and position(dumps.get("a")) == 2 and "j is not bound" in
           (dumps.get("b") or "") and help_line and help_line[0].split()[:2] == ["z", "<Down>"],
           "config: bind z move-down, bind j none (help shows z)", err + str(dumps)[:3000])
    shutil.rmtree(d2, ignore_errors=True)
    rc, err, d2, dumps = run("bind z move-down\n", ["z", ":dump a"], ["--no-config"])
    report(rc == 0 and "z is not bound" in (dumps.get("a") or ""),
           "config: --no-config ignores bind", err)
    shutil.rmtree(d2, ignore_errors=True)
    for text, want in (("mouse = on\n", 4), ("mouse = off\n", 1), ("", 4)):
        rc, err, d2, dumps = run(text, ["<WheelDown>", ":dump a"])
        report(rc == 0 and position(dumps.get("a")) == want,
               "config: %r: the wheel moves to row %d" % (text, want),
               err + (dumps.get("a") or "")[-300:])
        shutil.rmtree(d2, ignore_errors=True)
    rc, err, d2, dumps = run("level = shape\nsort = count\ncolor = off\n", [":dump a"])
    first = (dumps.get("a") or "").split("\n")[0]
    report(rc == 0 and "shape table" in first and "sort: count desc" in first,
           "config: level = shape, sort = count open the first table", err + first)
    shutil.rmtree(d2, ignore_errors=True)
    mangled = os.path.join(ROOT, "tests", "data", "kineto-mangled.json")
    rc, err, d2, dumps = run("level = kernel\nnames = mangled\n", [":dump a"], t=mangled)
    report(rc == 0 and "_ZN5aiter" in (dumps.get("a") or ""),
           "config: names = mangled in the explorer", err)
    shutil.rmtree(d2, ignore_errors=True)
    rc, err, d2, dumps = run("bind z quitt\n", [":dump a"])
    report(rc == 2 and err.count("\n") == 1 and cfg + ":1: bind: unknown action 'quitt'" in err,
           "config: a bad bind is one line naming file and line, exit 2", err)
    shutil.rmtree(d2, ignore_errors=True)
    shutil.rmtree(d, ignore_errors=True)


def check_export_busy():
    """x while the table is still "updating..." (its worker held by :jobs hold)
    waits for the rows, so the file is the report it claims to be."""
    trace = os.path.join(SAMPLES, "ort-resnet18-opt.json")
    rc, err, d, dumps = run_keys(trace, [":jobs hold", ":filter Conv", ":dump busy", "x", "b.csv",
                                         ":dump done"])
    want = report_csv(trace, "--by", "op", "--filter", "Conv")
    report(rc == 0 and "updating" in (dumps.get("busy") or "") and read(d, "b.csv") == want and
           want.count(b"\n") > 1, "export while updating waits for the table",
           "rc=%d %s got %r" % (rc, err, read(d, "b.csv")[:200]))
    shutil.rmtree(d, ignore_errors=True)


def check_first_answer_pending():
    """A new table whose first answer is still computed (a 5M-event trace; here its
    worker held by :jobs hold: K's kernel table) draws "(computing...)", not a
    crash on no columns; Enter pressed then waits for the rows and opens the
    first row's instances once they come, unless another key came first."""
    trace = os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")
    rc, err, d, dumps = run_keys(trace, [":jobs hold", "K", "<Enter>", ":dump pending",
                                         ":jobs go", ":dump ready"])
    pending, ready = dumps.get("pending") or "", dumps.get("ready") or ""
    report(rc == 0 and "(computing...)" in pending and "Enter acts once the rows" in pending,
           "a table without its first answer yet draws and waits",
           "rc=%d %s %s" % (rc, err, pending))
    report("instances" in ready.split("\n")[0],
           "Enter pressed before the first rows opens the first row's once they come", ready)
    shutil.rmtree(d, ignore_errors=True)
    rc, err, d, dumps = run_keys(trace, [":jobs hold", "K", "<Enter>", "j", ":jobs go",
                                         ":dump kept"])
    kept = dumps.get("kept") or ""
    report(rc == 0 and "kernel table" in kept.split("\n")[0],
           "a key pressed while Enter waits for the rows drops it", kept)
    shutil.rmtree(d, ignore_errors=True)


def check_tree_title_names_the_row():
    """T's title names the row as the table has it, with every key: a shape
    row's op and shapes, a category row's category; and counts its calls,
    the row's count in `opscope report` at that level."""
    trace = os.path.join(SAMPLES, "kineto-2021-resnet50.json.gz")
    rc, err, d, dumps = run_keys(trace, ["2", "T", ":dump shape", "q", "8", "T", ":dump cat"])
    shutil.rmtree(d, ignore_errors=True)
    for dump, by, key in (("shape", "shape", lambda r: r["name"] + " " + r["input_type_shape"]),
                          ("cat", "category", lambda r: r["name"])):
        first = next(csv.DictReader(io.StringIO(report_csv(trace, "--by", by).decode())))
        title = (dumps.get(dump) or "").split("\n")[0].split(" | ")
        want = "of %s calls of %s" % (first["count"], key(first))
        report(rc == 0 and len(title) > 1 and title[1].startswith("call tree (") and
               title[1].endswith(want), "T on a %s row: the title ends %r" % (by, want),
               err + (dumps.get(dump) or "").split("\n")[0])


def check_tree_of_an_op_type():
    """T on an ORT op row (an op type, whose calls are named for their nodes)
    merges every call of the row: one root per Conv node, each node's total
    and count as summed from the trace file itself (runs 1-10, the warm-up
    run 0 skipped), 200 calls in all."""
    trace = os.path.join(SAMPLES, "ort-resnet18-opt.json")
    with open(trace, encoding="utf-8") as f:
        events = json.load(f)
    runs = sorted((e["ts"], e["ts"] + e["dur"]) for e in events if e.get("name") == "model_run")
    want = {}
    for e in events:
        if e.get("cat") != "Node" or e.get("args", {}).get("op_name") != "Conv":
            continue
        run = [k for k, (a, b) in enumerate(runs) if a <= e["ts"] <= b]
        if run and run[0] >= 1:
            total, count = want.get(e["name"], (0, 0))
            want[e["name"]] = (total + e["dur"], count + 1)
    rc, err, d, dumps = run_keys(trace, [":find Conv", "T", ":dump t", "x", "conv.csv", "x",
                                         "conv.folded", "y", ":dump y", "q", ":level shape",
                                         "T", "y", ":dump s"])
    rows = list(csv.DictReader(io.StringIO(read(d, "conv.csv").decode("utf-8"))))
    folded = read(d, "conv.folded")
    shutil.rmtree(d, ignore_errors=True)
    p = subprocess.run([opscope(), "flame", "--calls-of", "Conv", trace], capture_output=True,
                       env=env_for(80, 24, False))
    report(folded and p.returncode == 0 and folded == p.stdout,
           "x to .folded on the tree of an op row writes `opscope flame --calls-of`'s stacks",
           "%r\n%r" % (folded[:200], p.stdout[:200]))
    # y names `opscope tree --calls-of Conv`, which prints the same roots
    line = view_command(dumps.get("y"))
    argv = shlex.split(line)
    p = subprocess.run([opscope()] + argv[1:], capture_output=True, env=env_for(80, 24, False))
    cli = {r["name"]: int(r["count"]) for r in csv.DictReader(io.StringIO(p.stdout.decode()))
           if "$$" not in r["name"]}
    report("--calls-of Conv --format csv" in line and p.returncode == 0 and
           cli == {r["name"]: int(r["count"]) for r in rows if r["depth"] == "0"},
           "y on the tree of an op row names `opscope tree --calls-of`, which prints its roots",
           "%s\n%s" % (line, p.stderr.decode()))
    report("this view has no opscope command line" in (dumps.get("s") or ""),
           "y on the tree of a shape row says no command prints it", dumps.get("s") or "")
    got = {r["name"]: (r["total_ms"], int(r["count"])) for r in rows if r["depth"] == "0"}
    title = (dumps.get("t") or "").split("\n")[0]
    calls = sum(c for _, c in want.values())
    report(rc == 0 and calls == 200 and len(want) == 20 and
           "call tree (%d paths, %d shown) of %d calls of Conv" % (len(want), len(want), calls)
           in title and
           got == {n: ("%.3f" % (t / 1000), c) for n, (t, c) in want.items()},
           "T on an ORT op row merges the calls of every node of that op type",
           "%s%s\n%s\nwant %s" % (err, title, got, want))
    # opened on one run, then every run: the row's calls are read again
    rc, err, d, dumps = run_keys(trace, [":runs 1", ":find Conv", "T", ":dump one", ":runs default",
                                         ":dump all", "x", "all.csv"])
    wide = list(csv.DictReader(io.StringIO(read(d, "all.csv").decode("utf-8"))))
    shutil.rmtree(d, ignore_errors=True)
    one, every = (dumps.get(k) or "" for k in ("one", "all"))
    report(rc == 0 and "(20 paths, 20 shown) of 20 calls" in one.split("\n")[0] and
           "(20 paths, 20 shown) of 200 calls" in every.split("\n")[0] and wide == rows,
           "the tree of a row opened on one run takes the row's calls again on every run",
           "%s%s\n%s" % (err, one, every))
    # a filter hides paths of the tree, not its roots, also when the runs change under it
    kineto = os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")
    rc, err, d, dumps = run_keys(kineto, [":find aten::linear", "T", ":dump all",
                                          ":filter aten::addmm", ":dump f", ":runs 1",
                                          ":dump f1", ":filter", ":dump one"])
    shutil.rmtree(d, ignore_errors=True)
    lines = {k: (dumps.get(k) or "").splitlines() for k in ("all", "f", "f1", "one")}
    addmm = {k: [l.split()[-6:] for l in v if "aten::addmm" in l and "filter:" not in l]
             for k, v in lines.items()}
    report(rc == 0 and " of 113 calls " in lines["f"][0] and addmm["f"] == addmm["all"][:1] and
           " of 56 calls " in lines["f1"][0] and addmm["f1"] == addmm["one"][:1] and
           len(addmm["f1"]) == 1,
           "a filter in the tree of an op row keeps the paths through a match, whatever the "
           "runs", "%s%s" % (err, "\n".join(lines["f1"][:6])))


def check_tree_in_background():
    """T merges the tree on a worker on a big trace (here held by :jobs hold):
    the view opens at once titled "merging...", its rows "(computing...)", and the tree
    that comes in is the screen T draws at once; a change of runs while it
    merges is merged after, into the same screen as at once; x to a .folded
    name waits for the merge and writes the same stacks."""
    trace = os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")
    cases = [([], []), ([], [":runs 1"]), ([":level kernel", "j"], []),  # before T, after
             ([":filter aten::add*"], []), ([], [":sort name", ":runs 1"])]
    for before, after in cases:
        rc, err, d, now = run_keys(trace, before + ["T"] + after + [":dump t"])
        shutil.rmtree(d, ignore_errors=True)
        rc2, err2, d, held = run_keys(trace, before + [":jobs hold", "T", ":dump held"] + after +
                                      [":jobs go", ":dump t"])
        shutil.rmtree(d, ignore_errors=True)
        pending, got = held.get("held") or "", held.get("t") or ""
        report(rc == 0 and rc2 == 0 and "(merging...)" in pending.split("\n")[0] and
               "(computing...)" in pending and
               "updating" not in got and got and got == now.get("t"),
               "the tree merged on a worker: %s" % " ".join(before + ["T"] + after),
               "%s%s\n%s\n---\n%s\n---\n%s" % (err, err2, pending, now.get("t"), got))
    rc, err, d, _ = run_keys(trace, ["T", "x", "now.folded"])
    want = read(d, "now.folded")
    shutil.rmtree(d, ignore_errors=True)
    rc2, err2, d, _ = run_keys(trace, [":jobs hold", "T", "x", "held.folded"])
    report(rc == 0 and rc2 == 0 and want and read(d, "held.folded") == want,
           "x to .folded while the tree merges waits for it", err + err2)
    shutil.rmtree(d, ignore_errors=True)


def check_level_flip_in_background():
    """A level computed in the background (its worker held by :jobs hold, then
    let go) selects the row of the name selected before, as one computed at
    once does."""
    trace = os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")
    keys = [":find aten::addmm", "2", ":jobs go", ":dump b"]
    rc, err, d, now = run_keys(trace, keys)
    shutil.rmtree(d, ignore_errors=True)
    rc2, err2, d, held = run_keys(trace, [":jobs hold"] + keys)
    shutil.rmtree(d, ignore_errors=True)
    a, b = position(now.get("b")), position(held.get("b"))
    report(rc == 0 and rc2 == 0 and a is not None and a > 1 and a == b,
           "a level flip computed in the background selects the same row",
           "rc=%d/%d %s%s at %s vs %s" % (rc, rc2, err, err2, a, b))


def check_level_back_kept():
    """A level the view left comes back at once (its rows kept, no new
    aggregate: its worker held by :jobs hold never runs), the same screen as
    computed; after a filter change it is computed again."""
    trace = os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")
    rc, err, d, now = run_keys(trace, [":find aten::addmm", "2", "1", ":dump op"])
    shutil.rmtree(d, ignore_errors=True)
    rc2, err2, d, held = run_keys(trace, [":find aten::addmm", ":jobs hold", "2", ":jobs go",
                                          ":jobs hold", "1", ":dump op", ":filter aten::mm",
                                          ":jobs go", ":jobs hold", "2", ":dump f"])
    shutil.rmtree(d, ignore_errors=True)
    back, again = held.get("op") or "", held.get("f") or ""
    report(rc == 0 and rc2 == 0 and "updating" not in back and back == now.get("op"),
           "a level left comes back at once, as computed",
           "%s%s\n%s\n---\n%s" % (err, err2, now.get("op"), back))
    report("updating" in again, "a level left is computed again after a filter change", again)


def check_gpu_tables_in_background():
    """The GPU view's tables computed on a worker (held by :jobs hold, then let
    go) come in as the same screens as computed at once; while one is computed
    the table shown stays, titled with the one coming; a table seen before
    comes back at once (kept), and is computed again after a change of runs."""
    trace = os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")
    rc, err, d, now = run_keys(trace, ["G", ":dump b", "<Tab>", ":dump g", "<Tab>", ":dump l",
                                       ":runs 1", ":dump r"])
    shutil.rmtree(d, ignore_errors=True)
    rc2, err2, d, held = run_keys(trace, [
        ":jobs hold", "G", ":dump pending", ":jobs go", ":dump b",
        ":jobs hold", "<Tab>", "<Tab>", ":dump coming", ":jobs go", ":dump l",
        ":jobs hold", "<BackTab>", ":dump kept", "<Tab>", ":runs 1", ":dump again", ":jobs go",
        ":dump r", ":jobs hold", "<BackTab>", "<BackTab>", ":jobs go", "<Tab>", "<Tab>",
        ":dump r2"])
    shutil.rmtree(d, ignore_errors=True)
    title = lambda name: (held.get(name) or "").split("\n")[0]
    ok = rc == 0 and rc2 == 0 and all(now.get(k) for k in ("b", "g", "l", "r"))
    report(ok and "computing busy and idle..." in title("pending") and
           held.get("b") == now.get("b") and held.get("l") == now.get("l"),
           "GPU tables computed on a worker come in as computed at once",
           "rc=%d/%d %s%s\n%s\n---\n%s" % (rc, rc2, err, err2, now.get("l"), held.get("l")))
    report("| GPU: busy and idle (" in title("coming") and
           "computing kernel launches per kernel..." in title("coming"),
           "the GPU table shown stays while the one asked for is computed", title("coming"))
    report(held.get("kept") == now.get("g"), "a GPU table seen before comes back at once",
           "%s\n---\n%s" % (now.get("g"), held.get("kept")))
    report("computing kernel launches per kernel..." in title("again") and
           held.get("r") == now.get("r"), "a GPU table is computed again after a change of runs",
           "%s\n---\n%s" % (now.get("r"), held.get("r")))
    body = lambda text: (text or "").rstrip("\n").rsplit("\n", 1)[0]  # the status line differs
    report(body(held.get("r2")) == body(now.get("r")),
           "GPU tables coming in leave the others kept as they were",
           "%s\n---\n%s" % (now.get("r"), held.get("r2")))


def report_at_once(ok, errs, now, got, names, busy, what):
    """Each dump of names in got: not busy (the worker's word, its rows not
    in), and the screen now has, the runs ok; what names the check (%s: the
    dump)."""
    for name in names:
        g, w = got.get(name) or "", now.get(name) or ""
        report(ok and w and busy not in g and g == w, what % name,
               "%s\n%s\n---\n%s" % (errs, w, g))


def check_gpu_tables_ahead():
    """The GPU view's tables computed ahead (:ahead, as on a big trace once
    the views compute nothing): G shows the breakdown computed before it was
    pressed, and each Tab a table computed after it, at once (their workers
    held by :jobs hold never run), each the same screen as computed then. A
    breakdown computed before a change of runs is not shown after it."""
    trace = os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")
    tabs = ["<Tab>", ":dump g", "<Tab>", ":dump l", "<Tab>", ":dump p", "<Tab>", ":dump b2"]
    rc, err, d, now = run_keys(trace, ["G", ":dump b"] + tabs + ["<Esc>", ":runs 1", "G",
                                                                 ":dump r", "<Tab>", ":dump rg"])
    shutil.rmtree(d, ignore_errors=True)
    rc2, err2, d, ahead = run_keys(trace, [":ahead", ":jobs hold", "G", ":dump b", ":ahead",
                                           ":jobs hold"] + tabs +
                                   ["<Esc>", ":ahead", ":runs 1", ":jobs hold", "G",
                                    ":dump pending", ":jobs go", ":dump r", "<Tab>",
                                    ":jobs go", ":dump rg"])
    shutil.rmtree(d, ignore_errors=True)
    report_at_once(rc == 0 and rc2 == 0, err + err2, now, ahead, ("b", "g", "l", "p", "b2"),
                   "computing", "a GPU table computed ahead shows at once, as computed (%s)")
    title = (ahead.get("pending") or "").split("\n")[0]
    report("computing busy and idle..." in title and ahead.get("r") == now.get("r"),
           "the GPU breakdown computed ahead is not shown after a change of runs",
           "%s\n---\n%s" % (title, ahead.get("r")))
    # the gaps are then computed ahead, unheld: Tab finds them kept or coming
    report(now.get("rg") and ahead.get("rg") == now.get("rg"),
           "a GPU table asked for while computed ahead comes in as computed",
           "%s\n---\n%s" % (now.get("rg"), ahead.get("rg")))


def check_whole_tree_early():
    """The whole merged call tree computed before T (:ahead, as on a big
    trace once the views compute nothing): T at a kernel shows it at once
    (its worker held by :jobs hold never runs), the same screen as merged
    then; after Esc the next T takes it back at once, unfolded and in the
    first order whatever was folded and sorted before (t3); with a filter,
    laid out for it; after a change of runs it is merged again."""
    trace = os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")
    keys = ["3", "T", ":dump t", "<Esc>", "j", "T", ":dump t2", "<End>", "C", "<Home>", "C",
            ":sort name", "<Esc>",
            "T", ":dump t3", "<Esc>", ":filter aten::mul*", "T", ":dump f", "<Esc>",
            ":filter", ":runs 1"]
    rc, err, d, now = run_keys(trace, keys + ["T", ":dump r"])
    shutil.rmtree(d, ignore_errors=True)
    early_keys = [x for k in keys for x in ([":ahead", ":jobs hold", k] if k == "T" else [k])]
    rc2, err2, d, early = run_keys(trace, early_keys + [":jobs go", ":jobs hold", "T",
                                                        ":dump pending", ":jobs go", ":dump r"])
    shutil.rmtree(d, ignore_errors=True)
    report_at_once(rc == 0 and rc2 == 0, err + err2, now, early, ("t", "t2", "t3", "f"),
                   "merging", "the whole tree merged before T shows at once, as merged (%s)")
    report(now.get("t2") and now.get("t3") == now.get("t2"),
           "T after a tree folded and sorted by name: the tree unfolded, in the first order",
           "%s\n---\n%s" % (now.get("t2"), now.get("t3")))
    title = (early.get("pending") or "").split("\n")[0]
    report("merging" in title and early.get("r") == now.get("r"),
           "the whole tree merged before a change of runs is not shown after it",
           "%s\n---\n%s" % (title, early.get("r")))


def check_whatif_early():
    """The what-if projection computed before W (:ahead, as on a big trace
    once the views compute nothing): W shows it at once (a worker held by
    :jobs hold never runs), then Tab the next level's, computed while the
    view is open; after Esc the next W takes its rows back at once; each the
    same screen as computed then. With a rule, Tab projects the rule (no
    projection computed early without it is shown); after a change of runs,
    W computes again."""
    trace = os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")
    rule = ["W", ":find aten::addmm", "=2<Enter>", "<Tab>", ":dump rule"]
    rc, err, d, now = run_keys(trace, ["W", ":dump w", "<Esc>", "W", ":dump w2", "<Tab>",
                                       ":dump t", "<Esc>"] + rule +
                               ["<Esc>", ":runs 1", "W", ":dump r"])
    shutil.rmtree(d, ignore_errors=True)
    rc2, err2, d, early = run_keys(trace, [
        ":ahead", ":jobs hold", "W", ":dump w", ":ahead", ":jobs hold", "<Esc>", "W",
        ":dump w2", ":ahead", ":jobs hold", "<Tab>", ":dump t", "<Esc>", ":ahead"] +
        rule[:3] + [":ahead", "<Tab>", ":dump rule", "<Esc>", ":ahead", ":jobs hold",
                    ":runs 1", "W", ":dump pending", ":jobs go", ":dump r"])
    shutil.rmtree(d, ignore_errors=True)
    report_at_once(rc == 0 and rc2 == 0, err + err2, now, early, ("w", "w2", "t"), "updating",
                   "the what-if projection computed before it is asked shows at once (%s)")
    report(now.get("rule") and "(1 rules" in now["rule"] and early.get("rule") == now["rule"],
           "what-if with a rule: Tab projects the rule",
           "%s\n---\n%s" % (now.get("rule"), early.get("rule")))
    pending = early.get("pending") or ""
    report("updating" in pending and early.get("r") == now.get("r"),
           "the what-if projection computed before a change of runs is not shown after it",
           "%s\n---\n%s" % (pending, early.get("r")))


def check_whatif_rules_in_place():
    """Rules set with = on a worker (as on a big trace: the projection shown
    before becomes the back the next rules are projected into, made ready
    while the factor is typed) give the screens the synchronous projection
    gives: rules on several rows, a sort by a column the rules change, a
    rule that slows a row, the kernel level and its names restyled (m)."""
    mangled = os.path.join(ROOT, "tests", "data", "kineto-mangled.json")
    # (a step ends where the worker's rows are let in: keys after m or Tab act on them;
    # after m the cursor stays on its row, its name restyled, whose rows the table
    # under lends when computed ahead: the rows shown stay until the worker's come)
    runs = [(os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz"),
             [["W", "=2<Enter>"], ["j", "=3<Enter>"], ["s"], ["jj", "=0.5<Enter>"], ["s", "s"],
              ["k", "=1<Enter>"], ["<Tab>"], ["<Tab>"], ["=4<Enter>"], ["j", "=2<Enter>"]]),
            (mangled, [["W"], ["<Tab>"], ["<Tab>"], ["jj", "=2<Enter>"], ["m"], ["jj", "=3<Enter>"],
                       ["m"], ["k", "=5<Enter>"], ["m"], ["jj", "=7<Enter>"]])]
    for trace, steps in runs:
        # also with what the next key shows computed before (:ahead: the next level's
        # projection, the table's rows in the next name style): the rules projected
        # into it, synchronously and on a worker
        sync, held, early = [], [":jobs hold", ":jobs go"], []
        for i, step in enumerate(steps):
            ahead = [":ahead"] if "<Tab>" in step or "m" in step else []
            sync += step + [":dump s%d" % i]
            held += ahead + step + [":jobs go", ":dump s%d" % i]
            early += ahead + step + [":dump s%d" % i]
        rc, err, d, now = run_keys(trace, sync)
        shutil.rmtree(d, ignore_errors=True)
        rc2, err2, d, got = run_keys(trace, held)
        shutil.rmtree(d, ignore_errors=True)
        rc3, err3, d, ahead = run_keys(trace, early)
        shutil.rmtree(d, ignore_errors=True)
        names = ["s%d" % i for i in range(len(steps))]
        report_at_once(rc == 0 and rc2 == 0, err + err2, now, got, names, "updating",
                       "what-if rules projected in place on a worker: the synchronous "
                       "screen (" + os.path.basename(trace) + ", %s)")
        report_at_once(rc == 0 and rc3 == 0, err + err3, now, ahead, names, "updating",
                       "what-if rules projected into a level computed early: the "
                       "screen computed then (" + os.path.basename(trace) + ", %s)")
        title = (now.get(names[-1]) or "").split("\n")[0]
        m = re.search(r"what-if kernel \((\d+) rules", title)
        report(m and int(m.group(1)) >= 3, "what-if rules in place: the steps set rules, the "
               "last at the kernel level (" + os.path.basename(trace) + ")", title)
    check_whatif_rules_relabelled()


def check_whatif_rules_relabelled():
    """Kernel names that no two share in any style (one set of rows in all):
    m after rules shows the rows' labels in the new style, synchronously and
    on a worker (the back projected into is labelled anew, not in place)."""
    d = tempfile.mkdtemp(prefix="opscope-tui-")
    trace = os.path.join(d, "unique-mangled.json")
    names = ["_Z3fooi", "_Z3barv", "_Z3bazPf"]
    with open(trace, "w") as f:
        json.dump({"traceEvents": [
            {"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": 7, "ts": 10 + 20 * i,
             "dur": 10 - i, "args": {"device": 0, "stream": 7, "correlation": i + 1}}
            for i, n in enumerate(names)]}, f)
    steps = [["W", "<Tab>", "<Tab>", "=2<Enter>"], ["m", "j", "=3<Enter>"], ["m", "=5<Enter>"],
             ["m", "jj", "=7<Enter>"]]
    shown = ["foo(int)", "foo", "_Z3fooi", "foo(int)"]  # demangled, short, mangled, demangled
    sync, held = [], [":jobs hold", ":jobs go"]
    for i, step in enumerate(steps):
        sync += step + [":dump s%d" % i]
        held += step + [":jobs go", ":dump s%d" % i]
    rc, err, d2, now = run_keys(trace, sync)
    shutil.rmtree(d2, ignore_errors=True)
    rc2, err2, d2, got = run_keys(trace, held)
    shutil.rmtree(d2, ignore_errors=True)
    shutil.rmtree(d, ignore_errors=True)
    for i, name in enumerate(shown):
        for how, dumps in (("synchronously", now), ("on a worker", got)):
            screen = dumps.get("s%d" % i) or ""
            rows = [l.split()[0] for l in screen.split("\n")[3:] if l.strip()]
            report(rc == 0 and rc2 == 0 and name in rows and "(%d rules" % (i + 1) in screen,
                   "what-if rules, then m: the labels in the new style, %s (step %d)" %
                   (how, i), "%s\n%s" % (err + err2, screen))


def check_find_in_sorted_views():
    """Find (f, n, N) in views whose rows are shown in another order than
    they are stored (read in memory order): a table sorted by count, the
    what-if view, the compare view; each match and its number are those of
    the exported rows in turn (folded case), wrapping round both ways."""
    trace = os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")
    text, moves = "backward", ["n", "n", "N", "N", "N", "n"]
    for name, start in (("table", [":sort count desc"]), ("what-if", ["W"]),
                        ("compare", [":compare " + trace])):
        keys = start + ["x", "rows.csv", ":find " + text, ":dump f0"]
        for i, key in enumerate(moves):
            keys += [key, ":dump f%d" % (i + 1)]
        rc, err, d, dumps = run_keys(trace, keys)
        with open(os.path.join(d, "rows.csv"), encoding="utf-8") as f:
            names = [row[0] for row in csv.reader(f)][1:]
        shutil.rmtree(d, ignore_errors=True)
        hits = [i for i, n in enumerate(names) if text in n.lower()]
        cur, want, got = 0, [], []
        for i, step in enumerate([1] + [1 if m == "n" else -1 for m in moves]):
            later = [h for h in hits if (h > cur if step > 0 else h < cur)]
            cur = (min(later) if later else hits[0]) if step > 0 else \
                (max(later) if later else hits[-1])
            want.append("'%s': match %d of %d" % (text, hits.index(cur) + 1, len(hits)))
            got.append(((dumps.get("f%d" % i) or "").rstrip("\n").split("\n") or [""])[-1])
        report(rc == 0 and len(hits) > 2 and all(g.startswith(w) for g, w in zip(got, want)),
               "find in the %s view: the matches of its rows in turn" % name,
               "%s%s\n---\n%s" % (err, want, got))


def check_views_closed_apart():
    """Views left while their workers run (held by :jobs hold) close on a
    thread of their own (:jobs apart, as on a big trace): the call tree, the
    GPU view and the compare view (with its other trace) each give way at
    once to the screen under them, the same as when closed in turn; the
    script then goes on, and every view is freed before it exits (the leak
    check of the sanitized build)."""
    trace = os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")
    other = os.path.join(SAMPLES, "kineto-2021-resnet50.json.gz")
    cases = [("tree", [trace], ["T"]), ("gpu", [trace], ["G", "<Tab>"]),
             ("compare", [other, trace], ["M"])]
    for name, traces, keys in cases:
        # :jobs go: the held workers, which the view's closing lets go in its own time,
        # have the next level's rows in before they are dumped
        after = ["<Esc>", ":dump a", "2", ":jobs go", ":dump b"]
        rc, err, d, now = run_keys(traces[-1], keys + after, options=traces[:-1])
        shutil.rmtree(d, ignore_errors=True)
        rc2, err2, d, apart = run_keys(traces[-1], [":jobs apart", ":jobs hold"] + keys + after,
                                       options=traces[:-1])
        shutil.rmtree(d, ignore_errors=True)
        report(rc == 0 and rc2 == 0 and not err2 and now.get("a") and
               apart.get("a") == now.get("a") and apart.get("b") == now.get("b"),
               "the %s view left while its worker runs closes apart" % name,
               "%s%s\n%s\n---\n%s" % (err, err2, now.get("a"), apart.get("a")))


def check_early_over_budget():
    """What is computed ahead and does not fit in the budget of what a view
    keeps (a script's :budget of 100 bytes) is not kept: G, a first Tab and
    T then compute their rows as asked (shown as computing), and come in as
    computed at once."""
    trace = os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")
    rc, err, d, now = run_keys(trace, ["G", ":dump b", "<Tab>", ":dump g", "<Esc>", "3", "T",
                                       ":dump t"])
    shutil.rmtree(d, ignore_errors=True)
    rc2, err2, d, held = run_keys(trace, [
        ":budget 100", ":ahead", ":jobs hold", "G", ":dump pb", ":jobs go", ":dump b",
        ":ahead", ":jobs hold", "<Tab>", ":dump pg", ":jobs go", ":dump g", "<Esc>", "3",
        ":jobs hold", "T", ":dump pt", ":jobs go", ":dump t"])
    shutil.rmtree(d, ignore_errors=True)
    first = lambda name: (held.get(name) or "").split("\n")[0]
    for pending, name, says in (("pb", "b", "computing"), ("pg", "g", "computing"),
                                ("pt", "t", "merging")):
        report(rc == 0 and rc2 == 0 and says in first(pending) and now.get(name) and
               held.get(name) == now.get(name),
               "a result computed ahead over the budget is computed when asked (%s)" % name,
               "%s%s\n%s\n---\n%s" % (err, err2, first(pending), held.get(name)))


def check_levels_ahead():
    """Levels computed ahead (:ahead, as a big trace's view does once its rows
    are in) show at once on a first visit (their worker held by :jobs hold
    never runs), each the same screen as computed then, sort and selected
    row included; after a filter change they are computed ahead again, for
    the new filter."""
    trace = os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")
    start = [":find aten::addmm", ":sort count desc"]
    flips = []
    for key in "234567891":
        flips += [key, ":dump l" + key]
    again = [":filter aten::*mm", "2", ":dump f2", "8", ":dump f8"]
    rc, err, d, now = run_keys(trace, start + flips + again)
    shutil.rmtree(d, ignore_errors=True)
    held_again = [again[0], ":ahead", ":jobs hold"] + again[1:]
    rc2, err2, d, ahead = run_keys(trace, start + [":ahead", ":jobs hold"] + flips + held_again)
    shutil.rmtree(d, ignore_errors=True)
    for name in ["l" + k for k in "234567891"] + ["f2", "f8"]:
        got, want = ahead.get(name) or "", now.get(name) or ""
        report(rc == 0 and rc2 == 0 and want and "updating" not in got and
               "computing" not in got and got == want,
               "a level computed ahead shows at once, as computed (%s)" % name,
               "%s%s\n%s\n---\n%s" % (err, err2, want, got))


def check_compare_levels_ahead():
    """The compare view computes its other levels ahead too (:ahead), and the
    other match modes at its level: a first visit of each shows at once (its
    worker held by :jobs hold never runs), the same screen as compared then;
    so after both sides' runs change."""
    trace = os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")
    flips = []
    for key in "23456781":
        flips += [key, ":dump c" + key]
    flips += ["M", ":dump m1", "M", ":dump m2"]
    again = [":runs 1", ":other-runs 1", "2", ":dump r2"]
    rc, err, d, now = run_keys(trace, flips + again, [trace])
    shutil.rmtree(d, ignore_errors=True)
    rc2, err2, d, ahead = run_keys(trace, [":ahead", ":jobs hold"] + flips + again[:2] +
                                   [":ahead", ":jobs hold"] + again[2:], [trace])
    shutil.rmtree(d, ignore_errors=True)
    for name in ["c" + k for k in "23456781"] + ["m1", "m2", "r2"]:
        got, want = ahead.get(name) or "", now.get(name) or ""
        report(rc == 0 and rc2 == 0 and want and "updating" not in got and got == want,
               "compare: a level computed ahead shows at once, as compared (%s)" % name,
               "%s%s\n%s\n---\n%s" % (err, err2, want, got))


def check_compare_keys_first():
    """The compare view computes ahead first what Tab and M would show (a key
    away): with a budget that holds two comparisons of the sample with itself
    (about 240 KB each) and not a third, Tab and M show at once after :ahead
    (their workers held by :jobs hold never run), as compared then, and a
    level further away (4) is computed when asked."""
    trace = os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")
    for key in ("<Tab>", "M", "4"):
        rc, err, d, now = run_keys(trace, [":compare " + trace, key, ":dump k"])
        shutil.rmtree(d, ignore_errors=True)
        rc2, err2, d, ahead = run_keys(trace, [":budget 500000", ":compare " + trace, ":ahead",
                                               ":jobs hold", key, ":dump k"])
        shutil.rmtree(d, ignore_errors=True)
        got, want = ahead.get("k") or "", now.get("k") or ""
        if key == "4":
            report(rc == 0 and rc2 == 0 and "updating" in got,
                   "compare: a level two keys away does not fit, and is computed when asked",
                   err + err2 + got)
            continue
        report(rc == 0 and rc2 == 0 and want and "updating" not in got and got == want,
               "compare: %s computed ahead first shows at once, as compared" % key,
               "%s%s\n%s\n---\n%s" % (err, err2, want, got))


def check_compare_level_asked_again():
    """The compare view's level key for the level shown keeps its rows (no
    comparison computed again: a worker held by :jobs hold never runs)."""
    trace = os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")
    rc, err, d, dumps = run_keys(trace, [":compare " + trace, "j", ":dump a", ":jobs hold", "1",
                                         ":dump b"])
    shutil.rmtree(d, ignore_errors=True)
    a, b = dumps.get("a") or "", dumps.get("b") or ""
    report(rc == 0 and a and "updating" not in b and b.split("\n")[1:4] == a.split("\n")[1:4],
           "compare: the level shown asked again keeps its rows", "%s%s\n---\n%s" % (err, a, b))


def check_runs_computed_under():
    """Runs picked in the runs view are computed for the view under it while
    the runs view is still shown (views computing ahead, :ahead): back to
    the table or the compare view (their workers held by :jobs hold from
    then on), the rows come at once, the same screen as computed then; the
    compare view's other trace's runs (O) likewise."""
    trace = os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")
    held = [":jobs go", ":jobs hold", "<Esc>"]
    for other, picks in (([], ["R"]), ([trace], ["R", "O"])):
        now_keys, under_keys = [":find aten::addmm"], [":ahead", ":jobs hold", ":find aten::addmm"]
        for pick in picks:
            now_keys += [pick, "<Space>", "<Esc>"]
            under_keys += [pick, "<Space>"] + held
        rc, err, d, now = run_keys(trace, now_keys + [":dump b"], other)
        shutil.rmtree(d, ignore_errors=True)
        rc2, err2, d, under = run_keys(trace, under_keys + [":dump b"], other)
        shutil.rmtree(d, ignore_errors=True)
        got, want = under.get("b") or "", now.get("b") or ""
        report(rc == 0 and rc2 == 0 and want and "updating" not in got and
               "NOT COMPARED" not in want and got == want,
               "runs picked with %s are computed under the runs view, shown at once on Esc"
               % " then ".join(picks), "%s%s\n%s\n---\n%s" % (err, err2, want, got))


def check_states_met_again():
    """w computed ahead, and states met again (states.h): once the levels are
    computed ahead (:ahead), so are the rows shown under the runs w selects,
    and w shows them at once (their worker held by :jobs hold never runs);
    w again, or a filter typed then cleared, brings back the rows of the
    state met before at once, its levels computed ahead too; each the same
    screen as computed then. The compare view's comparisons likewise; after
    the other trace's runs change, every state is compared again."""
    trace = os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")
    start = [":find aten::addmm", ":sort count desc"]
    keys = ["w", ":dump w1", "w", ":dump w2", ":filter aten::*mm", ":dump f", ":filter",
            ":dump f0", "2", ":dump l2"]
    rc, err, d, now = run_keys(trace, start + keys)
    shutil.rmtree(d, ignore_errors=True)
    rc2, err2, d, held = run_keys(trace, start + [
        ":ahead", ":jobs hold", "w", ":dump w1", "w", ":dump w2", ":filter aten::*mm",
        ":jobs go", ":dump f", ":jobs hold", ":filter", ":dump f0", "2", ":dump l2"])
    shutil.rmtree(d, ignore_errors=True)
    report_at_once(rc == 0 and rc2 == 0, err + err2, now, held, ["w1", "w2", "f0", "l2"],
                   "updating", "a state computed ahead or met again shows at once (%s)")
    report(held.get("f") == now.get("f") and "aten::mm " in (now.get("f") or ""),
           "a new state is computed", "%s\n---\n%s" % (now.get("f"), held.get("f")))
    keys = [":filter aten::*", ":dump c1", ":filter", ":dump c0", ":other-runs 1",
            ":other-runs", ":dump o"]
    rc, err, d, now = run_keys(trace, keys, [trace])
    shutil.rmtree(d, ignore_errors=True)
    rc2, err2, d, held = run_keys(trace, [
        ":jobs hold", ":filter aten::*", ":jobs go", ":dump c1", ":jobs hold", ":filter",
        ":dump c0", ":other-runs 1", ":jobs go", ":jobs hold", ":other-runs", ":dump o"],
        [trace])
    shutil.rmtree(d, ignore_errors=True)
    report_at_once(rc == 0 and rc2 == 0, err + err2, now, held, ["c0"], "updating",
                   "compare: a state met again shows at once (%s)")
    report(held.get("c1") == now.get("c1") and "updating" in (held.get("o") or ""),
           "compare: after the other runs change, a state met before is compared again",
           held.get("o"))


def check_filter_typed_ahead():
    """A filter being typed is computed ahead (:ahead, with the prompt still
    open): Enter shows its rows at once (the worker held by :jobs hold never
    runs), the same screen as typed and entered at once; a text that is no
    filter (a bad regex) is not computed, and Enter says why."""
    trace = os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")
    rc, err, d, now = run_keys(trace, [":find aten::addmm", "/aten::*mm<Enter>", ":dump f"])
    shutil.rmtree(d, ignore_errors=True)
    rc2, err2, d, held = run_keys(trace, [":find aten::addmm", ":ahead", ":jobs hold",
                                          "/aten::*mm", ":ahead", ":jobs hold", "", ":dump f",
                                          "/re:(", ":ahead", "", ":dump bad"])
    shutil.rmtree(d, ignore_errors=True)
    report_at_once(rc == 0 and rc2 == 0, err + err2, now, held, ["f"], "updating",
                   "a filter typed is computed ahead, shown at once on Enter (%s)")
    bad = held.get("bad") or ""
    report("bad filter 're:('" in bad and "(filter kept)" in bad,
           "a text that is no filter is not computed ahead, and Enter refuses it", bad)
    # Enter while the filter typed (one key: its worker starts after it) is still
    # computed ahead: the rows come from there
    rc, err, d, now = run_keys(trace, [":find aten::addmm", "/*<Enter>", ":dump f"])
    shutil.rmtree(d, ignore_errors=True)
    rc2, err2, d, held = run_keys(trace, [":find aten::addmm", ":ahead", ":jobs hold", "/*", "",
                                          ":dump p", ":jobs go", ":dump f"])
    shutil.rmtree(d, ignore_errors=True)
    report(rc == 0 and rc2 == 0 and "updating" in (held.get("p") or "") and
           held.get("f") == now.get("f") and "filter: *" in (now.get("f") or ""),
           "Enter while the filter typed is computed ahead shows its rows when they come",
           "%s%s\n%s\n---\n%s" % (err, err2, now.get("f"), held.get("f")))


def check_states_random():
    """Random changes of runs, filter (typed, or by :filter), level, sort and
    name style, in the table and in the compare view (its match mode and
    other runs too), each screen after them the same whether computed at once or
    as on a big trace (:ahead after each, workers held by :jobs hold, the
    filter typed computed with its prompt still open): what is kept per
    state, guessed or computed ahead never shows another state's rows."""
    trace = os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")
    changes = ["w", "/aten::*mm", "/aten::*", "/re:^aten::(mm|addmm)$", ":filter", ":runs 1",
               ":runs", ":runs 0:2", "2", "3", "1", "8", "<Tab>", "<Esc>", "s", "r", "m"]
    compare = [":runs 1", ":runs", ":other-runs 1", ":other-runs", "M", "w", "w"]
    for seed, other in ((1, []), (2, []), (3, [trace])):
        rnd = random.Random(seed)
        steps = [rnd.choice(changes + (compare if other else [])) for _ in range(40)]
        now_keys, ahead_keys = [":find aten::addmm"], [":find aten::addmm", ":ahead", ":jobs hold"]
        for i, k in enumerate(steps):
            if k.startswith("/"):
                now_keys.append(k + "<Enter>")
                ahead_keys += [k, ":ahead", ":jobs hold", ""]
            else:
                now_keys.append(k)
                ahead_keys.append(k)
            ahead_keys += [":jobs go", ":ahead", ":jobs hold", ":dump s%02d" % i]
            now_keys.append(":dump s%02d" % i)
        rc, err, d, now = run_keys(trace, now_keys, other)
        shutil.rmtree(d, ignore_errors=True)
        rc2, err2, d, ahead = run_keys(trace, ahead_keys, other)
        shutil.rmtree(d, ignore_errors=True)
        body = lambda text: (text or "").rstrip("\n").rsplit("\n", 1)[0]  # not the status line
        differ = [n for n in sorted(now) if body(now[n]) != body(ahead.get(n))]
        report(rc == 0 and rc2 == 0 and len(now) == len(steps) and not differ,
               "random changes of state (seed %d%s): screens as computed at once"
               % (seed, ", the compare view" if other else ""),
               "%s%s %d dumps; differ at %s after %s" % (err, err2, len(now), differ[:3],
                                                          steps[:int(differ[0][1:]) + 1]
                                                          if differ else ""))


def check_compare_back_kept():
    """The compare view keeps the comparisons it leaves: back to a level or a
    match mode, the rows come at once (its worker held by :jobs hold never
    runs), the same screen as computed; after a filter change they are
    compared again."""
    trace = os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")
    rc, err, d, now = run_keys(trace, ["2", "1", ":dump c", ":filter aten::*", "2", ":dump f"],
                               [trace])
    shutil.rmtree(d, ignore_errors=True)
    rc2, err2, d, held = run_keys(trace, [":jobs hold", "2", ":jobs go", ":jobs hold", "1",
                                          ":dump c", ":filter aten::*", ":jobs go", "2",
                                          ":jobs go", ":dump f"], [trace])
    shutil.rmtree(d, ignore_errors=True)
    back, again = held.get("c") or "", held.get("f") or ""
    report(rc == 0 and rc2 == 0 and "updating" not in back and back == now.get("c"),
           "compare: a level left comes back at once, as computed",
           "%s%s\n%s\n---\n%s" % (err, err2, now.get("c"), back))
    report(again and again == now.get("f"),
           "compare: a level left is compared again after a filter change",
           "%s\n---\n%s" % (now.get("f"), again))


def check_compare_bars_follow_rows():
    """The compare view's bars (B) are drawn against the largest row shown: when
    o hides it, they grow as in a view opened with o already on. The other
    trace doubles every op but the one of the largest total, which o hides."""
    import json
    base = os.path.join(SAMPLES, "ort-resnet18-opt.json")
    events = json.load(open(base))
    total = {}
    for e in events:
        if e.get("cat") == "Node":
            op = e.get("args", {}).get("op_name", e["name"])
            total[op] = total.get(op, 0) + e["dur"]
    top = max(total, key=total.get)
    for e in events:
        if e.get("cat") == "Node" and e.get("args", {}).get("op_name", e["name"]) != top:
            e["dur"] *= 2
    d = tempfile.mkdtemp(prefix="opscope-tui-")
    other = os.path.join(d, "other.json")
    json.dump(events, open(other, "w"))
    rc, err, d1, late = run_keys(other, ["B", ":dump full", "o", ":dump o"], [base])
    rc2, err2, d2, first = run_keys(other, ["o", "B", ":dump o"], [base])
    for x in (d, d1, d2):
        shutil.rmtree(x, ignore_errors=True)
    shown = late.get("o") or ""
    report(rc == 0 and rc2 == 0 and top in (late.get("full") or "") and
           "\n%s " % top not in shown and shown == first.get("o"),
           "compare bars follow the rows o shows", "%s%s%s\n---\n%s" %
           (err, err2, shown, first.get("o")))


def check_whatif_in_background():
    """The what-if view computed in the background (held by :jobs hold): the
    old rows stay, marked updating, while it runs; once let go, the screen
    and its export (filtered, another level) are those of the view computed
    at once."""
    trace = os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")
    keys = ["W", ":filter aten::*", "<Tab>", ":dump w", "x", "w.csv"]
    rc, err, d, now = run_keys(trace, keys)
    want = read(d, "w.csv")
    shutil.rmtree(d, ignore_errors=True)
    rc2, err2, d, held = run_keys(trace, [":jobs hold", "W", ":dump u", ":filter aten::*",
                                          "<Tab>", ":jobs go"] + keys[3:])
    got = read(d, "w.csv")
    shutil.rmtree(d, ignore_errors=True)
    waiting = held.get("u") or ""
    report(rc == 0 and rc2 == 0 and "updating..." in waiting and "projecting..." in waiting,
           "what-if held in the background: updating, no rows yet", err + err2 + waiting)
    report(now.get("w") and now.get("w") == held.get("w") and want and want == got,
           "what-if computed in the background: the same screen and export",
           "%s\n---\n%s" % (now.get("w"), held.get("w")))
    # a factor projects the rows shown again (on a worker, held here): no new aggregate
    rc, err, d, dumps = run_keys(trace, [":jobs hold", "W", ":jobs go", "x", "none.csv",
                                         ":jobs hold", "=", "2", ":dump u", ":jobs go",
                                         "x", "r.csv", "y", ":dump shown"])
    shown = shown_command(dumps.get("shown") or "")
    waiting = dumps.get("u") or ""
    report(rc == 0 and "updating..." in waiting and "(1 rules" in waiting and
           shown is not None and shown[:2] == ["opscope", "whatif"] and
           read(d, "r.csv") != read(d, "none.csv") and command_csv(shown, d) == read(d, "r.csv"),
           "what-if factor projected in the background: the export is the command's",
           err + waiting + (dumps.get("shown") or ""))
    shutil.rmtree(d, ignore_errors=True)


def check_whatif_every_level():
    """W with no rule on every level of a trace with device events (its rows lent by the
    table): x writes `opscope whatif` with a rule that matches nothing, the same figures."""
    trace = os.path.join(SAMPLES, "kineto-2021-resnet50.json.gz")
    levels = ["op", "shape", "kernel", "dims", "mapping", "run", "path", "category"]
    keys = []
    for i, _ in enumerate(levels):
        keys += [str(i + 1), "W", "x", "w%d.csv" % i, "q"]
    rc, err, d, _ = run_keys(trace, keys)
    for i, level in enumerate(levels):
        want = cli_csv("whatif", "--by", level, "-x", "nothing=2", trace)
        report(rc == 0 and want and read(d, "w%d.csv" % i) == want,
               "what-if %s, no rule: x equals whatif -x nothing=2" % level, err)
    shutil.rmtree(d, ignore_errors=True)


def check_compare_changed_options():
    """--changed and --min-change open the compare view on the rows that changed by that
    much (its title says so), and x writes `opscope diff` with them."""
    trace = os.path.join(SAMPLES, "kineto-2021-resnet50.json.gz")
    runs = ["--runs", "1", "--other-runs", "2"]
    for opts, pct in ((["--changed", "--min-change", "50"], "50"), (["--changed"], "0")):
        rc, err, d, dumps = run_keys(trace, [":dump c", "x", "c.csv"], runs + opts)
        want = cli_csv("diff", trace, *(runs + opts))
        title = (dumps.get("c") or "").split("\n")[0]
        report(rc == 0 and want and read(d, "c.csv") == want and
               ("rows changed >= %s%%" % pct) in title and want != cli_csv("diff", trace, *runs),
               "compare %s: x equals diff with it" % " ".join(opts), err + title)
        shutil.rmtree(d, ignore_errors=True)


def check_whatif_lends_rows():
    """The what-if view projects the rows of the table under it (lent, not
    aggregated again): back from it (q), the table's export is the report's,
    whether the what-if view went to other levels, or the filter changed
    meanwhile (then the table's rows are the new filter's). At the category
    level the rows follow the user's --categories, as `opscope whatif`'s."""
    trace = os.path.join(SAMPLES, "kineto-2021-resnet50.json.gz")
    for keys, args in ((["W", "q"], []), (["W", "<Tab>", "<Tab>", "q"], []),
                       (["W", ":filter aten::*", "q"], ["--filter", "aten::*"]),
                       (["2", "W", "<Tab>", "q", "q"], [])):
        rc, err, d, _ = run_keys(trace, keys + ["x", "t.csv"])
        want = report_csv(trace, *args)
        report(rc == 0 and want and read(d, "t.csv") == want,
               "table after what-if %s: x equals report %s" % (" ".join(keys), " ".join(args)),
               err)
        shutil.rmtree(d, ignore_errors=True)
    with tempfile.TemporaryDirectory() as rules_dir:
        rules = os.path.join(rules_dir, "cat.txt")
        with open(rules, "w") as f:
            f.write("reduce op aten::cudnn_convolution\n")
        rc, err, d, _ = run_keys(trace, ["8", "W", "x", "w.csv"], ["--categories", rules])
        want = cli_csv("whatif", "--by", "category", "--categories", rules, "-x", "nothing=2",
                       trace)
        plain = cli_csv("whatif", "--by", "category", "-x", "nothing=2", trace)
        report(rc == 0 and want != plain and read(d, "w.csv") == want,
               "what-if by category: x equals whatif with --categories", err)
        shutil.rmtree(d, ignore_errors=True)


def check_compare_in_background():
    """A compare level computed in the background (held by :jobs hold): the old
    rows stay, marked updating; once let go, screen and export (filtered)
    are those of the level computed at once."""
    trace = os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")
    keys = [":dump c", "x", "c.csv"]
    rc, err, d, now = run_keys(trace, [":filter aten::*", "2"] + keys, [trace])
    want = read(d, "c.csv")
    shutil.rmtree(d, ignore_errors=True)
    rc2, err2, d, held = run_keys(trace, [":jobs hold", "2", ":dump u", ":filter aten::*",
                                          ":jobs go"] + keys, [trace])
    got = read(d, "c.csv")
    shutil.rmtree(d, ignore_errors=True)
    waiting = held.get("u") or ""
    report(rc == 0 and rc2 == 0 and "updating..." in waiting,
           "compare held in the background: the old rows, updating", err + err2 + waiting)
    report(now.get("c") and now.get("c") == held.get("c") and want and want == got,
           "compare computed in the background: the same screen and export",
           "%s\n---\n%s" % (now.get("c"), held.get("c")))


def check_export_path():
    """The path level exports what `report --by path` prints; K's kernel table is
    not a report (the status line says so)."""
    trace = os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")
    rc, err, d, dumps = run_keys(trace, ["7", ":sort count", "x", "p.csv", ":dump p",
                                         "K", "x", "k.csv", ":dump k"])
    report(read(d, "p.csv") == report_csv(trace, "--by", "path", "--sort", "count"),
           "export: path level equals report --by path", err)
    line = (dumps.get("k") or "").replace("\n", "")
    report(read(d, "k.csv").startswith(b"name,count") and "no equivalent" in line,
           "export: K's kernel table says it has no report equivalent", line)
    shutil.rmtree(d, ignore_errors=True)
    # 8 is the category level, in the table and in the compare view
    rc, err, d, _ = run_keys(trace, ["8", "x", "c.csv"])
    want = report_csv(trace, "--by", "category")
    report(rc == 0 and read(d, "c.csv") == want and b"GEMM" in want,
           "export: 8 (category level) equals report --by category", err)
    shutil.rmtree(d, ignore_errors=True)
    rc, err, d, _ = run_keys(trace, ["8", "x", "d.csv"], [trace])
    want = cli_csv("diff", "--by", "category", trace, trace)
    report(rc == 0 and read(d, "d.csv") == want and b"GEMM" in want,
           "compare export: 8 equals diff --by category", err)
    shutil.rmtree(d, ignore_errors=True)
    rc, err, d, dumps = run_keys(os.path.join(SAMPLES, "ort-cnn-opt.json"), ["K", ":dump n"])
    report("launched no kernel" in (dumps.get("n") or ""), "K on an op without kernels says so",
           dumps.get("n") or err)
    shutil.rmtree(d, ignore_errors=True)


def decimal_comma_locale():
    """Variables selecting de_DE.UTF-8 (a decimal comma), made with localedef
    into a temporary LOCPATH when the system lacks it; None if it cannot be made."""
    probe = [sys.executable, "-c",
             "import locale; locale.setlocale(locale.LC_ALL, ''); "
             "print(locale.localeconv()['decimal_point'])"]
    env = {"LC_ALL": "de_DE.UTF-8"}
    p = subprocess.run(probe, env=dict(os.environ, **env), capture_output=True, text=True)
    if p.returncode == 0 and p.stdout.strip() == ",":
        return env
    d = tempfile.mkdtemp(prefix="opscope-locale-")
    try:
        subprocess.run(["localedef", "-i", "de_DE", "-f", "UTF-8",
                        os.path.join(d, "de_DE.UTF-8")], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    env["LOCPATH"] = d
    p = subprocess.run(probe, env=dict(os.environ, **env), capture_output=True, text=True)
    return env if p.returncode == 0 and p.stdout.strip() == "," else None


def check_locale():
    """A decimal-comma locale (de_DE.UTF-8) changes no number the TUI reads or
    writes: '=' reads 2.5 as two and a half, the what-if CSV and the screen
    write points, and "2,5" is refused as a factor, saying why."""
    env = decimal_comma_locale()
    if env is None:
        print("SKIP locale: de_DE.UTF-8 is missing and localedef cannot make it")
        return
    trace = os.path.join(SAMPLES, "ort-cnn-opt.json")
    rc, err, d, dumps = run_keys(trace, ["W", "=", "2.5", "x", "w.csv", ":dump w",
                                         "=", "2,5", ":dump comma"], env=env)
    want = cli_csv("whatif", "-x", "Conv=2.5", trace)
    got = read(d, "w.csv")
    report(rc == 0 and want and got == want, "de_DE locale: '=' 2.5 and the CSV equal whatif "
           "-x Conv=2.5 in C", "got %r\nwant %r\n%s" % (got[:300], want[:300], err))
    screen = dumps.get("w") or ""
    report("4786.000" in screen and not re.search(r"\d,\d{3}\b", screen),
           "de_DE locale: the screen writes decimal points", screen)
    report("'2,5' is not a number: factors take a decimal point" in (dumps.get("comma") or ""),
           "de_DE locale: '2,5' is refused with a message", dumps.get("comma") or "")
    shutil.rmtree(d, ignore_errors=True)
    if env.get("LOCPATH"):
        shutil.rmtree(env["LOCPATH"], ignore_errors=True)


def check_export_tree():
    """x in the call tree writes plain names with their depth and $$ path (no
    drawing), launch_ms (runtime calls that started device work) and
    other_rt_ms (the other runtime calls) adding up to `opscope tree`'s launch
    time of the same path; the status line names the tree command. The split
    compare layout writes the key on both lines of a pair."""
    import csv
    import io
    for name in ("kineto-sampled-rank0.json.gz", "nvprof-lstm-pyprof.sql.gz"):
        trace = os.path.join(SAMPLES, name)
        rc, err, d, dumps = run_keys(trace, [":level kernel", "T", "E", "x", "t.csv", "y",
                                             ":dump x"])
        rows = list(csv.reader(io.StringIO(read(d, "t.csv").decode("utf-8"))))
        report(rc == 0 and rows and rows[0] == ["name", "depth", "path", "total_ms", "self_ms",
                                                "device_ms", "launch_ms", "other_rt_ms",
                                                "count"],
               "tree export %s: its columns" % name, repr(rows[:1]) + err)
        body = rows[1:]
        glyphs = [r[0] for r in body if any(g in r[0] for g in "\u2500\u2502\u251c\u2514\u25bc\u25b6")]
        report(body and not glyphs and
               all(int(r[1]) == r[2].count("$$") and r[2].endswith(r[0]) for r in body),
               "tree export %s: plain names, depth and path" % name, repr(glyphs[:3]))
        p = subprocess.run([opscope(), "tree", trace, "--format", "csv"], capture_output=True,
                           env=env_for(80, 24, False))
        cli = {r[0]: r for r in csv.reader(io.StringIO(p.stdout.decode("utf-8")))}
        col = cli.get("name", [""]).index("launch_total_us") if "name" in cli else 0
        bad = [r[2] for r in body if r[2] not in cli or  # the TUI's ms, the CLI's us
               abs(float(r[6]) + float(r[7]) - float(cli[r[2]][col]) / 1000) > 0.0015]
        report(body and not bad, "tree export %s: launch_ms + other_rt_ms = tree's launch time"
               % name, repr(bad[:3]))
        report("opscope tree %s" % trace in view_command(dumps.get("x")),
               "tree export %s: the status line names the tree command" % name,
               dumps.get("x") or "")
        if name.startswith("nvprof"):
            report(any(float(r[7]) > 0 for r in body) and
                   any(float(r[6]) > 0 for r in body),
                   "tree export %s: runtime calls without device work count apart" % name)
        shutil.rmtree(d, ignore_errors=True)
    # A name ending in .folded gets the folded stacks of `opscope flame`.
    for name in ("kineto-sampled-rank0.json.gz", "nvprof-lstm-pyprof.sql.gz"):
        trace = os.path.join(SAMPLES, name)
        rc, err, d, dumps = run_keys(trace, [":level kernel", "T", "x", "t.folded", ":dump x"])
        p = subprocess.run([opscope(), "flame", trace], capture_output=True,
                           env=env_for(80, 24, False))
        got = read(d, "t.folded")
        report(rc == 0 and got and got == p.stdout and "folded stacks" in (dumps.get("x") or ""),
               "tree export %s to .folded equals opscope flame" % name,
               err + (dumps.get("x") or "")[-300:])
        shutil.rmtree(d, ignore_errors=True)
    noopt, opt = os.path.join(SAMPLES, "ort-cnn-noopt.json"), os.path.join(SAMPLES,
                                                                          "ort-cnn-opt.json")
    rc, err, d, _ = run_keys(opt, ["|", "x", "s.csv"], [noopt])
    rows = list(csv.reader(io.StringIO(read(d, "s.csv").decode("utf-8"))))
    report(rc == 0 and len(rows) > 2 and all(r[0] for r in rows[1:]) and
           all(rows[i][0] == rows[i + 1][0] for i in range(1, len(rows) - 1, 2)),
           "split compare export: both lines of a pair carry the key", repr(rows[:5]) + err)
    shutil.rmtree(d, ignore_errors=True)


def check_terms():
    """The screen's text does not depend on the terminal type."""
    script = os.path.join(SCRIPTS, "basic.script")
    _, _, d, ref = run_script(script, 80, 24)
    shutil.rmtree(d, ignore_errors=True)
    for term in TERMS:
        rc, err, d, dumps = run_script(script, 80, 24, term=term)
        report(rc == 0 and dumps == ref, "TERM=%s gives the same screens" % term,
               "rc=%d %s" % (rc, err))
        shutil.rmtree(d, ignore_errors=True)


def check_errors():
    d = tempfile.mkdtemp(prefix="opscope-tui-")
    s = os.path.join(d, "q.script")
    with open(s, "w") as f:
        f.write("q\n")
    bad = os.path.join(d, "bad.json")
    with open(bad, "w") as f:
        f.write("this is not json")
    p = subprocess.run([opscope(), "--script", s, bad], env=env_for(80, 24, False),
                       capture_output=True, timeout=60)
    err = p.stderr.decode()
    report(p.returncode == 2 and err.count("\n") == 1 and "bad.json" in err,
           "a bad trace exits 2 with one line", err)
    env = env_for(80, 24, False)
    env.pop("TERM")
    p = subprocess.run([opscope(), "--script", s, os.path.join(SAMPLES, "ort-cnn-opt.json")],
                       env=env, capture_output=True, timeout=60)
    report(p.returncode == 2 and b"TERM" in p.stderr, "--script without TERM fails cleanly",
           p.stderr.decode())
    p = subprocess.run([opscope(), "--script", os.path.join(d, "missing.script")],
                       env=env_for(80, 24, False), capture_output=True, timeout=60)
    report(p.returncode == 2 and b"missing.script" in p.stderr, "a missing script exits 2")
    shutil.rmtree(d, ignore_errors=True)


def check_man_keys():
    exe = os.path.join(os.path.dirname(os.path.dirname(opscope())), "tui", "opscope-keys-man")
    man = os.path.join(ROOT, "man", "opscope.1")
    if not os.path.exists(exe) or not os.path.exists(man):
        report(False, "man keys: generator or man page missing", exe)
        return
    table = subprocess.run([exe], capture_output=True, text=True).stdout
    text = open(man, encoding="utf-8").read()
    m = re.search(r'^\.\\" KEYS-BEGIN\n(.*?)^\.\\" KEYS-END\n', text, re.S | re.M)
    report(m is not None and m.group(1) == table,
           "man page key table matches the action table (run tests/tui/gen_man_keys.py)")


def check_man_commands():
    """Every command the command line takes (command.c's names) is in the man
    page's Commands and scripts, and the man page names no other."""
    src = open(os.path.join(ROOT, "src", "tui", "command.c"), encoding="utf-8").read()
    text = open(os.path.join(ROOT, "man", "opscope.1"), encoding="utf-8").read()
    taken = set(re.findall(r'strcmp\(name, "([a-z-]+)"\)', src))
    m = re.search(r"^\.SS Commands and scripts\n(.*?)^\.SH ", text, re.S | re.M)
    named = set(n.replace("\\-", "-") for n in
                re.findall(r'^\.B[IR]? "?:([a-z\\-]+)', m.group(1) if m else "", re.M))
    report(taken and taken == named, "man page lists the commands the command line takes",
           "only in command.c: %s; only in the man page: %s"
           % (sorted(taken - named), sorted(named - taken)))


def read_until(fd, want, timeout):
    """Bytes read from fd until want appears (or the timeout, or EOF)."""
    got, end = b"", time.monotonic() + timeout
    while want not in got and time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            got += chunk
    return got


def default_signals():
    """In the child: SIGINT and SIGQUIT as a terminal's shell leaves them. A
    shell without job control ignores them in what it starts with '&' (CI
    started so), and opscope rightly leaves ignored signals ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def on_pty(args, cwd=None):
    """Start opscope on a new pseudo-terminal (stderr apart): (proc, master, slave)."""
    master, slave = os.openpty()
    env = env_for(80, 24, False)
    p = subprocess.Popen([opscope()] + args, stdin=slave, stdout=slave, stderr=subprocess.PIPE,
                         env=env, cwd=cwd, start_new_session=True, preexec_fn=default_signals)
    return p, master, slave


def finish_pty(p, master, timeout=10):
    """Read the terminal until the process ends; (return code, output, stderr)."""
    out, end = b"", time.monotonic() + timeout
    while p.poll() is None and time.monotonic() < end:
        out += read_until(master, b"\0never", 0.1)
    if p.poll() is None:
        p.kill()
    out += read_until(master, b"\0never", 0.2)
    return p.wait(), out, p.stderr.read()


def loading_from_silent_pipe():
    """opscope on a new pseudo-terminal, loading from a pipe whose writer sent
    '[' and no more: (folder, pipe, proc, master, slave, writer fd, screen)."""
    d = tempfile.mkdtemp(prefix="opscope-tui-")
    fifo = os.path.join(d, "trace.fifo")
    os.mkfifo(fifo)
    p, master, slave = on_pty([fifo])
    w = os.open(fifo, os.O_WRONLY)
    os.write(w, b"[")
    return d, fifo, p, master, slave, w, read_until(master, b"Loading", 20)


def check_signals():
    """On a real terminal: every signal that ends the TUI leaves the terminal as
    it found it (the alternate screen left, echo and line mode back), and the
    process still dies of the signal; <C-c> while a load waits on a pipe ends
    it with exit 130 and one line."""
    trace = os.path.join(SAMPLES, "ort-cnn-opt.json")
    for sig in (signal.SIGQUIT, signal.SIGUSR1, signal.SIGPIPE, signal.SIGTERM, signal.SIGHUP):
        p, master, slave = on_pty([trace])
        shown = read_until(master, b"model_run", 20)
        p.send_signal(sig)
        rc, out, _ = finish_pty(p, master)
        mode = termios.tcgetattr(slave)
        os.close(master)
        os.close(slave)
        name = signal.Signals(sig).name
        report(b"\x1b[?1049h" in shown and rc == -sig, "%s ends the TUI by the signal" % name,
               "rc=%s" % rc)
        report(b"\x1b[?1049l" in out and mode[3] & termios.ECHO and mode[3] & termios.ICANON,
               "%s restores the terminal" % name, repr(out[-200:]))
        # the handler writes what endwin would, made ready at start (no curses call in it)
        report(b"1000l" in out and b"\x1b[?25h" in out and b"\x1b>" in out,
               "%s turns the mouse and the keypad mode off and shows the cursor" % name,
               repr(out[-200:]))
    d, fifo, p, master, slave, w, shown = loading_from_silent_pipe()
    p.send_signal(signal.SIGINT)
    rc, out, err = finish_pty(p, master)
    os.close(w)
    os.close(master)
    os.close(slave)
    lines = err.decode("utf-8", "replace").splitlines()
    report(b"Loading" in shown and rc == 130 and len(lines) == 1 and "interrupted" in lines[0] and
           fifo in lines[0], "<C-c> while loading from a silent pipe: exit 130, one line",
           "rc=%s stderr=%r" % (rc, lines))
    shutil.rmtree(d, ignore_errors=True)
    # A write cut by a signal (here the file size limit: SIGXFSZ) leaves no temporary file.
    d = tempfile.mkdtemp(prefix="opscope-tui-")
    s = os.path.join(d, "x.script")
    with open(s, "w") as f:
        f.write("x\nout.csv\n")

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))
    p = subprocess.run([opscope(), "--script", s, trace], cwd=d, env=env_for(80, 24, False),
                       capture_output=True, timeout=60, preexec_fn=limit)
    report(p.returncode == -signal.SIGXFSZ and os.listdir(d) == ["x.script"],
           "an export cut by a signal leaves no temporary file",
           "rc=%s files=%s" % (p.returncode, os.listdir(d)))
    shutil.rmtree(d, ignore_errors=True)


def cpu_seconds(pid):
    """User and system CPU time of process pid so far, in seconds (from /proc)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def end_within(p, seconds):
    """p's return code once it ends within seconds; else, killed, what it was doing."""
    try:
        return p.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        doing = "running, %.1f s of CPU" % cpu_seconds(p.pid)
        p.kill()
        p.wait()
        return doing


def check_hangup():
    """A terminal that hangs up (its other side closed, as when an ssh connection
    is lost) ends the explorer, at the table and while loading, even without a
    controlling terminal to send SIGHUP (curses then reads nothing, at once,
    forever: it spun at full speed)."""
    trace = os.path.join(SAMPLES, "ort-cnn-opt.json")
    p, master, slave = on_pty([trace])
    read_until(master, b"model_run", 20)
    os.close(slave)
    os.close(master)
    rc = end_within(p, 5)
    report(rc == 0, "a hung-up terminal ends the explorer at its table", "rc=%s" % rc)
    d, fifo, p, master, slave, w, shown = loading_from_silent_pipe()
    os.close(slave)
    os.close(master)
    rc = end_within(p, 5)
    os.close(w)
    report(b"Loading" in shown and rc == 0,
           "a hung-up terminal ends the explorer while it loads (status 0)", "rc=%s" % rc)
    shutil.rmtree(d, ignore_errors=True)


def main():
    opscope()
    check_signals()
    check_hangup()
    check_screens()
    check_export()
    check_export_ranks()
    check_export_rank_rows()
    check_export_names()
    check_instances_restyle()
    check_export_runs()
    check_export_path()
    check_export_busy()
    check_first_answer_pending()
    check_tree_of_an_op_type()
    check_tree_in_background()
    check_level_flip_in_background()
    check_level_back_kept()
    check_gpu_tables_in_background()
    check_compare_bars_follow_rows()
    check_gpu_tables_ahead()
    check_whole_tree_early()
    check_whatif_early()
    check_whatif_rules_in_place()
    check_find_in_sorted_views()
    check_views_closed_apart()
    check_early_over_budget()
    check_levels_ahead()
    check_compare_levels_ahead()
    check_compare_keys_first()
    check_compare_level_asked_again()
    check_runs_computed_under()
    check_compare_back_kept()
    check_states_met_again()
    check_filter_typed_ahead()
    check_states_random()
    check_whatif_in_background()
    check_whatif_lends_rows()
    check_compare_changed_options()
    check_whatif_every_level()
    check_tree_title_names_the_row()
    check_compare_in_background()
    check_export_compare()
    check_export_gpu()
    check_export_timeline()
    check_export_dist()
    check_name_style_kept()
    check_export_tree()
    check_terms()
    check_locale()
    check_errors()
    check_man_keys()
    check_man_commands()
    check_config()
    check_sample_hint()
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
