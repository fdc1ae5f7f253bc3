#!/usr/bin/env python3
"""The configuration file: ~/.config/opscope/config and its siblings.

Each setting changes the CLI's output exactly as its option would (level as
--by, sort as --sort where the level has the column, names as --short-names
or --no-demangle in report, tree and explore); options on the command line
win; the file is found through OPSCOPE_CONFIG, else $XDG_CONFIG_HOME, else
$HOME/.config; --no-config ignores it. Every mistake is one line naming the
file and line, exit 2. (The explorer's settings: bind, mouse, color, and
level, sort and names there, are tested in tests/tui/run_tui_tests.py.)
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testlib  # noqa: E402

ORT = "samples/kineto-sampled-rank0.json.gz"
MANGLED = "tests/data/kineto-mangled.json"


def main():
    res = testlib.Results()
    d = tempfile.mkdtemp(prefix="opscope-config-")
    cfg = os.path.join(d, "config")

    def write(text, path=cfg):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def run(args, **env):
        env.setdefault("OPSCOPE_CONFIG", cfg)
        return testlib.run(args, **env)

    def same(name, args, plain_args, **env):
        """args with the configuration print what plain_args print without one."""
        a = run(args, **env)
        b = testlib.run(plain_args[:1] + ["--no-config"] + plain_args[1:])
        res.check(name, [] if a.rc == 0 and a.out == b.out and a.out else
                  ["config %s, options %s" % (a.describe(), b.describe())])

    def differs(name, args, plain_args, **env):
        a = run(args, **env)
        b = testlib.run(plain_args[:1] + ["--no-config"] + plain_args[1:])
        res.check(name, [] if a.rc == 0 and b.rc == 0 and a.out != b.out else
                  ["the configuration changed nothing: " + a.describe()])

    csv = ["report", "-F", "csv"]
    write("# defaults\n\nlevel = kernel\n")
    same("level = kernel is --by kernel", csv + [ORT], csv + ["--by", "kernel", ORT])
    same("--by wins over level", csv + ["--by", "op", ORT], csv + ["--by", "op", ORT])
    same("--no-config ignores it", csv + ["--no-config", ORT], csv + [ORT])
    differs("the level changes the report", csv + [ORT], csv + [ORT])
    write("sort = count\n")
    same("sort = count is --sort count", csv + [ORT], csv + ["--sort", "count", ORT])
    same("--sort wins over sort", csv + ["--sort", "total", ORT],
         csv + ["--sort", "total", ORT])
    same("sort is skipped where the level lacks it (run)", csv + ["--by", "run", ORT],
         csv + ["--by", "run", ORT])
    differs("the sort changes the report", csv + [ORT], csv + [ORT])
    write("names = short\n")
    same("names = short is --short-names (report)", csv + ["--by", "kernel", MANGLED],
         csv + ["--by", "kernel", "--short-names", MANGLED])
    same("names = short is --short-names (kernels)", ["kernels", "-F", "csv", MANGLED],
         ["kernels", "-F", "csv", "--short-names", MANGLED])
    write("names = mangled\n")
    same("names = mangled is --no-demangle (tree)", ["tree", "-F", "csv", MANGLED],
         ["tree", "-F", "csv", "--no-demangle", MANGLED])
    differs("names changes the tree", ["tree", "-F", "csv", MANGLED],
            ["tree", "-F", "csv", MANGLED])
    # where the file is looked for
    xdg = os.path.join(d, "xdg")
    write("level = shape\n", os.path.join(xdg, "opscope", "config"))
    same("$XDG_CONFIG_HOME/opscope/config", csv + [ORT], csv + ["--by", "shape", ORT],
         OPSCOPE_CONFIG=None, XDG_CONFIG_HOME=xdg)
    home = os.path.join(d, "home")
    write("level = run\n", os.path.join(home, ".config", "opscope", "config"))
    same("$HOME/.config/opscope/config", csv + [ORT], csv + ["--by", "run", ORT],
         OPSCOPE_CONFIG=None, XDG_CONFIG_HOME=None, HOME=home)
    write("level = kernel\n")
    same("OPSCOPE_CONFIG wins over XDG_CONFIG_HOME", csv + [ORT],
         csv + ["--by", "kernel", ORT], XDG_CONFIG_HOME=xdg)
    same("no file is no error", csv + [ORT], csv + [ORT], OPSCOPE_CONFIG=None,
         XDG_CONFIG_HOME=os.path.join(d, "none"))
    for name in ("info", "gpu", "explore", "tree", "kernels", "diff", "whatif", "report"):
        p = run([name, "--no-config", "--help"], OPSCOPE_CONFIG=os.path.join(d, "missing"))
        res.check("%s takes --no-config (and reads no file)" % name,
                  [] if p.rc == 0 and b"--no-config" in p.out else [p.describe()])
    # mistakes: one line, the file and line, exit 2
    for text, line, what in (
            ("level = kernal\n", 1, "level: unknown level 'kernal' (did you mean kernel? "
             "valid: op, shape,"),
            ("# c\nlevel = op\nsort = selff\n", 3, "sort: no level has a column 'selff'"),
            ("names = pretty\n", 1, "names: 'pretty' is not demangled, short or mangled"),
            ("color = maybe\n", 1, "color: 'maybe' is not on or off"),
            ("mouse = 1\n", 1, "mouse: '1' is not on or off"),
            ("levle = op\n", 1, "unknown setting 'levle' (settings: level, sort,"),
            ("\nlevel\n", 2, "expected 'NAME = VALUE' or 'bind KEY ACTION', not 'level'"),
            ("bind <Foo> quit\n", 1, "bind: not a key: '<Foo>'"),
            ("bind q\n", 1, "expected 'bind KEY ACTION'"),
            ("bind q leave\n", 1, "bind: unknown action 'leave'")):
        write(text)
        p = run(csv + [ORT])
        want = "opscope: %s:%d: %s" % (cfg, line, what)
        res.check("error: %s" % what, [] if p.rc == 2 and len(p.err_lines) == 1 and
                  p.err_lines[0].startswith(want) and not p.out else
                  ["%s, want %r" % (p.describe(), want)])
    p = run(csv + [ORT], OPSCOPE_CONFIG=os.path.join(d, "missing"))
    res.check("a missing OPSCOPE_CONFIG is an error",
              [] if p.rc == 2 and len(p.err_lines) == 1 and
              "(named by OPSCOPE_CONFIG)" in p.err_lines[0] else [p.describe()])
    shutil.rmtree(d, ignore_errors=True)
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
