#!/usr/bin/env python3
"""The shell completions (completions/) complete what the binary accepts.

bash: completions/opscope.bash is sourced and _opscope run on set COMP_WORDS,
with the binary under test as the command word; the candidates are compared
with what the binary itself says (its --help, the valid levels of a --by
error, its column table through --complete-columns, files on disk). zsh:
completions/_opscope is syntax-checked and run with compadd and _files
stubbed to print what they are given, when zsh is installed (skip otherwise).
meson.build installs both.

Environment: OPSCOPE (the binary), OPSCOPE_SOURCE_ROOT (the repo root).
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)) + "/../cli")
import testlib  # noqa: E402

ROOT = testlib.ROOT
BASH = os.path.join(ROOT, "completions", "opscope.bash")
ZSH = os.path.join(ROOT, "completions", "_opscope")


def complete(words):
    """Candidates of _opscope for the words; the last one is being completed."""
    script = ('source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _opscope; '
              'printf "%s\\n" "${COMPREPLY[@]}"')
    p = subprocess.run(["bash", "-c", script, "bash", BASH, testlib.opscope()] + words,
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    if p.returncode or p.stderr:
        return ["<rc %d: %s>" % (p.returncode, p.stderr.strip())]
    return sorted(x for x in p.stdout.split("\n") if x)


def zsh_complete(words):
    """What _opscope offers for words (the last being completed), with compadd
    and _files stubbed to print (zsh filters by the prefix itself)."""
    script = ('compadd() { while (( $# )); do [[ $1 == -a ]] && { print -l -- ${(P)2}; '
              'return; }; shift; done; }; compset() { return 1; }; '
              '_files() { print -- "<files>"; }; '
              't() { local -a words; local CURRENT PREFIX; words=("$@"); CURRENT=$#; '
              'PREFIX=${@[-1]}; source "$ZSH_FILE"; }; t "$@"')
    p = subprocess.run(["zsh", "-f", "-c", script, "zsh", testlib.opscope()] + words,
                       capture_output=True, text=True, cwd=ROOT, timeout=60,
                       env=dict(os.environ, ZSH_FILE=ZSH))
    if p.returncode or p.stderr:
        return ["<rc %d: %s>" % (p.returncode, p.stderr.strip())]
    return sorted(x for x in p.stdout.split("\n") if x)


def out(*args):
    p = testlib.run(list(args))
    return p.text + p.err.decode("utf-8", "replace")


def expect(res, words, want):
    got = complete(words)
    want = sorted(want)
    res.check("complete %r" % " ".join(words),
              [] if got == want else ["got %r, want %r" % (got, want)])


def help_longs(cmd):
    text = out(*([cmd] if cmd else []), "--help")
    return sorted(set(re.findall(r"^  (?:-\w, |    )(--[a-z][a-z-]*)", text, re.M)))


def main():
    res = testlib.Results()
    top = out("--help")
    commands = re.findall(r"^  (\w+) ", top.split("commands:", 1)[1].split("\n\n", 1)[0], re.M)
    expect(res, [""], commands + sorted(os.listdir(ROOT)))
    expect(res, ["r"], [c for c in commands if c.startswith("r")] +
           [f for f in os.listdir(ROOT) if f.startswith("r")])
    # every option of each command's --help, as the command parses them
    for cmd in [None] + commands:
        words = ([cmd] if cmd else []) + ["--"]
        longs = help_longs(cmd)
        res.check("options of %s" % (cmd or "opscope"),
                  [] if len(longs) > 3 else ["--help lists %r" % longs])
        expect(res, words, longs)
    expect(res, ["report", "--b"], ["--bins", "--by"])
    expect(res, ["report", "--scale", ""], ["auto", "linear", "log"])
    expect(res, ["report", "--measure", "d"], ["device"])
    # levels: those a bad --by lists as valid
    m = re.search(r"valid: ([^)]*)", out("report", "--by", "nosuch"))
    levels = m.group(1).split(", ") if m else ["<no list>"]
    expect(res, ["report", "--by", ""], levels)
    expect(res, ["diff", "-b", "k"], [x for x in levels if x.startswith("k")])
    expect(res, ["report", "--by", "=", ""], levels)  # bash splits words at '='
    expect(res, ["report", "--by=s"], ["--by=" + x for x in levels if x.startswith("s")])
    # formats per command, from the value the command accepts
    expect(res, ["report", "--format", ""], ["table", "csv", "tsv", "json", "markdown"])
    expect(res, ["info", "-F", ""], ["text", "json"])
    expect(res, ["tree", "--format", "j"], ["json"])
    expect(res, ["diff", "--match", ""], ["name", "shape", "occurrence"])
    # columns of the level given before, accepted by --sort
    cols = out("--complete-columns", "kernel").split()
    res.check("--complete-columns kernel", [] if "total_us" in cols and "name" in cols
              else ["got %r" % cols])
    for col in ("total_us", "device_pct"):
        p = testlib.run(["report", "--by", "kernel", "--sort", col, "--format", "csv",
                         testlib.sample("ort-cnn-opt.json")])
        res.check("report --by kernel --sort %s is accepted" % col,
                  [] if p.rc == 0 else [p.describe()])
    expect(res, ["report", "-b", "kernel", "--sort", "tot"],
           [c for c in cols if c.startswith("tot")])
    op_cols = out("--complete-columns", "op").split()
    expect(res, ["report", "--columns", "name,self_p"],
           ["name," + c for c in op_cols if c.startswith("self_p")])
    p = testlib.run(["--complete-columns", "nosuch"])
    res.check("--complete-columns nosuch: one line, exit 2",
              [] if p.rc == 2 and len(p.err_lines) == 1 else [p.describe()])
    # files for TRACE and FILE arguments
    expect(res, ["report", "samples/ort-c"],
           ["samples/" + f for f in os.listdir(os.path.join(ROOT, "samples"))
            if f.startswith("ort-c")])
    expect(res, ["report", "-o", "samples/ort-c"],
           ["samples/" + f for f in os.listdir(os.path.join(ROOT, "samples"))
            if f.startswith("ort-c")])
    expect(res, ["report", "--top", ""], [])
    if shutil.which("zsh"):
        p = subprocess.run(["zsh", "-n", ZSH], capture_output=True, text=True)
        res.check("zsh -n _opscope", [] if p.returncode == 0 else [p.stderr.strip()])
        for words, want in ((["report", "--by", ""], levels), (["info", "-F", ""],
                                                                 ["text", "json"]),
                            (["report", "-b", "kernel", "--sort", ""], cols),
                            (["re"], commands + ["<files>"])):
            got = zsh_complete(words)
            res.check("zsh: complete %r" % " ".join(words),
                      [] if got == sorted(want) else ["got %r, want %r" % (got, sorted(want))])
    else:
        res.skip("zsh _opscope", "zsh is not installed")
    meson = open(os.path.join(ROOT, "meson.build"), encoding="utf-8").read()
    res.check("meson.build installs both completions",
              [] if "completions/opscope.bash" in meson and "completions/_opscope" in meson
              and "site-functions" in meson else ["install_data missing"])
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
