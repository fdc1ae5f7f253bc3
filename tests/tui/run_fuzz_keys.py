#!/usr/bin/env python3
"""Random keys through the TUI (--script) on five kinds of trace.

Each trace gets scripts of random keys drawn from every key of the action
table (src/tui/actions.h: levels, views, folds, the detail pane `d`, prompts
with random text typed into them), plus a few commands (:compare with the
same trace, :resize to tiny, narrow and wide screens, :level, :runs, :ahead:
the levels computed ahead on a worker from then on), at
80x24 and 200x50, in UTF-8 and C locales. A run fails on a non-zero exit,
anything on stderr (ASan/UBSan reports), or a hang; the script of a failure
is kept and its path printed, so it can be replayed with
`opscope --script FILE TRACE`.

Deterministic: the seed is fixed (OPSCOPE_FUZZ_SEED to change it); the
number of keys per trace is OPSCOPE_FUZZ_KEYS (default 600: a few seconds);
OPSCOPE_FUZZ_TRACES=shared takes bigger traces of ../shared/traces instead.
Traces: the Kineto CUDA, ROCm, ORT and nvprof samples, and an Nsight
Systems SQLite export (../shared/traces when present, else a synthetic one
made by tests/tools/make_nsys2022_db.py). Exit 1 on any failure.
"""
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.environ.get("OPSCOPE_SOURCE_ROOT") or
                       os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SAMPLES = os.path.join(ROOT, "samples")
SHARED = os.path.join(ROOT, "..", "shared", "traces")
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))

KEYS_PER_TRACE = int(os.environ.get("OPSCOPE_FUZZ_KEYS", "600"))
SEED = int(os.environ.get("OPSCOPE_FUZZ_SEED", "16"))
CHUNK = 150  # keys per script: a quit ends a script early, the next one goes on
TIMEOUT = 120

# Keys that end the TUI at once (an early end wastes the rest of a script).
QUIT_KEYS = {"Q", "<C-c>"}
PROMPT_TEXT = list("abcdefxyzACMT*?[].:_-0123456789 ") + \
    ["re:", "Conv", "aten::", "<Backspace>", "<Right>", "<End>", "<C-u>", "<Lt>"]


def action_keys():
    """Every key bound in src/tui/actions.h, in the script syntax."""
    text = open(os.path.join(ROOT, "src", "tui", "actions.h"), encoding="utf-8").read()
    keys = []
    for m in re.finditer(r'_\(\s*\w+,\s*"[^"]+",\s*"([^"]*)"', text):
        keys += m.group(1).split()
    return sorted(set(keys))


# OPSCOPE_FUZZ_TRACES=shared: bigger real traces of ../shared/traces, one per kind.
SHARED_SET = [
    ("kineto-cuda", "kineto/resnet50_num_workers_0/worker0.pt.trace.json.gz"),
    ("rocm", "tracelens/sglang_decode/sglang_Qwen3-8B_decode.json.gz"),
    ("ort", "generated/ort-bert-mini-dyn-opt.json"),
    ("nsys", "pipit/perlmutter-cloverleaf-cuda.sqlite"),
    ("nvprof", "profiling-lm/net.sql"),
]


def traces(tmp):
    if os.environ.get("OPSCOPE_FUZZ_TRACES") == "shared":
        found = [(n, os.path.join(SHARED, p)) for n, p in SHARED_SET]
        return [(n, p) for n, p in found if os.path.exists(p)]
    out = [("kineto-cuda", os.path.join(SAMPLES, "kineto-sampled-rank0.json.gz")),
           ("rocm", os.path.join(SAMPLES, "rocm-torch-compile-triton.json.gz")),
           ("ort", os.path.join(SAMPLES, "ort-cnn-opt.json")),
           ("nvprof", os.path.join(SAMPLES, "nvprof-lstm-pyprof.sql.gz")),
           ("job", os.path.join(ROOT, "tests", "data", "ranks"))]  # the ranks view
    shared = os.path.join(SHARED, "nvfuser", "report1.sqlite")
    if os.path.exists(shared):
        out.append(("nsys", shared))
    else:
        import make_nsys2022_db
        path = os.path.join(tmp, "nsys2022.sqlite")
        make_nsys2022_db.make(path)
        out.append(("nsys-synthetic", path))
    return out


def script_for(rng, keys, n, trace):
    """A script of about n random keys (and a few commands), one line per burst."""
    lines, sent = [], 0
    weights = {k: 1.0 for k in keys}
    for k in ("j", "k", "<Enter>", "d", "<Tab>", "T"):
        weights[k] = 3.0  # moves, drilling, the pane, levels, the tree
    for k in ("q", "<Left>", "<Backspace>"):
        weights[k] = 0.4  # back: quits from the first view
    for k in QUIT_KEYS:
        weights[k] = 0.0
    pool, w = zip(*weights.items())
    while sent < n:
        r = rng.random()
        if r < 0.03:
            lines.append(rng.choice([":compare " + trace, ":resize 5 20", ":resize 24 80",
                                     ":resize 50 200", ":resize 3 11", ":level path",
                                     ":level mapping", ":runs all", ":runs 0", ":top 3",
                                     ":sort count asc", ":export", ":dump screen.txt",
                                     ":ahead"]))
            sent += 1
            continue
        burst = rng.choices(pool, w, k=rng.randint(1, 6))
        line = ""
        for key in burst:
            line += key
            if key in ("/", "f", "=", ":", "t", "x", "n", "N") and rng.random() < 0.8:
                # text typed into the prompt this key may open, then usually Enter or Esc
                line += "".join(rng.choice(PROMPT_TEXT) for _ in range(rng.randint(0, 6)))
                line += rng.choice(["<Enter>", "<Enter>", "<Esc>", ""])
        lines.append(line)
        sent += len(burst)
    return "\n".join(lines) + "\n:dump end.txt\n", sent


def run_one(trace, script, cols, lines, utf8, d):
    env = dict(os.environ)
    for k in ("NO_COLOR", "LANG", "LANGUAGE", "LC_CTYPE"):
        env.pop(k, None)
    env.update({"TERM": "xterm-256color", "COLUMNS": str(cols), "LINES": str(lines),
                "LC_ALL": "C.UTF-8" if utf8 else "C", "TZ": "UTC",
                "OPSCOPE_TUI_TIMING": os.path.join(d, "timing.txt")})
    path = os.path.join(d, "keys.script")
    with open(path, "w", encoding="utf-8") as f:
        f.write(script)
    try:
        p = subprocess.run([os.environ["OPSCOPE"], "--script", path, trace], cwd=d, env=env,
                           capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return "hang (no exit in %d s)" % TIMEOUT, 0
    # a job's inputs each print a progress line before the screen opens
    err = "".join(l for l in p.stderr.decode("utf-8", "replace").splitlines(True)
                  if not re.match(r"opscope: \[\d+/\d+\] ", l))
    timing = os.path.join(d, "timing.txt")
    handled = (sum(1 for l in open(timing) if not l.rstrip().endswith(", shown"))
               if os.path.exists(timing) else 0)
    if p.returncode != 0 or err.strip():
        return "exit %d: %s" % (p.returncode, err[-3000:]), handled
    return None, handled


def main():
    if not os.access(os.environ.get("OPSCOPE", ""), os.X_OK):
        print("OPSCOPE is not set to an executable opscope binary\n0 passed, 1 failed")
        return 1
    keys = action_keys()
    tmp = tempfile.mkdtemp(prefix="opscope-fuzz-")
    keep = os.path.join(tempfile.gettempdir(), "opscope-fuzz-failures")
    passed = failed = total = handled = 0
    start = time.time()
    chosen = traces(tmp)
    for ti, (name, trace) in enumerate(chosen):
        rng = random.Random(SEED * 1000 + ti)
        done, chunk = 0, 0
        while done < KEYS_PER_TRACE:
            # nested: '../' in a random export name stays inside the temporary directory
            d = os.path.join(tmp, "%s-%d" % (name, chunk), "a", "b", "c")
            os.makedirs(d)
            script, sent = script_for(rng, keys, min(CHUNK, KEYS_PER_TRACE - done), trace)
            cols, lines = rng.choice([(80, 24), (200, 50), (40, 12)])
            utf8 = rng.random() < 0.7
            problem, inputs = run_one(trace, script, cols, lines, utf8, d)
            total += sent
            handled += inputs
            if problem:
                failed += 1
                os.makedirs(keep, exist_ok=True)
                saved = os.path.join(keep, "%s-seed%d-%d.script" % (name, SEED, chunk))
                shutil.copy(os.path.join(d, "keys.script"), saved)
                print("FAIL fuzz %s (%s) chunk %d at %dx%d %s: %s\n  replay: %s" %
                      (name, os.path.basename(trace), chunk, cols, lines,
                       "UTF-8" if utf8 else "C", problem, saved))
            else:
                passed += 1
            done += sent
            chunk += 1
    shutil.rmtree(tmp, ignore_errors=True)
    print("fuzz: %d keys sent, %d inputs handled (keys, prompt answers, commands) on %d "
          "traces in %d scripts, %.1f s, seed %d" %
          (total, handled, len(chosen), passed + failed, time.time() - start,
           SEED))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
