#!/usr/bin/env python3
"""Grow a job of ranks from real rank traces, for the job tests.

    make_ranks.py OUTDIR TRACE0 TRACE1

writes four ranks into OUTDIR, each a copy of TRACE0 or TRACE1 (Kineto,
gzip or plain) whose rank is said in a different way:
- rank0.json: TRACE0, distributedInfo rank 0 of 4;
- worker_1.json: TRACE1 without distributedInfo (rank from the file name);
- trace-rank-2.json.gz: TRACE0, distributedInfo rank 2 of 4, and every
  compute kernel (not NCCL) 3 times as long: a straggler;
- rank3.json: TRACE1, distributedInfo rank 3 of 4;
plus notes.txt (not a trace: a directory's other files are skipped).
Standard library only; deterministic.
"""
import gzip
import json
import os
import sys


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return json.loads(data)


def with_rank(doc, rank, world):
    doc = json.loads(json.dumps(doc))
    if rank is None:
        doc.pop("distributedInfo", None)
    else:
        info = dict(doc.get("distributedInfo") or {})
        info.update({"rank": rank, "world_size": world})
        doc["distributedInfo"] = info
    return doc


def slower(doc, factor):
    """Compute kernels factor times longer (start kept): the rank does more work."""
    for e in doc["traceEvents"]:
        if e.get("cat") == "kernel" and "nccl" not in str(e.get("name", "")).lower():
            e["dur"] = int(round(float(e["dur"]) * factor))
    return doc


def write(path, doc):
    data = json.dumps(doc).encode()
    if path.endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    with open(path, "wb") as f:
        f.write(data)


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    out, a, b = argv[1], read(argv[2]), read(argv[3])
    os.makedirs(out, exist_ok=True)
    write(os.path.join(out, "rank0.json"), with_rank(a, 0, 4))
    write(os.path.join(out, "worker_1.json"), with_rank(b, None, None))
    write(os.path.join(out, "trace-rank-2.json.gz"), slower(with_rank(a, 2, 4), 3.0))
    write(os.path.join(out, "rank3.json"), with_rank(b, 3, 4))
    with open(os.path.join(out, "notes.txt"), "w") as f:
        f.write("not a trace\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
