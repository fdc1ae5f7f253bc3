#!/usr/bin/env python3
"""Put the TUI key table (from opscope-keys-man) into man/opscope.1 between
the KEYS-BEGIN and KEYS-END markers.

usage: gen_man_keys.py BUILD_DIR
"""
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def main():
    exe = os.path.join(sys.argv[1], "src", "tui", "opscope-keys-man")
    table = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
    man = os.path.join(ROOT, "man", "opscope.1")
    text = open(man, encoding="utf-8").read()
    new, n = re.subn(r'(^\.\\" KEYS-BEGIN\n).*?(^\.\\" KEYS-END\n)',
                     lambda m: m.group(1) + table + m.group(2), text, flags=re.S | re.M)
    if n != 1:
        sys.exit("man/opscope.1: no KEYS-BEGIN/KEYS-END markers")
    with open(man, "w", encoding="utf-8") as f:
        f.write(new)


if __name__ == "__main__":
    main()
