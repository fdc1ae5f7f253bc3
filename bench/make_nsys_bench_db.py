#!/usr/bin/env python3
"""Write a large Nsight Systems-shaped SQLite export for bench/sqlite.sh.

    make_nsys_bench_db.py PATH [KERNELS]

KERNELS kernels (default 1,000,000) on 4 streams, each launched by a
cudaLaunchKernel recorded twice (nsys 2022's repeat rows), plus one
unpaired cudaGetLastError per 5 kernels: 2.4 runtime rows per kernel, as in
issue 19's 196 MB export. One NVTX push/pop range per 10 kernels, 8 host
threads, 200 kernel names. Deterministic; the schema is
tests/tools/make_nsys2022_db.py's.
"""
import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "tools"))
from make_nsys2022_db import SCHEMA, PUSH_POP  # noqa: E402

PID = 4242
THREADS = 8
NAMES = 200


def rows(kernels):
    """(runtime rows, kernel rows, nvtx rows) generators sharing one clock."""
    rt, kr, nv = [], [], []
    t = 1000000
    for i in range(kernels):
        gtid = (PID << 24) | (PID + i % THREADS)
        corr = 1000 + i
        name = 10 + i % NAMES
        rt.append((t, t + 3000, gtid, corr, 1))
        rt.append((t + 1, t + 2999 + i % 3, gtid, corr, 1))
        if i % 5 == 0:
            rt.append((t + 3100, t + 3400, gtid, None, 2))
        kr.append((t + 5000, t + 9000 + 7 * (i % 50), i % 4 + 7, corr, PID << 24,
                   name, name + NAMES, 32 + i % 64, 64 + i % 7, 1 + i % 2, 1, 256, 1, 1,
                   i % 2 * 1024, 512, corr))
        if i % 10 == 0:
            nv.append((t - 500, t + 60000, PUSH_POP, gtid, 3 + i % 5))
        t += 4000 + i % 17
    return rt, kr, nv


def make(path, kernels):
    if os.path.exists(path):
        os.unlink(path)
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode = OFF")
    db.execute("PRAGMA synchronous = OFF")
    db.executescript(SCHEMA)
    strings = [(1, "cudaLaunchKernel_v7000"), (2, "cudaGetLastError_v3020")]
    strings += [(3 + i, "nvtx_range_%d" % i) for i in range(5)]
    strings += [(10 + i, "void bench_kernel_%d<float>(float const*, float*, int)" % i)
                for i in range(NAMES)]
    strings += [(10 + NAMES + i, "bench_kernel_%d" % i) for i in range(NAMES)]
    strings += [(10 + 2 * NAMES + i, "worker-%d" % i) for i in range(THREADS)]
    db.executemany("INSERT INTO StringIds VALUES (?, ?)", strings)
    db.executemany("INSERT INTO ThreadNames VALUES (?, 0, ?)",
                   [(10 + 2 * NAMES + i, (PID << 24) | (PID + i)) for i in range(THREADS)])
    db.executemany("INSERT INTO META_DATA_EXPORT VALUES (?, ?)",
                   [("EXPORT_PRODUCT_NAME", "Nsight Systems"),
                    ("EXPORT_PRODUCT_VERSION", "bench (synthetic)")])
    rt, kr, nv = rows(kernels)
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 1, ?, ?, ?, 0, NULL)", rt)
    db.executemany(
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, NULL, 0, 0,"
        " ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, NULL, NULL, NULL)",
        [(s, e, 0, st, c, gp, dn, sn, reg, gx, gy, gz, bx, by, bz, ssm, dsm, gid)
         for s, e, st, c, gp, dn, sn, reg, gx, gy, gz, bx, by, bz, ssm, dsm, gid in kr])
    db.executemany("INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, textId,"
                   " domainId) VALUES (?, ?, ?, ?, ?, 0)", nv)
    db.commit()
    db.close()


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: make_nsys_bench_db.py PATH [KERNELS]")
    make(sys.argv[1], int(sys.argv[2]) if len(sys.argv) == 3 else 1000000)
