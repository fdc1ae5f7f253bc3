#!/usr/bin/env python3
"""Make tests/data/kineto-mangled.json: a tiny Kineto trace with mangled
(_Z...) kernel names, for the demangling tests (no sample has any).

Made from real events of ../shared/traces/tracelens/sglang_decode/
sglang_Qwen3-8B_decode.json.gz (AMD-AGI/TraceLens, MIT): its hipGraphLaunch
runtime call and the kernels of that graph replay (mangled and demangled
names, durations and args as recorded), keeping the first KEEP kernels that
cover every mangled name. The host op around the launch is synthetic: the
slice has none (graph replays launch from Python).

    make_kineto_mangled.py [SHARED_TRACES_DIR]
"""
import gzip
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = "tracelens/sglang_decode/sglang_Qwen3-8B_decode.json.gz"
OUT = os.path.join(HERE, "..", "data", "kineto-mangled.json")
KEEP = 24


def main():
    shared = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "..",
                                                                 "shared", "traces")
    with gzip.open(os.path.join(shared, SRC), "rt") as f:
        doc = json.load(f)
    ev = doc["traceEvents"]
    launch = next(e for e in ev if e.get("cat") == "cuda_runtime" and
                  e["name"] == "hipGraphLaunch" and e["args"]["correlation"] == 92178)
    kernels = sorted((e for e in ev if e.get("cat") == "kernel" and
                      e["args"].get("correlation") == 92178), key=lambda e: e["ts"])
    mangled = {e["name"] for e in kernels if e["name"].startswith("_Z")}
    keep, seen = [], set()
    for k in kernels:
        if len(keep) < KEEP or (k["name"].startswith("_Z") and k["name"] not in seen):
            keep.append(k)
            seen.add(k["name"])
        if len(keep) >= KEEP and seen >= mangled:
            break
    op = {"ph": "X", "cat": "cpu_op", "name": "sglang::graph_replay", "pid": launch["pid"],
          "tid": launch["tid"], "ts": round(launch["ts"] - 5.0, 3),
          "dur": round(launch["dur"] + 10.0, 3), "args": {"External id": 1}}
    out = {"schemaVersion": 1, "traceEvents": [op, launch] + keep}
    with open(OUT, "w") as f:
        json.dump(out, f, indent=0)
        f.write("\n")
    print("%s: %d kernels, %d mangled names" % (OUT, len(keep), len(mangled)))


if __name__ == "__main__":
    main()
