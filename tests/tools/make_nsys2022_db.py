#!/usr/bin/env python3
"""Write a small Nsight Systems 2022 style SQLite export, synthetic.

No nsys 2022 export is in ../shared/traces. Those exports record each CUDA
API call twice: two rows of CUPTI_ACTIVITY_KIND_RUNTIME with the same
correlationId. This database has the tables and columns opscope's nsys
loader reads (StringIds, CUPTI_ACTIVITY_KIND_RUNTIME / _KERNEL / _MEMCPY,
NVTX_EVENTS, ThreadNames, META_DATA_EXPORT) and a small inference loop:
NVTX "step" ranges (three unless asked), each with push/pop op ranges whose
runtime calls launch kernels or copies. Every call with a correlation id is written twice;
the repeat row is shorter, as long, or longer than the first (cycling), so
a reader must pick one row per call. One cudaGetLastError per step has no
correlation id (written once). Deterministic: no randomness.

    make_nsys2022_db.py PATH [STEPS]

make(path) returns what a reader counting each call once must find:
{"calls": ..., "rows": ..., "repeats": ..., "kernels": ..., "memcpys": ...,
 "launch_ns": {op name: total ns of the kept call rows inside it}}.
"""
import os
import sqlite3
import sys

PID, TID = 31337, 31340
GTID = (1 << 48) | (PID << 24) | TID  # nsys's serialized globalTid

STRINGS = ["cudaLaunchKernel_v7000", "cudaMemcpyAsync_v3020", "cudaGetLastError_v3020",
           "step", "aten::linear", "aten::relu", "aten::copy_",
           "void gemm_kernel<float>(float const*, float*, int)", "gemm_kernel",
           "void relu_kernel<float>(float*, int)", "relu_kernel", "python"]
SID = {s: i + 1 for i, s in enumerate(STRINGS)}

# op name, its calls: ("kernel", demangled, short) or ("memcpy",)
OPS = [
    ("aten::copy_", [("memcpy",)]),
    ("aten::linear", [("kernel", STRINGS[7], STRINGS[8]), ("kernel", STRINGS[7], STRINGS[8])]),
    ("aten::relu", [("kernel", STRINGS[9], STRINGS[10])]),
]

SCHEMA = """
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER,
  nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL,
  shortName INTEGER NOT NULL, mangledName INTEGER, launchType INTEGER,
  cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL,
  gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL,
  blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL,
  dynamicSharedMemory INTEGER NOT NULL, localMemoryPerThread INTEGER NOT NULL,
  localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL,
  sharedMemoryExecuted INTEGER, graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL,
  copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER,
  srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER,
  migrationCause INTEGER, graphNodeId INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
  rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
  endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, uint64Value INTEGER,
  int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER,
  floatValue REAL, jsonTextId INTEGER, jsonText TEXT);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
"""

PUSH_POP = 59  # NvtxPushPopRange in ENUM_NSYS_EVENT_TYPE


class Writer:
    def __init__(self, db):
        self.db = db
        self.corr = 100
        self.nth = 0
        self.out = {"calls": 0, "rows": 0, "repeats": 0, "kernels": 0, "memcpys": 0,
                    "launch_ns": {}}

    def call(self, op, name, start, dur, corr):
        """One API call: a row, and for a correlation id its repeat row."""
        rows = [(start, start + dur)]
        if corr is not None:
            shift = self.nth % 3  # repeat shorter, as long, longer
            self.nth += 1
            rows.append([(start + 1, start + dur - 1), (start, start + dur),
                         (start - 1, start + dur + 2)][shift])
            self.out["repeats"] += 1
        for s, e in rows:
            self.db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES"
                            " (?, ?, 1, ?, ?, ?, 0, NULL)", (s, e, GTID, corr, SID[name]))
        self.out["rows"] += len(rows)
        self.out["calls"] += 1
        kept = max(e - s for s, e in rows)
        self.out["launch_ns"][op] = self.out["launch_ns"].get(op, 0) + kept

    def op(self, name, calls, t):
        start = t
        t += 2000
        for c in calls:
            self.corr += 1
            if c[0] == "kernel":
                self.call(name, "cudaLaunchKernel_v7000", t, 3000, self.corr)
                self.db.execute(
                    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, 7, ?, ?, ?, ?,"
                    " NULL, 0, 0, 32, 64, 1, 1, 256, 1, 1, 0, 1024, 0, 0, ?, NULL, NULL, NULL)",
                    (t + 5000, t + 9000 + 500 * (self.corr % 4), self.corr, PID << 24,
                     SID[c[1]], SID[c[2]], self.corr))
                self.out["kernels"] += 1
            else:
                self.call(name, "cudaMemcpyAsync_v3020", t, 4000, self.corr)
                self.db.execute(
                    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, 0, 1, 7, ?, ?, 4096,"
                    " 1, NULL, 0, 1, 0, 1, 0, 1, 0, NULL)",
                    (t + 4500, t + 6000, self.corr, PID << 24))
                self.out["memcpys"] += 1
            t += 6000
        self.db.execute("INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, textId,"
                        " domainId) VALUES (?, ?, ?, ?, ?, 0)",
                        (start, t, PUSH_POP, GTID, SID[name]))
        return t + 1000


def make(path, steps=3):
    if os.path.exists(path):
        os.unlink(path)
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    db.executemany("INSERT INTO StringIds VALUES (?, ?)", [(i, s) for s, i in SID.items()])
    db.execute("INSERT INTO ThreadNames VALUES (?, 0, ?)", (SID["python"], GTID))
    db.executemany("INSERT INTO META_DATA_EXPORT VALUES (?, ?)",
                   [("EXPORT_PRODUCT_NAME", "Nsight Systems"),
                    ("EXPORT_PRODUCT_VERSION", "2022 (synthetic)")])
    w = Writer(db)
    t = 1000000
    for _ in range(steps):
        start = t
        t += 1000
        for name, calls in OPS:
            t = w.op(name, calls, t)
        w.call("step", "cudaGetLastError_v3020", t, 500, None)
        t += 1500
        db.execute("INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, textId,"
                   " domainId) VALUES (?, ?, ?, ?, ?, 0)", (start, t, PUSH_POP, GTID, SID["step"]))
        t += 10000
    db.commit()
    db.close()
    return w.out


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: make_nsys2022_db.py PATH [STEPS]")
    print(make(sys.argv[1], *map(int, sys.argv[2:])))
